import Foundation
import Stowage
import Testing
@testable import SpendSmartKit

@Suite struct BudgetStoreTests {
    @Test func addSavesTheBudget() throws {
        let store = try makeInMemoryStore()
        let budget = try store.add(name: "Groceries", limit: 500)
        #expect(budget.name == "Groceries")
        #expect(budget.limit == 500)
        #expect(!store.context.hasChanges)

        // A second context of the same container reads what the first saved.
        let other = ModelContext(store.context.container)
        let fetched = try other.fetch(FetchDescriptor<Budget>())
        #expect(fetched.map(\.name) == ["Groceries"])
        #expect(fetched.map(\.limit) == [500])
    }

    @Test func addTrimsTheName() throws {
        let store = try makeInMemoryStore()
        try store.add(name: "  Books \n", limit: 75)
        #expect(try store.all().map(\.name) == ["Books"])
    }

    @Test func allSortsNamesInReverseLikeTheArticle() throws {
        let store = try makeInMemoryStore()
        for (name, limit) in [("Groceries", 500.0), ("Vacation", 2000), ("Books", 75)] {
            try store.add(name: name, limit: limit)
        }
        #expect(try store.all().map(\.name) == ["Vacation", "Groceries", "Books"])
    }

    @Test func overKeepsLimitsStrictlyAboveTheAmountLargestFirst() throws {
        let store = try makeInMemoryStore()
        for (name, limit) in [("Books", 75.0), ("Rent", 100), ("Groceries", 500), ("Vacation", 2000), ("Car", 500)] {
            try store.add(name: name, limit: limit)
        }
        #expect(try store.budgets(over: 100).map(\.name) == ["Vacation", "Car", "Groceries"])
        #expect(try store.budgets(over: 99.99).map(\.name) == ["Vacation", "Car", "Groceries", "Rent"])
        #expect(try store.budgets(over: 2000).isEmpty)
        #expect(try store.budgets(over: -1).count == 5)
    }

    @Test func renameChangesTheStoredName() throws {
        let store = try makeInMemoryStore()
        try store.add(name: "Vacation", limit: 2000)
        let renamed = try store.rename("Vacation", to: "Summer Trip")
        #expect(renamed.name == "Summer Trip")
        #expect(renamed.limit == 2000)

        let other = ModelContext(store.context.container)
        #expect(try other.fetch(FetchDescriptor<Budget>()).map(\.name) == ["Summer Trip"])
    }

    @Test func renameToTheSameNameChangesNothing() throws {
        let store = try makeInMemoryStore()
        try store.add(name: "Books", limit: 75)
        try store.rename("Books", to: "Books")
        #expect(try store.all().map(\.name) == ["Books"])
        #expect(!store.context.hasChanges)
    }

    @Test func deleteRemovesOnlyThatBudget() throws {
        let store = try makeInMemoryStore()
        try store.add(name: "Books", limit: 75)
        try store.add(name: "Groceries", limit: 500)
        try store.delete("Books")
        #expect(try store.all().map(\.name) == ["Groceries"])
        #expect(try ModelContext(store.context.container).fetchCount(FetchDescriptor<Budget>()) == 1)
    }

    // MARK: - Errors

    @Test func addRefusesATakenName() throws {
        let store = try makeInMemoryStore()
        try store.add(name: "Books", limit: 75)
        #expect(throws: SpendSmartError.duplicateBudget("Books")) { try store.add(name: "Books", limit: 20) }
        #expect(try store.all().map(\.limit) == [75])
        #expect(!store.context.hasChanges)
    }

    @Test(arguments: [0, -5, Double.infinity, Double.nan])
    func addRefusesALimitThatIsNotPositive(limit: Double) throws {
        let store = try makeInMemoryStore()
        #expect {
            try store.add(name: "Books", limit: limit)
        } throws: { error in
            (error as? SpendSmartError)?.code == .invalidAmount
        }
        #expect(try store.all().isEmpty)
    }

    @Test(arguments: ["", "   ", "\n"])
    func addRefusesABlankName(name: String) throws {
        let store = try makeInMemoryStore()
        #expect(throws: SpendSmartError(.invalidName, "a budget needs a name that is not blank.")) {
            try store.add(name: name, limit: 10)
        }
        #expect(try store.all().isEmpty)
    }

    @Test func renameOfAnUnknownBudgetFails() throws {
        let store = try makeInMemoryStore()
        try store.add(name: "Books", limit: 75)
        #expect(throws: SpendSmartError.unknownBudget("Travel")) { try store.rename("Travel", to: "Trips") }
        #expect(try store.all().map(\.name) == ["Books"])
    }

    @Test func renameToATakenNameFailsAndKeepsBothBudgets() throws {
        let store = try makeInMemoryStore()
        try store.add(name: "Books", limit: 75)
        try store.add(name: "Groceries", limit: 500)
        #expect(throws: SpendSmartError.duplicateBudget("Groceries")) { try store.rename("Books", to: "Groceries") }
        #expect(try store.all().map(\.name) == ["Groceries", "Books"])
        #expect(!store.context.hasChanges)
    }

    @Test func deleteOfAnUnknownBudgetFails() throws {
        let store = try makeInMemoryStore()
        try store.add(name: "Books", limit: 75)
        #expect(throws: SpendSmartError.unknownBudget("books")) { try store.delete("books") }
        #expect(try store.all().map(\.name) == ["Books"])
    }

    @Test func aFailedSaveIsReportedAndRolledBack() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = URL(fileURLWithPath: directory.path("budgets.store"))
        _ = try ModelContainer(for: Budget.self, configurations: ModelConfiguration(url: url))

        let readOnly = try ModelContainer(for: Budget.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        let store = BudgetStore(context: ModelContext(readOnly))
        #expect {
            try store.add(name: "Books", limit: 75)
        } throws: { error in
            (error as? SpendSmartError)?.code == .store
        }
        #expect(!store.context.hasChanges)
        #expect(try store.all().isEmpty)
    }
}
