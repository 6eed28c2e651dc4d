import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// The SQLite store: one table per entity, WAL mode, durable commits. The writer connection (and the
/// single connection of an in-memory store) comes from GRDB; a file store's read connections come from
/// Stowage's own ``SQLiteReaderPool``. Binding and decoding use SQLite's C API directly.
final class SQLiteStore: ModelStore, @unchecked Sendable {
    // @unchecked Sendable: `writer` is a Sendable GRDB DatabaseWriter, `readers` is Sendable, `schema` is
    // immutable, and the only mutable state, the SQL caches, is behind locks.

    let identifier: String
    let schema: Schema
    /// How long a write waits for another connection's lock (see ``ModelConfiguration/busyTimeout``).
    let busyTimeout: TimeInterval
    /// The store file, or `nil` for an in-memory store.
    let path: String?
    /// Why a store whose configuration allows saving was opened read-only: its file, or the directory
    /// SQLite creates the `-wal` and `-shm` files in, cannot be written by this process. `nil` otherwise.
    let unwritableReason: String?
    let writer: any DatabaseWriter
    /// The turn a save of a file store takes before SQLite's write lock, so that processes saving to
    /// one file take turns (``SQLiteWriteTurn``); `nil` in memory and for a store that cannot save.
    private let turn: SQLiteWriteTurn?
    /// The read connections of a file store; `nil` in memory, where reads use the writer's connection.
    private let readers: SQLiteReaderPool?
    /// During a migration, the connection whose transaction the migration runs in: every read and
    /// write of the stage's contexts goes through it, and a save is a savepoint of that transaction.
    private let migrationConnection: Database?
    /// Whether saves write a history transaction (see ``ModelConfiguration/recordsHistory``).
    let recordsHistory: Bool
    /// A random number recorded with each history transaction this store object writes, by which it
    /// tells its own saves from other processes' (``StoreChangeWatcher``).
    let origin = Int64.random(in: 1...Int64.max)
    /// Whether the history tables are known to exist (created by the first save that records history).
    let historyTablesExist = Atomic<Bool>(false)
    /// The transaction number this store object's last `erase()` used up (the watcher does not take
    /// that erasure for another process's doing).
    let ownErasure = Atomic<Int64>(0)
    private let sqlCache = Locked<[ObjectIdentifier: String]>([:])
    /// Each entity's full-row column list and primary-key lookup prefix (see ``selectSQL(_:)``).
    private let fullRowSQLCache = Locked<[ObjectIdentifier: FullRowSQL]>([:])
    private struct FullRowSQL {
        let columns: String
        let primaryKeyLookupPrefix: String
        /// The whole lookup of one row by primary key (`model(for:)`, a to-one relationship's fault).
        let singleKeyLookup: SQLFragment
    }
    /// The SELECTs of full-row queries whose filter comes from a cached predicate translation (or
    /// that have none), by what their text depends on; rebound with each query's parameters.
    private let selectCache = Locked<[SelectShape: SQLFragment]>([:])
    private static let selectCacheCapacity = 512

    /// What the SELECT text of a full-row query without a primary-key list depends on.
    private struct SelectShape: Hashable {
        let entity: ObjectIdentifier
        /// Compared by identity: the cache keeps the template alive, so its identity is not reused.
        let template: PredicateTemplate?
        let sort: [QuerySortTerm]
        let hasLimit: Bool
        let hasOffset: Bool

        /// The shape of a query that reads full rows (``StoreQuery/readsFullRow``).
        init?(fullRowQuery query: StoreQuery) {
            guard query.primaryKeys == nil, query.filter == nil || query.template != nil else { return nil }
            entity = ObjectIdentifier(query.entity)
            template = query.template
            sort = query.sort
            hasLimit = query.limit != nil || query.offset != nil
            hasOffset = (query.offset ?? 0) > 0
        }

        static func == (lhs: SelectShape, rhs: SelectShape) -> Bool {
            lhs.entity == rhs.entity && lhs.template === rhs.template && lhs.hasLimit == rhs.hasLimit
                && lhs.hasOffset == rhs.hasOffset && lhs.sort == rhs.sort
        }

        /// The template and the rest packed into one word: this runs on every fetch.
        func hash(into hasher: inout Hasher) {
            hasher.combine(template.map(ObjectIdentifier.init) ?? entity)
            hasher.combine(sort.count << 2 | (hasLimit ? 2 : 0) | (hasOffset ? 1 : 0))
        }
    }

    /// Opens (creating if needed) the store for `schema`.
    ///
    /// - Throws: ``StowageError`` `.storeOpenFailed` when the file cannot be created or opened,
    ///   `.storeNotFound` when a configuration that cannot save names a missing or empty file,
    ///   `.notADatabase` when the file is not SQLite, `.schemaMismatch` when its tables differ from the
    ///   models. In each case the file is left as it was (or not created).
    /// A store over a migration's connection (see ``migrationConnection``), for the contexts of a
    /// custom migration stage. It lives only inside the migration's transaction.
    init(schema: Schema, migrating db: Database, queue: DatabaseQueue, identifier: String) {
        self.schema = schema
        self.path = nil
        self.unwritableReason = nil
        self.writer = queue
        self.readers = nil
        self.migrationConnection = db
        self.identifier = identifier
        self.turn = nil
        self.busyTimeout = 0
        // A migration's own writes are not history: clients' tokens describe the data they saw.
        self.recordsHistory = false
    }

