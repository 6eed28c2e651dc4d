import Foundation
import GRDBSQLite
import Stowage

// W7: migrating a store of 1M rows (× --scale) from version 1 to version 2 of one model — `name`
// renamed `title` (`@Attribute(originalName:)`), an added `flag` with a default, and `value` rewritten
// in every row by a custom stage whose `didMigrate` goes through `enumerate` — against the same change
// written by hand in SQL (`ALTER TABLE … RENAME COLUMN`, `ALTER TABLE … ADD COLUMN … DEFAULT`, one
// `UPDATE`) in one transaction. Every contender starts from a copy of the same V1 file.

enum W7V1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [W7Item.self] }

    @Model final class W7Item {
        var key: Int
        var name: String
        var value: Double
        var note: String

        init(key: Int, name: String, value: Double, note: String) {
            self.key = key
            self.name = name
            self.value = value
            self.note = note
        }
    }
}

enum W7V2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [W7Item.self] }

    /// V1's `W7Item` (the same entity and table, by its name) with `name` renamed and `flag` added.
    @Model final class W7Item {
        var key: Int
        @Attribute(originalName: "name") var title: String
        var value: Double
        var note: String
        var flag: Bool = false

        init(key: Int, title: String, value: Double, note: String) {
            self.key = key
            self.title = title
            self.value = value
            self.note = note
        }
    }
}

enum W7Plan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [W7V1.self, W7V2.self] }
    static var stages: [MigrationStage] {
        // The rename and the added attribute are the lightweight part, made between `willMigrate` and
        // `didMigrate`; `didMigrate` runs on V2's models.
        [.custom(fromVersion: W7V1.self, toVersion: W7V2.self, willMigrate: nil, didMigrate: W7Stage.didMigrate)]
    }
}

/// The custom stage's code, and what the benchmark learns from it. Set and read by the thread that
/// opens the container (migration stages run there).
enum W7Stage {
    /// The rewrite every contender applies to `value`, in Swift and in SQL.
    static func rewrite(_ value: Double) -> Double { value * 2 + 1 }
    static let rewriteSQL = "\"value\" * 2 + 1"

    /// Saves every `saveEvery` rewritten rows, or once at the end when `nil`.
    nonisolated(unsafe) static var saveEvery: Int? = 5000
    /// Rows the last `didMigrate` rewrote.
    nonisolated(unsafe) static var rewritten = 0
    /// When the last `didMigrate` started and ended (`DispatchTime` nanoseconds).
    nonisolated(unsafe) static var started: UInt64 = 0
    nonisolated(unsafe) static var ended: UInt64 = 0

    static func didMigrate(_ context: ModelContext) throws {
        started = DispatchTime.now().uptimeNanoseconds
        var count = 0
        let saveEvery = self.saveEvery
        // Changed models stay in the context (strongly held) until a save, so a save every few
        // thousand rows is what keeps memory flat; the block leaves changes between saves, hence
        // `allowEscapingMutations`.
        try context.enumerate(FetchDescriptor<W7V2.W7Item>(), allowEscapingMutations: true) { item in
            item.value = rewrite(item.value)
            count += 1
            if let saveEvery, count % saveEvery == 0 { try context.save() }
        }
        try context.save()
        rewritten = count
        ended = DispatchTime.now().uptimeNanoseconds
    }
}

/// A contender that runs W7.
protocol MigrationContender: Contender {
    /// The variants it times, by the name shown in the table.
    var migrationVariants: [String] { get }
    /// The variants whose peak memory W7 measures (by default the timed ones).
    var migrationMemoryVariants: [String] { get }
    /// Brings the V1 store at `path` (a file nothing has open) to V2 as `variant` does, timing only the
    /// migration; the sample's rows are the rows whose `value` was rewritten.
    func migrate(_ variant: String, path: String) throws -> Sample
    /// Checks, untimed, what only this contender can check about a migrated store.
    func checkMigrated(_ variant: String, path: String, rows: Int) throws
}

extension MigrationContender {
    var migrationMemoryVariants: [String] { migrationVariants }
}

/// W7's store files.
enum W7Store {
    static let table = "W7Item"

    /// The V1 row number `k` (0-based): its `_pk` is `k + 1`.
    static func name(_ k: Int) -> String { "Item \(k)" }
    static func value(_ k: Int) -> Double { Double(k) * 0.5 }
    static func note(_ k: Int) -> String { "Note \(k), written by version 1" }

