import Foundation
import GRDB
import Stowage
@testable import StowageCore
import Testing

/// A model whose to-one relationship to `Item` has no inverse: it can be put in another store than
/// `Item`'s, which the container refuses.
@Model final class Label {
    var text: String
    var item: Item?
    init(text: String) { self.text = text }
}

/// The tables of a store file (without SQLite's and Stowage's own).
private func tables(_ url: URL) throws -> [String] {
    try rawRead(url) {
        try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_stowage_%' ORDER BY name")
    }
}

/// A plan whose versions hold notes and items, which a container keeps in two stores.
enum SplitV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [NotesV1.Note.self, Item.self] }
}

enum SplitV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [NotesUniqueTitles.Note.self, Item.self] }
}

enum SplitPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [SplitV1.self, SplitV2.self] }
    static var stages: [MigrationStage] {
        [.custom(fromVersion: SplitV1.self, toVersion: SplitV2.self, willMigrate: { context in
            var seen = Set<String>()
            for note in try context.fetch(FetchDescriptor<NotesV1.Note>(sortBy: [SortDescriptor(\.pages)])) where !seen.insert(note.title).inserted {
                note.title += " (\(note.pages))"
            }
            try context.save()
        }, didMigrate: nil)]
    }
}

@Suite("Several configurations")
struct ConfigurationsTests {
    @Test func eachConfigurationIsAStoreOfItsOwnAndOneContextUsesBoth() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let items = directory.file("items.store"), budgets = directory.file("budgets.store")
        func open() throws -> ModelContainer {
            try ModelContainer(
                for: Budget.self, Item.self,
                configurations: ModelConfiguration("items", schema: Schema([Item.self]), url: items),
                ModelConfiguration("rest", url: budgets))
        }
        let container = try open()
        #expect(container.configurations.count == 2)
        let context = ModelContext(container)
        let budget = Budget(name: "Food", limit: 100)
        context.insert(budget)
        budget.expenses.append(Expense(title: "Bread", amount: 2))
        context.insert(Item(name: "lamp", value: 1))
        try context.save()
        #expect(try tables(items) == ["Item"])
        #expect(try tables(budgets) == ["Budget", "Expense"])

        let item = try #require(try context.fetch(FetchDescriptor<Item>()).first)
        #expect(item.persistentModelID.storeIdentifier != budget.persistentModelID.storeIdentifier)

        // Reopened, with the models in another order: each store finds its own rows.
        let reopened = ModelContext(try ModelContainer(
            for: Item.self, Budget.self,
            configurations: ModelConfiguration("rest", url: budgets),
            ModelConfiguration("items", schema: Schema([Item.self]), url: items)))
        #expect((reopened.model(for: item.persistentModelID) as? Item)?.name == "lamp")
        let food = try #require(reopened.model(for: budget.persistentModelID) as? Budget)
        #expect(food.expenses.map(\.title) == ["Bread"])

        // One save changing both stores, and deletions in both.
        food.limit = 150
        reopened.delete(try #require(try reopened.fetch(FetchDescriptor<Item>()).first))
        try reopened.save()
        #expect(try rawRead(items) { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM Item") } == 0)
        #expect(try rawRead(budgets) { try Double.fetchOne($0, sql: "SELECT \"limit\" FROM Budget") } == 150)
    }

