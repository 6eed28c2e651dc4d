import Foundation

/// A container's models in a PostgreSQL database, which several processes on several hosts share.
///
/// The store speaks the SQL the SQLite store speaks (``SQLiteSQL`` in the ``SQLDialect/postgresql``
/// spelling), over a ``PostgreSQLDriver``'s pooled connections. A save is one transaction on one
/// connection, at PostgreSQL's READ COMMITTED isolation: rows another process changed since this
/// context read them are overwritten column by column (the columns this save changed), as on SQLite; a
/// row another process deleted fails the save with `.saveConflict`.
final class PostgreSQLStore: ModelStore, @unchecked Sendable {
    // @unchecked: immutable after init; the driver is Sendable.
    let schema: Schema
    let identifier: String
    let driver: any PostgreSQLDriver
    let location: String
    /// Tells this store object's saves from other processes' in the history.
    let origin = Int64.random(in: 1...Int64.max)

    /// Opens the database, creating or migrating its tables (with `migrationPlan`'s stages, when it
    /// has some for the version the database is at).
    init(schema: Schema, configuration: any PostgreSQLStoreConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)? = nil) throws {
        self.schema = schema
        self.location = configuration.location
        let driver = try configuration.makeDriver()
        self.driver = driver
        do {
            identifier = try driver.withConnection { connection in
                try Self.translatingServerErrors(location: configuration.location) {
                    try PostgreSQLSchema.prepare(
                        schema, on: connection, location: configuration.location, allowsCreation: configuration.allowsSave, migrationPlan: migrationPlan)
                }
            }
        } catch {
            driver.shutdown()
            throw error
        }
    }

    /// A store over the connection of a migration's transaction, for the contexts of its custom
    /// stages (see ``PostgreSQLMigrationConnection``).
    init(schema: Schema, migratingOn connection: any PostgreSQLConnection, identifier: String, location: String) {
        self.schema = schema
        self.identifier = identifier
        self.location = location
        driver = PostgreSQLMigrationDriver(connection)
    }

    deinit { driver.shutdown() }

    func identifier(for entity: Schema.Entity) -> String { identifier }

    var sqliteStores: [SQLiteStore] { [] }

    var historyStores: [any HistoryStore] { [self] }

    // MARK: Reading

    /// The rows of a statement, read on a connection that is given back before the caller sees them
    /// (so that what it does with them may use the pool again).
    private func rows(_ fragment: SQLFragment) throws -> [[StorageValue]] {
        try driver.withConnection { connection in
            try Self.translatingServerErrors(location: location, sql: fragment.sql) {
                try connection.rows(fragment.sql, fragment.arguments)
            }
        }
    }

    func fetch(_ query: StoreQuery, _ body: (StoreRow) throws -> Void) throws {
        for row in try rows(SQLiteSQL.select(query, dialect: .postgresql)) {
            try row.withUnsafeBufferPointer { try body(StoreRow(values: $0)) }
        }
    }

    func count(_ query: StoreQuery) throws -> Int {
        guard case .integer(let count)? = try rows(SQLiteSQL.count(query, dialect: .postgresql)).first?.first else { return 0 }
        return Int(count)
    }

    func primaryKeys(_ query: StoreQuery) throws -> [Int64] {
        try rows(SQLiteSQL.selectPrimaryKeys(query, dialect: .postgresql)).compactMap { row in
            if case .integer(let key)? = row.first { return key }
            return nil
        }
    }

    func externalValue(_ attribute: Schema.Attribute, of entity: Schema.Entity, primaryKey: Int64) throws -> StorageValue {
        let q = SQLiteSQL.quote
        var fragment = SQLFragment("SELECT \(PostgreSQLSchema.readColumn(attribute, named: "value")) FROM \(q(SQLiteSchema.externalTableName(entity, attribute))) WHERE \(q(SQLiteSQL.primaryKeyColumn)) = ")
        fragment.bind(.integer(primaryKey))
        return try rows(fragment).first?.first ?? .null
    }

    func fetchRelated(_ relationship: Schema.Relationship, owners: [Int64], columns query: StoreQuery,
                      _ body: (Int64, StoreRow) throws -> Void) throws {
        guard !owners.isEmpty, let fragment = SQLiteSQL.related(relationship, owners: owners, columns: query, dialect: .postgresql) else { return }
        for var row in try rows(fragment) {
            guard case .integer(let owner)? = row.popLast() else { continue }
            try row.withUnsafeBufferPointer { try body(owner, StoreRow(values: $0)) }
        }
    }

    // MARK: Writing

    func apply(_ changes: ChangeSet) throws -> SaveResult {
        do {
            return try driver.withConnection { connection in
                try Self.translatingServerErrors(location: location, saving: true) {
                    if let saved = try saveInOneStatement(changes, connection) { return saved }
                    return try connection.transaction { finish in try write(changes, on: connection, finish: finish) }
                }
            }
        } catch let error as StowageError where [.saveFailed, .constraintViolation, .saveConflict].contains(error.code) {
            throw StowageError(
                error.code, "The save failed and nothing was written: " + error.message,
                entityName: error.entityName, propertyName: error.propertyName, sql: error.sql, underlying: error.underlying)
        }
    }

    /// Writes a save's changes, then ends the transaction with its history (`finish`).
    private func write(_ changes: ChangeSet, on connection: any PostgreSQLConnection, finish: Finish) throws -> SaveResult {
        let q = SQLiteSQL.quote
        let pk = q(SQLiteSQL.primaryKeyColumn)
        let preserved = try preservedValues(changes, connection)
        // Deletes, updates and plain inserts are sent without waiting for each (``PostgreSQLConnection/send(_:_:check:)``),
        // and their answers checked together before the links, which need the new rows' keys.
        for delete in changes.deletes {
            try connection.send("DELETE FROM \(q(delete.entity.tableName)) WHERE \(pk) = ?", [.integer(delete.primaryKey)]) { _ in }
        }
        for update in changes.updates {
            let columns = update.attributes.filter { !$0.isExternalStorage }
            if columns.isEmpty {
                guard !(try connection.rows("SELECT 1 FROM \(q(update.entity.tableName)) WHERE \(pk) = ?", [.integer(update.primaryKey)])).isEmpty else {
                    throw StowageError.saveConflict(update.entity, update.primaryKey)
                }
            } else {
                let sql = "UPDATE \(q(update.entity.tableName)) SET " + columns.map { "\(q($0.name)) = ?" }.joined(separator: ", ") + " WHERE \(pk) = ? RETURNING 1"
                var values = try columns.map { try $0.storableValue(of: update.model) }
                values.append(.integer(update.primaryKey))
                let (entity, key) = (update.entity, update.primaryKey)
                try connection.send(sql, values) { rows in
                    guard !rows.isEmpty else { throw StowageError.saveConflict(entity, key) }
                }
            }
            for attribute in update.attributes where attribute.isExternalStorage {
                try writeExternal(attribute, of: update.entity, primaryKey: update.primaryKey, value: attribute.storableValue(of: update.model), connection)
            }
        }
        let keys = KeyList(count: changes.inserts.count)
        for (index, insert) in changes.inserts.enumerated() {
            try self.insert(insert, connection) { keys.values[index] = $0 }
        }
        try connection.flush()
        if !changes.relationshipWrites.isEmpty {
            var insertedKeys: [ObjectIdentifier: Int64] = [:]
            for (insert, key) in zip(changes.inserts, keys.values) { insertedKeys[ObjectIdentifier(insert.model)] = key }
            var links = RelationshipLinks(insertedKeys: insertedKeys, removed: changes.removed, runner: PostgreSQLRunner(connection: connection))
            for write in changes.relationshipWrites { try links.write(write) }
            try links.checkUnique(changes.relationshipWrites)
        }
        let transaction = try recordHistory(changes, insertedKeys: keys.values, preserved: preserved, finish: finish)
        return SaveResult(insertedKeys: keys.values, historyTransactions: [identifier: transaction])
    }

    /// The values of `.preserveValueOnDeletion` attributes of the rows a save deletes, read before.
    private func preservedValues(_ changes: ChangeSet, _ connection: any PostgreSQLConnection) throws -> [[StorageValue]] {
        guard changes.deletes.contains(where: { !$0.entity.preservedAttributes.isEmpty }) else { return [] }
        let q = SQLiteSQL.quote
        let pk = q(SQLiteSQL.primaryKeyColumn)
        return try changes.deletes.map { delete in
            try delete.entity.preservedAttributes.map { attribute in
                let sql = attribute.isExternalStorage
                    ? "SELECT \(PostgreSQLSchema.readColumn(attribute, named: "value")) FROM \(q(SQLiteSchema.externalTableName(delete.entity, attribute))) WHERE \(pk) = ?"
                    : "SELECT \(PostgreSQLSchema.readColumn(attribute)) FROM \(q(delete.entity.tableName)) WHERE \(pk) = ?"
                return try connection.rows(sql, [.integer(delete.primaryKey)]).first?.first ?? .null
            }
        }
    }

    /// Ends a save: runs its last statement, commits when a transaction is open, then runs a follow-up;
    /// returns the statement's rows (``PostgreSQLConnection/finish(_:_:endingTransaction:then:)``).
    typealias Finish = (_ sql: String, _ arguments: [StorageValue], _ followUp: String) throws -> [[StorageValue]]

    /// The statement that notifies the other processes of the save this session committed last
    /// (``PostgreSQLSchema/notifyFunction``): its history number, this store's origin, and `body`
    /// (``PostgreSQLNotice``).
    private func notifySave(body: String?) -> String {
        let sequence = SQLiteSQL.literal(SQLiteSQL.quote(SQLiteHistory.transactionTable))
        return "SELECT stowage_notify(currval(pg_get_serial_sequence(\(sequence), 'id'))::text || \(SQLiteSQL.literal(" \(origin)" + (body.map { " " + $0 } ?? ""))))"
    }

    /// Writes the save's history transaction and (through `finish`) commits, then notifies.
    ///
    /// The history statement, the commit and the notification are sent together: a save waits for the
    /// server once to end.
    /// - Returns: the transaction's number.
    private func recordHistory(_ changes: ChangeSet, insertedKeys: [Int64], preserved: [[StorageValue]], finish: Finish) throws -> Int64 {
        let (sql, arguments, notice) = historyStatement(changes, insertedKeys: insertedKeys, preserved: preserved)
        return try transactionNumber(try finish(sql, arguments, notice))
    }

    private func transactionNumber(_ rows: [[StorageValue]]) throws -> Int64 {
        guard case .integer(let transaction)? = rows.first?.first else {
            throw StowageError(.saveFailed, "PostgreSQL at \(location) gave the save's history row no number.")
        }
        return transaction
    }

    /// The statement that records a save's history: it takes the save's lock
    /// (``PostgreSQLSchema/saveLockKey``), inserts the transaction's row and its changes, and returns the
    /// transaction's number; and the statement that notifies the other processes of it, to run after
    /// the commit.
    /// - Parameter writes: data-modifying statements (`"name" AS (…)`, each returning one row per row it
    ///   wrote) that run first in the same statement, their arguments, and how many rows they must write
    ///   in all; fewer rows fail the statement (a division by zero) before the history is written.
    private func historyStatement(
        _ changes: ChangeSet, insertedKeys: [Int64], preserved: [[StorageValue]],
        writes: (statements: [String], arguments: [StorageValue], rows: Int)? = nil
    ) -> (sql: String, arguments: [StorageValue], notice: String) {
        let q = SQLiteSQL.quote
        var sql = "WITH "
        var arguments: [StorageValue] = []
        var lock = "SELECT pg_advisory_xact_lock_shared(\(PostgreSQLSchema.saveLockKey))"
        if let writes, !writes.statements.isEmpty {
            sql += writes.statements.joined(separator: ", ") + ", "
            arguments = writes.arguments
            let written = writes.statements.indices.map { "(SELECT count(*) FROM \(q("w\($0)")))" }.joined(separator: " + ")
            lock += ", 1 / (CASE WHEN \(written) = \(writes.rows) THEN 1 ELSE 0 END)"
        }
        let timestamp = Date().timeIntervalSinceReferenceDate
        arguments += [
            .real(timestamp), changes.author.map(StorageValue.text) ?? .null,
            .text(SQLiteHistory.bundleIdentifier), .text(SQLiteHistory.processIdentifier), .integer(origin),
        ]
        // The number is taken once the lock is held ("header" reads "lock").
        sql += """
            "lock" AS MATERIALIZED (\(lock)), \
            "header" AS (INSERT INTO \(q(SQLiteHistory.transactionTable)) ("timestamp", "author", "bundle", "process", "origin", "detail") \
            SELECT ?::double precision, ?::text, ?::text, ?::text, ?::bigint, 1 FROM "lock" RETURNING "id")
            """
        let records = SQLiteHistory.records(of: changes, insertedKeys: insertedKeys, preserved: preserved)
        if !records.isEmpty {
            // Each change row as its arguments but the transaction's id, which comes from "header".
            let row = "(?::bigint, ?::text, ?::bigint, ?::text, ?::bytea, ?::bytea)"
            sql += """
                , "changes" AS (INSERT INTO \(q(SQLiteHistory.changeTable)) ("transaction", "position", "entity", "kind", "properties", "keys", "values") \
                SELECT "header"."id", "v".* FROM "header", (VALUES \(Array(repeating: row, count: records.count).joined(separator: ", "))) AS "v")
                """
            for record in records { arguments += record.arguments(transaction: 0).dropFirst() }
        }
        sql += #" SELECT "id" FROM "header""#
        let body = PostgreSQLNotice.body(timestamp: timestamp, author: changes.author, records: records)
        return (sql, arguments, notifySave(body: body))
    }

    /// A save of at most 64 inserts and attribute updates, of entities without uniqueness constraints or
    /// external storage, as one statement (an implicit transaction: one round trip to the server; the
    /// new rows' keys come from the keys reserved ahead, ``newKeys(_:for:_:)``): the writes, then the history
    /// (``historyStatement(_:insertedKeys:preserved:writes:)``), and the notification sent behind it.
    /// - Returns: `nil` for any other save, or when the server refuses the statement (nothing is written
    ///   then): the general path runs it and says what is wrong.
    private func saveInOneStatement(_ changes: ChangeSet, _ connection: any PostgreSQLConnection) throws -> SaveResult? {
        // Large saves go the general way, their writes sent without waiting for each: a statement of
        // thousands of parts would take longer to plan than to send them one by one.
        guard changes.deletes.isEmpty, changes.relationshipWrites.isEmpty, changes.inserts.count + changes.updates.count <= 64,
              changes.inserts.allSatisfy({ $0.entity.uniquenessConstraints.isEmpty && $0.entity.externalAttributes.isEmpty }),
              changes.updates.allSatisfy({ update in !update.attributes.isEmpty && !update.attributes.contains(where: \.isExternalStorage) })
        else { return nil }
        let q = SQLiteSQL.quote
        let pk = q(SQLiteSQL.primaryKeyColumn)
        // The new rows' keys, in the order of the inserts.
        var keys: [Int64] = []
        keys.reserveCapacity(changes.inserts.count)
        var tables: [String] = []
        var counts: [String: Int] = [:]
        for insert in changes.inserts {
            if counts[insert.entity.tableName] == nil { tables.append(insert.entity.tableName) }
            counts[insert.entity.tableName, default: 0] += 1
        }
        var taken: [String: [Int64]] = [:]
        for table in tables {
            taken[table] = try newKeys(counts[table]!, for: table, connection).reversed()
        }
        var statements: [String] = []
        var arguments: [StorageValue] = []
        for update in changes.updates {
            statements.append(
                "\(q("w\(statements.count)")) AS (UPDATE \(q(update.entity.tableName)) SET "
                    + update.attributes.map { "\(q($0.name)) = ?" }.joined(separator: ", ") + " WHERE \(pk) = ? RETURNING 1)")
            arguments += try update.attributes.map { try $0.storableValue(of: update.model) }
            arguments.append(.integer(update.primaryKey))
        }
        for insert in changes.inserts {
            let entity = insert.entity
            guard let key = taken[entity.tableName]?.popLast() else { return nil }
            keys.append(key)
            var columns = [pk] + entity.columnAttributes.map { q($0.name) }
            var values = ["?"] + Array(repeating: "?", count: entity.columnAttributes.count)
            if entity.isInHierarchy {
                columns.append(q(Schema.Entity.entityColumn))
                values.append(SQLiteSQL.literal(entity.name))
            }
            statements.append(
                "\(q("w\(statements.count)")) AS (INSERT INTO \(q(entity.tableName)) (\(columns.joined(separator: ", "))) VALUES (\(values.joined(separator: ", "))) RETURNING 1)")
            arguments.append(.integer(key))
            arguments += try entity.columnAttributes.map { try $0.storableValue(of: insert.model) }
        }
        let (sql, allArguments, notice) = historyStatement(
            changes, insertedKeys: keys, preserved: [], writes: (statements, arguments, changes.updates.count + changes.inserts.count))
        let rows: [[StorageValue]]
        do {
            rows = try connection.finish(sql, allArguments, endingTransaction: false, then: notice)
        } catch is PostgreSQLServerError {
            return nil
        }
        return SaveResult(insertedKeys: keys, historyTransactions: [identifier: try transactionNumber(rows)])
    }

    /// Keys taken from tables' sequences ahead of the inserts that use them, by table, smallest first:
    /// a small save's new rows have their keys without a round trip of their own, one trip to a
    /// sequence serving ``keyBlock`` inserts. (Keys left when the process ends are never used, as keys
    /// of rolled-back inserts are not.)
    private let reservedKeys = Locked<[String: [Int64]]>([:])
    static let keyBlock = 32

    /// `count` new keys of `table`'s rows.
    private func newKeys(_ count: Int, for table: String, _ connection: any PostgreSQLConnection) throws -> [Int64] {
        let reserved = reservedKeys.withLock { reserve -> [Int64]? in
            guard let available = reserve[table], available.count >= count else { return nil }
            reserve[table] = Array(available.dropFirst(count))
            return Array(available.prefix(count))
        }
        if let reserved { return reserved }
        let fetched = try connection.rows(
            "SELECT nextval(pg_get_serial_sequence(?, '_pk')) FROM generate_series(1, ?)",
            [.text(SQLiteSQL.quote(table)), .integer(Int64(count + Self.keyBlock))]
        ).compactMap { row -> Int64? in
            if case .integer(let key)? = row.first { return key }
            return nil
        }
        guard fetched.count > count else {
            throw StowageError(.saveFailed, "PostgreSQL at \(location) gave \(fetched.count) keys of \(table)'s sequence for \(count) new rows.")
        }
        reservedKeys.withLock { $0[table, default: []] = ($0[table, default: []] + fetched.dropFirst(count)).sorted() }
        return Array(fetched.prefix(count))
    }

    /// The keys of a save's inserted rows, filled in as their statements are answered.
    private final class KeyList {
        var values: [Int64]
        init(count: Int) { values = Array(repeating: 0, count: count) }
    }

    /// Inserts one model's row, giving its key to `receive`: with `ON CONFLICT … DO UPDATE` when the
    /// entity has one uniqueness constraint (SwiftData's upsert); with several, the row matching any of
    /// them is updated (PostgreSQL takes one conflict target per statement). A row without external
    /// storage or several constraints is sent without waiting (its key arrives at the next flush).
    private func insert(_ insert: ChangeSet.Insert, _ connection: any PostgreSQLConnection, receive: @escaping (Int64) -> Void) throws {
        let entity = insert.entity
        let q = SQLiteSQL.quote
        let pk = q(SQLiteSQL.primaryKeyColumn)
        let attributes = entity.columnAttributes
        var columns = attributes.map { q($0.name) }
        var placeholders = Array(repeating: "?", count: columns.count)
        let values = try attributes.map { try $0.storableValue(of: insert.model) }
        if entity.isInHierarchy {
            columns.append(q(Schema.Entity.entityColumn))
            placeholders.append(SQLiteSQL.literal(entity.name))
        }
        let constraints = entity.uniquenessConstraints.filter { names in names.allSatisfy { name in attributes.contains { $0.name == name } } }
        let entityColumn = q(Schema.Entity.entityColumn)
        let assignments = columns.filter { $0 != entityColumn }.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        var sql = "INSERT INTO \(q(entity.tableName)) "
        sql += columns.isEmpty ? "DEFAULT VALUES" : "(\(columns.joined(separator: ", "))) VALUES (\(placeholders.joined(separator: ", ")))"
        var key: Int64?
        if constraints.count > 1 {
            // The row matching any constraint, updated in place.
            for constraint in constraints {
                var condition: [String] = []
                var arguments: [StorageValue] = []
                for name in constraint {
                    guard let index = attributes.firstIndex(where: { $0.name == name }) else { continue }
                    let column = SQLiteSchema.keyList([name], of: entity)
                    condition.append(attributes[index].comparesAsSwiftString ? "\(column) = stowage_nfc(?)" : "\(column) IS NOT DISTINCT FROM ?")
                    arguments.append(values[index])
                }
                if let found = try connection.rows("SELECT \(pk) FROM \(q(entity.tableName)) WHERE " + condition.joined(separator: " AND ") + " LIMIT 1", arguments).first,
                   case .integer(let existing)? = found.first {
                    try connection.execute("UPDATE \(q(entity.tableName)) SET " + attributes.map { "\(q($0.name)) = ?" }.joined(separator: ", ") + " WHERE \(pk) = ?", values + [.integer(existing)])
                    key = existing
                    break
                }
            }
        }
        if key == nil {
            if constraints.count == 1 {
                sql += " ON CONFLICT (\(SQLiteSchema.keyList(constraints[0], of: entity))) DO UPDATE SET \(assignments)"
                if entity.isInHierarchy { sql += " WHERE \(q(entity.tableName)).\(entityColumn) = excluded.\(entityColumn)" }
            }
            sql += " RETURNING \(pk)"
            let name = entity.name, table = entity.tableName
            let check = { (rows: [[StorageValue]]) throws -> Int64 in
                guard case .integer(let inserted)? = rows.first?.first else {
                    throw StowageError(
                        .constraintViolation,
                        "A new \(name) has the unique values of a stored model of another class of \(table)'s hierarchy; an insert cannot change a stored model's class. Delete the stored model first (in an earlier save), or change the values.",
                        entityName: name)
                }
                return inserted
            }
            guard !entity.externalAttributes.isEmpty else {
                try connection.send(sql, values) { receive(try check($0)) }
                return
            }
            key = try check(try connection.rows(sql, values))
        }
        for attribute in entity.externalAttributes {
            try writeExternal(attribute, of: entity, primaryKey: key!, value: attribute.storableValue(of: insert.model), connection)
        }
        receive(key!)
    }

    private func writeExternal(_ attribute: Schema.Attribute, of entity: Schema.Entity, primaryKey: Int64, value: StorageValue, _ connection: any PostgreSQLConnection) throws {
        let table = SQLiteSQL.quote(SQLiteSchema.externalTableName(entity, attribute))
        let pk = SQLiteSQL.quote(SQLiteSQL.primaryKeyColumn)
        try connection.execute(
            "INSERT INTO \(table) (\(pk), \"value\") VALUES (?, ?) ON CONFLICT (\(pk)) DO UPDATE SET \"value\" = excluded.\"value\"",
            [.integer(primaryKey), value])
    }

    func eraseAll(_ erased: inout [String]) throws {
        let q = SQLiteSQL.quote
        var tables = schema.entities.filter { $0.superentity == nil }.map { q($0.name) }
        for entity in schema.entities {
            for attribute in entity.externalAttributes { tables.append(q(SQLiteSchema.externalTableName(entity, attribute))) }
            for relationship in entity.relationshipList {
                if case .joinTable(let table, _, _, _, _) = relationship.storage { tables.append(q(table)) }
            }
        }
        let unique = Array(Set(tables)).sorted()
        try driver.withConnection { connection in
            try Self.translatingServerErrors(location: location, saving: true) {
                try connection.transaction {
                    try connection.execute("TRUNCATE \(unique.joined(separator: ", "))")
                    // The history went with the data: every token given out so far expires, through a
                    // transaction number taken and deleted at once.
                    let erasure = try recordHistory(ChangeSet(), insertedKeys: [], preserved: []) { sql, arguments, _ in try connection.rows(sql, arguments) }
                    try Self.deleteHistory(through: erasure, on: connection)
                }
                // Told without a body: listeners read the history, find it deleted and refresh everything.
                try? connection.execute(notifySave(body: nil))
            }
        }
        erased += schema.entities.map(\.name)
    }

    // MARK: Errors

    /// Runs `body`, turning the server's refusals into ``StowageError``s that say what happened.
    static func translatingServerErrors<Result>(location: String, sql: String? = nil, saving: Bool = false, _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as PostgreSQLServerError {
            let detail = error.detail.map { " (\($0))" } ?? ""
            switch error.sqlState {
            case "23505":
                throw StowageError(.constraintViolation, "A save breaks a uniqueness constraint\(error.constraint.map { " (\($0))" } ?? ""): \(error.message)\(detail).", sql: sql, underlying: error)
            case "23503", "23502", "23514":
                throw StowageError(.constraintViolation, "A save breaks a constraint of the models: \(error.message)\(detail).", sql: sql, underlying: error)
            case "40001", "40P01":
                throw StowageError(.saveConflict, "PostgreSQL stopped the save to resolve a conflict with another transaction (\(error.message)); save again.", sql: sql, underlying: error)
            case "57P01", "57P02", "57P03", "08000", "08003", "08006":
                throw StowageError(.connectionLost, "PostgreSQL at \(location) ended the connection: \(error.message); nothing of the operation was kept, and later operations reconnect.", sql: sql, underlying: error)
            case "P0001" where error.message.hasPrefix("Stowage:"):
                throw StowageError(.fetchFailed, error.message, sql: sql, underlying: error)
            default:
                throw StowageError(saving ? .saveFailed : .fetchFailed, "PostgreSQL at \(location) refused a statement: \(error.message)\(detail) (SQLSTATE \(error.sqlState)).", sql: sql, underlying: error)
            }
        }
    }
}

