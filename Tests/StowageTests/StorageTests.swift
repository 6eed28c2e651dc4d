import Foundation
import GRDB
import Stowage
@testable import StowageCore
import Testing

/// The first version of a model, and a later one whose stored shape differs (same entity name).
enum StoreV1 {
    @Model
    final class Widget {
        var name: String
        var size: Int
        var color: String?
        init(name: String, size: Int) {
            self.name = name
            self.size = size
        }
    }
}

enum StoreV2 {
    @Model
    final class Widget {
        var name: String
        var size: Double
        var weight: Int
        init(name: String, size: Double, weight: Int) {
            self.name = name
            self.size = size
            self.weight = weight
        }
    }
}

/// Item 10: what a store looks like in the sqlite3 shell.
@Suite struct StorageTests {
    @Test func oneTablePerEntityWithReadableTypedColumns() throws {
        try withFileStore([Item.self, Tag.self]) { url, open in
            do {
                let context = ModelContext(try open())
                context.insert(Item(name: "a", value: 1))
                try context.save()
            }
            let (tables, columns, tagColumns, indexes) = try rawRead(url) { db in
                (
                    try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"),
                    try GRDB.Row.fetchAll(db, sql: "PRAGMA table_info(Item)").map {
                        "\($0["name"] as String) \($0["type"] as String) \($0["notnull"] as Int) \($0["pk"] as Int)"
                    },
                    try GRDB.Row.fetchAll(db, sql: "PRAGMA table_info(Tag)").map { "\($0["name"] as String) \($0["type"] as String)" },
                    try GRDB.Row.fetchAll(db, sql: "PRAGMA index_list(Tag)").map { $0["unique"] as Int }
                )
            }
            // sqlite_sequence is SQLite's own: primary keys are AUTOINCREMENT, so identifiers are never reused.
            // The history tables come with the first save.
            #expect(tables == ["Item", "Tag", "_stowage_history", "_stowage_history_change", "_stowage_metadata", "sqlite_sequence"])
            #expect(columns == [
                "_pk INTEGER 0 1", "name TEXT 1 0", "value INTEGER 1 0", "order INTEGER 1 0", "note TEXT 0 0", "tags TEXT 1 0",
            ])
            #expect(tagColumns == ["_pk INTEGER", "code TEXT", "label TEXT", "uses INTEGER"])
            #expect(indexes == [1])
            let row = try rawRead(url) { db in try String.fetchOne(db, sql: #"SELECT name || ',' || value || ',' || "order" || ',' || tags FROM Item"#) }
            #expect(row == "a,1,0,[]")
        }
    }

