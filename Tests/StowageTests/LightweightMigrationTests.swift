import Foundation
import GRDB
import Stowage
@testable import StowageCore
import Testing

// Versions of one entity, `Note` (models nested in different enums share their entity by name, as in a
// SwiftData VersionedSchema).

enum NotesV1 {
    @Model final class Note {
        var title: String
        var body: String?
        var pages: Int
        init(title: String, body: String? = nil, pages: Int = 1) {
            self.title = title
            self.body = body
            self.pages = pages
        }
    }
}

/// V1 plus an optional attribute, a non-optional one with a default, and an index.
enum NotesAdded {
    @Model final class Note {
        #Index<Note>([\.pages])
        var title: String
        var body: String?
        var pages: Int
        var author: String?
        var stars: Int = 3
        init(title: String) {
            self.title = title
            self.pages = 1
        }
    }
}

/// V1 with a new non-optional attribute that has no default.
enum NotesNoDefault {
    @Model final class Note {
        var title: String
        var body: String?
        var pages: Int
        var words: Int
        init(title: String, words: Int) {
            self.title = title
            self.pages = 1
            self.words = words
        }
    }
}

/// V1 with `title` renamed `heading`, `body` removed and `pages` kept.
enum NotesRenamed {
    @Model final class Note {
        @Attribute(originalName: "title") var heading: String
        var pages: Int
        init(heading: String) {
            self.heading = heading
            self.pages = 1
        }
    }
}

/// V1 with `body` no longer optional (with a default), and `title` unique.
enum NotesStricter {
    @Model final class Note {
        @Attribute(.unique) var title: String
        var body: String = "(empty)"
        var pages: Int
        init(title: String) {
            self.title = title
            self.pages = 1
        }
    }
}

/// V1 with `body` no longer optional and no default.
enum NotesBodyRequired {
    @Model final class Note {
        var title: String
        var body: String
        var pages: Int
        init(title: String, body: String) {
            self.title = title
            self.body = body
            self.pages = 1
        }
    }
}

/// V1 with `pages` now a `String`: not a lightweight change.
enum NotesRetyped {
    @Model final class Note {
        var title: String
        var body: String?
        var pages: String
        init(title: String) {
            self.title = title
            self.pages = ""
        }
    }
}

/// V1 with `body` kept outside the row, and a new model related to notes.
enum NotesExternal {
    @Model final class Note {
        var title: String
        @Attribute(.externalStorage) var body: String?
        var pages: Int
        var folder: Folder?
        init(title: String) {
            self.title = title
            self.pages = 1
        }
    }

    @Model final class Folder {
        var name: String
        @Relationship(inverse: \Note.folder) var notes: [Note] = []
        init(name: String) { self.name = name }
    }
}

/// Everything a store holds, in a stable order: its schema and every row of every table.
private func dump(_ url: URL) throws -> [String] {
    try rawRead(url) { db in
        var lines = try String.fetchAll(db, sql: "SELECT type || ' ' || name || ' ' || COALESCE(sql, '') FROM sqlite_master ORDER BY type, name")
        for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
            lines += try GRDB.Row.fetchAll(db, sql: "SELECT * FROM \(SQLiteSQL.quote(table))").map { "\(table): \($0)" }.sorted()
        }
        return lines
    }
}

@Suite("Lightweight migration")
struct LightweightMigrationTests {
    /// A V1 store with three notes; returns their identifiers by title.
    private func makeV1Store(at url: URL, titles: [String] = ["a", "b", "c"]) throws -> [String: PersistentIdentifier] {
        let context = ModelContext(try ModelContainer(for: NotesV1.Note.self, configurations: ModelConfiguration(url: url)))
        var notes: [NotesV1.Note] = []
        for (offset, title) in titles.enumerated() {
            let note = NotesV1.Note(title: title, body: offset == 0 ? nil : "body \(title)", pages: offset + 1)
            context.insert(note)
            notes.append(note)
        }
        try context.save()
        return Dictionary(notes.map { ($0.title, $0.persistentModelID) }, uniquingKeysWith: { a, _ in a })
    }