extension PostgreSQLStore: HistoryStore {
    /// The transactions after `after`, without a gap: numbers are taken before saves commit, so a
    /// number missing below one read may still come. Then the reader waits for the saves in flight
    /// (``PostgreSQLSchema/waitForSave(_:)``) and reads again: a number still missing below the
    /// largest of the first read never comes. Transactions after a gap that remains are left for the
    /// next read.
    func historyHeaders(after: Int64, detailedOnly: Bool) throws -> [HistoryHeader] {
        var headers = try historyHeaders(after: after)
        guard let firstGap = Self.firstGap(headers, after: after) else { return Self.detailed(headers, detailedOnly) }
        let settled = headers.last?.id ?? firstGap
        try driver.withConnection { connection in
            try Self.translatingServerErrors(location: location, sql: PostgreSQLSchema.transactionsInFlight) {
                // Each wait is a statement of its own, its lock given back at its end; all are sent at once.
                for row in try connection.rows(PostgreSQLSchema.transactionsInFlight) {
                    guard case .text(let text)? = row.first, let xid = Int64(text) else { continue }
                    try connection.send(PostgreSQLSchema.waitForSave(xid), []) { _ in }
                }
                try connection.flush()
            }
        }
        headers = try historyHeaders(after: after)
        // Up to `settled`, every number there will be is there; above it, up to the next gap.
        var end = headers.firstIndex { $0.id > settled } ?? headers.endIndex
        var next = end > headers.startIndex ? headers[end - 1].id : after
        while end < headers.endIndex, headers[end].id == next + 1 {
            next += 1
            end += 1
        }
        return Self.detailed(Array(headers[..<end]), detailedOnly)
    }

