import Stowage

// The article's `Transaction`, exactly as its SwiftData version. The inverse keeps both sides in step:
// `budget.addTransaction(transaction)` sets `transaction.budget`, and `transaction.budget = budget`
// appends to `budget.transactions`.

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
