// snippet.hide
// Testing and previews: in-memory containers, sample data.
import Stowage

@Model
final class Budget {
    var name: String
    var limit: Double
    @Relationship(deleteRule: .cascade, inverse: \Transaction.budget)
    var transactions: [Transaction] = []

    init(name: String, limit: Double) {
        self.name = name
        self.limit = limit
    }

    var total: Double { transactions.reduce(0) { $0 + $1.amount } }
}

@Model
final class Transaction {
    var note: String
    var amount: Double
    var budget: Budget?

    init(note: String, amount: Double) {
        self.note = note
        self.amount = amount
    }
}

// snippet.show
// snippet.sampleData
@MainActor
enum SampleData {
    static var budgets: [Budget] {
        [Budget(name: "Groceries", limit: 500), Budget(name: "Vacation", limit: 2000), Budget(name: "Books", limit: 75)]
    }

    /// An in-memory container with sample budgets, each with a transaction: what previews and tests start from.
    static func previewContainer() throws -> ModelContainer {
        let container = try ModelContainer(for: Budget.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        for (index, budget) in budgets.enumerated() {
            container.mainContext.insert(budget)
            budget.transactions.append(Transaction(note: "Note \(index + 1)", amount: Double(index) * 10))
        }
        return container
    }
}
// snippet.end
// snippet.test
@MainActor func budgetsOverTheirLimitAreFound() throws {
    let context = try SampleData.previewContainer().mainContext    // a new store for each test
    let books = try context.fetch(FetchDescriptor<Budget>(predicate: #Predicate { $0.name == "Books" }))[0]
    books.transactions.append(Transaction(note: "Atlas", amount: 90))
    try context.save()

    let over = try context.fetch(FetchDescriptor<Budget>()).filter { $0.total > $0.limit }
    precondition(over.map(\.name) == ["Books"])                      // #expect(…) in a test target
}
// snippet.end
// snippet.hide
try await MainActor.run { try budgetsOverTheirLimitAreFound() }