    /// The number of the first transaction missing after `after` and before the last of `headers`.
    private static func firstGap(_ headers: [HistoryHeader], after: Int64) -> Int64? {
        var expected = after + 1
        for header in headers {
            if header.id != expected { return expected }
            expected += 1
        }
        return nil
    }

    private static func detailed(_ headers: [HistoryHeader], _ detailedOnly: Bool) -> [HistoryHeader] {
        detailedOnly ? headers.filter(\.detailed) : headers
    }

    private func historyHeaders(after: Int64) throws -> [HistoryHeader] {
        var fragment = SQLFragment("SELECT \"id\", \"timestamp\", \"author\", \"bundle\", \"process\", \"origin\", \"detail\" FROM \(SQLiteSQL.quote(SQLiteHistory.transactionTable)) WHERE \"id\" > ")
        fragment.bind(.integer(after))
        fragment.append(" ORDER BY \"id\"")
        return try rows(fragment).compactMap { row in
            guard row.count == 7, case .integer(let id) = row[0], case .real(let timestamp) = row[1],
                  case .text(let bundle) = row[3], case .text(let process) = row[4], case .integer(let origin) = row[5],
                  case .integer(let detail) = row[6]
            else { return nil }
            let author: String? = if case .text(let author) = row[2] { author } else { nil }
            return HistoryHeader(
                id: id, timestamp: Date(timeIntervalSinceReferenceDate: timestamp), author: author,
                bundleIdentifier: bundle, processIdentifier: process, origin: origin, detailed: detail != 0)
        }
    }