    @Test func addedAttributesGetNilOrTheirDefaultAndRowsKeepTheirIdentifiers() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        let ids = try makeV1Store(at: url)
        let container = try ModelContainer(for: NotesAdded.Note.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let notes = try context.fetch(FetchDescriptor<NotesAdded.Note>(sortBy: [SortDescriptor(\.title)]))
        #expect(notes.map(\.title) == ["a", "b", "c"])
        #expect(notes.map(\.body) == [nil, "body b", "body c"])
        #expect(notes.map(\.pages) == [1, 2, 3])
        #expect(notes.allSatisfy { $0.author == nil && $0.stars == 3 })
        for note in notes { #expect(note.persistentModelID.primaryKey == ids[note.title]?.primaryKey) }
        let b = try #require(context.model(for: ids["b"]!) as? NotesAdded.Note)
        #expect(b.title == "b" && !b.isDeleted)
        // The new index exists, and new rows get new keys.
        let indexes = try rawRead(url) { try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Note'") }
        #expect(indexes.contains("Note_pages_index"), "\(indexes)")
        context.insert(NotesAdded.Note(title: "d"))
        try context.save()
        let d = try #require(try context.fetch(FetchDescriptor<NotesAdded.Note>(predicate: #Predicate { $0.title == "d" })).first)
        #expect((d.persistentModelID.primaryKey ?? 0) > (ids.values.compactMap(\.primaryKey).max() ?? 0))
    }

    @Test func deletedRowsKeysAreNotReusedAfterARebuild() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        let ids = try makeV1Store(at: url)
        do {
            let context = ModelContext(try ModelContainer(for: NotesV1.Note.self, configurations: ModelConfiguration(url: url)))
            context.delete(try #require(context.model(for: ids["c"]!) as? NotesV1.Note))
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: NotesAdded.Note.self, configurations: ModelConfiguration(url: url)))
        context.insert(NotesAdded.Note(title: "new"))
        try context.save()
        #expect((context.model(for: ids["c"]!)).isDeleted, "the deleted row's identifier must not find the new row")
    }

    @Test func renamedAttributesKeepTheirValuesAndRemovedOnesGoAway() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        _ = try makeV1Store(at: url)
        let context = ModelContext(try ModelContainer(for: NotesRenamed.Note.self, configurations: ModelConfiguration(url: url)))
        let notes = try context.fetch(FetchDescriptor<NotesRenamed.Note>(sortBy: [SortDescriptor(\.heading)]))
        #expect(notes.map(\.heading) == ["a", "b", "c"])
        #expect(notes.map(\.pages) == [1, 2, 3])
        let columns = try rawRead(url) { try GRDB.Row.fetchAll($0, sql: "PRAGMA table_info(\"Note\")").map { $0["name"] as String } }
        #expect(columns == ["_pk", "heading", "pages"])
    }

