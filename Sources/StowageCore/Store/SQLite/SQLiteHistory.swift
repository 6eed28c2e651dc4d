import Foundation
import GRDB
import GRDBSQLite

// The history of a store: two tables written in each save's own transaction.
//
// `_stowage_history` has one row per save: its number (`id`, AUTOINCREMENT so that a number is never
// reused after history is deleted, and a client's token never points at another save), when, who,
// `origin`, a random number of the store object that saved, by which a store tells its own saves from
// those of other processes (see `StoreChangeWatcher`), and `detail`: 0 for a save of a store that
// records no history (``ModelConfiguration/recordsHistory``), whose row only says that it happened (it
// has no changes, and fetching history leaves it out).
//
// `_stowage_history_change` holds the changes as *runs*: consecutive changes of one kind to one entity
// (and, for updates, the same properties) are one row whose `keys` blob lists the rows' primary keys,
// delta- and varint-encoded. A save of 100,000 inserts writes one transaction row and one run row with
// a ~200 KB blob, so recording history costs a few percent of the save, not a second row per model.
// `position` is the index of the run's first change in the transaction, so the changes keep their
// order (inserts, updates, deletes, each in the save's order). Deletions of an entity with
// `.preserveValueOnDeletion` attributes carry the values in `values`, per row, in `properties`' order.
enum SQLiteHistory {
    static let transactionTable = "_stowage_history"
    static let changeTable = "_stowage_history_change"
    /// The metadata key holding the number of the newest transaction ever deleted: a token before it
    /// has expired.
    static let deletedThroughKey = "history_deleted_through"

    static let createStatements = [
        """
        CREATE TABLE IF NOT EXISTS \(SQLiteSQL.quote(transactionTable)) ("id" INTEGER PRIMARY KEY AUTOINCREMENT, \
        "timestamp" REAL NOT NULL, "author" TEXT, "bundle" TEXT NOT NULL, "process" TEXT NOT NULL, "origin" INTEGER NOT NULL, \
        "detail" INTEGER NOT NULL DEFAULT 1)
        """,
        """
        CREATE TABLE IF NOT EXISTS \(SQLiteSQL.quote(changeTable)) ("transaction" INTEGER NOT NULL, "position" INTEGER NOT NULL, \
        "entity" TEXT NOT NULL, "kind" INTEGER NOT NULL, "properties" TEXT, "keys" BLOB NOT NULL, "values" BLOB, \
        PRIMARY KEY ("transaction", "position")) WITHOUT ROWID
        """,
    ]

    enum Kind: Int64 {
        case insert = 0, update = 1, delete = 2
    }

    /// A run of changes as stored.
    struct Run {
        let transaction: Int64
        let position: Int
        let entity: String
        let kind: Kind
        /// Updated properties (updates) or preserved attributes (deletions).
        let properties: [String]
        let keys: [Int64]
        /// Per deleted row, the preserved attributes' stored values.
        let values: [[StorageValue]]
    }

    /// The bundle identifier history records for this process's saves: the main bundle's on Apple
    /// platforms, the process name elsewhere. Linux programs have no bundle identifier, and there
    /// `Bundle.main` is not read at all: Foundation traps building it in a process that cannot read its
    /// own executable's directory (a daemon running as a user without access to where it is installed).
    static let bundleIdentifier: String = {
        #if canImport(Darwin)
        return Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
        #else
        return ProcessInfo.processInfo.processName
        #endif
    }()
    static let processIdentifier = String(ProcessInfo.processInfo.processIdentifier)

    // MARK: Encoding

