import Stowage

// The article's Budget (the newest version's class, `SpendTrackerSchemaV2.Budget`, see
// SpendTrackerSchema.swift), with the queries and business rules the article adds to it.

extension Budget {
    static var all: FetchDescriptor<Budget> {
        FetchDescriptor(sortBy: [SortDescriptor(\Budget.name, order: .reverse)])
    }

    func addTransaction(_ transaction: Transaction) {
        // add business domain rules here
        self.transactions.append(transaction)
    }

    /// The sum of the budget's transactions.
    var total: Double {
        transactions.reduce(0) { $0 + $1.amount }
    }
}

// The app's other queries live next to the article's `all`, as the article recommends for queries
// reused across the app.
extension Budget {
    /// The budgets whose limit is over `amount`, largest limit first.
    ///
    /// The predicate runs in SQLite (`WHERE "limit" > ?`, `amount` bound as a parameter).
    static func over(_ amount: Double) -> FetchDescriptor<Budget> {
        FetchDescriptor(
            predicate: #Predicate { $0.limit > amount },
            sortBy: [SortDescriptor(\Budget.limit, order: .reverse), SortDescriptor(\Budget.name)])
    }

    /// The budgets called exactly `name`.
    static func named(_ name: String) -> FetchDescriptor<Budget> {
        FetchDescriptor(predicate: #Predicate { $0.name == name })
    }

    /// What is left to spend: the limit minus the total, negative when the budget is overspent.
    var remaining: Double {
        limit - total
    }
}