    @Test func requiredWithADefaultFillsNilsAndUniqueIsEnforced() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        _ = try makeV1Store(at: url)
        let context = ModelContext(try ModelContainer(for: NotesStricter.Note.self, configurations: ModelConfiguration(url: url)))
        let notes = try context.fetch(FetchDescriptor<NotesStricter.Note>(sortBy: [SortDescriptor(\.title)]))
        #expect(notes.map(\.body) == ["(empty)", "body b", "body c"])
        let upsert = NotesStricter.Note(title: "b")
        upsert.pages = 42
        context.insert(upsert)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<NotesStricter.Note>()) == 3, "an insert with a taken title updates that row")
    }

    @Test func refusedChangesNameTheProblemAndLeaveTheStoreAsItWas() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        _ = try makeV1Store(at: url, titles: ["a", "b", "a"])
        let before = try dump(url)

        func refusal(_ open: () throws -> ModelContainer) throws -> StowageError {
            let error = try #require(throws: StowageError.self) { _ = try open() }
            #expect(try dump(url) == before, "the store changed: \(error)")
            return error
        }
        let noDefault = try refusal { try ModelContainer(for: NotesNoDefault.Note.self, configurations: ModelConfiguration(url: url)) }
        #expect(noDefault.code == .schemaMismatch && noDefault.entityName == "Note" && noDefault.propertyName == "words", "\(noDefault)")
        #expect(noDefault.message.contains("no default value"), "\(noDefault.message)")

        let required = try refusal { try ModelContainer(for: NotesBodyRequired.Note.self, configurations: ModelConfiguration(url: url)) }
        #expect(required.propertyName == "body" && required.message.contains("1 row(s) hold nil"), "\(required.message)")

        let retyped = try refusal { try ModelContainer(for: NotesRetyped.Note.self, configurations: ModelConfiguration(url: url)) }
        #expect(retyped.propertyName == "pages" && retyped.message.contains("custom MigrationStage"), "\(retyped.message)")

        let duplicates = try refusal { try ModelContainer(for: NotesStricter.Note.self, configurations: ModelConfiguration(url: url)) }
        #expect(duplicates.propertyName == "title" && duplicates.message.contains("\"a\""), "\(duplicates.message)")

        // The store still opens as V1 with its rows.
        let context = ModelContext(try ModelContainer(for: NotesV1.Note.self, configurations: ModelConfiguration(url: url)))
        #expect(try context.fetchCount(FetchDescriptor<NotesV1.Note>()) == 3)
    }

    @Test func externalStorageAndNewModelsAndRelationshipsMigrateBothWays() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        _ = try makeV1Store(at: url)
        do {
            let context = ModelContext(try ModelContainer(for: NotesExternal.Note.self, configurations: ModelConfiguration(url: url)))
            let notes = try context.fetch(FetchDescriptor<NotesExternal.Note>(sortBy: [SortDescriptor(\.title)]))
            #expect(notes.map(\.body) == [nil, "body b", "body c"])
            #expect(notes.allSatisfy { $0.folder == nil })
            let folder = NotesExternal.Folder(name: "inbox")
            context.insert(folder)
            notes[1].folder = folder
            try context.save()
            let side = try rawRead(url) { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM \"Note_body\"") }
            #expect(side == 2, "the bodies moved to the side table")
        }
        // Back to V1: the folder table and the link column go, bodies come back into the row.
        let context = ModelContext(try ModelContainer(for: NotesV1.Note.self, configurations: ModelConfiguration(url: url)))
        let notes = try context.fetch(FetchDescriptor<NotesV1.Note>(sortBy: [SortDescriptor(\.title)]))
        #expect(notes.map(\.body) == [nil, "body b", "body c"])
        let tables = try rawRead(url) { try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") }
        #expect(!tables.contains("Folder") && !tables.contains("Note_body"), "\(tables)")
        #expect(try rawRead(url) { try Int.fetchOne($0, sql: "PRAGMA foreign_key_check") } == nil)
    }

    @Test func aMigratedStoreReopensWithTheModelsInAnyOrderAndAReadOnlyOpenDoesNotMigrate() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        _ = try makeV1Store(at: url)
        let before = try dump(url)
        let readOnly = try #require(throws: StowageError.self) {
            _ = try ModelContainer(for: NotesAdded.Note.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        }
        #expect(readOnly.code == .schemaMismatch)
        #expect(try dump(url) == before)
        _ = try ModelContainer(for: NotesExternal.Note.self, NotesExternal.Folder.self, configurations: ModelConfiguration(url: url))
        let reopened = try ModelContainer(for: NotesExternal.Folder.self, NotesExternal.Note.self, configurations: ModelConfiguration(url: url))
        #expect(try ModelContext(reopened).fetchCount(FetchDescriptor<NotesExternal.Note>()) == 3)
    }
}

extension NotesV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Note.self] }
}

extension NotesStricter: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Note.self] }
}

extension NotesExternal: VersionedSchema {
    static let versionIdentifier = Schema.Version(3, 0, 0)
    static var models: [any PersistentModel.Type] { [Note.self, Folder.self] }
}

/// V1 → V2 (titles made unique after `willMigrate` renames duplicates, `didMigrate` counts pages) → V3.
/// V1 with unique titles and nothing else changed.
enum NotesUniqueTitles {
    @Model final class Note {
        @Attribute(.unique) var title: String
        var body: String?
        var pages: Int
        init(title: String, pages: Int) {
            self.title = title
            self.pages = pages
        }
    }
}

