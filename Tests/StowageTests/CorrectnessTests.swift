import Foundation
import GRDB
import Stowage
@testable import StowageCore
import Testing

/// Regression tests for the bugs of issue 11 that are not about reopening stores (see `ReopenTests`).
@Suite struct IdentifierResolutionTests {
    @Test func anIdentifierIssuedByAnotherStoreDoesNotResolve() throws {
        let first = try inMemoryContainer(Item.self)
        let second = try inMemoryContainer(Item.self)
        let inFirst = ModelContext(first)
        let inSecond = ModelContext(second)
        let a = Item(name: "a", value: 1)
        let b = Item(name: "b", value: 2)
        inFirst.insert(a)
        inSecond.insert(b)
        try inFirst.save()
        try inSecond.save()
        // The same primary key in both stores.
        #expect(a.persistentModelID.primaryKey == b.persistentModelID.primaryKey)
        #expect(a.persistentModelID != b.persistentModelID)

        let foreign = a.persistentModelID
        #expect(inSecond.registeredModel(for: foreign) as Item? == nil)
        let resolved = inSecond.model(for: foreign)
        #expect(resolved.isDeleted)
        #expect(resolved.persistentModelID == foreign)
        #expect(resolved !== b)
        // Also from a fresh context that holds nothing yet, and in a predicate.
        let fresh = ModelContext(second)
        #expect(fresh.model(for: foreign).isDeleted)
        #expect(try fresh.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.persistentModelID == foreign })).isEmpty)
        let own = b.persistentModelID
        #expect(try fresh.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.persistentModelID == own })).map(\.name) == ["b"])
        // Its own identifier still resolves.
        #expect((fresh.model(for: own) as? Item)?.name == "b")
    }

    @Test func aTemporaryIdentifierOfAnotherContextGivesADeletedModel() throws {
        let container = try inMemoryContainer(Item.self)
        let inserting = ModelContext(container)
        let item = Item(name: "draft", value: 1)
        inserting.insert(item)
        let temporary = item.persistentModelID
        #expect(temporary.isTemporary)
        // The context that inserted it resolves it to the same object.
        #expect(inserting.model(for: temporary) === item)

        let other = ModelContext(container)
        #expect(other.registeredModel(for: temporary) as Item? == nil)
        let resolved = other.model(for: temporary)
        #expect(resolved.isDeleted)
        #expect(resolved.persistentModelID == temporary)
    }
}

@Suite struct ReadOnlyConfigurationTests {
    @Test func aMissingFileIsNotCreated() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("missing/sub/store.sqlite")
        let error = stowageError { _ = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: url, allowsSave: false)) }
        #expect(error?.code == .storeNotFound)
        #expect(error?.message.contains(url.path) == true)
        #expect(!FileManager.default.fileExists(atPath: url.path))
        #expect(!FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("missing").path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).isEmpty)
    }

    @Test func anEmptyFileIsNotTurnedIntoAStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        #expect(FileManager.default.createFile(atPath: url.path, contents: Data()))
        let error = stowageError { _ = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: url, allowsSave: false)) }
        #expect(error?.code == .storeNotFound)
        #expect(fileBytes(url) == Data())
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["store.sqlite"])
    }

    @Test func anExistingStoreOpensForReadingAndRefusesToSave() throws {
        try withFileStore([Item.self]) { url, open in
            do {
                let context = ModelContext(try open())
                context.insert(Item(name: "kept", value: 7))
                try context.save()
            }
            let before = fileBytes(url)
            let container = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: url, allowsSave: false))
            let context = ModelContext(container)
            let items = try context.fetch(FetchDescriptor<Item>())
            #expect(items.map(\.name) == ["kept"])
            items[0].value = 8
            #expect(stowageError { try context.save() }?.code == .readOnlyStore)
            #expect(fileBytes(url) == before)
        }
    }
}

