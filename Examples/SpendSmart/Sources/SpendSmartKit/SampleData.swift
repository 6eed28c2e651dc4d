import Foundation
import Stowage

/// Seed 002's sample data: five budgets, "Budget 1" to "Budget 5", with limits of 100 to 500.
enum SampleData {
    /// New, unsaved budgets (a new set at each call: models belong to one context).
    static var budgets: [Budget] {
        (1...5).map { Budget(name: "Budget \($0)", limit: 100 * Double($0)) }
    }

    /// Seed 002's preview container, for tests and previews: in memory, with the sample budgets and one
    /// transaction each ("Note 1" of $0 to "Note 5" of $40), inserted into its main context as the
    /// article does (the main context saves them by itself; read them from the main context).
    ///
    /// The article builds it once in a global `let` and calls `fatalError` if that fails; here each
    /// call makes a fresh container and the failure is thrown, so that tests do not share data.
    ///
    /// ```swift
    /// let container = try SampleData.previewContainer()
    /// let budgets = try container.mainContext.fetch(Budget.all)
    /// ```
    @MainActor
    static func previewContainer() throws -> ModelContainer {
        let container = try ModelContainer(for: Budget.self, configurations: ModelConfiguration(inMemory: true))
        for (index, budget) in budgets.enumerated() {
            container.mainContext.insert(budget)
            let transaction = Transaction(note: "Note \(index + 1)", amount: Double(index) * 10, date: Date())
            budget.addTransaction(transaction)
        }
        return container
    }
}