    @Test func aSaveThatFailsInOneStoreWritesNothingInTheOther() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (container, items, budgets) = try twoStores(in: directory)
        // Each store in turn refuses its inserts, with the other store's part written first and last.
        for (failing, table) in [(budgets, "Budget"), (items, "Item")] {
            try DatabaseQueue(path: failing.path).write {
                try $0.execute(sql: "CREATE TRIGGER refuse BEFORE INSERT ON \(table) BEGIN SELECT RAISE(ABORT, 'refused'); END")
            }
            for itemFirst in [true, false] {
                let context = ModelContext(container)
                if itemFirst { context.insert(Item(name: "lamp", value: 1)) }
                context.insert(Budget(name: "Food", limit: 100))
                if !itemFirst { context.insert(Item(name: "lamp", value: 1)) }
                #expect(throws: StowageError.self) { try context.save() }
                #expect(try rawRead(items) { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM Item") } == 0)
                #expect(try rawRead(budgets) { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM Budget") } == 0)
                #expect(context.hasChanges, "the context keeps its changes")
            }
            try DatabaseQueue(path: failing.path).write { try $0.execute(sql: "DROP TRIGGER refuse") }
        }
    }

    /// Two threads saving to both stores, each touching them in the other order: the stores' write
    /// queues are always taken in one order, so neither waits for the other forever.
    @Test(.timeLimit(.minutes(1))) func savesTouchingBothStoresInOppositeOrdersDoNotDeadlock() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (container, _, _) = try twoStores(in: directory)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for itemFirst in [true, false] {
                group.addTask {
                    let context = ModelContext(container)
                    for index in 0..<100 {
                        if itemFirst { context.insert(Item(name: "i\(index)", value: index)) }
                        context.insert(Budget(name: "b\(index)", limit: 1))
                        if !itemFirst { context.insert(Item(name: "j\(index)", value: index)) }
                        try context.save()
                    }
                }
            }
            try await group.waitForAll()
        }
        let context = ModelContext(container)
        #expect(try context.fetchCount(FetchDescriptor<Item>()) == 200 && context.fetchCount(FetchDescriptor<Budget>()) == 200)
    }

    @Test func eachStoreMigratesOnItsOwnAndAReadOnlyOneRefusesItsChanges() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let notes = directory.file("notes.store"), items = directory.file("items.store")
        do {
            let context = ModelContext(try ModelContainer(for: NotesV1.Note.self, configurations: ModelConfiguration(url: notes)))
            context.insert(NotesV1.Note(title: "kept"))
            try context.save()
            let itemContext = ModelContext(try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: items)))
            itemContext.insert(Item(name: "lamp", value: 1))
            try itemContext.save()
        }
        let container = try ModelContainer(
            for: NotesAdded.Note.self, Item.self,
            configurations: ModelConfiguration("notes", schema: Schema([NotesAdded.Note.self]), url: notes),
            ModelConfiguration("items", schema: Schema([Item.self]), url: items, allowsSave: false))
        let context = ModelContext(container)
        let note = try #require(try context.fetch(FetchDescriptor<NotesAdded.Note>()).first)
        #expect(note.title == "kept" && note.stars == 3, "the notes store was migrated (a lightweight change)")
        note.stars = 5
        try context.save()

        let item = try #require(try context.fetch(FetchDescriptor<Item>()).first)
        item.value = 2
        let refused = try #require(throws: StowageError.self) { try context.save() }
        #expect(refused.code == .readOnlyStore && refused.entityName == "Item", "\(refused)")
        #expect(throws: SwiftDataError.self) { try container.erase() }
    }

    @Test func aPlanMigratesEachStoreForTheModelsItHolds() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let notes = directory.file("notes.store"), items = directory.file("items.store")
        func configurations() -> [ModelConfiguration] {
            [ModelConfiguration("notes", schema: Schema([NotesUniqueTitles.Note.self]), url: notes),
             ModelConfiguration("items", schema: Schema([Item.self]), url: items)]
        }
        do {
            let old = ModelContext(try ModelContainer(
                for: Schema(versionedSchema: SplitV1.self), configurations: [
                    ModelConfiguration("notes", schema: Schema([NotesV1.Note.self]), url: notes),
                    ModelConfiguration("items", schema: Schema([Item.self]), url: items),
                ]))
            for (title, pages) in [("a", 1), ("a", 2)] { old.insert(NotesV1.Note(title: title, pages: pages)) }
            old.insert(Item(name: "lamp", value: 1))
            try old.save()
        }
        let target = Schema(versionedSchema: SplitV2.self)
        let status = try ModelContainer.migrationStatus(for: target, migrationPlan: SplitPlan.self, configuration: configurations()[0])
        #expect(status.state == .needsMigration && status.storeVersion == Schema.Version(1, 0, 0) && status.stages.count == 1)
        let itemsStatus = try ModelContainer.migrationStatus(for: target, migrationPlan: SplitPlan.self, configuration: configurations()[1])
        #expect(itemsStatus.state == .upToDate, "\(itemsStatus)")

        let context = ModelContext(try ModelContainer(for: target, migrationPlan: SplitPlan.self, configurations: configurations()))
        #expect(try context.fetch(FetchDescriptor<NotesUniqueTitles.Note>(sortBy: [SortDescriptor(\.pages)])).map(\.title) == ["a", "a (2)"])
        #expect(try context.fetch(FetchDescriptor<Item>()).map(\.name) == ["lamp"])
    }

    @Test func configurationsThatOverlapOrLeaveModelsOutAreRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        func refusal(_ configurations: ModelConfiguration...) -> StowageError? {
            stowageError { _ = try ModelContainer(for: Schema([Item.self, Budget.self, Label.self]), configurations: configurations) }
        }
        let a = directory.file("a.store"), b = directory.file("b.store")
        #expect(refusal(ModelConfiguration("x", url: a), ModelConfiguration("x", url: b)) == .duplicateConfiguration)
        #expect(refusal(ModelConfiguration("x", url: a), ModelConfiguration("y", url: a)) == .duplicateConfiguration)
        #expect(refusal(ModelConfiguration("x", url: a), ModelConfiguration("y", url: b)) == .duplicateConfiguration, "two take the rest")
        let both = refusal(
            ModelConfiguration("x", schema: Schema([Budget.self]), url: a), ModelConfiguration("y", schema: Schema([Expense.self]), url: b))
        #expect(both == .duplicateConfiguration && both?.message.contains("x and y both hold") == true, "\(String(describing: both))")
        let outside = refusal(ModelConfiguration("x", schema: Schema([Stranger.self]), url: a), ModelConfiguration("y", url: b))
        #expect(outside == .configurationSchemaNotFoundInContainerSchema && outside?.entityName == "Stranger")
        let uncovered = refusal(ModelConfiguration("x", schema: Schema([Item.self]), url: a), ModelConfiguration("y", schema: Schema([Budget.self]), url: b))
        #expect(uncovered?.code == .configurationSchemaNotFoundInContainerSchema && uncovered?.entityName == "Label")
        let crossing = refusal(ModelConfiguration("x", schema: Schema([Item.self]), url: a), ModelConfiguration("y", url: b))
        #expect(crossing?.code == .invalidSchema && crossing?.propertyName == "item", "\(String(describing: crossing))")
        #expect(!FileManager.default.fileExists(atPath: a.path) && !FileManager.default.fileExists(atPath: b.path), "nothing was created")
    }

    @Test func cloudKitAndGroupContainerParameters() throws {
        let none = ModelConfiguration(isStoredInMemoryOnly: true, cloudKitDatabase: .none)
        _ = try ModelContainer(for: Item.self, configurations: none)
        _ = try ModelContainer(for: Item.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true, cloudKitDatabase: .automatic))
        let cloud = ModelConfiguration(isStoredInMemoryOnly: true, cloudKitDatabase: .private("iCloud.com.example.app"))
        #expect(cloud.cloudKitContainerIdentifier == "iCloud.com.example.app")
        let error = try #require(throws: SwiftDataError.self) { _ = try ModelContainer(for: Item.self, configurations: cloud) }
        #expect(error == .loadIssueModelContainer && error.code == .cloudKitUnavailable, "\(error)")

        let group = ModelConfiguration("shared", groupContainer: .identifier("group.com.example"))
        #expect(group.groupAppContainerIdentifier == "group.com.example")
        #expect(group.url.deletingLastPathComponent().lastPathComponent == "group.com.example")
        #expect(group.url.lastPathComponent == "shared.store")
        #expect(group.url.deletingLastPathComponent().deletingLastPathComponent() == ModelConfiguration.defaultDirectory.deletingLastPathComponent())
        #expect(ModelConfiguration("own", groupContainer: .none).url == ModelConfiguration("own").url)
    }
}