/// Versions named with SwiftData's beta spelling, a text.
enum TextNamedV1: VersionedSchema {
    static let versionIdentifier: String? = "Titles may repeat"
    static var models: [any PersistentModel.Type] { [NotesV1.Note.self] }
}

enum TextNamedV2: VersionedSchema {
    static let versionIdentifier: String? = "Titles are unique"
    static var models: [any PersistentModel.Type] { [NotesUniqueTitles.Note.self] }
}

/// A version that names itself neither way.
enum UnnamedVersion: VersionedSchema {
    static var models: [any PersistentModel.Type] { [NotesStricter.Note.self] }
}

/// The seed's plan shape: `willMigrate` (on version 1's tables) fetches version 2's class.
enum TextNamedPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TextNamedV1.self, TextNamedV2.self] }
    static var stages: [MigrationStage] {
        [.custom(fromVersion: TextNamedV1.self, toVersion: TextNamedV2.self, willMigrate: { context in
            var seen = Set<String>()
            for note in try context.fetch(FetchDescriptor<NotesUniqueTitles.Note>(sortBy: [SortDescriptor(\.pages)]))
            where !seen.insert(note.title).inserted {
                note.title += " (\(note.pages))"
            }
            try context.save()
        }, didMigrate: nil)]
    }
}

enum UnnamedPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TextNamedV1.self, UnnamedVersion.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: TextNamedV1.self, toVersion: UnnamedVersion.self)] }
}

enum NotesPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesStricter.self, NotesExternal.self] }
    static var stages: [MigrationStage] {
        [
            .custom(
                fromVersion: NotesV1.self, toVersion: NotesStricter.self,
                willMigrate: { context in
                    var seen = Set<String>()
                    for note in try context.fetch(FetchDescriptor<NotesV1.Note>(sortBy: [SortDescriptor(\.pages)]))
                    where !seen.insert(note.title).inserted {
                        note.title += " (\(note.pages))"
                    }
                    try context.save()
                },
                didMigrate: { context in
                    for note in try context.fetch(FetchDescriptor<NotesStricter.Note>()) { note.pages *= 10 }
                    try context.save()
                }),
            .lightweight(fromVersion: NotesStricter.self, toVersion: NotesExternal.self),
        ]
    }
}

/// The same plan whose `didMigrate` fails after its changes were saved.
enum FailingNotesPlan: SchemaMigrationPlan {
    struct Failure: Error {}
    static var schemas: [any VersionedSchema.Type] { NotesPlan.schemas }
    static var stages: [MigrationStage] {
        [
            NotesPlan.stages[0],
            .custom(
                fromVersion: NotesStricter.self, toVersion: NotesExternal.self, willMigrate: nil,
                didMigrate: { context in
                    context.insert(NotesExternal.Folder(name: "half-done"))
                    try context.save()
                    throw Failure()
                }),
        ]
    }
}

enum DuplicatedVersionsPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV1.self, NotesStricter.self] }
    static var stages: [MigrationStage] { [] }
}