    func historyRuns(from first: Int64, through last: Int64) throws -> [SQLiteHistory.Run] {
        var fragment = SQLFragment("SELECT \"transaction\", \"position\", \"entity\", \"kind\", \"properties\", \"keys\", \"values\" FROM \(SQLiteSQL.quote(SQLiteHistory.changeTable)) WHERE \"transaction\" BETWEEN ")
        fragment.bind(.integer(first))
        fragment.append(" AND ")
        fragment.bind(.integer(last))
        fragment.append(" ORDER BY \"transaction\", \"position\"")
        return try rows(fragment).compactMap { row in
            guard row.count == 7, case .integer(let transaction) = row[0], case .integer(let position) = row[1],
                  case .text(let entity) = row[2], case .integer(let kindValue) = row[3], let kind = SQLiteHistory.Kind(rawValue: kindValue),
                  case .blob(let keyData) = row[5]
            else { return nil }
            let properties: [String] = if case .text(let text) = row[4] { text.split(separator: ",").map(String.init) } else { [] }
            let keys = try SQLiteHistory.decodeKeys(keyData)
            var values: [[StorageValue]] = []
            if case .blob(let valueData) = row[6] { values = try SQLiteHistory.decodeValues(valueData, rows: keys.count, columns: properties.count) }
            return SQLiteHistory.Run(transaction: transaction, position: Int(position), entity: entity, kind: kind, properties: properties, keys: keys, values: values)
        }
    }

