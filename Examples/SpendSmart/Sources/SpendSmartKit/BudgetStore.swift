import Stowage

/// The app's operations on budgets, over any `ModelContext`: a file store in the app, an in-memory
/// container in tests.
///
/// Each change is saved before the method returns; when the save fails, the context's changes are
/// rolled back and the error is rethrown as a ``SpendSmartError``. Budget names are unique: ``add(name:limit:)``
/// and ``rename(_:to:)`` refuse a name that is taken.
struct BudgetStore {
    let context: ModelContext

    init(context: ModelContext) {
        self.context = context
    }

    /// Every budget, in the order of the article's `Budget.all` (names Z to A).
    func all() throws -> [Budget] {
        try fetch(Budget.all)
    }

    /// The budgets whose limit is over `amount`, largest first.
    func budgets(over amount: Double) throws -> [Budget] {
        try fetch(Budget.over(amount))
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

    /// Deletes the budget called `name`.
    ///
    /// - Throws: ``SpendSmartError`` `.unknownBudget` when no budget has that name, `.store` when saving
    ///   fails.
    func delete(_ name: String) throws {
        let budgets = try fetch(Budget.named(name))
        guard !budgets.isEmpty else { throw SpendSmartError.unknownBudget(name) }
        for budget in budgets { context.delete(budget) }
        try save()
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