@Suite("Deleting all data")
struct EraseTests {
    @Test func eraseDeletesEveryModelOfEveryStoreAndContextsSeeIt() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (container, items, budgets) = try twoStores(in: directory)
        let context = ModelContext(container)
        let budget = Budget(name: "Food", limit: 100)
        context.insert(budget)
        budget.expenses = [Expense(title: "Bread", amount: 2), Expense(title: "Milk", amount: 1)]
        let lamp = Item(name: "lamp", value: 1)
        context.insert(lamp)
        try context.save()
        let before = lamp.persistentModelID

        try container.erase()
        #expect(try context.fetchCount(FetchDescriptor<Budget>()) == 0)
        #expect(try context.fetchCount(FetchDescriptor<Expense>()) == 0)
        #expect(try context.fetchCount(FetchDescriptor<Item>()) == 0)
        #expect(lamp.isDeleted && budget.isDeleted, "the models the context held are deleted")
        #expect(try tables(items) == ["Item"] && tables(budgets) == ["Budget", "Expense"], "the stores and tables stay")

        let next = Item(name: "desk", value: 2)
        context.insert(next)
        try context.save()
        #expect(next.persistentModelID != before, "keys are not reused")
        #expect(context.model(for: before).isDeleted)

        container.deleteAllData()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Item>()) == 0)
    }
}