    @Test func externalStorageKeepsLargeValuesOutsideTheRow() throws {
        try withFileStore([Photo.self]) { url, open in
            let original = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0) })
            let thumbnail = Data([1, 2, 3])
            do {
                let context = ModelContext(try open())
                let photo = Photo(caption: "beach", original: original)
                photo.thumbnail = thumbnail
                context.insert(photo)
                try context.save()
            }
            let (columns, sideTables) = try rawRead(url) { db in
                (
                    try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('Photo')"),
                    try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Photo_%' ORDER BY name")
                )
            }
            #expect(columns == ["_pk", "caption"])
            #expect(sideTables == ["Photo_original", "Photo_thumbnail"])
            let container = try open()
            let context = ModelContext(container)
            let photo = try #require(try context.fetch(FetchDescriptor<Photo>()).first)
            #expect(photo.caption == "beach")
            #expect(photo.original == original)
            #expect(photo.thumbnail == thumbnail)
        }
    }

    @Test func metadataTableHoldsVersionAndFingerprint() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        let schema = Schema([Item.self], version: Schema.Version(3, 1, 4))
        let container = try ModelContainer(for: schema, configurations: ModelConfiguration(url: url))
        let metadata = try rawRead(url) { db in
            try Dictionary(uniqueKeysWithValues: GRDB.Row.fetchAll(db, sql: "SELECT key, value FROM _stowage_metadata").map {
                ($0["key"] as String, $0["value"] as String)
            })
        }
        #expect(Set(metadata.keys) == ["store_identifier", "schema_version", "schema_layout", "schema_fingerprint", "schema_description"])
        #expect(metadata["schema_version"] == "3.1.4")
        #expect(metadata["store_identifier"] == (container.store as! SQLiteStore).identifier)
        // The layout is canonical JSON a person can read: entities and columns sorted by name.
        let layout = try SchemaLayout(json: try #require(metadata["schema_layout"]))
        #expect(layout == schema.layout)
        #expect(layout.entities.map(\.name) == ["Item"])
        #expect(layout.entities[0].columns.map(\.name) == ["name", "note", "order", "tags", "value"])
        #expect(layout.entities[0].columns.first { $0.name == "name" } == .init(name: "name", type: "TEXT", isOptional: false, collation: "swift"))
        #expect(layout.entities[0].columns.first { $0.name == "value" } == .init(name: "value", type: "INTEGER", isOptional: false, collation: nil))
        #expect(metadata["schema_fingerprint"] == layout.fingerprint)
        #expect(metadata["schema_fingerprint"] == Schema([Item.self]).fingerprint)
        #expect(metadata["schema_fingerprint"] != Schema([Item.self, Tag.self]).fingerprint)
        // Reopening keeps the identifier, so persistent identifiers stay valid across launches.
        let reopened = try ModelContainer(for: schema, configurations: ModelConfiguration(url: url))
        #expect((reopened.store as! SQLiteStore).identifier == (container.store as! SQLiteStore).identifier)
    }

    @Test func fileStoresUseWAL() throws {
        try withFileStore([Item.self]) { url, open in
            let container = try open()
            let context = ModelContext(container)
            context.insert(Item(name: "a", value: 1))
            try context.save()
            let mode = try rawRead(url) { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
            #expect(mode == "wal")
            _ = container
        }
    }

    @Test func newStoreFilesAreOwnerOnly() throws {
        try withFileStore([Item.self]) { url, open in
            let container = try open()
            let context = ModelContext(container)
            context.insert(Item(name: "a", value: 1))
            try context.save()
            let wal = URL(fileURLWithPath: url.path + "-wal")
            let shm = URL(fileURLWithPath: url.path + "-shm")
            #expect(try permissions(url) == 0o600)
            #expect(FileManager.default.fileExists(atPath: wal.path))
            #expect(FileManager.default.fileExists(atPath: shm.path))
            #expect(try permissions(wal) == 0o600)
            #expect(try permissions(shm) == 0o600)
            _ = container
        }
    }

    @Test func mismatchedStoreFailsNamingTheDifferencesAndIsLeftUnchanged() throws {
        try withFileStore([StoreV1.Widget.self]) { url, open in
            do {
                let context = ModelContext(try open())
                context.insert(StoreV1.Widget(name: "w", size: 1))
                try context.save()
            }
            let directory = url.deletingLastPathComponent()
            let before = try #require(fileBytes(url))
            let filesBefore = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()

            let error = try #require(stowageError {
                _ = try ModelContainer(for: StoreV2.Widget.self, configurations: ModelConfiguration(url: url))
            })
            // A property whose type changes is not a lightweight migration: nothing is migrated.
            #expect(error.code == .schemaMismatch)
            #expect(error.entityName == "Widget" && error.propertyName == "size")
            #expect(error.message.contains("Widget.size was stored as INTEGER and is now REAL; changing a property's type needs a custom MigrationStage"), "\(error.message)")
            #expect(fileBytes(url) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == filesBefore)

            // The original models still open it.
            let container = try ModelContainer(for: StoreV1.Widget.self, configurations: ModelConfiguration(url: url))
            #expect(try ModelContext(container).fetch(FetchDescriptor<StoreV1.Widget>()).map(\.name) == ["w"])
        }
    }

    @Test func aStoreWithAnotherEntitySetIsRefusedUntouched() throws {
        // No model in common: migrating would drop every table the store has.
        try withFileStore([Item.self]) { url, open in
            do { _ = try open() }
            let before = try #require(fileBytes(url))
            let error = try #require(stowageError {
                _ = try ModelContainer(for: Tag.self, configurations: ModelConfiguration(url: url))
            })
            #expect(error.code == .schemaMismatch)
            #expect(error.message.contains("holds other models (Item) than the schema (Tag)"), "\(error.message)")
            #expect(fileBytes(url) == before)
            // A model added beside the stored ones is a lightweight migration.
            let container = try ModelContainer(for: Item.self, Tag.self, configurations: ModelConfiguration(url: url))
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<Tag>()) == 0)
        }
    }

    @Test func anSQLiteFileNotCreatedByStowageIsRefusedAndUntouched() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("foreign.sqlite")
        do {
            let queue = try DatabaseQueue(path: url.path)
            try queue.write { db in
                try db.execute(sql: "CREATE TABLE Item (id INTEGER PRIMARY KEY, name TEXT)")
                try db.execute(sql: "INSERT INTO Item (name) VALUES ('theirs')")
            }
        }
        let before = try #require(fileBytes(url))
        let filesBefore = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
        let error = try #require(stowageError {
            _ = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: url))
        })
        #expect(error.code == .schemaMismatch)
        #expect(error.message.contains("not created by Stowage"))
        #expect(fileBytes(url) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == filesBefore)
    }
}

@Suite("Closing a store")
struct ClosingTests {
    /// Read connections, the writer and the change watcher all close with the container, the writer
    /// last, so the WAL is checkpointed into the file and removed.
    @Test func aReleasedContainerLeavesOneFileEvenAfterReads() throws {
        try withFileStore([Item.self]) { url, open in
            weak var released: ModelContainer?
            do {
                let container = try open()
                released = container
                let context = ModelContext(container)
                context.insert(Item(name: "a", value: 1))
                try context.save()
                #expect(try ModelContext(container).fetch(FetchDescriptor<Item>()).count == 1)
            }
            #expect(released == nil)
            #expect(try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path) == [url.lastPathComponent])
        }
    }
}
