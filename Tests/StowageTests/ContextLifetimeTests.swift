import Foundation
import Stowage
@testable import StowageCore
import Testing

// Three models related in a ring through relationships without inverses: a reference cycle that no
// relationship-and-inverse pair explains.
@Model final class RingA {
    var name: String
    var next: RingB?
    init(name: String) { self.name = name }
}

@Model final class RingB {
    var name: String
    var next: RingC?
    init(name: String) { self.name = name }
}

@Model final class RingC {
    var name: String
    var next: RingA?
    init(name: String) { self.name = name }
}

/// A model does not keep its context alive (as in SwiftData and Core Data): a context the code lets go
/// of is released with its unsaved changes, and models that hold each other do not keep their context,
/// container and store alive.
@Suite struct ContextLifetimeTests {
    /// A container holding the budget "Food" with the expenses "bread" and "milk".
    private static func budgetWithTwoExpenses() throws -> ModelContainer {
        let container = try inMemoryContainer(Budget.self)
        let seed = ModelContext(container)
        let food = Budget(name: "Food", limit: 300)
        seed.insert(food)
        food.expenses = [Expense(title: "bread", amount: 2), Expense(title: "milk", amount: 1)]
        try seed.save()
        return container
    }

    @Test func aContextReleasedWithUnsavedChangesGoesAwayAndTakesThemWithIt() throws {
        let container = try inMemoryContainer(Item.self)
        let seed = ModelContext(container)
        seed.insert(Item(name: "kept", value: 1))
        seed.insert(Item(name: "doomed", value: 2))
        try seed.save()

        weak var released: ModelContext?
        let added = Item(name: "added", value: 3)
        let changed: Item
        let deleted: Item
        do {
            let context = ModelContext(container)
            released = context
            let items = try context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.value)]))
            changed = items[0]
            deleted = items[1]
            context.insert(added)
            changed.name = "unsaved"
            context.delete(deleted)
            #expect(context.hasChanges)
        }
        #expect(released == nil)
        // Nothing was saved; the models show the store again and belong to no context.
        #expect(added.modelContext == nil)
        #expect(changed.modelContext == nil)
        #expect(changed.name == "kept")
        #expect(!deleted.isDeleted)
        #expect(try seed.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.value)])).map(\.name) == ["kept", "doomed"])
        // Its inbox left the container: another context's save reaches only the contexts alive.
        #expect(!container.hasListeners(besides: ObjectIdentifier(seed)))
        // The inserted model is a plain object again: another context can insert and save it.
        seed.insert(added)
        try seed.save()
        #expect(try seed.fetchCount(FetchDescriptor<Item>()) == 3)
    }

    @Test func modelsOfAReleasedContextStillReadAndLoadTheirProperties() throws {
        let container = try Self.budgetWithTwoExpenses()

        let budget = try #require(try ModelContext(container).fetch(FetchDescriptor<Budget>()).first)
        #expect(budget.modelContext == nil)
        #expect(budget.name == "Food")
        // Not loaded before the context went: loaded through the container now.
        #expect(budget.expenses.map(\.title).sorted() == ["bread", "milk"])
        #expect(budget.expenses.allSatisfy { $0.budget?.name == "Food" })
    }

    @Test func aReleasedContextKeepsPrefetchedToManyRelationshipsLoaded() throws {
        let container = try Self.budgetWithTwoExpenses()

        let capture = StatementCapture()
        let budget: Budget
        do {
            let context = ModelContext(container)
            var descriptor = FetchDescriptor<Budget>()
            descriptor.relationshipKeyPathsForPrefetching = [\.expenses]
            budget = try #require(try context.fetch(descriptor).first)
            // Both sides loaded: a reference cycle the release breaks on the to-one side.
            #expect(budget.expenses.allSatisfy { $0.budget === budget })
        }
        capture.removeAll()
        #expect(budget.expenses.map(\.title).sorted() == ["bread", "milk"])
        #expect(capture.sql(of: container).filter { $0.hasPrefix("SELECT") }.isEmpty)
        #expect(budget.expenses.allSatisfy { $0.budget?.name == "Food" })
    }

    @Test func insertingAModelOfAReleasedContextIntoAnotherIsAnError() throws {
        let container = try inMemoryContainer(Item.self)
        let seed = ModelContext(container)
        seed.insert(Item(name: "a", value: 1))
        try seed.save()
        let orphan = try #require(try ModelContext(container).fetch(FetchDescriptor<Item>()).first)
        seed.insert(orphan)
        let error = stowageError { try seed.save() }
        #expect(error?.code == .foreignModel)
        #expect(error?.message.contains("released") == true)
    }

    /// Models related both ways, and models in a ring of relationships without inverses, hold each
    /// other: once the code lets go of them and of their context, the container is released and its
    /// store closed.
    @Test(arguments: [false, true])
    func modelsHoldingEachOtherDoNotKeepTheContainerOpen(savedFirst: Bool) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        weak var released: ModelContainer?
        do {
            let container = try ModelContainer(for: Budget.self, RingA.self, configurations: ModelConfiguration(url: url))
            released = container
            let context = ModelContext(container)
            let budget = Budget(name: "Food", limit: 300)
            context.insert(budget)
            budget.expenses = [Expense(title: "bread", amount: 2)]
            let (a, b, c) = (RingA(name: "a"), RingB(name: "b"), RingC(name: "c"))
            context.insert(a)
            a.next = b
            b.next = c
            c.next = a
            if savedFirst {
                try context.save()
                // Loaded again in a fresh context, both ways and around the ring.
                let reader = ModelContext(container)
                let fetched = try #require(try reader.fetch(FetchDescriptor<Budget>()).first)
                #expect(fetched.expenses.first?.budget === fetched)
                let ring = try #require(try reader.fetch(FetchDescriptor<RingA>()).first)
                #expect(ring.next?.next?.next === ring)
            }
        }
        #expect(released == nil)
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
    }
}
