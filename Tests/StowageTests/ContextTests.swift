import Foundation
import Stowage
@testable import StowageCore
import Testing

/// Item 6: the model context.
@Suite struct ContextTests {
    private func seeded(_ values: [Int] = [1, 2, 3]) throws -> (ModelContainer, ModelContext) {
        let container = try inMemoryContainer(Item.self, Tag.self)
        let context = ModelContext(container)
        for value in values { context.insert(Item(name: "item \(value)", value: value)) }
        try context.save()
        return (container, context)
    }

    private func byValue() -> FetchDescriptor<Item> { FetchDescriptor<Item>(sortBy: [SortDescriptor(\.value)]) }

    @Test func insertSaveAndFetch() throws {
        let container = try inMemoryContainer(Item.self)
        let context = ModelContext(container)
        let item = Item(name: "a", value: 1)
        #expect(item.modelContext == nil)
        #expect(!item.hasChanges)
        context.insert(item)
        #expect(item.modelContext === context)
        #expect(context.hasChanges && item.hasChanges)
        #expect(context.insertedModelsArray.first as AnyObject? === item)
        #expect(item.persistentModelID.isTemporary)
        let temporary = item.persistentModelID
        let registered: Item? = context.registeredModel(for: temporary)
        #expect(registered === item)
        context.insert(item)
        #expect(context.insertedModelsArray.count == 1)

        try context.save()
        #expect(!context.hasChanges && !item.hasChanges)
        #expect(context.insertedModelsArray.isEmpty)
        #expect(!item.persistentModelID.isTemporary)
        #expect(item.persistentModelID != temporary)
        #expect(try context.fetch(FetchDescriptor<Item>()).first === item)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Item>()).map(\.name) == ["a"])
    }

    @Test func changeTracking() throws {
        let (_, context) = try seeded()
        let items = try context.fetch(byValue())
        #expect(context.changedModelsArray.isEmpty)
        items[1].name = "renamed"
        items[1].name = "renamed again"
        #expect(context.hasChanges && items[1].hasChanges && !items[0].hasChanges)
        #expect(context.changedModelsArray.count == 1)
        #expect(context.changedModelsArray.first as AnyObject === items[1])
        try context.save()
        #expect(context.changedModelsArray.isEmpty && !items[1].hasChanges)
    }

    @Test func deleteAndDeletedModels() throws {
        let (container, context) = try seeded()
        let items = try context.fetch(byValue())
        context.delete(items[0])
        #expect(items[0].isDeleted && items[0].hasChanges)
        #expect(context.deletedModelsArray.count == 1)
        #expect(try context.fetch(byValue()).map(\.value) == [2, 3])
        #expect(try context.fetchCount(FetchDescriptor<Item>()) == 2)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Item>()) == 3)
        try context.save()
        #expect(context.deletedModelsArray.isEmpty)
        #expect(items[0].isDeleted)
        #expect(try ModelContext(container).fetch(byValue()).map(\.value) == [2, 3])
    }