@Suite struct EphemeralAttributeTests {
    @Test func aFetchedModelReadsTheDeclaredInitialValues() throws {
        try withFileStore([Sketch.self]) { url, open in
            let container = try open()
            let context = ModelContext(container)
            let sketch = Sketch(title: "plan")
            sketch.isSelected = true
            sketch.zoom = 3
            sketch.draft = "unsaved words"
            context.insert(sketch)
            try context.save()
            // The object that held the values keeps them.
            #expect(sketch.isSelected && sketch.zoom == 3 && sketch.draft == "unsaved words")
            // A model read from the store has the declaration's values.
            let reader = ModelContext(container)
            let fetched = try #require(try reader.fetch(FetchDescriptor<Sketch>()).first)
            #expect(fetched.title == "plan")
            #expect(fetched.isSelected == false)
            #expect(fetched.zoom == 1.5)
            #expect(fetched.draft == nil)
            // Changing one is tracked but writes nothing.
            fetched.zoom = 2
            #expect(reader.hasChanges)
            try reader.save()
            let columns = try rawRead(url) { db in try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('Sketch')") }
            #expect(columns == ["_pk", "title"])
            #expect(try ModelContext(try open()).fetch(FetchDescriptor<Sketch>()).first?.zoom == 1.5)
        }
    }

    @Test func aPredicateOnAnEphemeralAttributeRunsInSwiftOrFailsInStrictMode() throws {
        let container = try inMemoryContainer(Sketch.self)
        do {
            let context = ModelContext(container)
            context.insert(Sketch(title: "a"))
            context.insert(Sketch(title: "b"))
            try context.save()
        }
        let context = ModelContext(container)
        let all = try context.fetch(FetchDescriptor<Sketch>(sortBy: [SortDescriptor(\.title)]))
        all[1].isSelected = true
        let selected = FetchDescriptor<Sketch>(predicate: #Predicate { $0.isSelected })
        #expect(try context.fetch(selected).map(\.title) == ["b"])
        let zoomed = FetchDescriptor<Sketch>(predicate: #Predicate { $0.zoom > 1 && $0.title == "a" })
        #expect(try ModelContext(container).fetch(zoomed).map(\.title) == ["a"])

        context.requiresSQLTranslation = true
        let error = stowageError { _ = try context.fetch(selected) }
        #expect(error?.code == .unsupportedPredicate)
        #expect(error?.message.contains("ephemeral") == true)
    }

    @Test func constraintsAndIndexesOnEphemeralAttributesAreRefused() {
        let unique = stowageError { _ = try inMemoryContainer(UniqueEphemeral.self) }
        #expect(unique?.code == .invalidSchema)
        #expect(unique?.entityName == "UniqueEphemeral")
        #expect(unique?.propertyName == "key")
        #expect(unique?.message.contains("UniqueEphemeral.key cannot be unique") == true)

        let indexed = stowageError { _ = try inMemoryContainer(IndexedEphemeral.self) }
        #expect(indexed?.code == .invalidSchema)
        #expect(indexed?.propertyName == "cache")
        #expect(indexed?.message.contains("IndexedEphemeral.cache cannot be indexed") == true)

        let noValue = stowageError { _ = try inMemoryContainer(EphemeralWithoutValue.self) }
        #expect(noValue?.code == .invalidSchema)
        #expect(noValue?.propertyName == "scratch")
    }
}

@Suite struct PendingChangeOrderTests {
    @Test func withoutASortPendingChangesKeepPrimaryKeyOrderBeforeAndAfterSaving() throws {
        let container = try inMemoryContainer(Item.self)
        let context = ModelContext(container)
        for name in ["a", "b", "c"] { context.insert(Item(name: name, value: 0)) }
        try context.save()
        let items = try context.fetch(FetchDescriptor<Item>())
        items[0].value = 10  // "a", the first row, now has an unsaved change
        context.insert(Item(name: "d", value: 0))

        var limited = FetchDescriptor<Item>()
        limited.fetchLimit = 2
        var offset = FetchDescriptor<Item>()
        offset.fetchOffset = 2
        let filtered = FetchDescriptor<Item>(predicate: #Predicate { $0.value >= 0 })
        let before = try (context.fetch(limited).map(\.name), context.fetch(offset).map(\.name), context.fetch(filtered).map(\.name))
        #expect(before.0 == ["a", "b"])
        #expect(before.1 == ["c", "d"])
        #expect(before.2 == ["a", "b", "c", "d"])
        try context.save()
        let after = try (context.fetch(limited).map(\.name), context.fetch(offset).map(\.name), context.fetch(filtered).map(\.name))
        #expect(after.0 == before.0)
        #expect(after.1 == before.1)
        #expect(after.2 == before.2)
    }
}

@Suite struct DeletedElsewhereTests {
    @Test func savingAChangeToARowAnotherContextDeletedIsAConflictAndWritesNothing() throws {
        let container = try inMemoryContainer(Item.self)
        do {
            let context = ModelContext(container)
            context.insert(Item(name: "shared", value: 1))
            try context.save()
        }
        let editor = ModelContext(container)
        let item = try #require(try editor.fetch(FetchDescriptor<Item>()).first)
        let remover = ModelContext(container)
        try remover.delete(model: Item.self)
        try remover.save()

        item.value = 2
        editor.insert(Item(name: "also in the save", value: 3))
        let error = stowageError { try editor.save() }
        #expect(error?.code == .saveConflict)
        #expect(error?.entityName == "Item")
        #expect(error?.message.contains("deleted from the store by another context or process") == true)
        // Nothing was written and the context kept its changes.
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Item>()) == 0)
        #expect(editor.hasChanges)
        #expect(item.value == 2)
        // Rolling back resolves it.
        editor.rollback()
        try editor.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Item>()) == 0)
    }

