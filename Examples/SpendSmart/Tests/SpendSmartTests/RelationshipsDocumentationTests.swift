import Foundation
import Stowage
import Testing

// The documentation's relationship example (the "Relationships" article, whose code is the snippet
// Snippets/BudgetsAndTransactions.swift), run with a temporary store and its results checked.

enum RelationshipsDocumentation {
    // Example model: begin
    @Model
    final class Budget {

        var name: String
        var limit: Double

        @Relationship(deleteRule: .cascade)
        var transactions: [Transaction] = []

        init(name: String, limit: Double) {
            self.name = name
            self.limit = limit
        }

        func addTransaction(_ transaction: Transaction) {
            // add business domain rules here
            self.transactions.append(transaction)
        }

        var total: Double {
            transactions.reduce(0) { $0 + $1.amount }
        }
    }

    @Model
    final class Transaction {
        var note: String
        var amount: Double
        var date: Date
        var hasReceipt: Bool = false

        @Relationship(inverse: \Budget.transactions)
        var budget: Budget?

        init(note: String, amount: Double, date: Date, hasReceipt: Bool = false) {
            self.note = note
            self.amount = amount
            self.date = date
            self.hasReceipt = hasReceipt
        }
    }
    // Example model: end
}

@Suite struct RelationshipsDocumentationTests {
    typealias Budget = RelationshipsDocumentation.Budget
    typealias Transaction = RelationshipsDocumentation.Transaction

    @Test func theRelationshipsExampleRuns() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        let storeURL = URL(fileURLWithPath: directory.path("budgets.store"))

        // Example code: begin
        let container = try ModelContainer(for: Budget.self, configurations: ModelConfiguration(url: storeURL))
        let context = ModelContext(container)

        let groceries = Budget(name: "Groceries", limit: 500)
        groceries.addTransaction(Transaction(note: "Milk", amount: 4.50, date: .now))   // not inserted yet: fine
        groceries.addTransaction(Transaction(note: "Vegetables", amount: 23.75, date: .now))
        context.insert(groceries)                  // inserts its transactions too

        let cheese = Transaction(note: "Cheese", amount: 12, date: .now)
        cheese.budget = groceries                  // appends to groceries.transactions
        try context.save()

        print(groceries.transactions.map(\.note), groceries.total)

        context.delete(groceries)
        try context.save()                         // the cascade deletes the three transactions
        print(try context.fetchCount(FetchDescriptor<Transaction>()))
        // Example code: end

        #expect(printed == ["[\"Milk\", \"Vegetables\", \"Cheese\"] 40.25", "0"])
    }

    /// The documentation says observation fires on both sides of a relationship, whichever side changes.
    @Test func observationFiresOnBothSides() {
        let budget = Budget(name: "Groceries", limit: 500)
        let milk = Transaction(note: "Milk", amount: 4.5, date: .now)
        let transactionsChanged = Flag()
        withObservationTracking { _ = budget.transactions } onChange: { transactionsChanged.raise() }
        milk.budget = budget
        #expect(transactionsChanged.isRaised)

        let bread = Transaction(note: "Bread", amount: 3, date: .now)
        let budgetChanged = Flag()
        withObservationTracking { _ = bread.budget } onChange: { budgetChanged.raise() }
        budget.addTransaction(bread)
        #expect(budgetChanged.isRaised)
    }
}

/// A flag an observation's `onChange` raises (it may run on any thread).
final class Flag: @unchecked Sendable {
    // @unchecked Sendable: `raised` is only read and written under `lock`.
    private let lock = NSLock()
    private var raised = false
    func raise() { lock.withLock { raised = true } }
    var isRaised: Bool { lock.withLock { raised } }
}
