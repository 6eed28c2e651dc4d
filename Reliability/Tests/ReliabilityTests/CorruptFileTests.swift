import Foundation
import GRDB
import ReliabilityKit
import Stowage
import Testing

@Suite("Corrupt and foreign files")
struct CorruptFileTests {
    /// 30 of the 100 variants, some of each family; no timing is asserted (the full run checks < 1 s).
    @Test func everyDamagedOrForeignFileIsRefusedWithAStowageErrorAndKeepsItsBytes() async throws {
        let scenario = try #require(Suite.scenario("corrupt-files"))
        let report = try await scenario.run(quick: true)
        for failure in report.failures { Issue.record("corrupt-files: \(failure)") }

        #expect(report.integer("variants") == 30)
        #expect(report.integer("opens") == 60, "each variant is opened read-only, then read-write")
        #expect((report.integer("error notADatabase") ?? 0) >= 10, "truncated, random, zeroed and text files are not databases")
        #expect(report[figure: "outcome: a text file"] == "read-only: notADatabase; read-write: notADatabase")
        #expect(report[figure: "outcome: another app's database"] == "read-only: schemaMismatch; read-write: schemaMismatch")
        #expect(report[figure: "outcome: a Stowage store of other models"] == "read-only: schemaMismatch; read-write: schemaMismatch")
        #expect(report[figure: "outcome: a directory"] == "read-only: storeNotFound; read-write: storeOpenFailed")
        #expect(report[figure: "outcome: an empty file"] == "read-only: storeNotFound; read-write: opened (changed: store)",
                "an empty file is a new store when the configuration can save")
        #expect(report[figure: "outcome: a Stowage store of a subset of the models"] == "read-only: schemaMismatch; read-write: opened (changed: store)",
                "a store with models in common is migrated when the configuration can save")
        // A read-only check of a store with a -wal placed beside it creates the -shm SQLite needs to read
        // it, and cannot remove it; nothing else is left.
        let left = report[figure: "files left beside a refused store"] ?? "?"
        #expect(left == "none" || left.components(separatedBy: "; ").allSatisfy { $0.contains("WAL") && !$0.contains("store-wal") }, "\(left)")
    }
}

// MARK: - Reproducers

/// Minimal reproducers of the engine bugs the corrupt-files scenario and fuzz-open-store found, kept as
/// regression tests.
@Suite("Corrupt files: engine bug reproducers")
struct CorruptFileReproducers {
    @Model final class ReproLog {
        var line: Int
        init(line: Int) { self.line = line }
    }

    @Model final class ReproParent {
        @Relationship(inverse: \ReproChild.parent) var children: [ReproChild] = []
        init() {}
    }

    @Model final class ReproChild {
        var parent: ReproParent?
        init() {}
    }

    static func directory(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("stowage-repro-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A closed store of `ReproLog` with one row.
    static func store(at url: URL) throws {
        let context = ModelContext(try ModelContainer(for: ReproLog.self, configurations: ModelConfiguration(url: url)))
        context.insert(ReproLog(line: 1))
        try context.save()
    }

    /// A store whose recorded layout is not valid JSON is refused with `.schemaMismatch` by every
    /// configuration (a read-write open threw a `DecodingError`: fixed).
    @Test func anUnreadableRecordedLayoutIsAStowageErrorWhenTheConfigurationCanSave() throws {
        let directory = try Self.directory("layout")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("a.store")
        try Self.store(at: url)
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { try $0.execute(sql: "UPDATE _stowage_metadata SET value = '{' WHERE key = 'schema_layout'") }
        try queue.close()
        do {
            _ = try ModelContainer(for: ReproLog.self, configurations: ModelConfiguration(url: url, allowsSave: true))
            Issue.record("opened")
        } catch let error as StowageError {
            #expect(error.code == .schemaMismatch)
        } catch {
            Issue.record("not a StowageError: \(type(of: error)): \(error)")
        }
    }

    /// Another database's `-wal` beside a store: opening it (read-only or not) refuses it with
    /// `.schemaMismatch` and leaves the store and the -wal as they were (the schema check's read-write
    /// connection used to checkpoint the foreign WAL into the store when it closed: fixed).
    @Test(arguments: [false, true])
    func aRefusedStoreWithAForeignWALKeepsItsBytes(allowsSave: Bool) throws {
        let directory = try Self.directory("foreign-wal")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("a.store")
        try Self.store(at: url)
        let other = directory.appendingPathComponent("other.sqlite")
        let queue = try DatabaseQueue(path: other.path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0")
            try db.execute(sql: "CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO person (name) VALUES ('a')")
        }
        try FileManager.default.copyItem(atPath: other.path + "-wal", toPath: url.path + "-wal")
        try queue.close()
        let before = try Data(contentsOf: url)
        let error = try #require(throws: StowageError.self) {
            _ = try ModelContainer(for: ReproLog.self, configurations: ModelConfiguration(url: url, allowsSave: allowsSave))
        }
        #expect(error.code == .schemaMismatch)
        #expect((try? Data(contentsOf: url)) == before)
        #expect(FileManager.default.fileExists(atPath: url.path + "-wal"))
    }

    /// A file SQLite reads as a database with no tables, damaged where SQLite only looks when it
    /// allocates a page (a freelist trunk page of 0xFF bytes), in rollback-journal mode: a read-write open
    /// checks it (no tables: a new store), opens the WAL pool, which switches the file to WAL mode
    /// (header bytes 18-19, the change counter) and then fails on the damage (GRDB's WAL set-up creates a
    /// table): refused with `.notADatabase`, the file changed. Found by fuzz-open-store.
    @Test func aDamagedFileWithNoTablesIsRefusedWithoutBeingSwitchedToWAL() throws {
        let directory = try Self.directory("freelist")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("a.store")
        let queue = try DatabaseQueue(path: url.path)
        try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = 1") }
        try queue.close()
        var data = try Data(contentsOf: url)
        let pageSize = Int(data[16]) << 8 | Int(data[17])
        for (offset, value) in [(28, UInt8(2)), (32, 2), (36, 1)] { data[offset + 3] = value }  // 2 pages, freelist: page 2
        data.append(Data(repeating: 0xFF, count: pageSize))
        try data.write(to: url)
        let error = try #require(throws: StowageError.self) {
            _ = try ModelContainer(for: ReproLog.self, configurations: ModelConfiguration(url: url, allowsSave: true))
        }
        #expect(error.code == .notADatabase)
        #expect((try? Data(contentsOf: url)) == data)
    }