    /// - Parameter partial: whether the store holds part of the container's models (one configuration
    ///   of several), which a migration plan's versions are then matched against.
    init(
        schema: Schema, url: URL?, allowsSave: Bool, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, partial: Bool = false,
        busyTimeout: TimeInterval = 5, recordsHistory: Bool = true
    ) throws {
        self.schema = schema
        self.migrationConnection = nil
        self.busyTimeout = busyTimeout
        self.recordsHistory = recordsHistory
        let trace = SQLDebug.isTracing ? SQLiteTrace() : nil
        var configuration = Self.configuration(trace: trace, busyTimeout: busyTimeout)
        if let url {
            let path = url.path
            self.path = path
            let exists = try Self.prepareFile(at: path, create: allowsSave)
            let unwritable = exists ? Self.unwritable(path) : nil
            unwritableReason = allowsSave ? unwritable?.reason : nil
            let allowsSave = allowsSave && unwritableReason == nil
            // A WAL store in a directory this process cannot write, with no -wal file beside it, is read
            // as an immutable file: SQLite cannot create the -wal and -shm files a reader needs, and no
            // one writes to a WAL store without creating them (see ModelConfiguration.allowsSave).
            let openPath = unwritable?.inDirectory == true ? Self.readingPath(path) : path
            guard exists || allowsSave else {
                throw StowageError(
                    .storeNotFound,
                    "The file \(path) is empty, and its configuration has allowsSave: false, so Stowage does not create a store in it. Open it once with a configuration that allows saving.")
            }
            if exists {
                // A store that can save is brought to the models' layout first (nothing happens when it
                // already has it); one that cannot is only checked.
                if allowsSave {
                    do {
                        try SQLiteMigrator.migrateIfNeeded(path: path, to: schema, plan: migrationPlan, partial: partial, busyTimeout: busyTimeout)
                    } catch let error as DatabaseError {
                        throw Self.openError(error, path: path)
                    }
                    // Other errors are Stowage's own or thrown by a migration stage's code: as they are.
                }
                try Self.checkExistingStore(schema, at: path, busyTimeout: busyTimeout)
            }
            // A store that cannot save is opened read-only, so that opening it writes nothing either
            // (GRDB's WAL set-up commits a transaction).
            configuration.readonly = !allowsSave
            turn = allowsSave && openPath == path ? SQLiteWriteTurn(storePath: path) : nil
            do {
                if openPath != path {
                    writer = try DatabaseQueue(path: openPath, configuration: configuration)
                } else {
                    let pool = try DatabasePool(path: path, configuration: configuration)
                    if !configuration.readonly {
                        // GRDB's WAL set-up runs after `prepareDatabase` and lowers the writer to NORMAL.
                        try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
                    }
                    writer = pool
                }
                readers = SQLiteReaderPool(path: openPath, trace: trace, busyTimeout: busyTimeout)
            } catch {
                throw Self.openError(error, path: path)
            }
        } else {
            self.path = nil
            unwritableReason = nil
            turn = nil
            writer = try DatabaseQueue(configuration: configuration)
            readers = nil
        }
        do {
            identifier = try SQLiteSchema.prepare(schema, in: writer, path: path, allowsCreation: (allowsSave && unwritableReason == nil) || url == nil)
        } catch let error as StowageError {
            throw error
        } catch {
            throw Self.openError(error, path: path ?? ":memory:")
        }
        trace?.storeIdentifier.withLock { $0 = identifier }
        SQLDebug.storeOpened(path ?? "in memory (\(identifier))")
    }

    deinit {
        // The read connections close before the writer, so that the writer's connection is the file's last
        // and checkpoints the WAL into it (a read-only connection closing last cannot): a closed store is
        // one file, with no -wal or -shm left behind (nor the turn's -lock).
        readers?.close()
        turn?.close()
    }