@Suite("Migration plans")
struct MigrationPlanTests {
    private func makeV1Store(at url: URL) throws {
        let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: NotesV1.self), configurations: ModelConfiguration(url: url)))
        for (title, pages) in [("a", 1), ("b", 2), ("a", 3)] { context.insert(NotesV1.Note(title: title, pages: pages)) }
        try context.save()
    }

    @Test func stagesRunFromTheStoresVersionWithContextsOverEachVersionsModels() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        try makeV1Store(at: url)
        let container = try ModelContainer(
            for: Schema(versionedSchema: NotesExternal.self), migrationPlan: NotesPlan.self, configurations: ModelConfiguration(url: url))
        #expect(container.migrationPlan == NotesPlan.self)
        let notes = try ModelContext(container).fetch(FetchDescriptor<NotesExternal.Note>(sortBy: [SortDescriptor(\.pages)]))
        #expect(notes.map(\.title) == ["a", "b", "a (3)"])
        #expect(notes.map(\.pages) == [10, 20, 30], "didMigrate ran once, on V2's models")
        // Reopening at the newest version runs nothing.
        let again = try ModelContainer(
            for: Schema(versionedSchema: NotesExternal.self), migrationPlan: NotesPlan.self, configurations: ModelConfiguration(url: url))
        #expect(try ModelContext(again).fetch(FetchDescriptor<NotesExternal.Note>()).map(\.pages).sorted() == [10, 20, 30])
    }

    @Test func versionsNamedByATextMigrateAndAStageMayUseTheNextVersionsClass() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        try makeV1Store(at: url)  // titles a, b, a
        let status = try ModelContainer.migrationStatus(
            for: Schema(versionedSchema: TextNamedV2.self), migrationPlan: TextNamedPlan.self, configuration: ModelConfiguration(url: url))
        #expect(status.storeVersionName == "Titles may repeat" && status.stages.count == 1)
        #expect(status.stages.first?.description == "custom \"Titles may repeat\" → \"Titles are unique\"")

        let container = try ModelContainer(
            for: Schema(versionedSchema: TextNamedV2.self), migrationPlan: TextNamedPlan.self, configurations: ModelConfiguration(url: url))
        let titles = try ModelContext(container).fetch(FetchDescriptor<NotesUniqueTitles.Note>(sortBy: [SortDescriptor(\.pages)])).map(\.title)
        #expect(titles == ["a", "b", "a (3)"])

        // A class of another version that stores other properties is refused, saying so.
        let context = ModelContext(try ModelContainer(for: NotesV1.Note.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let other = try #require(throws: SwiftDataError.self) { try context.fetch(FetchDescriptor<NotesStricter.Note>()) }
        #expect(other.code == .unknownModelType && other.message.contains("another version's class"), "\(other.message)")

        let unnamed = try #require(throws: SwiftDataError.self) {
            _ = try ModelContainer(for: Schema(versionedSchema: NotesStricter.self), migrationPlan: UnnamedPlan.self, configurations: ModelConfiguration(url: url))
        }
        #expect(unnamed.message.contains("declares no versionIdentifier"), "\(unnamed.message)")
    }

    @Test func theSeedsSpellingCompilesAndOpens() throws {
        // Seed 002: `ModelContainer(for: [Budget.self], migrationPlan: Plan.self, ModelConfiguration(for: [Budget.self]))`.
        let container = try ModelContainer(
            for: [NotesExternal.Note.self], migrationPlan: NotesPlan.self,
            ModelConfiguration(for: [NotesExternal.Note.self], isStoredInMemoryOnly: true))
        #expect(container.migrationPlan == NotesPlan.self)
        #expect(container.schema.entitiesByName.keys.sorted() == ["Folder", "Note"])
    }

    @Test func aStageThatThrowsLeavesTheStoreAtItsOldVersion() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        try makeV1Store(at: url)
        let before = try dump(url)
        #expect(throws: FailingNotesPlan.Failure.self) {
            _ = try ModelContainer(
                for: Schema(versionedSchema: NotesExternal.self), migrationPlan: FailingNotesPlan.self, configurations: ModelConfiguration(url: url))
        }
        #expect(try dump(url) == before, "the first stage and the saves of the second were undone with it")
        // The working plan still migrates the untouched store.
        _ = try ModelContainer(for: Schema(versionedSchema: NotesExternal.self), migrationPlan: NotesPlan.self, configurations: ModelConfiguration(url: url))
    }

    @Test func backwardUnknownAndInvalidPlansAreRefusedUntouched() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        try makeV1Store(at: url)
        _ = try ModelContainer(for: Schema(versionedSchema: NotesStricter.self), migrationPlan: NotesPlan.self, configurations: ModelConfiguration(url: url))
        let before = try dump(url)

        let backward = try #require(throws: StowageError.self) {
            _ = try ModelContainer(for: Schema(versionedSchema: NotesV1.self), migrationPlan: NotesPlan.self, configurations: ModelConfiguration(url: url))
        }
        #expect(backward.code == .backwardMigration && backward.message.contains("backward migration"), "\(backward.message)")
        let duplicated = try #require(throws: StowageError.self) {
            _ = try ModelContainer(for: Schema(versionedSchema: NotesStricter.self), migrationPlan: DuplicatedVersionsPlan.self, configurations: ModelConfiguration(url: url))
        }
        #expect(duplicated.code == .invalidSchema && duplicated.message.contains("lists version 1.0.0 more than once"), "\(duplicated.message)")
        #expect(try dump(url) == before)

        let other = directory.file("other.store")
        _ = try ModelContainer(for: NotesRenamed.Note.self, configurations: ModelConfiguration(url: other))
        let unknown = try #require(throws: StowageError.self) {
            _ = try ModelContainer(for: Schema(versionedSchema: NotesExternal.self), migrationPlan: NotesPlan.self, configurations: ModelConfiguration(url: other))
        }
        #expect(unknown.code == .unknownDataStoreSchema && unknown.message.contains("matches none of the versions"), "\(unknown.message)")
    }
}