    /// A store with a `-wal` left by a crash, opened with `allowsSave: false`: it opens, reads the
    /// WAL's data, and writes nothing (the schema check used to checkpoint the WAL: fixed).
    @Test func aReadOnlyOpenOfAStoreWithAWALWritesNothing() throws {
        let directory = try Self.directory("read-only-wal")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("a.store")
        let crashed = directory.appendingPathComponent("crashed.store")
        do {
            let container = try ModelContainer(for: ReproLog.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(ReproLog(line: 1))
            try context.save()
            // What a crash leaves: the file and its WAL, copied while the container is open.
            try FileManager.default.copyItem(at: url, to: crashed)
            try FileManager.default.copyItem(atPath: url.path + "-wal", toPath: crashed.path + "-wal")
        }
        let before = try Data(contentsOf: crashed)
        let walBefore = try Data(contentsOf: URL(fileURLWithPath: crashed.path + "-wal"))
        do {
            let container = try ModelContainer(for: ReproLog.self, configurations: ModelConfiguration(url: crashed, allowsSave: false))
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<ReproLog>()) == 1)
        }
        #expect((try? Data(contentsOf: crashed)) == before)
        #expect((try? Data(contentsOf: URL(fileURLWithPath: crashed.path + "-wal"))) == walBefore)
    }

    /// A metadata row whose key is NULL (a damaged file; `"key" TEXT PRIMARY KEY` admits NULL): the
    /// open used to trap reading it (fixed: such rows are skipped). Found by fuzz-open-store. Run in a
    /// child process (an exit test), as a crash would end the test run.
    @Test func aMetadataRowWithANullKeyIsRefusedWithoutACrash() async {
        await #expect(processExitsWith: .success) {
            let directory = try CorruptFileReproducers.directory("null-key")
            defer { try? FileManager.default.removeItem(at: directory) }
            let url = directory.appendingPathComponent("a.store")
            try CorruptFileReproducers.store(at: url)
            let queue = try DatabaseQueue(path: url.path)
            try queue.write { try $0.execute(sql: "INSERT INTO _stowage_metadata (key, value) VALUES (NULL, 'x')") }
            try queue.close()
            do {
                _ = try ModelContainer(for: ReproLog.self, configurations: ModelConfiguration(url: url, allowsSave: false))
            } catch is StowageError {
                // Refused with a typed error: what is expected.
            }
        }
    }

    /// Two models linked by a relationship and its inverse hold each other. They used to hold their
    /// context too, hence the container: once the code let go of all of them, the container was never
    /// released and its store stayed open (its -wal and -shm beside it until the process ended).
    @Test func aContainerIsReleasedAfterSavingModelsLinkedBothWays() throws {
        let directory = try Self.directory("cycle")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("a.store")
        weak var released: ModelContainer?
        do {
            let container = try ModelContainer(for: ReproParent.self, ReproChild.self, configurations: ModelConfiguration(url: url))
            released = container
            let context = ModelContext(container)
            let parent = ReproParent()
            let child = ReproChild()
            context.insert(parent)
            context.insert(child)
            child.parent = parent
            try context.save()
        }
        #expect(released == nil)
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
    }
}
