import Foundation
import GRDB
import Stowage
@testable import StowageCore

// Helpers of the migration kill test and the migration property test: raw reads of a store file with
// Stowage's SQL functions (its indexes on `String` columns call `stowage_nfc`, which `PRAGMA
// integrity_check` evaluates), a full logical dump, and copies of a store with its WAL.

/// Reads a store file with plain GRDB, read-only, with Stowage's SQL functions registered.
func storeRead<Result>(_ url: URL, _ body: (Database) throws -> Result) throws -> Result {
    var configuration = Configuration()
    configuration.readonly = true
    configuration.label = "migration test reader"
    configuration.prepareDatabase { db in
        if let connection = db.sqliteConnection { SQLiteFunctions.register(on: connection) }
    }
    let queue = try DatabaseQueue(path: url.path, configuration: configuration)
    defer { try? queue.close() }
    return try queue.read(body)
}

/// One stored value, spelled so that two values print alike only when SQLite stores them alike
/// (type and bytes).
private func spelled(_ value: DatabaseValue) -> String {
    switch value.storage {
    case .null: "NULL"
    case .int64(let int): "i\(int)"
    case .double(let double): "r\(double)/\(String(double.bitPattern, radix: 16))"
    case .string(let string): "t\(string.debugDescription)"
    case .blob(let data): "b" + data.map { String(format: "%02x", $0) }.joined()
    }
}

/// Everything a store holds, in a stable order: `PRAGMA user_version`, its schema (`sqlite_master`:
/// tables, indexes and their SQL), then every row of every table (Stowage's metadata with the recorded
/// version and layout, `sqlite_sequence` with the AUTOINCREMENT counters, the models' tables) ordered by
/// primary key (rowid for a table without one), each value with its storage type.
func logicalDump(_ url: URL) throws -> [String] {
    try storeRead(url) { db in
        var lines = ["user_version \(try Int.fetchOne(db, sql: "PRAGMA user_version") ?? -1)"]
        lines += try GRDB.Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
            .map { "schema " + $0.databaseValues.map(spelled).joined(separator: " ") }
        for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
            let quoted = SQLiteSQL.quote(table)
            let keys = try GRDB.Row.fetchAll(db, sql: "PRAGMA table_info(\(quoted))")
                .filter { ($0["pk"] as Int) > 0 }
                .sorted { ($0["pk"] as Int) < ($1["pk"] as Int) }
                .map { SQLiteSQL.quote($0["name"] as String) }
            let order = keys.isEmpty ? "rowid" : keys.joined(separator: ", ")
            let rows = try GRDB.Row.fetchCursor(db, sql: "SELECT * FROM \(quoted) ORDER BY \(order)")
            while let row = try rows.next() {
                lines.append(table + ": " + row.databaseValues.map(spelled).joined(separator: " | "))
            }
        }
        return lines
    }
}

/// Where two dumps first differ, for a failure message (dumps of 50,000 rows are too long to print).
func firstDifference(_ a: [String], _ b: [String]) -> String {
    guard a != b else { return "identical" }
    let index = a.indices.first { $0 >= b.count || a[$0] != b[$0] } ?? b.count
    let left = index < a.count ? a[index] : "(end)"
    let right = index < b.count ? b[index] : "(end)"
    return "\(a.count) vs \(b.count) lines; line \(index): \(left.prefix(300)) ≠ \(right.prefix(300))"
}

/// `PRAGMA integrity_check`'s verdict ("ok" when the file is sound).
func integrityCheck(_ url: URL) throws -> String {
    try storeRead(url) { try String.fetchAll($0, sql: "PRAGMA integrity_check").joined(separator: "; ") }
}

/// The version a store recorded in its metadata.
func recordedVersion(_ url: URL) throws -> String? {
    try storeRead(url) { db in
        try String.fetchOne(
            db, sql: "SELECT \"value\" FROM \(SQLiteSQL.quote(SQLiteSQL.metadataTable)) WHERE \"key\" = 'schema_version'")
    }
}

/// The files of a store: the database, its WAL and its shared-memory index.
func storeFiles(_ url: URL) -> [URL] {
    [url, URL(fileURLWithPath: url.path + "-wal"), URL(fileURLWithPath: url.path + "-shm")]
}

/// Replaces the store at `destination` with a copy of the one at `source`, WAL included.
func copyStore(_ source: URL, to destination: URL) throws {
    let fileManager = FileManager.default
    for (from, to) in zip(storeFiles(source), storeFiles(destination)) {
        try? fileManager.removeItem(at: to)
        if fileManager.fileExists(atPath: from.path) { try fileManager.copyItem(at: from, to: to) }
    }
}

/// Folds a store's WAL into its database file and removes it (closing the last connection does).
func checkpoint(_ url: URL) throws {
    let queue = try DatabaseQueue(path: url.path)
    try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    try queue.close()
}