    func newestHistoryTransaction() throws -> Int64 {
        guard case .integer(let newest)? = try rows(SQLFragment("SELECT max(\"id\") FROM \(SQLiteSQL.quote(SQLiteHistory.transactionTable))")).first?.first else { return 0 }
        return newest
    }

    func historyDeletedThrough() throws -> Int64 {
        var fragment = SQLFragment("SELECT \"value\" FROM \(SQLiteSQL.quote(SQLiteSQL.metadataTable)) WHERE \"key\" = ")
        fragment.bind(.text(SQLiteHistory.deletedThroughKey))
        guard case .text(let value)? = try rows(fragment).first?.first else { return 0 }
        return Int64(value) ?? 0
    }

    func deleteHistory(_ transactions: [Int64]) throws {
        guard let newest = transactions.max() else { return }
        try driver.withConnection { connection in
            try Self.translatingServerErrors(location: location, saving: true) {
                try connection.transaction {
                    for chunk in stride(from: 0, to: transactions.count, by: 500).map({ transactions[$0..<min($0 + 500, transactions.count)] }) {
                        let list = chunk.map(String.init).joined(separator: ",")
                        try connection.execute("DELETE FROM \(SQLiteSQL.quote(SQLiteHistory.changeTable)) WHERE \"transaction\" IN (\(list))")
                        try connection.execute("DELETE FROM \(SQLiteSQL.quote(SQLiteHistory.transactionTable)) WHERE \"id\" IN (\(list))")
                    }
                    try Self.recordDeletedThrough(newest, on: connection)
                }
            }
        }
    }