    /// Once the context has learned of the deletion (the model reports `isDeleted`), a change to the
    /// model still cannot vanish silently: the next save throws, and writes nothing.
    @Test(arguments: [false, true])
    func aChangeToAModelWhoseRowIsGoneMakesTheNextSaveThrow(deletedHere: Bool) throws {
        let container = try inMemoryContainer(Budget.self)
        do {
            let context = ModelContext(container)
            let budget = Budget(name: "home", limit: 1)
            context.insert(budget)
            budget.expenses = [Expense(title: "rent", amount: 5)]
            try context.save()
        }
        let editor = ModelContext(container)
        let expense = try #require(try editor.fetch(FetchDescriptor<Expense>()).first)
        if deletedHere {
            editor.delete(expense)
            try editor.save()
        } else {
            let remover = ModelContext(container)
            try remover.delete(model: Expense.self)
            try remover.save()
            editor.processPendingChanges()
        }
        #expect(expense.isDeleted)

        expense.amount = 7
        editor.insert(Budget(name: "also in the save", limit: 2))
        let error = stowageError { try editor.save() }
        #expect(error?.code == .saveConflict)
        #expect(error?.propertyName == "amount")
        #expect(error?.message.contains("after the model's row was deleted") == true)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Budget>()) == 1)
        // A relationship change too.
        expense.budget = nil
        #expect(stowageError { try editor.save() }?.propertyName == "budget")
        // Reported once: the next save writes the rest.
        try editor.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Budget>()) == 2)
    }

    @Test func relinkingARowAnotherContextDeletedIsAConflict() throws {
        let container = try inMemoryContainer(Budget.self)
        do {
            let context = ModelContext(container)
            context.insert(Budget(name: "home", limit: 1))
            context.insert(Expense(title: "rent", amount: 5))
            try context.save()
        }
        let editor = ModelContext(container)
        let expense = try #require(try editor.fetch(FetchDescriptor<Expense>()).first)
        let budget = try #require(try editor.fetch(FetchDescriptor<Budget>()).first)
        let remover = ModelContext(container)
        try remover.delete(model: Expense.self)
        try remover.save()

        expense.budget = budget
        #expect(stowageError { try editor.save() }?.code == .saveConflict)
        let check = ModelContext(container)
        #expect(try check.fetchCount(FetchDescriptor<Expense>()) == 0)
        #expect(try check.fetch(FetchDescriptor<Budget>()).first?.expenses.isEmpty == true)
    }
}