    /// Primary keys as zigzag varints of their differences: consecutive keys take a byte each.
    static func encode(keys: [Int64]) -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(keys.count + 8)
        var previous: Int64 = 0
        for key in keys {
            appendVarint(zigzag(key &- previous), to: &bytes)
            previous = key
        }
        return Data(bytes)
    }

    static func decodeKeys(_ data: Data) throws -> [Int64] {
        var keys: [Int64] = []
        var previous: Int64 = 0
        try data.withUnsafeBytes { buffer in
            var reader = ByteReader(buffer: buffer)
            while !reader.isAtEnd {
                previous = previous &+ unzigzag(try reader.varint())
                keys.append(previous)
            }
        }
        return keys
    }

    static func encode(values rows: [[StorageValue]]) -> Data {
        var bytes: [UInt8] = []
        for row in rows {
            for value in row {
                switch value {
                case .null: bytes.append(0)
                case .integer(let number):
                    bytes.append(1)
                    appendVarint(zigzag(number), to: &bytes)
                case .real(let number):
                    bytes.append(2)
                    withUnsafeBytes(of: number.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
                case .text(let text):
                    bytes.append(3)
                    appendVarint(UInt64(text.utf8.count), to: &bytes)
                    bytes.append(contentsOf: text.utf8)
                case .blob(let data):
                    bytes.append(4)
                    appendVarint(UInt64(data.count), to: &bytes)
                    bytes.append(contentsOf: data)
                }
            }
        }
        return Data(bytes)
    }

    static func decodeValues(_ data: Data, rows: Int, columns: Int) throws -> [[StorageValue]] {
        try data.withUnsafeBytes { buffer in
            var reader = ByteReader(buffer: buffer)
            return try (0..<rows).map { _ in
                try (0..<columns).map { _ in
                    switch try reader.byte() {
                    case 0: return .null
                    case 1: return .integer(unzigzag(try reader.varint()))
                    case 2:
                        let bits = try reader.bytes(8).enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
                        return .real(Double(bitPattern: bits))
                    case 3: return .text(String(decoding: try reader.bytes(Int(try reader.varint())), as: UTF8.self))
                    case 4: return .blob(Data(try reader.bytes(Int(try reader.varint()))))
                    default: throw ByteReader.Malformed()
                    }
                }
            }
        }
    }

    private static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }
    private static func unzigzag(_ value: UInt64) -> Int64 { Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1) }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private struct ByteReader {
        struct Malformed: Error {}
        let buffer: UnsafeRawBufferPointer
        var offset = 0
        var isAtEnd: Bool { offset >= buffer.count }

        mutating func byte() throws -> UInt8 {
            guard offset < buffer.count else { throw Malformed() }
            defer { offset += 1 }
            return buffer[offset]
        }

        mutating func bytes(_ count: Int) throws -> UnsafeRawBufferPointer.SubSequence {
            guard count >= 0, offset + count <= buffer.count else { throw Malformed() }
            defer { offset += count }
            return buffer[offset..<(offset + count)]
        }

        mutating func varint() throws -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let byte = try byte()
                guard shift < 64 else { throw Malformed() }
                value |= UInt64(byte & 0x7f) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
        }
    }
}

// MARK: - Recording

extension SQLiteStore {
    /// The stored values of the `.preserveValueOnDeletion` attributes of the rows a change set deletes,
    /// read before they are deleted; one entry per deletion (empty for entities without such attributes).
    func preservedValues(_ changes: ChangeSet, _ db: Database) throws -> [[StorageValue]] {
        guard recordsHistory, changes.deletes.contains(where: { !$0.entity.preservedAttributes.isEmpty }) else { return [] }
        return try changes.deletes.map { delete in
            let attributes = delete.entity.preservedAttributes
            guard !attributes.isEmpty else { return [] }
            return try attributes.map { attribute in
                let sql = attribute.isExternalStorage
                    ? "SELECT \"value\" FROM \(SQLiteSQL.quote(SQLiteSchema.externalTableName(delete.entity, attribute))) WHERE \(SQLiteSQL.quote(SQLiteSQL.primaryKeyColumn)) = ?"
                    : "SELECT \(SQLiteSQL.quote(attribute.name)) FROM \(SQLiteSQL.quote(delete.entity.tableName)) WHERE \(SQLiteSQL.quote(SQLiteSQL.primaryKeyColumn)) = ?"
                return try SQLiteStatement.run(try db.cachedStatement(sql: sql).sqliteStatement, [.integer(delete.primaryKey)]) { statement in
                    try SQLiteStatement.step(statement) ? SQLiteStatement.column(0, of: statement) : .null
                }
            }
        }
    }