    /// Deletes the whole history up to `newest`, inside the caller's transaction.
    static func deleteHistory(through newest: Int64, on connection: any PostgreSQLConnection) throws {
        try connection.execute("DELETE FROM \(SQLiteSQL.quote(SQLiteHistory.changeTable)) WHERE \"transaction\" <= ?", [.integer(newest)])
        try connection.execute("DELETE FROM \(SQLiteSQL.quote(SQLiteHistory.transactionTable)) WHERE \"id\" <= ?", [.integer(newest)])
        try recordDeletedThrough(newest, on: connection)
    }

    /// Records that tokens up to `newest` have expired.
    private static func recordDeletedThrough(_ newest: Int64, on connection: any PostgreSQLConnection) throws {
        try connection.execute(
            """
            INSERT INTO \(SQLiteSQL.quote(SQLiteSQL.metadataTable)) ("key", "value") VALUES (?, ?)
            ON CONFLICT ("key") DO UPDATE SET "value" = greatest(\(SQLiteSQL.quote(SQLiteSQL.metadataTable))."value"::bigint, excluded."value"::bigint)::text
            """,
            [.text(SQLiteHistory.deletedThroughKey), .text(String(newest))])
    }
}

/// Runs the statements of a save's links on a PostgreSQL connection.
struct PostgreSQLRunner: SQLStatementRunner {
    let connection: any PostgreSQLConnection

    func run(_ sql: String, _ arguments: [StorageValue]) throws -> Int {
        try connection.rows(sql + " RETURNING 1", arguments).count
    }

    func firstInteger(_ sql: String, _ arguments: [StorageValue]) throws -> Int64? {
        guard case .integer(let value)? = try connection.rows(sql, arguments).first?.first else { return nil }
        return value
    }
}
