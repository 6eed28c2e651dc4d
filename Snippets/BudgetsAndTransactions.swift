// snippet.hide
// Relationships: SpendSmart's Budget and Transaction, one budget with many transactions.
// snippet.show
// snippet.models
import Stowage
// snippet.hide

/// A check of what the article says, run by .ci/docs (a `precondition` cannot hold `try` or `await`).
func expect(_ condition: Bool, _ message: @autoclosure () -> String = "", line: Int = #line) {
    if !condition { fatalError("line \(line): \(message())") }
}
// snippet.show

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
// snippet.end

// snippet.usage
let container = try ModelContainer(for: Budget.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: "budgets.store")))
let context = ModelContext(container)

let groceries = Budget(name: "Groceries", limit: 500)
groceries.addTransaction(Transaction(note: "Milk", amount: 4.50, date: .now))   // not inserted yet: fine
groceries.addTransaction(Transaction(note: "Vegetables", amount: 23.75, date: .now))
context.insert(groceries)                  // inserts its transactions too

let cheese = Transaction(note: "Cheese", amount: 12, date: .now)
cheese.budget = groceries                  // appends to groceries.transactions
try context.save()

print(groceries.transactions.map(\.note), groceries.total)
// snippet.hide
precondition(groceries.transactions.map(\.note) == ["Milk", "Vegetables", "Cheese"] && groceries.total == 40.25)
// snippet.show

context.delete(groceries)
try context.save()                         // the cascade deletes the three transactions
print(try context.fetchCount(FetchDescriptor<Transaction>()))
// snippet.end
// snippet.hide
expect(try context.fetchCount(FetchDescriptor<Transaction>()) == 0)

// The domain test of the SpendSmart article: no container needed.
// snippet.show
// snippet.domainTest
let budget = Budget(name: "Vacation", limit: 500)
budget.addTransaction(Transaction(note: "Hotel", amount: 150, date: .now))
budget.addTransaction(Transaction(note: "Train", amount: 60, date: .now))
budget.addTransaction(Transaction(note: "Museum", amount: 40, date: .now))
precondition(budget.total == 250)          // a plain object until it is inserted
// snippet.end