    /// Creates a V1 store at `path` (its tables and metadata by Stowage) and fills it with `rows` rows
    /// through SQLite's C API, in one transaction; leaves it checkpointed (no `-wal` content), so that
    /// copying the main file copies the store.
    static func prepare(path: String, rows: Int) throws {
        removeStore(path)
        do {
            _ = try ModelContainer(
                for: Schema(versionedSchema: W7V1.self), configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
        }
        let db = try RawConnection(path: path)
        try db.execute("BEGIN")
        let statement = try db.prepare("INSERT INTO \"\(table)\" (\"_pk\", \"key\", \"name\", \"value\", \"note\") VALUES (?, ?, ?, ?, ?)")
        defer { sqlite3_finalize(statement) }
        for k in 0..<rows {
            sqlite3_bind_int64(statement, 1, Int64(k + 1))
            sqlite3_bind_int64(statement, 2, Int64(k))
            RawConnection.bindText(name(k), at: 3, in: statement)
            sqlite3_bind_double(statement, 4, value(k))
            RawConnection.bindText(note(k), at: 5, in: statement)
            guard sqlite3_step(statement) == SQLITE_DONE else { throw db.error() }
            sqlite3_reset(statement)
        }
        try db.execute("COMMIT")
        let checkpoint = try db.prepare("PRAGMA wal_checkpoint(TRUNCATE)")
        defer { sqlite3_finalize(checkpoint) }
        guard sqlite3_step(checkpoint) == SQLITE_ROW, sqlite3_column_int(checkpoint, 0) == 0 else {
            throw BenchError(description: "W7: the V1 store at \(path) could not be checkpointed")
        }
    }

    /// Copies the (checkpointed) store at `source` to `destination`, and flushes the copy to disk so
    /// that the migration's first sync does not write it back too.
    static func copy(_ source: String, to destination: String) throws {
        removeStore(destination)
        try FileManager.default.copyItem(atPath: source, toPath: destination)
        let descriptor = open(destination, O_RDWR)
        defer { close(descriptor) }
        guard descriptor >= 0, fsync(descriptor) == 0 else { throw BenchError(description: "W7: cannot sync \(destination)") }
    }

    /// Checks the migrated store at `path` with SQL: every row is there with its primary key, `name` is
    /// now `title` with its values, `flag` holds its default and `value` was rewritten once.
    static func verify(path: String, rows: Int, variant: String) throws {
        let db = try RawConnection(path: path)
        func integer(_ sql: String) throws -> Int {
            let statement = try db.prepare(sql)
            defer { sqlite3_finalize(statement) }
            guard sqlite3_step(statement) == SQLITE_ROW else { throw db.error() }
            return Int(sqlite3_column_int64(statement, 0))
        }
        let t = "\"\(table)\""
        let count = try integer("SELECT COUNT(*) FROM \(t)")
        let oldColumn = try integer("SELECT COUNT(*) FROM pragma_table_info('\(table)') WHERE name = 'name'")
        // `title = 'Item ' || key` compares text (SQLite renders the integer key as text); the rewritten
        // V1 value `k * 0.5` is `k + 1` exactly.
        let right = try integer("""
            SELECT COUNT(*) FROM \(t) WHERE "_pk" = "key" + 1 AND "title" = 'Item ' || "key" \
            AND "value" = "key" + 1.0 AND "flag" = 0 AND "note" = 'Note ' || "key" || ', written by version 1'
            """)
        guard count == rows, right == rows, oldColumn == 0 else {
            throw BenchError(description: "W7 \(variant): the migrated store has \(count) rows, \(right) right, and \(oldColumn == 0 ? "no" : "still a") column name (expected \(rows), \(rows), no)")
        }
    }
}

/// A W7 row as the row-by-row raw variant reads it.
private struct W7Row {
    var pk: Int64
    var key: Int
    var title: String
    var value: Double
    var note: String
    var flag: Bool
}

extension RawContender: MigrationContender {
    static let rowByRow = "raw SQLite, row by row"

    /// "raw SQLite" rewrites `value` with one `UPDATE`; "raw SQLite, row by row" reads every row (all
    /// its columns, as a model layer does) and writes each back with `UPDATE … WHERE _pk = ?`: the floor
    /// of a rewrite done in code, row by row, as a custom stage does.
    var migrationVariants: [String] { [name, Self.rowByRow] }

