import Foundation
import GRDB
import StowageCore

/// What `stowage inspect` shows of a store: its identity and version, its files, each entity with its
/// row count, relationships and indexes, and the length of its history.
package struct Inspection: Sendable {
    package struct EntitySummary: Sendable {
        package let entity: StoreDescription.Entity
        package let rows: Int64
    }

    package let path: String
    package let storeIdentifier: String
    package let schemaVersion: String
    package let fileSize: Int64
    /// The `-wal` file's size, `nil` without one.
    package let walSize: Int64?
    /// `wal` or `delete` (the rollback journal), from the file's header.
    package let journalMode: String
    package let pageSize: Int64
    package let entities: [EntitySummary]
    /// The transactions in the store's history, and the newest one's number.
    package let historyTransactions: Int64
    package let newestTransaction: Int64?
    package let descriptionIsFromLayout: Bool

    package init(_ reader: StoreReader) throws {
        path = reader.path
        storeIdentifier = reader.metadata["store_identifier"] ?? "?"
        schemaVersion = reader.metadata["schema_version"] ?? "?"
        descriptionIsFromLayout = reader.descriptionIsFromLayout
        fileSize = Self.size(reader.path) ?? 0
        walSize = Self.size(reader.path + "-wal")
        let handle = FileHandle(forReadingAtPath: reader.path)
        let header = (try? handle?.read(upToCount: 20)) ?? nil ?? Data()
        try? handle?.close()
        journalMode = header.count >= 20 && header[header.startIndex + 18] == 2 ? "wal" : "delete"
        let description = reader.description
        (pageSize, entities, historyTransactions, newestTransaction) = try reader.read { db in
            let pageSize = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 0
            let entities = try description.entities.map { entity in
                var sql = "SELECT count(*) FROM \(quote(entity.table))"
                var arguments: [DatabaseValue] = []
                if let names = entity.entityColumnValues {
                    sql += " WHERE \(quote(StoreToolSupport.entityColumn)) IN (\(names.map { _ in "?" }.joined(separator: ", ")))"
                    arguments = names.map(\.databaseValue)
                }
                return EntitySummary(entity: entity, rows: try Int64.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)) ?? 0)
            }
            let history = StoreToolSupport.historyTables.transactions
            var count: Int64 = 0
            var newest: Int64?
            if try db.tableExists(history) {
                let row = try Row.fetchOne(db, sql: "SELECT count(*), max(\"id\") FROM \(quote(history)) WHERE \"detail\" = 1")
                count = row?[0] ?? 0
                newest = row?[1]
            }
            return (pageSize, entities, count, newest)
        }
    }

    static func size(_ path: String) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
    }

    package var json: JSONValue {
        .object([
            ("path", .string(path)),
            ("storeIdentifier", .string(storeIdentifier)),
            ("schemaVersion", .string(schemaVersion)),
            ("fileSize", .integer(fileSize)),
            ("walSize", walSize.map(JSONValue.integer) ?? .null),
            ("journalMode", .string(journalMode)),
            ("pageSize", .integer(pageSize)),
            ("entities", .array(entities.map { summary in
                .object([
                    ("name", .string(summary.entity.name)),
                    ("table", .string(summary.entity.table)),
                    ("rows", .integer(summary.rows)),
                    ("relationships", .array(summary.entity.relationships.map { .string(SchemaText.relationshipSummary($0)) })),
                    ("indexes", .array(SchemaText.indexSummaries(summary.entity).map(JSONValue.string))),
                ])
            })),
            ("history", .object([("transactions", .integer(historyTransactions)), ("newest", newestTransaction.map(JSONValue.integer) ?? .null)])),
        ])
    }

    package var text: String {
        var lines = [
            "Store       \(path)",
            "Identifier  \(storeIdentifier)",
            "Version     \(schemaVersion)" + (descriptionIsFromLayout ? " (made by an earlier Stowage: types are the columns'; open it with your app to record them)" : ""),
            "File        \(Self.bytes(fileSize)), page size \(pageSize), journal mode \(journalMode)",
            "WAL         " + (walSize.map { "\(Self.bytes($0)) not yet checkpointed" } ?? "none"),
            "History     \(historyTransactions) transaction\(historyTransactions == 1 ? "" : "s")" + (newestTransaction.map { ", newest \($0)" } ?? ""),
            "",
        ]
        let width = entities.map(\.entity.name.count).max() ?? 0
        let countWidth = entities.map { Self.grouped($0.rows).count }.max() ?? 0
        for summary in entities {
            let entity = summary.entity
            let count = Self.grouped(summary.rows)
            var line = entity.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                + String(repeating: " ", count: countWidth - count.count) + count + (summary.rows == 1 ? " row" : " rows")
            if let superentity = entity.superentity { line += "  (subclass of \(superentity), in table \(entity.table))" }
            lines.append(line)
            for relationship in entity.relationships { lines.append("    " + SchemaText.relationshipSummary(relationship)) }
            for index in SchemaText.indexSummaries(entity) { lines.append("    " + index) }
        }
        return lines.joined(separator: "\n")
    }

    package static func bytes(_ count: Int64) -> String {
        if count < 1024 { return "\(count) bytes" }
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return String(format: "%.1f %@", value, units[unit])
    }

    static func grouped(_ number: Int64) -> String {
        let digits = String(number)
        var result = ""
        for (index, character) in digits.reversed().enumerated() {
            if index > 0, index % 3 == 0 { result.append(",") }
            result.append(character)
        }
        return String(result.reversed())
    }
}