    @Test func deletingAnUnsavedInsertDiscardsIt() throws {
        let (container, context) = try seeded([])
        let item = Item(name: "never saved", value: 1)
        context.insert(item)
        context.delete(item)
        #expect(!context.hasChanges)
        #expect(context.insertedModelsArray.isEmpty && context.deletedModelsArray.isEmpty)
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Item>()) == 0)
    }

    @Test func deleteModelWhere() throws {
        let (container, context) = try seeded([1, 2, 3, 4, 5])
        try context.delete(model: Item.self, where: #Predicate { $0.value > 3 })
        #expect(context.deletedModelsArray.count == 2)
        try context.save()
        #expect(try ModelContext(container).fetch(byValue()).map(\.value) == [1, 2, 3])
        try context.delete(model: Item.self)
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Item>()) == 0)
    }

    @Test func fetchCountIdentifiersAndModelForIdentifier() throws {
        let (container, context) = try seeded([1, 2, 3])
        var descriptor = byValue()
        descriptor.predicate = #Predicate { $0.value >= 2 }
        #expect(try context.fetchCount(descriptor) == 2)
        let identifiers = try context.fetchIdentifiers(descriptor)
        let items = try context.fetch(descriptor)
        #expect(identifiers == items.map(\.persistentModelID))
        #expect(identifiers.allSatisfy { !$0.isTemporary && $0.entityName == "Item" })

        #expect(context.model(for: identifiers[0]) as AnyObject === items[0])
        let registered: Item? = context.registeredModel(for: identifiers[1])
        #expect(registered === items[1])

        let other = ModelContext(container)
        let notYet: Item? = other.registeredModel(for: identifiers[0])
        #expect(notYet == nil)
        let loaded = try #require(other.model(for: identifiers[0]) as? Item)
        #expect(loaded.value == 2 && loaded !== items[0])
        let nowRegistered: Item? = other.registeredModel(for: identifiers[0])
        #expect(nowRegistered === loaded)
    }

    @Test func modelForTheIdentifierOfADeletedRowIsDeleted() throws {
        let (container, context) = try seeded([1])
        let item = try #require(try context.fetch(FetchDescriptor<Item>()).first)
        let identifier = item.persistentModelID
        context.delete(item)
        try context.save()
        let stale = ModelContext(container).model(for: identifier)
        #expect(stale.isDeleted)
    }

    @Test func aModelChangedAfterASaveRollsBackToItsOwnValuesOnly() throws {
        let (container, context) = try seeded([1, 2])
        let items = try context.fetch(byValue())
        let (first, second) = (items[0], items[1])

        // The first model's rollback snapshots go back to the context with this save (see
        // `PropertySnapshots`)...
        first.value = 10
        first.name = "first, renamed"
        try context.save()
        // ...and the second model's change takes them. Both models then change the same property:
        // each must roll back to its own value.
        second.name = "second, renamed"
        first.name = "first, renamed again"
        context.rollback()

        #expect(second.name == "item 2" && second.value == 2)
        #expect(first.name == "first, renamed" && first.value == 10)
        #expect(!context.hasChanges)
        let stored = try ModelContext(container).fetch(byValue())
        #expect(stored.map(\.name) == ["item 2", "first, renamed"])
    }

    @Test func rollbackRestoresEveryPropertyOfEveryChangedModel() throws {
        let (container, context) = try seeded([1, 2, 3])
        let items = try context.fetch(byValue())
        for (offset, item) in items.enumerated() {
            item.name = "changed \(offset)"
            item.value = 100 + offset
            item.order = 7
            item.note = "a note"
            item.tags = ["x", "y"]
            item.name = "changed twice \(offset)"
        }
        items[2].value = 300
        context.delete(items[2])
        let inserted = Item(name: "inserted", value: 9)
        context.insert(inserted)
        #expect(context.hasChanges)

        context.rollback()
        #expect(!context.hasChanges)
        #expect(context.insertedModelsArray.isEmpty && context.changedModelsArray.isEmpty && context.deletedModelsArray.isEmpty)
        for (offset, item) in items.enumerated() {
            #expect(item.name == "item \(offset + 1)")
            #expect(item.value == offset + 1)
            #expect(item.order == 0)
            #expect(item.note == nil)
            #expect(item.tags == [])
            #expect(!item.hasChanges && !item.isDeleted)
        }
        #expect(inserted.modelContext == nil)
        #expect(!inserted.hasChanges)
        #expect(try context.fetch(byValue()).map(\.value) == [1, 2, 3])
        #expect(try context.fetch(byValue()).first === items[0])
        try context.save()
        #expect(try ModelContext(container).fetch(byValue()).map(\.name) == ["item 1", "item 2", "item 3"])

        // A rolled-back model can be changed and saved again.
        items[0].value = 10
        try context.save()
        #expect(try ModelContext(container).fetch(byValue()).map(\.value) == [2, 3, 10])
    }

    @Test func transactionSavesOrRollsBack() throws {
        let (container, context) = try seeded([1])
        try context.transaction {
            context.insert(Item(name: "in transaction", value: 2))
        }
        #expect(!context.hasChanges)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Item>()) == 2)

        struct Abort: Error {}
        let item = try #require(try context.fetch(byValue()).first)
        #expect(throws: Abort.self) {
            try context.transaction {
                item.value = 99
                context.insert(Item(name: "discarded", value: 3))
                throw Abort()
            }
        }
        #expect(item.value == 1)
        #expect(!context.hasChanges)
        #expect(try ModelContext(container).fetch(byValue()).map(\.value) == [1, 2])
    }

    @Test func identityMapHoldsOneObjectPerRowAndForgetsReleasedModels() throws {
        let (_, context) = try seeded([1, 2, 3])
        let first = try context.fetch(byValue())
        let second = try context.fetch(byValue())
        #expect(zip(first, second).allSatisfy { $0 === $1 })
        var descriptor = byValue()
        descriptor.predicate = #Predicate { $0.value == 2 }
        #expect(try context.fetch(descriptor).first === first[1])
        #expect(context.registered.count == 3)

        let identifier = first[0].persistentModelID
        do {
            let context = ModelContext(context.container)
            do {
                let held = try context.fetch(byValue())
                #expect(context.registered.count == 3)
                #expect(held.count == 3)
            }
            #expect(context.registered.count == 0)
            let none: Item? = context.registeredModel(for: identifier)
            #expect(none == nil)
            #expect(try context.fetch(byValue()).map(\.value) == [1, 2, 3])
        }
    }

    @Test func pendingChangesAreVisibleToOwnFetches() throws {
        let (_, context) = try seeded([1, 3, 5])
        let items = try context.fetch(byValue())
        context.insert(Item(name: "pending", value: 2))
        items[2].value = 0
        context.delete(items[0])
        #expect(try context.fetch(byValue()).map(\.value) == [0, 2, 3])
        var filtered = byValue()
        filtered.predicate = #Predicate { $0.value < 3 }
        #expect(try context.fetch(filtered).map(\.value) == [0, 2])
        #expect(try context.fetchCount(filtered) == 2)
        #expect(try context.fetchIdentifiers(filtered).count == 2)

        var excluded = byValue()
        excluded.includePendingChanges = false
        #expect(try context.fetch(excluded).map(\.name) == ["item 1", "item 3", "item 5"])
    }

    @Test func sortLimitAndOffsetWithPendingInserts() throws {
        let (_, context) = try seeded([1, 3, 5])
        context.insert(Item(name: "pending 2", value: 2))
        context.insert(Item(name: "pending 0", value: 0))
        var descriptor = byValue()
        descriptor.fetchLimit = 2
        #expect(try context.fetch(descriptor).map(\.value) == [0, 1])
        descriptor.fetchOffset = 1
        #expect(try context.fetch(descriptor).map(\.value) == [1, 2])
        descriptor.sortBy = [SortDescriptor(\.value, order: .reverse)]
        descriptor.fetchOffset = 0
        #expect(try context.fetch(descriptor).map(\.value) == [5, 3])
        #expect(try context.fetchCount(descriptor) == 2)
        descriptor.sortBy = [SortDescriptor(\.name)]
        descriptor.fetchLimit = 3
        #expect(try context.fetch(descriptor).map(\.name) == ["item 1", "item 3", "item 5"])
    }

    @Test func pendingChangesAreInvisibleToOtherContextsUntilSaved() throws {
        let (container, context) = try seeded([1, 2])
        let other = ModelContext(container)
        let otherItems = try other.fetch(byValue())
        let items = try context.fetch(byValue())
        items[0].name = "renamed"
        context.insert(Item(name: "new", value: 3))
        context.delete(items[1])

        #expect(try other.fetch(byValue()).map(\.name) == ["item 1", "item 2"])
        #expect(otherItems[0].name == "item 1")

        try context.save()
        #expect(try other.fetch(byValue()).map(\.name) == ["renamed", "new"])
        #expect(otherItems[0].name == "renamed")
        #expect(try other.fetch(byValue()).first === otherItems[0])
        #expect(otherItems[1].isDeleted)
    }

    /// Merged property by property: an unsaved change stays, the other properties follow the store, and
    /// a rollback returns to the row as now stored.
    @Test func otherContextsRefreshHeldObjectsKeepingTheirUnsavedChanges() throws {
        let (container, context) = try seeded([1, 2])
        let other = ModelContext(container)
        let held = try other.fetch(byValue())
        held[1].note = "local edit"

        let items = try context.fetch(byValue())
        items[0].name = "saved elsewhere"
        items[1].name = "saved elsewhere too"
        try context.save()

        other.processPendingChanges()
        #expect(held[0].name == "saved elsewhere")
        #expect(held[1].name == "saved elsewhere too")
        #expect(held[1].note == "local edit")
        #expect(held[1].hasChanges)

        other.rollback()
        #expect(held[1].name == "saved elsewhere too")
        #expect(held[1].note == nil)
        #expect(!held[1].hasChanges)
    }

    @Test func propertiesToFetchLoadsOthersLazily() throws {
        let capture = StatementCapture()
        let container = try inMemoryContainer(Item.self)
        let context = ModelContext(container)
        let item = Item(name: "partial", value: 42, note: "n")
        item.tags = ["t"]
        item.order = 5
        context.insert(item)
        try context.save()

        let reader = ModelContext(container)
        var descriptor = FetchDescriptor<Item>()
        descriptor.propertiesToFetch = [\.name]
        capture.removeAll()
        let fetched = try #require(try reader.fetch(descriptor).first)
        #expect(capture.statements(of: container).map(\.sql) == [#"SELECT "_pk", "name" FROM "Item" ORDER BY "_pk""#])
        #expect(fetched.name == "partial")
        #expect(capture.statements(of: container).count == 1)
        #expect(fetched.value == 42)
        #expect(capture.statements(of: container).count == 2)
        #expect(fetched.note == "n")
        #expect(fetched.order == 5)
        #expect(fetched.tags == ["t"])
        #expect(capture.statements(of: container).count == 2)
    }

    @Test func insertingAModelOfAnotherContextIsAnError() throws {
        let (container, context) = try seeded([1])
        let item = try #require(try context.fetch(FetchDescriptor<Item>()).first)
        let other = ModelContext(container)
        other.insert(item)
        #expect(stowageError { try other.save() }?.code == .foreignModel)
    }
}

