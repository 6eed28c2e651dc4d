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

    /// One run of changes a tool records in a history transaction: consecutive changes of one kind to
    /// one entity (and, for updates, the same properties), as a save writes them.
    package struct ChangeRun: Sendable {
        /// What a run records.
        package enum Kind: Sendable {
            case insert, update, delete
        }

        package let kind: Kind
        /// The entity of the rows (a subclass's rows under the subclass's name).
        package let entity: String
        /// The updated properties (updates: attributes, then relationships), or the
        /// `.preserveValueOnDeletion` attributes (deletions), in declaration order; empty otherwise.
        package let properties: [String]
        /// The rows' primary keys, in the order of the changes.
        package let keys: [Int64]
        /// Deletions with preserved attributes: per row, the stored values of ``properties``.
        package let values: [[DatabaseValue]]?

        package init(kind: Kind, entity: String, properties: [String] = [], keys: [Int64], values: [[DatabaseValue]]? = nil) {
            self.kind = kind
            self.entity = entity
            self.properties = properties
            self.keys = keys
            self.values = values
        }
    }

    /// Records a history transaction of `runs`, in order, inside the caller's transaction (an import's, an
    /// edit's), as a save records its own: a transaction row with the author and a fresh random `origin`
    /// (so that every container watching the file, including one in this process, takes it for another
    /// process's save), then one change row per run, keys and preserved values encoded as a save
    /// encodes them. Runs without keys are left out.
    /// - Returns: the transaction's number.
    package static func recordTransaction(_ runs: [ChangeRun], author: String?, in db: Database) throws -> Int64 {
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
        for run in runs where !run.keys.isEmpty {
            let kind: SQLiteHistory.Kind = switch run.kind {
            case .insert: .insert
            case .update: .update
            case .delete: .delete
            }
            // As a save writes them: properties for updates, and for deletions that preserve values.
            let properties: [String]? = kind == .insert || run.properties.isEmpty ? nil : run.properties
            let values = run.values.map { rows in rows.map { $0.map(StorageValue.init(stored:)) } }
            let record = SQLiteHistory.Record(
                position: position, entity: run.entity, kind: kind, properties: properties, keys: run.keys,
                values: properties == nil || kind != .delete ? nil : values)
            try db.execute(
                sql: """
                    INSERT INTO \(SQLiteSQL.quote(SQLiteHistory.changeTable)) ("transaction", "position", "entity", "kind", "properties", "keys", "values") \
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: StatementArguments(record.arguments(transaction: transaction).map(\.databaseValue)))
            position += run.keys.count
        }
        return transaction
    }

    // MARK: The errors of a save

    /// The error the app's save reports when a statement writing its changes fails as `error` did (a
    /// UNIQUE constraint, a full disk…): the same code and message, `entityName` the entity written.
    package static func saveError(_ error: DatabaseError, entityName: String?) -> StowageError {
        // As `SQLiteStatement.error(of:)` reports a failed statement, then as the save reports it.
        let extended = error.extendedResultCode.rawValue
        var failure = StowageError(
            StowageError.Code(sqlite: extended, else: .saveFailed), error.message ?? "unknown SQLite error", sql: error.sql, sqliteCode: extended,
            underlying: error)
        failure.entityName = entityName
        return SQLiteStore.saveError(failure)
    }

    /// The error the app's save reports when `.deny` relationships refuse its deletions. Each denial names
    /// a row to be deleted (its entity and key), the relationship, and the rows it still refers to.
    package static func deleteDenied(
        _ denials: [(entity: String, key: Int64, relationship: String, related: [(entity: String, key: Int64)])], entityName: String?
    ) -> StowageError {
        StowageError.deleteDenied(
            denials.map { denial in
                StowageError.deleteDenial(
                    identifier(denial.entity, denial.key), relationship: denial.relationship, refersTo: denial.related.map { identifier($0.entity, $0.key) })
            },
            entityName: entityName)
    }

    /// The error the app's save reports for a row left with `count` related rows through a to-many
    /// `relationship` whose `minimumModelCount` or `maximumModelCount` (0: none) it breaks.
    /// The error the app's save reports for a row `owner` of `entity` related through the
    /// `@Relationship(.unique)` `relationship` to the row `target` of `destination`, which the row `other`
    /// is related to already.
    package static func uniqueRelationship(
        entity: String, relationship: String, destination: String, target: Int64, other: Int64, owner: Int64
    ) -> StowageError {
        SQLiteStore.saveError(StowageError.uniqueRelationship(
            entity: entity, relationship: relationship, target: identifier(destination, target), other: identifier(entity, other),
            owner: identifier(entity, owner)))
    }

    package static func relationshipCount(entity: String, key: Int64, relationship: String, count: Int, minimum: Int, maximum: Int) -> StowageError {
        StowageError.relationshipCount(identifier(entity, key), entity: entity, relationship: relationship, count: count, minimum: minimum, maximum: maximum)
    }

    /// The error the app's save reports for an insert whose unique values are a stored row's of another
    /// class of its hierarchy's `table` (an upsert does not change a row's class).
    package static func upsertMetAnotherClass(entity: String, table: String) -> StowageError {
        SQLiteStore.saveError(SQLiteStore.upsertMetAnotherClass(entity: entity, table: table))
    }

    /// How a ``PersistentIdentifier`` of a stored row reads in messages: `Budget/p7`.
    package static func identifier(_ entity: String, _ key: Int64) -> String {
        "\(PersistentIdentifier(entityName: entity, storeIdentifier: "", key: .row(key)))"
    }

    // MARK: Uniqueness

    /// The indexed expressions of the store's uniqueness constraint over `names` of `entity` (a `String`
    /// attribute by its Swift text key), which an upsert names as its conflict target.
    package static func uniqueKeyList(_ names: [String], of entity: StoreDescription.Entity) -> String {
        SQLiteSchema.keyList(names) { name in entity.attributes.first { $0.name == name }?.kind == .string }
    }
}

extension StorageValue {
    /// A value as GRDB read it.
    fileprivate init(stored value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let number): self = .integer(number)
        case .double(let number): self = .real(number)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .blob(data)
        }
    }
}
