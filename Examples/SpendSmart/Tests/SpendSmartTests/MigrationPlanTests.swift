import Foundation
import Stowage
import Testing
@testable import SpendSmartKit

// The article's migration (seed 002, "Migrations"): a store of SpendTrackerSchemaV1, where budget names
// repeat, opened with SpendTrackerMigrationPlan. `willMigrate` renames the duplicates, then the names
// become unique; budgets, their transactions and their identifiers are kept.

@Suite struct MigrationPlanTests {
    /// The budgets of the version 1 store: three named "Groceries", two "Rent", one "Books".
    static let budgets: [(name: String, limit: Double, spent: [Double])] = [
        ("Groceries", 500, [4.5, 12]), ("Rent", 1200, [1100]), ("Groceries", 300, []),
        ("Books", 75, [20]), ("Groceries", 250, [30, 5, 1]), ("Rent", 900, []),
    ]

    /// Writes the version 1 store and returns each budget's identifier with what it held.
    private func makeVersionOneStore(at url: URL) throws -> [(id: PersistentIdentifier, name: String, limit: Double, spent: [Double])] {
        let context = ModelContext(try ModelContainer(
            for: Schema(versionedSchema: SpendTrackerSchemaV1.self), configurations: ModelConfiguration(url: url)))
        let models = Self.budgets.map { budget in
            let model = SpendTrackerSchemaV1.Budget(name: budget.name, limit: budget.limit)
            context.insert(model)
            model.transactions = budget.spent.map { SpendTrackerSchemaV1.Transaction(note: "t", amount: $0, date: testDate) }
            return model
        }
        try context.save()
        return zip(models, Self.budgets).map { ($0.persistentModelID, $1.name, $1.limit, $1.spent) }
    }

    @Test func aVersionOneStoreWithDuplicatesIsMigratedKeepingEveryBudget() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = URL(fileURLWithPath: directory.path("spendsmart.store"))
        let before = try makeVersionOneStore(at: url)

        let status = try ModelContainer.migrationStatus(
            for: Schema([Budget.self]), migrationPlan: SpendTrackerMigrationPlan.self, configuration: ModelConfiguration(url: url))
        #expect(status.state == .needsMigration && status.storeVersionName == "Initial version of the model")
        #expect(status.stages.map(\.description) == ["custom \"Initial version of the model\" → \"Adding unique constraint to the name property\""])

        let context = ModelContext(try SpendSmart.openContainer(at: url))
        let budgets = try context.fetch(FetchDescriptor<Budget>())
        #expect(budgets.count == Self.budgets.count)
        #expect(Set(budgets.map(\.name)).count == budgets.count, "names are unique: \(budgets.map(\.name))")
        for original in before {
            let budget = try #require(context.model(for: original.id) as? Budget, "the identifier still finds its budget")
            #expect(budget.limit == original.limit)
            #expect(budget.transactions.map(\.amount) == original.spent)
            let isFirstOfItsName = before.first { $0.name == original.name }?.id == original.id
            if isFirstOfItsName {
                #expect(budget.name == original.name, "the first budget of a name keeps it")
            } else {
                #expect(budget.name.wholeMatch(of: /\w+ \d{4}/) != nil && budget.name.hasPrefix(original.name + " "), "\(budget.name)")
            }
        }

        // Version 2 enforces the uniqueness the migration made room for.
        let reopened = try ModelContainer.migrationStatus(
            for: Schema([Budget.self]), migrationPlan: SpendTrackerMigrationPlan.self, configuration: ModelConfiguration(url: url))
        #expect(reopened.state == .upToDate && reopened.storeVersionName == "Adding unique constraint to the name property")
        let list = spendsmart("--store", url.path, "list")
        #expect(list.status == 0 && list.transcript.output.first == "6 budgets, spent of limit:", "\(list.transcript.output)")
        #expect(spendsmart("--store", url.path, "add", "Books", "10").status == 1, "the name is taken")
    }

    @Test func aVersionOneStoreWithoutDuplicatesKeepsItsNames() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = URL(fileURLWithPath: directory.path("spendsmart.store"))
        do {
            let context = ModelContext(try ModelContainer(
                for: Schema(versionedSchema: SpendTrackerSchemaV1.self), configurations: ModelConfiguration(url: url)))
            context.insert(SpendTrackerSchemaV1.Budget(name: "Books", limit: 75))
            try context.save()
        }
        let store = BudgetStore(context: ModelContext(try SpendSmart.openContainer(at: url)))
        #expect(try store.all().map(\.name) == ["Books"])
    }
}