    /// Writes the history transaction of a change set, inside the save's transaction (only its row when
    /// the store records no history).
    /// - Returns: the transaction's number.
    func recordHistory(_ changes: ChangeSet, insertedKeys: [Int64], preserved: [[StorageValue]], _ db: Database) throws -> Int64 {
        // Known to exist only once a transaction that created them committed (``apply``): one rolled
        // back (a later store of the save failed) takes them with it.
        if !historyTablesExist.load(ordering: .acquiring) {
            for statement in SQLiteHistory.createStatements { try db.execute(sql: statement) }
        }
        let header = try db.cachedStatement(sql: """
            INSERT INTO \(SQLiteSQL.quote(SQLiteHistory.transactionTable)) ("timestamp", "author", "bundle", "process", "origin", "detail") VALUES (?, ?, ?, ?, ?, ?)
            """).sqliteStatement
        try SQLiteStatement.run(header, [
            .real(Date().timeIntervalSinceReferenceDate), changes.author.map(StorageValue.text) ?? .null,
            .text(SQLiteHistory.bundleIdentifier), .text(SQLiteHistory.processIdentifier), .integer(origin),
            .integer(recordsHistory ? 1 : 0),
        ]) { statement in while try SQLiteStatement.step(statement) {} }
        let transaction = sqlite3_last_insert_rowid(db.sqliteConnection)
        guard recordsHistory else { return transaction }

        let runStatement = try db.cachedStatement(sql: """
            INSERT INTO \(SQLiteSQL.quote(SQLiteHistory.changeTable)) ("transaction", "position", "entity", "kind", "properties", "keys", "values") VALUES (?, ?, ?, ?, ?, ?, ?)
            """).sqliteStatement
        for record in SQLiteHistory.records(of: changes, insertedKeys: insertedKeys, preserved: preserved) {
            try SQLiteStatement.run(runStatement, record.arguments(transaction: transaction)) { statement in while try SQLiteStatement.step(statement) {} }
        }
        return transaction
    }
}

extension SQLiteHistory {
    /// One run of a transaction's changes as a store writes it.
    struct Record {
        let position: Int
        let entity: String
        let kind: Kind
        let properties: [String]?
        let keys: [Int64]
        let values: [[StorageValue]]?

        /// The values of a change row of `transaction`, in the columns' order.
        func arguments(transaction: Int64) -> [StorageValue] {
            [
                .integer(transaction), .integer(Int64(position)), .text(entity), .integer(kind.rawValue),
                properties.map { .text($0.joined(separator: ",")) } ?? .null,
                .blob(SQLiteHistory.encode(keys: keys)), values.map { .blob(SQLiteHistory.encode(values: $0)) } ?? .null,
            ]
        }
    }

    /// The runs of changes of a save, as its history records them: inserts by entity, then updates
    /// (the models whose attributes changed, then those whose only changes are links), then deletions
    /// with their preserved values.
    static func records(of changes: ChangeSet, insertedKeys: [Int64], preserved: [[StorageValue]]) -> [Record] {
        var records: [Record] = []
        var position = 0
        func write(_ entity: Schema.Entity, _ kind: SQLiteHistory.Kind, _ properties: [String]?, _ keys: [Int64], values: [[StorageValue]]? = nil) {
            records.append(Record(position: position, entity: entity.name, kind: kind, properties: properties, keys: keys, values: values))
            position += keys.count
        }

        // Inserts: runs of one entity.
        var start = 0
        while start < changes.inserts.count {
            let entity = changes.inserts[start].entity
            var end = start + 1
            while end < changes.inserts.count, changes.inserts[end].entity === entity { end += 1 }
            write(entity, .insert, nil, Array(insertedKeys[start..<end]))
            start = end
        }

        // Updates: the models whose attributes changed, in the save's order, then those whose only
        // changes are links; a model with both lists its relationships with its attributes.
        var linkNames: [ObjectIdentifier: [String]] = [:]
        var linkOrder: [AnyObject] = []
        if !changes.relationshipWrites.isEmpty {
            let inserted = Set(changes.inserts.map { ObjectIdentifier($0.model) })
            for write in changes.relationshipWrites {
                let id = ObjectIdentifier(write.model)
                guard !inserted.contains(id), !changes.removed.contains(id) else { continue }
                if linkNames[id] == nil { linkOrder.append(write.model) }
                linkNames[id, default: []].append(write.relationship.name)
            }
        }
        struct PendingUpdate {
            let entity: Schema.Entity
            let attributes: [Schema.Attribute]
            let links: [String]
            let key: Int64
        }
        var updates: [PendingUpdate] = []
        updates.reserveCapacity(changes.updates.count + linkOrder.count)
        for update in changes.updates {
            let links = linkNames.isEmpty ? [] : linkNames.removeValue(forKey: ObjectIdentifier(update.model)) ?? []
            updates.append(PendingUpdate(entity: update.entity, attributes: update.attributes, links: links, key: update.primaryKey))
        }
        for model in linkOrder {
            guard let links = linkNames[ObjectIdentifier(model)],
                  let data = (model as? any PersistentModel)?.persistentBackingData,
                  let entity = data.entity, case .row(let key)? = data.key
            else { continue }
            updates.append(PendingUpdate(entity: entity, attributes: [], links: links, key: key))
        }
        start = 0
        while start < updates.count {
            let first = updates[start]
            var end = start + 1
            while end < updates.count, updates[end].entity === first.entity,
                  updates[end].attributes.elementsEqual(first.attributes, by: ===), updates[end].links == first.links {
                end += 1
            }
            write(first.entity, .update, first.attributes.map(\.name) + first.links, updates[start..<end].map(\.key))
            start = end
        }

        // Deletions: runs of one entity, with the preserved values.
        start = 0
        while start < changes.deletes.count {
            let entity = changes.deletes[start].entity
            var end = start + 1
            while end < changes.deletes.count, changes.deletes[end].entity === entity { end += 1 }
            let preservedNames = entity.preservedAttributes.map(\.name)
            write(entity, .delete, preservedNames.isEmpty ? nil : preservedNames, changes.deletes[start..<end].map(\.primaryKey),
                      values: preservedNames.isEmpty ? nil : Array(preserved[start..<end]))
            start = end
        }
        return records
    }
}

