import Foundation
import GRDB
import StowageCore

/// The transactions of a store's history, as `stowage history` shows them.
package enum HistoryLog {
    package struct Transaction: Sendable {
        /// The transaction's number: its token, for `--since`.
        package let id: Int64
        /// Seconds since 2001-01-01 00:00:00 UTC.
        package let timestamp: Double
        package let author: String?
        package let bundle: String
        package let process: String
        package let runs: [StoreToolSupport.HistoryRun]

        package var json: JSONValue {
            .object([
                ("token", .integer(id)), ("date", .string(ISODate.format(timestamp))), ("author", author.map(JSONValue.string) ?? .null),
                ("bundle", .string(bundle)), ("process", .string(process)),
                ("changes", .array(runs.map { run in
                    .object([
                        ("kind", .string(run.kind)), ("entity", .string(run.entity)), ("keys", .array(run.keys.map(JSONValue.integer))),
                        ("properties", .array(run.properties.map(JSONValue.string))),
                    ])
                })),
            ])
        }

        package var text: String {
            var lines = ["#\(id)  \(ISODate.format(timestamp))  \(author ?? "no author")  \(bundle) (process \(process))"]
            for run in runs {
                let keys = run.keys.count > 12 ? run.keys.prefix(12).map(String.init).joined(separator: ", ") + ", … (\(run.keys.count) rows)"
                    : run.keys.map(String.init).joined(separator: ", ")
                lines.append("    \(run.kind) \(run.entity) \(keys)" + (run.properties.isEmpty ? "" : "  (\(run.properties.joined(separator: ", ")))"))
            }
            return lines.joined(separator: "\n")
        }
    }

    /// The transactions after `token` (all when `nil`), oldest first; at most `limit`.
    package static func transactions(in reader: StoreReader, after token: Int64?, limit: Int? = nil) throws -> [Transaction] {
        let (transactions, changes) = StoreToolSupport.historyTables
        return try reader.read { db in
            guard try db.tableExists(transactions) else { return [] }
            var sql = "SELECT \"id\", \"timestamp\", \"author\", \"bundle\", \"process\" FROM \(quote(transactions)) WHERE \"detail\" = 1 AND \"id\" > ? ORDER BY \"id\""
            if let limit { sql += " LIMIT \(limit)" }
            let headers = try Row.fetchAll(db, sql: sql, arguments: [token ?? 0])
            let runs = try db.cachedStatement(sql: "SELECT \"kind\", \"entity\", \"properties\", \"keys\" FROM \(quote(changes)) WHERE \"transaction\" = ? ORDER BY \"position\"")
            return try headers.map { header in
                let id: Int64 = header[0]
                let decoded = try Row.fetchAll(runs, arguments: [id]).map { run in
                    try StoreToolSupport.decodeRun(kind: run[0], entity: run[1], properties: run[2], keys: run[3] ?? Data())
                }
                return Transaction(id: id, timestamp: header[1], author: header[2], bundle: header[3] ?? "", process: header[4] ?? "", runs: decoded)
            }
        }
    }
}
