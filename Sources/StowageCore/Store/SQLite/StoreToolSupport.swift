import Foundation
import GRDB

/// What the `stowage` command and Stowage Studio need of the SQLite store's own code, so that they read
/// and write a store exactly as a container does without the app's models: its SQL functions' names,
/// the text keys strings compare by, its history tables and the way a save records its changes there.
package enum StoreToolSupport {
    /// The metadata table's name.
    package static var metadataTable: String { SQLiteSQL.metadataTable }
    /// The primary key column of every entity table.
    package static var primaryKeyColumn: String { SQLiteSQL.primaryKeyColumn }
    /// The column naming each row's entity in a class hierarchy's table.
    package static var entityColumn: String { Schema.Entity.entityColumn }
    /// The history tables (transactions, and their runs of changes).
    package static var historyTables: (transactions: String, changes: String) { (SQLiteHistory.transactionTable, SQLiteHistory.changeTable) }

    /// A URI that reads the store at `path` as it is now without changing a byte of it, of its `-wal` or
    /// of its `-shm`, and sees what another process committed but has not checkpointed yet.
    package static func untouchedReadingURI(_ path: String) throws -> String {
        try SQLiteMigrator.untouchedReadingPath(path)
    }

    /// An SQL identifier, quoted as the store quotes its own.
    package static func quote(_ identifier: String) -> String { SQLiteSQL.quote(identifier) }

    /// The SQL function that makes the key by which Swift compares a `String` (its NFC form).
    package static var textKeyFunction: String { SwiftTextKey.function }
    /// The key by which Swift compares `text` (`==`, `<`): what ``textKeyFunction`` makes of it in SQL.
    package static func textKey(_ text: String) -> String { SwiftTextKey.key(text) }

    /// String tests with Foundation's exact semantics, as a predicate's translation calls them.
    package enum StringTest: Sendable {
        /// `text.contains(other)`.
        case contains
        /// `text.starts(with: other)` (`hasPrefix`).
        case startsWith
        /// `text.localizedStandardContains(other)`.
        case localizedStandardContains
    }

    /// The SQL function (two arguments, 1 or 0, NULL for NULL) that runs `test`.
    package static func functionName(_ test: StringTest) -> String {
        switch test {
        case .contains: SQLiteSQL.functionName(.contains)
        case .startsWith: SQLiteSQL.functionName(.startsWith)
        case .localizedStandardContains: SQLiteSQL.functionName(.localizedStandardContains)
        }
    }

    /// The collation that orders `Decimal` text as Swift orders the numbers.
    package static var decimalCollation: String { "decimal" }
    /// The collation of SwiftData's default string order (`localizedStandardCompare`).
    package static var localizedStandardCollation: String { "localizedStandard" }

    /// One change run of a history transaction: consecutive changes of one kind to one entity.
    package struct HistoryRun: Sendable {
        /// `insert`, `update` or `delete`.
        package let kind: String
        package let entity: String
        /// The updated properties (updates), or the preserved attributes (deletions).
        package let properties: [String]
        /// The changed rows' primary keys.
        package let keys: [Int64]
    }

    /// The runs of a history transaction, in order. Reads `_stowage_history_change`'s columns as stored.
    package static func decodeRun(kind: Int64, entity: String, properties: String?, keys: Data) throws -> HistoryRun {
        let name = switch SQLiteHistory.Kind(rawValue: kind) {
        case .insert: "insert"
        case .update: "update"
        case .delete: "delete"
        case nil: "unknown(\(kind))"
        }
        return HistoryRun(
            kind: name, entity: entity, properties: properties.map { $0.split(separator: ",").map(String.init) } ?? [],
            keys: try SQLiteHistory.decodeKeys(keys))
    }

    /// Records a transaction of inserted rows in the store's history, as a save would, inside the
    /// caller's transaction (for instance, an import's): one run per entity, keys in order.
    /// - Returns: the transaction's number.
    package static func recordInserts(_ inserts: [(entity: String, keys: [Int64])], author: String?, in db: Database) throws -> Int64 {
        for statement in SQLiteHistory.createStatements { try db.execute(sql: statement) }
        try db.execute(
            sql: """
                INSERT INTO \(SQLiteSQL.quote(SQLiteHistory.transactionTable)) ("timestamp", "author", "bundle", "process", "origin", "detail") \
                VALUES (?, ?, ?, ?, ?, 1)
                """,
            arguments: [
                Date().timeIntervalSinceReferenceDate, author, SQLiteHistory.bundleIdentifier, SQLiteHistory.processIdentifier,
                Int64.random(in: 1...Int64.max),
            ])
        let transaction = db.lastInsertedRowID
        var position = 0
        for (entity, keys) in inserts where !keys.isEmpty {
            let record = SQLiteHistory.Record(position: position, entity: entity, kind: .insert, properties: nil, keys: keys, values: nil)
            try db.execute(
                sql: """
                    INSERT INTO \(SQLiteSQL.quote(SQLiteHistory.changeTable)) ("transaction", "position", "entity", "kind", "properties", "keys", "values") \
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: StatementArguments(record.arguments(transaction: transaction).map(\.databaseValue)))
            position += keys.count
        }
        return transaction
    }
}