/// The snapshots rollback restores keep two values inline in a box that saves and rollbacks give back
/// for reuse: they must behave as a dictionary of property index to value whatever the order of
/// changes, recycling included.
@Suite struct PropertySnapshotsTests {
    @Test func behavesAsADictionaryOverRandomSequences() {
        var generator = SystemRandomNumberGenerator()
        var pool: [PropertySnapshots.Box] = []
        for _ in 0 ..< 200 {
            var snapshots = PropertySnapshots()
            var expected: [Int: Int] = [:]
            for _ in 0 ..< 12 {
                let index = Int.random(in: 0 ..< 6, using: &generator)
                let value = Int.random(in: 0 ..< 1000, using: &generator)
                switch Int.random(in: 0 ..< 10, using: &generator) {
                case 0:
                    snapshots[index] = nil
                    expected[index] = nil
                case 1, 2:
                    // What a save or a rollback does: the box, emptied, goes to the pool.
                    snapshots.recycle(into: &pool)
                    expected = [:]
                case 3, 4:
                    // What a change does: a box from the pool if the model has none.
                    snapshots.record(value, at: index, reusing: &pool)
                    expected[index] = value
                default:
                    snapshots[index] = value
                    expected[index] = value
                }
                for probe in 0 ..< 6 {
                    #expect(snapshots[probe] as? Int == expected[probe])
                }
            }
        }
        #expect(pool.count <= PropertySnapshots.poolLimit)
    }

    @Test func thePoolKeepsAtMostItsLimit() {
        var pool: [PropertySnapshots.Box] = []
        for index in 0 ..< PropertySnapshots.poolLimit + 10 {
            var snapshots = PropertySnapshots()
            snapshots[0] = index
            snapshots.recycle(into: &pool)
        }
        #expect(pool.count == PropertySnapshots.poolLimit)
    }
}