// MARK: - Reading and deleting

extension SQLiteStore: HistoryStore {
    func historyHeaders(after: Int64, detailedOnly: Bool) throws -> [HistoryHeader] {
        try historyHeaders(after: after, detailedOnly: detailedOnly, on: nil)
    }

    func historyRuns(from first: Int64, through last: Int64) throws -> [SQLiteHistory.Run] {
        try historyRuns(from: first, through: last, on: nil)
    }

    func historyDeletedThrough() throws -> Int64 {
        try historyDeletedThrough(on: nil)
    }

    func newestHistoryTransaction() throws -> Int64 {
        try newestHistoryTransaction(on: nil)
    }
}

extension SQLiteStore {
    /// Runs one history query through `connection` (the ``StoreChangeWatcher``'s own, so that its reads
    /// take no read connection of the store's pool), or through the store's readers.
    private func readHistory<Result>(_ fragment: SQLFragment, on connection: OpaquePointer?, _ body: (OpaquePointer) throws -> Result) throws -> Result {
        guard let connection else { return try read(fragment, body) }
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(connection, fragment.sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw StowageError.sqlite(
                sqlite3_extended_errcode(connection), .fetchFailed, "Reading history failed",
                message: String(cString: sqlite3_errmsg(connection)), sql: fragment.sql)
        }
        return try SQLiteStatement.run(statement, fragment.arguments, body)
    }

    /// Whether the store has history tables (a store never saved to since history existed has none).
    private func hasHistory(on connection: OpaquePointer? = nil) throws -> Bool {
        if historyTablesExist.load(ordering: .acquiring) { return true }
        let fragment = SQLFragment("SELECT count(*) FROM sqlite_master WHERE name = '\(SQLiteHistory.transactionTable)'")
        return try readHistory(fragment, on: connection) { try SQLiteStatement.step($0) && sqlite3_column_int64($0, 0) > 0 }
    }