@Suite("Migration status")
struct MigrationStatusTests {
    /// The store's bytes and the names of the files beside it.
    private func snapshot(_ url: URL) throws -> (Data, [String]) {
        let directory = url.deletingLastPathComponent()
        return (try Data(contentsOf: url), try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted())
    }

    @Test func reportsTheStoresVersionAndTheStagesWithoutChangingTheFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        let target = Schema(versionedSchema: NotesStricter.self)
        let configuration = ModelConfiguration(url: url)

        let none = try ModelContainer.migrationStatus(for: target, migrationPlan: NotesPlan.self, configuration: configuration)
        #expect(none.state == .noStore && none.stages.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: url.path), "status does not create the store")

        do {
            let context = ModelContext(try ModelContainer(for: NotesV1.Note.self, configurations: configuration))
            for title in ["a", "a", "b"] { context.insert(NotesV1.Note(title: title)) }
            try context.save()
        }
        let before = try snapshot(url)
        let status = try ModelContainer.migrationStatus(for: target, migrationPlan: NotesPlan.self, configuration: configuration)
        #expect(status.state == .needsMigration)
        #expect(status.storeVersion == Schema.Version(1, 0, 0) && status.targetVersion == Schema.Version(2, 0, 0))
        #expect(status.stages.map { $0.toVersion.versionIdentifier } == [Schema.Version(2, 0, 0)])
        #expect(status.changes.contains { $0.contains("uniqueness") }, "\(status.changes)")
        #expect("\(status)".contains("1 stage"), "\(status)")
        let after = try snapshot(url)
        #expect(after.0 == before.0 && after.1 == before.1, "the file and its directory are unchanged: \(after.1)")

        // Without a plan: the lightweight change, from the version the store recorded.
        let lightweight = try ModelContainer.migrationStatus(for: Schema([NotesAdded.Note.self]), configuration: configuration)
        #expect(lightweight.state == .needsMigration && lightweight.stages.isEmpty && lightweight.storeVersion == nil)
        #expect(lightweight.changes.contains { $0.contains("Note.author") }, "\(lightweight.changes)")

        _ = try ModelContainer(for: target, migrationPlan: NotesPlan.self, configurations: configuration)
        let migrated = try ModelContainer.migrationStatus(for: target, migrationPlan: NotesPlan.self, configuration: configuration)
        #expect(migrated.state == .upToDate && migrated.storeVersion == Schema.Version(2, 0, 0) && migrated.stages.isEmpty)

        // What opening refuses, the status refuses, untouched.
        let newer = try snapshot(url)
        #expect(throws: SwiftDataError.backwardMigration) {
            _ = try ModelContainer.migrationStatus(for: Schema(versionedSchema: NotesV1.self), migrationPlan: NotesPlan.self, configuration: configuration)
        }
        let unchanged = try snapshot(url)
        #expect(unchanged.0 == newer.0 && unchanged.1 == newer.1)

        let foreign = directory.file("foreign.sqlite")
        try DatabaseQueue(path: foreign.path).write { try $0.execute(sql: "CREATE TABLE t (x)") }
        #expect(throws: SwiftDataError.loadIssueModelContainer) {
            _ = try ModelContainer.migrationStatus(for: target, configuration: ModelConfiguration(url: foreign))
        }
    }
}