    /// The writer's configuration. A busy store is waited for up to `busyTimeout` (``SQLiteBusyWait``
    /// sleeps and retries), at open (setting WAL mode), at `BEGIN IMMEDIATE` and at commit.
    static func configuration(trace: SQLiteTrace?, busyTimeout: TimeInterval) -> Configuration {
        var configuration = Configuration()
        configuration.label = "Stowage"
        configuration.busyMode = SQLiteBusyWait.mode(timeout: busyTimeout)
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            // WAL with synchronous=FULL: a transaction is durable when the commit returns (GRDB's
            // default, NORMAL, can lose the last commits on power loss). `init` sets it again on the
            // writer of a file store, after GRDB's WAL set-up.
            try db.execute(sql: "PRAGMA synchronous = FULL")
            guard let connection = db.sqliteConnection else { return }
            SQLiteFunctions.register(on: connection)
            trace?.install(on: connection)
        }
        return configuration
    }

    /// Creates the file with owner-only permissions (SQLite gives the `-wal` and `-shm` files the same
    /// permissions), or checks that an existing file is an SQLite database before SQLite touches it.
    /// - Parameter create: `false` for a read-only configuration, which never creates a file or a
    ///   directory: a missing or empty file is refused with `.storeNotFound`.
    /// - Returns: whether the file existed with some content.
    private static func prepareFile(at path: String, create: Bool) throws -> Bool {
        let fileManager = FileManager.default
        guard create || fileManager.fileExists(atPath: path) else {
            throw StowageError(
                .storeNotFound,
                "There is no store at \(path), and its configuration has allowsSave: false, so Stowage does not create one. Check the URL, or open it once with a configuration that allows saving.")
        }
        let directory = (path as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        if !directory.isEmpty && fileManager.fileExists(atPath: directory, isDirectory: &isDirectory) && !isDirectory.boolValue {
            throw StowageError(
                .storeOpenFailed,
                "Cannot create the store file \(path): \(directory) is a file, not a directory. Choose a writable location with ModelConfiguration(url:).")
        }
        if !directory.isEmpty && !fileManager.fileExists(atPath: directory) {
            do {
                try fileManager.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw StowageError(
                    .storeOpenFailed,
                    "Cannot create the directory \(directory) for the store: \(error.localizedDescription). Choose a writable location with ModelConfiguration(url:).",
                    underlying: error)
            }
        }
        if fileManager.fileExists(atPath: path) {
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw StowageError(
                    .storeOpenFailed,
                    "Cannot read the store file \(path): check its permissions.")
            }
            defer { try? handle.close() }
            let header = (try? handle.read(upToCount: 16)) ?? Data()
            if !header.isEmpty && header != Data("SQLite format 3\0".utf8) {
                throw StowageError(
                    .notADatabase,
                    "The file \(path) exists but is not an SQLite database. Move it away or choose another URL; Stowage did not modify it.")
            }
            return !header.isEmpty
        }
        guard fileManager.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw StowageError(
                .storeOpenFailed,
                "Cannot create the store file \(path): the directory \(directory) is not writable. Choose a writable location with ModelConfiguration(url:).")
        }
        return false
    }

    /// Why this process cannot write the existing store at `path`, or `nil` when it can: the file is
    /// not writable, or its directory is not and the `-wal` and `-shm` files SQLite needs to write are
    /// not there, writable, already.
    /// - Returns: `nil` when this process can write the store; else why not, and whether it is the
    ///   directory that cannot be written.
    private static func unwritable(_ path: String) -> (reason: String, inDirectory: Bool)? {
        if access(path, W_OK) != 0 {
            return ("the store file \(path) cannot be written by this process (\(String(cString: strerror(errno))))", false)
        }
        let directory = (path as NSString).deletingLastPathComponent
        if access(directory.isEmpty ? "." : directory, W_OK) != 0 && (access(path + "-wal", W_OK) != 0 || access(path + "-shm", W_OK) != 0) {
            return ("the directory \(directory) cannot be written by this process (\(String(cString: strerror(errno)))), and SQLite writes the store's -wal and -shm files there", true)
        }
        return nil
    }

    /// What a read-only connection opens to read the store at `path` without creating a file: when no
    /// `-wal` is beside it (no connection has it open, nothing waits to be checkpointed), an SQLite URI
    /// that opens it as immutable, which SQLite reads without the `-wal` and `-shm` files a read-only
    /// connection to a WAL file otherwise creates and cannot remove; else `path`.
    /// - Parameter acceptsURI: whether the connection reads a `file:` URI (`SQLITE_OPEN_URI`, or an
    ///   SQLite built with `SQLITE_USE_URI`, as GRDB's connections need).
    static func readingPath(_ path: String, acceptsURI: Bool = sqlite3_compileoption_used("USE_URI") != 0) -> String {
        guard acceptsURI, !FileManager.default.fileExists(atPath: path + "-wal") else { return path }
        var components = URLComponents()
        components.scheme = "file"
        components.path = path
        components.queryItems = [URLQueryItem(name: "immutable", value: "1")]
        return components.string ?? path
    }

    /// Checks the tables of an existing store file against the schema through a plain connection that
    /// only reads, before the WAL pool opens it: opening the pool switches a rollback-journal file to WAL,
    /// which would modify a file that is about to be refused.
    private static func checkExistingStore(_ schema: Schema, at path: String, busyTimeout: TimeInterval) throws {
        do {
            var configuration = Configuration()
            configuration.label = "Stowage schema check"
            configuration.busyMode = SQLiteBusyWait.mode(timeout: busyTimeout)
            // Read-only: a connection that can write checkpoints a -wal beside the file into it when it
            // closes, which would change a file about to be refused (or one that must not be written).
            configuration.readonly = true
            let queue = try DatabaseQueue(path: readingPath(path), configuration: configuration)
            if try SQLiteSchema.existingIdentifier(schema, in: queue, path: path) == nil {
                // A database with no tables becomes a store, and opening it for writing switches it to
                // WAL. SQLite reads such a file without looking at its free pages, so a damaged one
                // would be changed before the damage showed: its pages are checked first (cheap, as it
                // holds no rows).
                let problems = try queue.read { try String.fetchAll($0, sql: "PRAGMA quick_check") }
                if problems != ["ok"] {
                    throw StowageError(
                        .notADatabase,
                        "The file \(path) is a damaged SQLite database (\(problems.prefix(3).joined(separator: "; "))). Move it away or choose another URL; Stowage did not modify it.")
                }
            }
            try queue.close()
        } catch {
            throw openError(error, path: path)
        }
    }

    static func openError(_ error: any Error, path: String) -> StowageError {
        if let error = error as? StowageError { return error }
        if let error = error as? DatabaseError {
            let reason = error.message ?? "\(error)"
            if error.resultCode == .SQLITE_BUSY {
                return StowageError(
                    .storeBusy,
                    "Cannot open the store at \(path): another connection or process kept it locked for more than the configuration's busyTimeout. Nothing was changed; try again.",
                    sql: error.sql, sqliteCode: error.extendedResultCode.rawValue, underlying: error)
            }
            if error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_CORRUPT {
                return StowageError(
                    .notADatabase,
                    "The file \(path) is not a valid SQLite database (\(reason)). Move it away or choose another URL; Stowage did not modify it.",
                    sql: error.sql, sqliteCode: error.extendedResultCode.rawValue, underlying: error)
            }
            return StowageError.sqlite(
                error.extendedResultCode.rawValue, .storeOpenFailed, "Cannot open the store at \(path)",
                message: reason, sql: error.sql, underlying: error)
        }
        return StowageError(.storeOpenFailed, "Cannot open the store at \(path): \(error)", underlying: error)
    }

    // MARK: - Reading

    /// Closes the idle read connections (see ``ModelStore/releaseMemory()``).
    func releaseIdleReaders() { readers?.close() }

    func fetch(_ query: StoreQuery, _ body: (StoreRow) throws -> Void) throws {
        try read(selectSQL(query)) { statement in
            let row = StoreRow(statement: statement)
            while try SQLiteStatement.step(statement) { try body(row) }
        }
    }

    /// The SELECT of a query. Full-row queries use each entity's column list and primary-key lookup
    /// prefix, rendered once per store: a lookup by identifier would otherwise spend more time building
    /// its SELECT than SQLite spends running it.
    private func selectSQL(_ query: StoreQuery) -> SQLFragment {
        guard query.readsFullRow else { return SQLiteSQL.select(query) }
        if SQLiteSQL.isPrimaryKeyLookup(query), let keys = query.primaryKeys {
            let cached = fullRowSQL(query)
            guard keys.count == 1 else { return SQLiteSQL.selectByPrimaryKeys(prefix: cached.primaryKeyLookupPrefix, keys) }
            var lookup = cached.singleKeyLookup
            lookup.arguments = [.integer(keys[0])]
            return lookup
        }
        guard let shape = SelectShape(fullRowQuery: query) else { return SQLiteSQL.select(query, columns: fullRowSQL(query).columns) }
        if let select = selectCache.withLock({ $0[shape] }) {
            let rebound = select.rebinding(SQLiteSQL.parameterValues(of: query))
            assert(rebound == SQLiteSQL.select(query, columns: fullRowSQL(query).columns), "Stowage internal error: a cached SELECT differs from the query's own")
            return rebound
        }
        var select = SQLiteSQL.select(query, columns: fullRowSQL(query).columns)
        select.hashText()
        selectCache.withLock {
            if $0.count >= Self.selectCacheCapacity { $0.removeAll(keepingCapacity: true) }
            $0[shape] = select
        }
        return select
    }

    /// The entity's full-row SQL pieces, made on first use.
    private func fullRowSQL(_ query: StoreQuery) -> FullRowSQL {
        let key = ObjectIdentifier(query.entity)
        if let cached = fullRowSQLCache.withLock({ $0[key] }) { return cached }
        let columns = SQLiteSQL.columnList(query)
        let prefix = SQLiteSQL.primaryKeyLookupPrefix(query, columns: columns)
        var lookup = SQLFragment(SQLiteSQL.selectByPrimaryKeys(prefix: prefix, [0]).sql)
        lookup.hashText()
        let sql = FullRowSQL(columns: columns, primaryKeyLookupPrefix: prefix, singleKeyLookup: lookup)
        fullRowSQLCache.withLock { $0[key] = sql }
        return sql
    }

    func count(_ query: StoreQuery) throws -> Int {
        try read(SQLiteSQL.count(query)) { statement in
            try SQLiteStatement.step(statement) ? Int(sqlite3_column_int64(statement, 0)) : 0
        }
    }

    func primaryKeys(_ query: StoreQuery) throws -> [Int64] {
        try read(SQLiteSQL.selectPrimaryKeys(query)) { statement in
            var keys: [Int64] = []
            while try SQLiteStatement.step(statement) { keys.append(sqlite3_column_int64(statement, 0)) }
            return keys
        }
    }

    func externalValue(_ attribute: Schema.Attribute, of entity: Schema.Entity, primaryKey: Int64) throws -> StorageValue {
        var fragment = SQLFragment("SELECT \(SQLiteSQL.quote("value")) FROM ")
        fragment.append(identifier: SQLiteSchema.externalTableName(entity, attribute))
        fragment.append(" WHERE \(SQLiteSQL.quote(SQLiteSQL.primaryKeyColumn)) = ")
        fragment.bind(.integer(primaryKey))
        return try read(fragment) { statement in
            try SQLiteStatement.step(statement) ? SQLiteStatement.column(0, of: statement) : .null
        }
    }

    func read<Result>(_ fragment: SQLFragment, _ body: (OpaquePointer) throws -> Result) throws -> Result {
        do {
            // One statement is atomic in SQLite: no transaction around it (GRDB's `read` would add
            // BEGIN / PRAGMA schema_version / COMMIT to every fetch).
            if let db = migrationConnection {
                return try SQLiteStatement.run(try db.cachedStatement(sql: fragment.sql).sqliteStatement, fragment.arguments, body)
            }
            if let readers {
                return try readers.withReader { reader in
                    try SQLiteStatement.run(try reader.statement(fragment.statementKey), fragment.arguments, body)
                }
            }
            return try writer.unsafeRead { db in
                try SQLiteStatement.run(try db.cachedStatement(sql: fragment.sql).sqliteStatement, fragment.arguments, body)
            }
        } catch let error as StowageError {
            throw error
        } catch let error as DatabaseError {
            throw StowageError.sqlite(
                error.extendedResultCode.rawValue, .fetchFailed, "The fetch failed", message: error.message ?? "\(error)",
                sql: fragment.sql, underlying: error)
        }
    }

    // MARK: - Writing

    func identifier(for entity: Schema.Entity) -> String { identifier }

    var sqliteStores: [SQLiteStore] { [self] }

    func apply(_ changes: ChangeSet) throws -> SaveResult {
        try apply(changes, before: {})
    }

    /// Applies a change set, then runs `beforeCommit` inside the same transaction: when it throws,
    /// nothing is written (a container with several stores writes the next store's changes there).
    func apply(_ changes: ChangeSet, before beforeCommit: () throws -> Void) throws -> SaveResult {
        do {
            if let db = migrationConnection {
                var result = SaveResult(insertedKeys: [])
                try db.inSavepoint {
                    result = try write(changes, db)
                    try beforeCommit()
                    return .commit
                }
                return result
            }
            let result = try writeTransaction { db in
                let result = try write(changes, db)
                try beforeCommit()
                return result
            }
            historyTablesExist.store(true, ordering: .releasing)
            return result
        } catch let error as StowageError {
            throw Self.saveError(error)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
            throw StowageError(
                .storeBusy,
                "The save waited \(busyTimeout) s for another connection or process to finish writing to the store, and gave up; nothing was written and the context keeps its changes. Save again, or raise ModelConfiguration.busyTimeout.",
                sql: error.sql, sqliteCode: error.extendedResultCode.rawValue, underlying: error)
        } catch let error as DatabaseError {
            throw StowageError.sqlite(
                error.extendedResultCode.rawValue, .saveFailed, Self.saveFailure(error.extendedResultCode.rawValue),
                message: error.message ?? "\(error)", sql: error.sql, underlying: error)
        }
    }

    /// The error a save reports for an error thrown while writing its change set: a statement that failed
    /// (``SQLiteStatement/error(of:)``) gets SQLite's message with what it means for the data, and a
    /// constraint violation, failure or conflict says that nothing was written.
    static func saveError(_ error: StowageError) -> StowageError {
        var error = error
        if let sqliteCode = error.sqliteCode, error.code != .constraintViolation {
            // A statement that failed (`SQLiteStatement.error(of:)`): SQLite's message, with what it means.
            let entityName = error.entityName
            error = StowageError.sqlite(
                sqliteCode, error.code == .fetchFailed ? .saveFailed : error.code,
                Self.saveFailure(sqliteCode), message: error.message, sql: error.sql,
                underlying: error.underlying)
            error.entityName = entityName
        } else if error.code == .saveFailed || error.code == .constraintViolation || error.code == .saveConflict {
            error = StowageError(
                error.code, "The save failed and nothing was written: \(error.message)",
                entityName: error.entityName, sql: error.sql, sqliteCode: error.sqliteCode, underlying: error.underlying)
        }
        return error
    }

    /// What a save that failed with SQLite's extended result code `extended` means for the data.
    ///
    /// A failed save wrote nothing, with one exception SQLite cannot avoid: when the disk fails to
    /// flush (`fsync`) the write-ahead log after the commit record was written to it, the transaction may
    /// be found there, complete, when the store is next opened. Whether it was is unknown to everyone.
    static func saveFailure(_ extended: Int32) -> String {
        switch extended {
        case SQLITE_IOERR | (4 << 8), SQLITE_IOERR | (5 << 8):  // SQLITE_IOERR_FSYNC, SQLITE_IOERR_DIR_FSYNC
            "The save may or may not be stored: the disk failed to confirm the write (fsync), so the change can appear when the store is next opened. Reopen the store and check before saving it again"
        default:
            "The save failed and nothing was written"
        }
    }

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE`), after taking this store's turn among the
    /// processes writing to its file; the turn and SQLite's write lock are waited for up to
    /// `busyTimeout` in all.
    /// - Throws: `DatabaseError` `SQLITE_BUSY` when the wait ran out (nothing was written), or what
    ///   `body` and the commit throw.
    func writeTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        try writer.writeWithoutTransaction { db in
            let start = SQLiteBusyWait.now()
            let outerWait = SQLiteBusyWait.beginWait(at: start)
            defer { SQLiteBusyWait.endWait(restoring: outerWait) }
            if let turn {
                guard turn.acquire(deadline: start + SQLiteBusyWait.nanoseconds(busyTimeout)) else {
                    throw DatabaseError(
                        resultCode: .SQLITE_BUSY,
                        message: "other processes kept their turns at writing to the store for more than busyTimeout")
                }
            }
            defer { turn?.release() }
            var result: T?
            try db.inTransaction(.immediate) {
                result = try body(db)
                return .commit
            }
            guard let result else { preconditionFailure("Stowage internal error: a committed transaction without a result") }
            return result
        }
    }

    func eraseAll(_ erased: inout [String]) throws {
        do {
            try writeTransaction { db in
                // Links between the emptied tables are checked at the commit, when none is left.
                try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
                let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> ?", arguments: [SQLiteSQL.metadataTable])
                for table in tables { try db.execute(sql: "DELETE FROM \(SQLiteSQL.quote(table))") }
                // The history went with the data, and the erase is not a transaction of it: every token
                // given out so far expires, through a transaction number taken and deleted at once.
                if tables.contains(SQLiteHistory.transactionTable) {
                    let erasure = try recordHistory(ChangeSet(), insertedKeys: [], preserved: [], db)
                    try Self.deleteHistory([erasure], newest: erasure, db)
                    ownErasure.store(erasure, ordering: .releasing)
                }
            }
        } catch let error as DatabaseError {
            throw StowageError.sqlite(
                error.extendedResultCode.rawValue, .saveFailed,
                "Deleting the data of the store at \(path ?? "in memory") failed and nothing was deleted",
                message: error.message ?? "\(error)", sql: error.sql, underlying: error)
        }
        erased += schema.entities.map(\.name)
    }

    /// Writes a change set on `db`, inside the transaction (or savepoint) the caller opened.
    private func write(_ changes: ChangeSet, _ db: Database) throws -> SaveResult {
        let preserved = try preservedValues(changes, db)
        for delete in changes.deletes {
            try attributing(to: delete.entity) {
                try execute(db, deleteSQL(delete.entity), [.integer(delete.primaryKey)])
            }
        }
        var updateStatements = UpdateStatements()
        let updates = changes.updates
        var position = updates.startIndex
        while position < updates.endIndex {
            let run = UpdateStatements.run(in: updates, at: position)
            if run.batched {
                try attributing(to: updates[position].entity) {
                    try applyUpdates(updates[position ..< (position + run.count)], statements: &updateStatements, db)
                }
            } else {
                for single in updates[position ..< (position + run.count)] {
                    try attributing(to: single.entity) { try applyUpdate(single, statements: &updateStatements, db) }
                }
            }
            position += run.count
        }
        var keys: [Int64] = []
        keys.reserveCapacity(changes.inserts.count)
        // Each entity's INSERT statements (one row, a batch of rows) and batch size, looked up once per
        // save rather than once per row.
        var singleStatements: [ObjectIdentifier: OpaquePointer] = [:]
        var batchStatements: [ObjectIdentifier: OpaquePointer] = [:]
        var batchRows: [ObjectIdentifier: Int] = [:]
        func statement(_ cache: inout [ObjectIdentifier: OpaquePointer], _ entity: Schema.Entity, sql: () -> String) throws -> OpaquePointer {
            if let cached = cache[ObjectIdentifier(entity)] { return cached }
            let statement = try db.cachedStatement(sql: sql()).sqliteStatement
            cache[ObjectIdentifier(entity)] = statement
            return statement
        }
        let inserts = changes.inserts
        var next = inserts.startIndex
        while next < inserts.endIndex {
            let entity = inserts[next].entity
            let batch: Int
            if let known = batchRows[ObjectIdentifier(entity)] {
                batch = known
            } else {
                batch = Self.insertBatchRows(entity)
                batchRows[ObjectIdentifier(entity)] = batch
            }
            var count = 1
            while count < batch, next + count < inserts.endIndex, inserts[next + count].entity === entity { count += 1 }
            if batch > 1 && count == batch {
                let statement = try statement(&batchStatements, entity) { insertSQL(entity, rows: batch) }
                let first = try attributing(to: entity) { try applyInserts(inserts[next ..< next + count], statement, db) }
                for offset in 0 ..< Int64(count) { keys.append(first + offset) }
            } else {
                let statement = try statement(&singleStatements, entity) { insertSQL(entity) }
                for insert in inserts[next ..< next + count] {
                    keys.append(try attributing(to: entity) { try applyInsert(insert, statement, db) })
                }
            }
            next += count
        }
        if !changes.relationshipWrites.isEmpty {
            var insertedKeys: [ObjectIdentifier: Int64] = [:]
            for (insert, key) in zip(changes.inserts, keys) { insertedKeys[ObjectIdentifier(insert.model)] = key }
            try writeLinks(changes, insertedKeys: insertedKeys, db)
        }
        // Without history, the save still leaves a transaction row saying only that it happened (and who
        // saved it), so that other processes know something changed.
        let transaction = try recordHistory(changes, insertedKeys: keys, preserved: preserved, db)
        return SaveResult(insertedKeys: keys, historyTransactions: recordsHistory ? [identifier: transaction] : [:])
    }

    /// How many rows of an entity one INSERT writes: up to 64, within 999 parameters (SQLite's smallest
    /// limit), when plain inserts of its rows can share a statement; 1 for an upsert (a uniqueness
    /// constraint: each row's RETURNING says which row it wrote), a row with external storage (written
    /// through statements of its own) and a table without columns.
    ///
    /// Each statement costs SQLite a start and a halt, and with AUTOINCREMENT a read and a write of the
    /// table's `sqlite_sequence` row: about a third of a one-row insert's instructions (W1, callgrind),
    /// which a batch pays once for all its rows.
    static func insertBatchRows(_ entity: Schema.Entity) -> Int {
        let columns = entity.columnAttributes.count
        guard columns > 0, entity.externalAttributes.isEmpty, upsertConstraints(entity).isEmpty else { return 1 }
        return min(64, 999 / columns)
    }

    /// The uniqueness constraints on the entity's own columns, each of which makes its INSERT an upsert.
    private static func upsertConstraints(_ entity: Schema.Entity) -> [[String]] {
        entity.uniquenessConstraints.filter { names in
            names.allSatisfy { name in entity.columnAttributes.contains { $0.name == name } }
        }
    }

    /// Inserts the rows of `inserts` (all of one entity, as many as the statement has rows) with one
    /// statement, returning the first row's primary key: the others follow it one by one, as
    /// AUTOINCREMENT numbers the rows of one statement (each one more than the largest the table has
    /// had, in order) in a transaction no one else writes in.
    private func applyInserts(_ inserts: ArraySlice<ChangeSet.Insert>, _ statement: OpaquePointer, _ db: Database) throws -> Int64 {
        sqlite3_reset(statement)
        defer { sqlite3_reset(statement) }
        var firstParameter: Int32 = 1
        for insert in inserts {
            try bindColumns(of: insert, firstParameter: firstParameter, statement)
            firstParameter += Int32(insert.entity.columnAttributes.count)
        }
        _ = try SQLiteStatement.step(statement)
        let connection = db.sqliteConnection
        guard Int(sqlite3_changes(connection)) == inserts.count else {
            throw StowageError(.saveFailed, "Stowage internal error: a batch of \(inserts.count) inserts wrote \(sqlite3_changes(connection)) rows")
        }
        return sqlite3_last_insert_rowid(connection) - Int64(inserts.count - 1)
    }

    /// Binds the column attributes of an inserted model, in the entity's column order, from
    /// `firstParameter` on: through the `_$store(_:from:)` `@Model` generates (see ``ModelRowWriter``).
    private func bindColumns(of insert: ChangeSet.Insert, firstParameter: Int32, _ statement: OpaquePointer) throws {
        let entity = insert.entity
        try entity.fullRowColumns.withUnsafeBufferPointer { columns in
            var writer = ModelRowWriter(
                statement: statement, columns: columns.baseAddress!, firstParameter: firstParameter, entity: entity, model: insert.model)
            try entity.modelType._$store(&writer, from: insert.model)
        }
    }

    private func applyInsert(_ insert: ChangeSet.Insert, _ statement: OpaquePointer, _ db: Database) throws -> Int64 {
        let entity = insert.entity
        sqlite3_reset(statement)
        defer { sqlite3_reset(statement) }
        try bindColumns(of: insert, firstParameter: 1, statement)
        let key: Int64
        if try SQLiteStatement.step(statement) {
            key = sqlite3_column_int64(statement, 0)
        } else if entity.isInHierarchy, !Self.upsertConstraints(entity).isEmpty {
            // The upsert met a row of another class of the hierarchy, which it does not change.
            throw Self.upsertMetAnotherClass(entity: entity.name, table: entity.tableName)
        } else {
            key = sqlite3_last_insert_rowid(db.sqliteConnection)
        }
        for attribute in entity.externalAttributes {
            try writeExternal(attribute, of: entity, primaryKey: key, value: attribute.storableValue(of: insert.model), db)
        }
        return key
    }

    /// The error of an insert whose unique values are those of a stored row of another class of its
    /// class hierarchy's `table`: an upsert does not change a row's class.
    static func upsertMetAnotherClass(entity: String, table: String) -> StowageError {
        StowageError(
            .constraintViolation,
            "A new \(entity) has the unique values of a stored model of another class of \(table)'s hierarchy; an insert cannot change a stored model's class. Delete the stored model first (in an earlier save), or change the values. Nothing was written.",
            entityName: entity)
    }

    /// The entity and changed columns of an UPDATE: saves that change the same columns of many rows
    /// prepare its statement once.
    private struct UpdateShape: Hashable {
        let entity: ObjectIdentifier
        let columns: [Int]
    }

    /// Prepared statements of one kind by shape, and the last one used: consecutive updates of the same
    /// columns (the common case: one loop changing the same properties) skip even the dictionary.
    private struct ShapedStatements {
        var byShape: [UpdateShape: OpaquePointer] = [:]
        // The last one used, in three fields: comparing them in place copies and retains nothing.
        var lastEntity: Schema.Entity?
        var lastColumns: [Schema.Attribute] = []
        var lastStatement: OpaquePointer?

        /// The statement that writes `columns` of `entity`, prepared from `sql()` the first time.
        @inline(__always)
        mutating func statement(_ entity: Schema.Entity, _ columns: [Schema.Attribute], _ db: Database,
                                sql: () -> String) throws -> OpaquePointer {
            if let lastStatement, lastEntity === entity, lastColumns.elementsEqual(columns, by: ===) { return lastStatement }
            let shape = UpdateShape(entity: ObjectIdentifier(entity), columns: columns.map(\.index))
            let statement: OpaquePointer
            if let cached = byShape[shape] {
                statement = cached
            } else {
                // GRDB's statement cache keeps it prepared for the connection's lifetime.
                statement = try db.cachedStatement(sql: sql()).sqliteStatement
                byShape[shape] = statement
            }
            (lastEntity, lastColumns, lastStatement) = (entity, columns, statement)
            return statement
        }
    }

    /// The UPDATE statements of one save: one row at a time, and ``batchRows(_:)`` rows at once.
    private struct UpdateStatements {
        var single = ShapedStatements()
        var batch = ShapedStatements()

        /// How many rows changed in the same columns one statement updates: up to 64, within 999
        /// parameters (SQLite's smallest limit; 32,766 by default since 3.32). One statement per row
        /// costs SQLite a statement start and halt each, about 40 % of a one-column row update
        /// (instructions of `sqlite3_step`, measured in C). 1 when the update writes external storage,
        /// which goes through statements of its own.
        static func batchRows(_ update: ChangeSet.Update) -> Int {
            guard !update.attributes.contains(where: \.isExternalStorage) else { return 1 }
            return min(64, 999 / (update.attributes.count + 1))
        }

        /// The updates from `start` that one statement writes (`batched`: ``batchRows(_:)`` of them, see
        /// ``applyUpdates(_:statements:_:)``), or those to write one statement each, none of which starts a
        /// batch. A batch is a run of updates of the same columns (``ChangeSet/Update/hasShape(of:)``) of
        /// consecutive rows (each primary key one more than the last), as a loop over every row of a
        /// table in key order leaves them. SQLite runs the batch as a join (`EXPLAIN`): it copies the
        /// VALUES list and then the joined rows into two temporary b-trees and seeks each row twice, once
        /// to join and once to write. A seek to the row after the cursor's is a step, not a descent of the
        /// b-tree, so over consecutive rows the batch costs less than a statement per row (W7, callgrind:
        /// 0.56 k fewer instructions per row; 9 % less wall time); over rows apart it costs more (W5,
        /// every tenth row of 100,000: 1.35 k more instructions per row, two thirds of them in
        /// seeks; 10 % more wall time), so those keep one statement each.
        static func run(in updates: [ChangeSet.Update], at start: Int) -> (count: Int, batched: Bool) {
            func continues(_ index: Int) -> Bool {
                updates[index].primaryKey == updates[index - 1].primaryKey &+ 1 && updates[index].hasShape(of: updates[start])
            }
            guard start + 1 < updates.endIndex, continues(start + 1) else { return (1, false) }
            let size = batchRows(updates[start])
            guard size > 1, start + size <= updates.endIndex else { return (1, false) }
            for index in start + 2 ..< start + size where !continues(index) {
                // No full batch starts before `index`: the run breaks there.
                return (index - start, false)
            }
            return (size, true)
        }
    }

    /// Updates a run of consecutive rows changed in the same columns (``UpdateStatements/run(in:at:)``),
    /// with one statement: `UPDATE … FROM (VALUES (pk, value, …), …)`.
    /// A row that is gone (deleted by another context or process) makes the save fail with
    /// `.saveConflict`, as a one-row UPDATE that changed nothing does.
    private func applyUpdates(_ updates: ArraySlice<ChangeSet.Update>, statements: inout UpdateStatements, _ db: Database) throws {
        let first = updates[updates.startIndex]
        let columns = first.attributes
        let statement = try statements.batch.statement(first.entity, columns, db) {
            let table = SQLiteSQL.quote(first.entity.tableName)
            let values = "\"_stowage_rows\""
            let row = "(" + Array(repeating: "?", count: columns.count + 1).joined(separator: ", ") + ")"
            var text = "UPDATE \(table) SET "
            text += columns.enumerated().map { "\(SQLiteSQL.quote($1.name)) = \(values).\"column\($0 + 2)\"" }.joined(separator: ", ")
            text += " FROM (VALUES " + Array(repeating: row, count: updates.count).joined(separator: ", ") + ") AS \(values)"
            text += " WHERE \(table).\(SQLiteSQL.quote(SQLiteSQL.primaryKeyColumn)) = \(values).\"column1\""
            return text
        }
        sqlite3_reset(statement)
        defer { sqlite3_reset(statement) }
        var parameter: Int32 = 1
        for update in updates {
            sqlite3_bind_int64(statement, parameter, update.primaryKey)
            parameter += 1
            for attribute in columns {
                SQLiteStatement.bind(try attribute.storableValue(of: update.model), at: parameter, in: statement)
                parameter += 1
            }
        }
        while try SQLiteStatement.step(statement) {}
        guard sqlite3_changes(db.sqliteConnection) < Int32(updates.count) else { return }
        for update in updates { try requireRow(update.entity, update.primaryKey, db) }
    }

    private func applyUpdate(_ update: ChangeSet.Update, statements: inout UpdateStatements, _ db: Database) throws {
        let columns = update.attributes.contains(where: \.isExternalStorage)
            ? update.attributes.filter { !$0.isExternalStorage } : update.attributes
        if !columns.isEmpty {
            let statement = try statements.single.statement(update.entity, columns, db) {
                "UPDATE \(SQLiteSQL.quote(update.entity.tableName)) SET "
                    + columns.map { "\(SQLiteSQL.quote($0.name)) = ?" }.joined(separator: ", ")
                    + " WHERE \(SQLiteSQL.quote(SQLiteSQL.primaryKeyColumn)) = ?"
            }
            sqlite3_reset(statement)
            defer { sqlite3_reset(statement) }
            for (offset, attribute) in columns.enumerated() {
                SQLiteStatement.bind(try attribute.storableValue(of: update.model), at: Int32(offset + 1), in: statement)
            }
            sqlite3_bind_int64(statement, Int32(columns.count + 1), update.primaryKey)
            while try SQLiteStatement.step(statement) {}
            try checkRowExists(update.entity, update.primaryKey, db)
        } else {
            // Only external-storage values changed: no UPDATE tells whether the row is still there.
            try requireRow(update.entity, update.primaryKey, db)
        }
        for attribute in update.attributes where attribute.isExternalStorage {
            try writeExternal(attribute, of: update.entity, primaryKey: update.primaryKey,
                              value: attribute.storableValue(of: update.model), db)
        }
    }

    /// Runs one write of a save, naming its entity in the error it throws.
    private func attributing<Result>(to entity: Schema.Entity, _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch var error as StowageError {
            if error.entityName == nil { error.entityName = entity.name }
            throw error
        }
    }

    private func writeExternal(_ attribute: Schema.Attribute, of entity: Schema.Entity, primaryKey: Int64,
                               value: StorageValue, _ db: Database) throws {
        let table = SQLiteSQL.quote(SQLiteSchema.externalTableName(entity, attribute))
        let pk = SQLiteSQL.quote(SQLiteSQL.primaryKeyColumn)
        try execute(
            db,
            "INSERT INTO \(table) (\(pk), \"value\") VALUES (?, ?) ON CONFLICT(\(pk)) DO UPDATE SET \"value\" = excluded.\"value\"",
            [.integer(primaryKey), value])
    }

    /// Throws `.saveConflict` when the row is gone (deleted by another context or process), asking
    /// SQLite: for writes whose change count does not tell.
    private func requireRow(_ entity: Schema.Entity, _ primaryKey: Int64, _ db: Database) throws {
        let sql = "SELECT 1 FROM \(SQLiteSQL.quote(entity.tableName)) WHERE \(SQLiteSQL.quote(SQLiteSQL.primaryKeyColumn)) = ?"
        guard try Int.fetchOne(db, sql: sql, arguments: [primaryKey]) != nil else { throw Self.saveConflict(entity, primaryKey) }
    }

    /// Throws `.saveConflict` when the UPDATE just run changed no row: another context or process
    /// deleted the row since this context read it. The save then writes nothing.
    func checkRowExists(_ entity: Schema.Entity, _ primaryKey: Int64, _ db: Database) throws {
        guard sqlite3_changes(db.sqliteConnection) == 0 else { return }
        throw Self.saveConflict(entity, primaryKey)
    }

    private static func saveConflict(_ entity: Schema.Entity, _ primaryKey: Int64) -> StowageError {
        StowageError.saveConflict(entity, primaryKey)
    }

    func execute(_ db: Database, _ sql: String, _ arguments: [StorageValue]) throws {
        let statement = try db.cachedStatement(sql: sql).sqliteStatement
        try SQLiteStatement.run(statement, arguments) { statement in
            while try SQLiteStatement.step(statement) {}
        }
    }

    private func deleteSQL(_ entity: Schema.Entity) -> String {
        "DELETE FROM \(SQLiteSQL.quote(entity.tableName)) WHERE \(SQLiteSQL.quote(SQLiteSQL.primaryKeyColumn)) = ?"
    }

    /// The INSERT of `rows` rows of the entity (more than one only for plain inserts, see
    /// ``insertBatchRows(_:)``); made once per save and statement shape (GRDB caches the statement).
    private func insertSQL(_ entity: Schema.Entity, rows: Int) -> String {
        let (columns, values) = Self.insertColumns(entity)
        let row = "(\(values.joined(separator: ", ")))"
        return "INSERT INTO \(SQLiteSQL.quote(entity.tableName)) (\(columns.joined(separator: ", "))) VALUES "
            + Array(repeating: row, count: rows).joined(separator: ", ")
    }

    /// The columns an INSERT of the entity writes and their values: a parameter per column attribute,
    /// and, in a class hierarchy's table, the entity's name in `_entity`.
    private static func insertColumns(_ entity: Schema.Entity) -> (columns: [String], values: [String]) {
        var columns = entity.columnAttributes.map { SQLiteSQL.quote($0.name) }
        var values = Array(repeating: "?", count: columns.count)
        if entity.isInHierarchy {
            columns.append(SQLiteSQL.quote(Schema.Entity.entityColumn))
            values.append(SQLiteSQL.literal(entity.name))
        }
        return (columns, values)
    }

    /// `INSERT INTO … VALUES (…)`, with one `ON CONFLICT … DO UPDATE` clause per uniqueness constraint
    /// (SwiftData's upsert) and `RETURNING "_pk"` so an upsert reports the row it updated.
    private func insertSQL(_ entity: Schema.Entity) -> String {
        let key = ObjectIdentifier(entity)
        if let cached = sqlCache.withLock({ $0[key] }) { return cached }
        let (columns, values) = Self.insertColumns(entity)
        var sql = "INSERT INTO \(SQLiteSQL.quote(entity.tableName)) "
        sql += columns.isEmpty ? "DEFAULT VALUES" : "(\(columns.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))"
        let constraints = Self.upsertConstraints(entity)
        if !constraints.isEmpty {
            // In a class hierarchy's table an upsert keeps the row's class: it only updates a row of the
            // inserted model's class, and returns no row otherwise (see `applyInsert`).
            let entityColumn = SQLiteSQL.quote(Schema.Entity.entityColumn)
            let assignments = columns.filter { $0 != entityColumn }.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
            let sameClass = entity.isInHierarchy ? " WHERE \(entityColumn) = excluded.\(entityColumn)" : ""
            for constraint in constraints {
                sql += " ON CONFLICT(\(SQLiteSchema.keyList(constraint, of: entity))) DO UPDATE SET \(assignments)\(sameClass)"
            }
        }
        if !constraints.isEmpty {
            // Only an upsert needs RETURNING (the row it updated); a plain insert reads
            // sqlite3_last_insert_rowid, which spares SQLite a temporary table per row.
            sql += " RETURNING \(SQLiteSQL.quote(SQLiteSQL.primaryKeyColumn))"
        }
        sqlCache.withLock { $0[key] = sql }
        return sql
    }
}
