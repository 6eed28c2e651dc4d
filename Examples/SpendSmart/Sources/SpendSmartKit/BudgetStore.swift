import Foundation
import Stowage

/// The app's operations on budgets, over any `ModelContext`: a file store in the app, an in-memory
/// container in tests.
///
/// Each change is saved before the method returns; when the save fails, the context's changes are
/// rolled back and the error is rethrown as a ``SpendSmartError``. Budget names are unique: ``add(name:limit:)``
/// and ``rename(_:to:)`` refuse a name that is taken. A budget's transactions belong to it: deleting the
/// budget deletes them (the `.cascade` delete rule of `Budget.transactions`).
struct BudgetStore {
    let context: ModelContext

    init(context: ModelContext) {
        self.context = context
    }

    /// Every budget, in the order of the article's `Budget.all` (names Z to A), with its transactions
    /// loaded.
    func all() throws -> [Budget] {
        try fetch(Self.withTransactions(Budget.all))
    }

    /// The budgets whose limit is over `amount`, largest first, with their transactions loaded.
    func budgets(over amount: Double) throws -> [Budget] {
        try fetch(Self.withTransactions(Budget.over(amount)))
    }

    /// The budget called `name`.
    ///
    /// - Throws: ``SpendSmartError`` `.unknownBudget` when no budget has that name.
    func budget(named name: String) throws -> Budget {
        guard let budget = try fetch(Budget.named(name)).first else { throw SpendSmartError.unknownBudget(name) }
        return budget
    }

    /// How many transactions the store holds, over every budget.
    func transactionCount() throws -> Int {
        do {
            return try context.fetchCount(FetchDescriptor<Transaction>())
        } catch {
            throw SpendSmartError.store("read", error)
        }
    }

    /// Creates and saves a budget.
    ///
    /// - Throws: ``SpendSmartError`` `.invalidName` for an empty name, `.invalidAmount` for a limit
    ///   that is not positive, `.duplicateBudget` when the name is taken, `.store` when saving fails.
    @discardableResult
    func add(name: String, limit: Double) throws -> Budget {
        let name = try Self.validName(name)
        guard limit.isFinite, limit > 0 else {
            throw SpendSmartError(.invalidAmount, "a budget's limit must be more than 0 (got \(Amount.format(limit))).")
        }
        guard try fetch(Budget.named(name)).isEmpty else { throw SpendSmartError.duplicateBudget(name) }
        let budget = Budget(name: name, limit: limit)
        context.insert(budget)
        try save()
        return budget
    }

    /// Renames the budget called `name`.
    ///
    /// - Throws: ``SpendSmartError`` `.unknownBudget` when no budget has that name, `.duplicateBudget`
    ///   when `newName` is taken by another budget, `.invalidName` for an empty name, `.store` when
    ///   saving fails.
    @discardableResult
    func rename(_ name: String, to newName: String) throws -> Budget {
        let newName = try Self.validName(newName)
        guard let budget = try fetch(Budget.named(name)).first else { throw SpendSmartError.unknownBudget(name) }
        guard newName != name else { return budget }
        guard try fetch(Budget.named(newName)).isEmpty else { throw SpendSmartError.duplicateBudget(newName) }
        budget.name = newName
        try save()
        return budget
    }

    /// Records a transaction of `amount` on the budget called `budgetName`, at the end of its
    /// transactions, through the article's `Budget.addTransaction(_:)`.
    ///
    /// - Throws: ``SpendSmartError`` `.invalidAmount` for an amount that is not positive,
    ///   `.invalidNote` for a blank note, `.unknownBudget` when no budget has that name, `.store` when
    ///   saving fails.
    @discardableResult
    func spend(_ amount: Double, on note: String, from budgetName: String, date: Date = Date()) throws -> Transaction {
        guard amount.isFinite, amount > 0 else {
            throw SpendSmartError(.invalidAmount, "an amount spent must be more than 0 (got \(Amount.format(amount))).")
        }
        let note = note.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !note.isEmpty else { throw SpendSmartError(.invalidNote, "a transaction needs a note that is not blank.") }
        let budget = try budget(named: budgetName)
        let transaction = Transaction(note: note, amount: amount, date: date)
        budget.addTransaction(transaction)
        try save()
        return transaction
    }

    /// Deletes the budget called `name` and, by the cascade delete rule, its transactions.
    ///
    /// - Returns: How many transactions were deleted with the budget.
    /// - Throws: ``SpendSmartError`` `.unknownBudget` when no budget has that name, `.store` when saving
    ///   fails.
    @discardableResult
    func delete(_ name: String) throws -> Int {
        let budgets = try fetch(Self.withTransactions(Budget.named(name)))
        guard !budgets.isEmpty else { throw SpendSmartError.unknownBudget(name) }
        let transactions = budgets.reduce(0) { $0 + $1.transactions.count }
        for budget in budgets { context.delete(budget) }
        try save()
        return transactions
    }

    /// `descriptor`, also loading the fetched budgets' transactions: one more query for all of them,
    /// rather than one per budget when each total is computed.
    private static func withTransactions(_ descriptor: FetchDescriptor<Budget>) -> FetchDescriptor<Budget> {
        var descriptor = descriptor
        descriptor.relationshipKeyPathsForPrefetching = [\.transactions]
        return descriptor
    }

    private func fetch(_ descriptor: FetchDescriptor<Budget>) throws -> [Budget] {
        do {
            return try context.fetch(descriptor)
        } catch {
            throw SpendSmartError.store("read", error)
        }
    }

    private func save() throws {
        do {
            try context.save()
        } catch {
            context.rollback()
            throw SpendSmartError.store("save to", error)
        }
    }

    private static func validName(_ name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw SpendSmartError(.invalidName, "a budget needs a name that is not blank.") }
        return trimmed
    }
}