    /// Every transaction of the store's history, oldest first, without their changes.
    /// - Parameter detailedOnly: leaves out the rows of saves whose changes were not recorded.
    func historyHeaders(after: Int64 = 0, detailedOnly: Bool = true, on connection: OpaquePointer?) throws -> [HistoryHeader] {
        guard try hasHistory(on: connection) else { return [] }
        var fragment = SQLFragment("SELECT \"id\", \"timestamp\", \"author\", \"bundle\", \"process\", \"origin\", \"detail\" FROM \(SQLiteSQL.quote(SQLiteHistory.transactionTable)) WHERE \"id\" > ")
        fragment.bind(.integer(after))
        if detailedOnly { fragment.append(" AND \"detail\" <> 0") }
        fragment.append(" ORDER BY \"id\"")
        return try readHistory(fragment, on: connection) { statement in
            var headers: [HistoryHeader] = []
            while try SQLiteStatement.step(statement) {
                let author = SQLiteStatement.column(2, of: statement)
                headers.append(HistoryHeader(
                    id: sqlite3_column_int64(statement, 0),
                    timestamp: Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, 1)),
                    author: author == .null ? nil : SQLiteStatement.text(of: sqlite3_column_value(statement, 2)),
                    bundleIdentifier: SQLiteStatement.text(of: sqlite3_column_value(statement, 3)),
                    processIdentifier: SQLiteStatement.text(of: sqlite3_column_value(statement, 4)),
                    origin: sqlite3_column_int64(statement, 5), detailed: sqlite3_column_int64(statement, 6) != 0))
            }
            return headers
        }
    }

    /// The change runs of the transactions numbered from `first` to `last`, in order.
    func historyRuns(from first: Int64, through last: Int64, on connection: OpaquePointer?) throws -> [SQLiteHistory.Run] {
        guard try hasHistory(on: connection) else { return [] }
        var fragment = SQLFragment("SELECT \"transaction\", \"position\", \"entity\", \"kind\", \"properties\", \"keys\", \"values\" FROM \(SQLiteSQL.quote(SQLiteHistory.changeTable)) WHERE \"transaction\" BETWEEN ")
        fragment.bind(.integer(first))
        fragment.append(" AND ")
        fragment.bind(.integer(last))
        fragment.append(" ORDER BY \"transaction\", \"position\"")
        return try readHistory(fragment, on: connection) { statement in
            var runs: [SQLiteHistory.Run] = []
            while try SQLiteStatement.step(statement) {
                guard let kind = SQLiteHistory.Kind(rawValue: sqlite3_column_int64(statement, 3)),
                      case .blob(let keyData) = SQLiteStatement.column(5, of: statement)
                else { continue }
                let propertyText = SQLiteStatement.column(4, of: statement)
                let properties = propertyText == .null ? [] : SQLiteStatement.text(of: sqlite3_column_value(statement, 4)).split(separator: ",").map(String.init)
                let keys = try SQLiteHistory.decodeKeys(keyData)
                var values: [[StorageValue]] = []
                if case .blob(let valueData) = SQLiteStatement.column(6, of: statement) {
                    values = try SQLiteHistory.decodeValues(valueData, rows: keys.count, columns: properties.count)
                }
                runs.append(SQLiteHistory.Run(
                    transaction: sqlite3_column_int64(statement, 0), position: Int(sqlite3_column_int64(statement, 1)),
                    entity: SQLiteStatement.text(of: sqlite3_column_value(statement, 2)), kind: kind,
                    properties: properties, keys: keys, values: values))
            }
            return runs
        }
    }

    /// The number of the newest transaction of the history (0 when there is none).
    func newestHistoryTransaction(on connection: OpaquePointer?) throws -> Int64 {
        guard try hasHistory(on: connection) else { return 0 }
        return try readHistory(SQLFragment("SELECT max(\"id\") FROM \(SQLiteSQL.quote(SQLiteHistory.transactionTable))"), on: connection) { statement in
            try SQLiteStatement.step(statement) ? sqlite3_column_int64(statement, 0) : 0
        }
    }

    /// The number of the newest transaction deleted from the history (0 when none was).
    func historyDeletedThrough(on connection: OpaquePointer?) throws -> Int64 {
        guard try hasHistory(on: connection) else { return 0 }
        var fragment = SQLFragment("SELECT \"value\" FROM \(SQLiteSQL.quote(SQLiteSQL.metadataTable)) WHERE \"key\" = ")
        fragment.bind(.text(SQLiteHistory.deletedThroughKey))
        return try readHistory(fragment, on: connection) { statement in
            try SQLiteStatement.step(statement) ? Int64(SQLiteStatement.text(of: sqlite3_column_value(statement, 0))) ?? 0 : 0
        }
    }

    /// Deletes the given transactions and their changes, and records that tokens up to the newest of
    /// them have expired.
    func deleteHistory(_ transactions: [Int64]) throws {
        guard let newest = transactions.max(), try hasHistory() else { return }
        do {
            try writeTransaction { db in
                try Self.deleteHistory(transactions, newest: newest, db)
            }
        } catch let error as DatabaseError {
            throw StowageError.sqlite(
                error.extendedResultCode.rawValue, .saveFailed, "Deleting history failed and nothing was deleted",
                message: error.message ?? "\(error)", sql: error.sql, underlying: error)
        }
    }

    /// Deletes transactions on `db`, inside the caller's transaction.
    static func deleteHistory(_ transactions: [Int64], newest: Int64, _ db: Database) throws {
        for chunk in stride(from: 0, to: transactions.count, by: 500).map({ transactions[$0..<min($0 + 500, transactions.count)] }) {
            let list = chunk.map(String.init).joined(separator: ",")
            try db.execute(sql: "DELETE FROM \(SQLiteSQL.quote(SQLiteHistory.changeTable)) WHERE \"transaction\" IN (\(list))")
            try db.execute(sql: "DELETE FROM \(SQLiteSQL.quote(SQLiteHistory.transactionTable)) WHERE \"id\" IN (\(list))")
        }
        try db.execute(
            sql: """
                INSERT INTO \(SQLiteSQL.quote(SQLiteSQL.metadataTable)) ("key", "value") VALUES (?, ?)
                ON CONFLICT ("key") DO UPDATE SET "value" = max(CAST("value" AS INTEGER), CAST(excluded."value" AS INTEGER))
                """,
            arguments: [SQLiteHistory.deletedThroughKey, String(newest)])
    }
}