    func migrate(_ variant: String, path: String) throws -> Sample {
        var rewritten = 0
        let t = "\"\(W7Store.table)\""
        // Opening and closing are timed, as Stowage's container creation opens the store and closes its
        // migration connection (the last connection to close checkpoints the WAL into the file).
        let ms = try time {
            let db = try RawConnection(path: path)
            try db.execute("BEGIN IMMEDIATE")
            try db.execute("ALTER TABLE \(t) RENAME COLUMN \"name\" TO \"title\"")
            try db.execute("ALTER TABLE \(t) ADD COLUMN \"flag\" INTEGER NOT NULL DEFAULT 0")
            if variant == Self.rowByRow {
                let select = try db.prepare("SELECT \"_pk\", \"key\", \"title\", \"value\", \"note\", \"flag\" FROM \(t) ORDER BY \"_pk\"")
                defer { sqlite3_finalize(select) }
                let update = try db.prepare("UPDATE \(t) SET \"value\" = ? WHERE \"_pk\" = ?")
                defer { sqlite3_finalize(update) }
                while sqlite3_step(select) == SQLITE_ROW {
                    var row = W7Row(
                        pk: sqlite3_column_int64(select, 0), key: Int(sqlite3_column_int64(select, 1)),
                        title: RawConnection.text(select, 2), value: sqlite3_column_double(select, 3),
                        note: RawConnection.text(select, 4), flag: sqlite3_column_int64(select, 5) != 0)
                    row.value = W7Stage.rewrite(row.value)
                    sqlite3_bind_double(update, 1, row.value)
                    sqlite3_bind_int64(update, 2, row.pk)
                    guard sqlite3_step(update) == SQLITE_DONE else { throw db.error() }
                    sqlite3_reset(update)
                    rewritten += 1
                    blackHole(row)
                }
            } else {
                try db.execute("UPDATE \(t) SET \"value\" = \(W7Stage.rewriteSQL)")
                rewritten = Int(sqlite3_changes(db.handle))
            }
            try db.execute("COMMIT")
        }
        return Sample(variant, ms, rewritten)
    }

    func checkMigrated(_ variant: String, path: String, rows: Int) throws {}
}

extension StowageContender: MigrationContender {
    static let oneSave = "Stowage, one save"

    /// "Stowage" saves every 5,000 rows (flat memory). "Stowage, one save" saves once after the loop:
    /// every changed model stays in the context until then, so it only runs in the memory probe, to
    /// show what the periodic saves keep bounded.
    var migrationVariants: [String] { [name] }
    var migrationMemoryVariants: [String] { [name, Self.oneSave] }

    func migrate(_ variant: String, path: String) throws -> Sample {
        W7Stage.saveEvery = variant == Self.oneSave ? nil : 5000
        W7Stage.rewritten = 0
        let configuration = ModelConfiguration(url: URL(fileURLWithPath: path))
        var container: ModelContainer?
        let start = DispatchTime.now().uptimeNanoseconds
        let ms = try time {
            container = try ModelContainer(for: Schema(versionedSchema: W7V2.self), migrationPlan: W7Plan.self, configurations: configuration)
        }
        let end = DispatchTime.now().uptimeNanoseconds
        withExtendedLifetime(container) {}
        let (started, ended) = (Double(W7Stage.started), Double(W7Stage.ended))
        lastMigrationPhases = [started - Double(start), ended - started, Double(end) - ended].map { $0 / 1e6 }
        return Sample(variant, ms, W7Stage.rewritten)
    }

    func checkMigrated(_ variant: String, path: String, rows: Int) throws {
        guard W7Stage.rewritten == rows else {
            throw BenchError(description: "W7 \(variant): didMigrate rewrote \(W7Stage.rewritten) rows of \(rows)")
        }
        // Reopened with the plan, the store is at V2 already: nothing runs, and the models read back.
        W7Stage.rewritten = -1
        let container = try ModelContainer(
            for: Schema(versionedSchema: W7V2.self), migrationPlan: W7Plan.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
        var descriptor = FetchDescriptor<W7V2.W7Item>(sortBy: [SortDescriptor(\.key, order: .reverse)])
        descriptor.fetchLimit = 1
        let k = rows - 1
        guard W7Stage.rewritten == -1, let last = try ModelContext(container).fetch(descriptor).first,
              last.key == k, last.title == W7Store.name(k), last.value == W7Stage.rewrite(W7Store.value(k)), !last.flag else {
            throw BenchError(description: "W7 \(variant): the migrated store does not read back as V2")
        }
    }
}

/// Phases of Stowage's last W7 migration, in ms: up to `didMigrate` (opening, reading the recorded
/// layout, rebuilding the table), `didMigrate` (enumerate + saves), and after it (recording the layout,
/// commit, closing the migration connection, opening the store).
nonisolated(unsafe) var lastMigrationPhases: [Double] = []
