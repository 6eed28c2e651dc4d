import Foundation
import GRDBSQLite

/// The read connections of a file store, which Stowage opens and hands out itself.
///
/// Every fetch needs a connection for the duration of one statement. Taking one from GRDB's reader pool
/// (`DatabasePool.unsafeRead`: a semaphore, a read-write lock, a dispatch queue hop and key-path based
/// bookkeeping) costs about 110,000 instructions, several times what SQLite spends finding a row by its
/// primary key. Here a fetch pops an idle connection under a lock and pushes it back when done.
///
/// The connections are read-only, opened in SQLite's multi-thread mode (one thread at a time uses a
/// connection, which the pool guarantees), with Stowage's functions and collations and its SQL tracing.
/// In WAL mode each statement run outside a transaction reads the latest committed state, as GRDB's
/// `unsafeRead` did.
final class SQLiteReaderPool: @unchecked Sendable {
    // @unchecked Sendable: `idle` is behind its lock; a reader taken from it is used by one thread until
    // `withReader` puts it back.

    private let path: String
    private let trace: SQLiteTrace?
    private let busyTimeout: TimeInterval
    private let idle = Locked<[SQLiteReader]>([])
    /// Idle connections kept open; readers beyond this (a burst of concurrent reads) are closed when done.
    private let maximumIdleCount = 8

    init(path: String, trace: SQLiteTrace?, busyTimeout: TimeInterval) {
        self.path = path
        self.trace = trace
        self.busyTimeout = busyTimeout
    }

    /// Runs `body` with a connection no other thread uses meanwhile. Reentrant: a read inside `body` takes
    /// another connection.
    func withReader<Result>(_ body: (SQLiteReader) throws -> Result) throws -> Result {
        let reader = try idle.withLock { $0.popLast() } ?? SQLiteReader(path: path, trace: trace, busyTimeout: busyTimeout)
        defer {
            let kept = idle.withLock { readers in
                guard readers.count < maximumIdleCount else { return false }
                readers.append(reader)
                return true
            }
            if !kept { reader.close() }
        }
        return try body(reader)
    }

    /// Closes the idle connections (the store is going away).
    func close() {
        for reader in idle.withLock({ readers in defer { readers = [] }; return readers }) { reader.close() }
    }

    deinit { close() }
}

/// One read-only SQLite connection with its prepared statements.
final class SQLiteReader {
    private(set) var connection: OpaquePointer?
    /// Kept alive as long as the connection: SQLite holds it unretained.
    private let trace: SQLiteTrace?
    private var statements: [SQLText: OpaquePointer] = [:]
    /// Prepared statements kept per connection; past this, the cache starts over (queries whose SQL
    /// varies, such as `IN` lists of every length, must not grow it without bound).
    private let maximumStatementCount = 256

    init(path: String, trace: SQLiteTrace?, busyTimeout: TimeInterval) throws {
        var connection: OpaquePointer?
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI  // a path that is no `file:` URI is a path
        let result = sqlite3_open_v2(path, &connection, flags, nil)
        guard result == SQLITE_OK, let connection else {
            let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "code \(result)"
            sqlite3_close_v2(connection)
            throw StowageError.sqlite(result, .fetchFailed, "Cannot open a read connection to \(path)", message: message)
        }
        self.connection = connection
        self.trace = trace
        sqlite3_extended_result_codes(connection, 1)
        // A reader waits for a writer that is checkpointing or recovering the WAL.
        SQLiteBusyWait.install(on: connection, timeout: busyTimeout)
        SQLiteFunctions.register(on: connection)
        trace?.install(on: connection)
    }

    /// The prepared statement for `key`'s SQL, reset and with no bindings.
    func statement(_ key: SQLText) throws -> OpaquePointer {
        if let statement = statements[key] { return statement }
        let sql = key.sql
        guard let connection else { preconditionFailure("Stowage internal error: reading through a closed connection") }
        var statement: OpaquePointer?
        let result = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard result == SQLITE_OK, let statement else {
            throw StowageError.sqlite(
                sqlite3_extended_errcode(connection), .fetchFailed, "Preparing a read failed",
                message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
        if statements.count >= maximumStatementCount { finalizeStatements() }
        statements[key] = statement
        return statement
    }

    private func finalizeStatements() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements = [:]
    }

    func close() {
        guard let connection else { return }
        finalizeStatements()
        sqlite3_close_v2(connection)
        self.connection = nil
    }

    deinit { close() }
}

/// Reports every statement a connection runs to ``SQLDebug``, with its duration, tagged with the store
/// identifier (known only once the store is open, hence the lock).
final class SQLiteTrace: Sendable {
    let storeIdentifier = Locked("")

    func install(on connection: OpaquePointer) {
        sqlite3_trace_v2(
            connection, UInt32(SQLITE_TRACE_PROFILE),
            { _, trace, statement, nanoseconds in
                guard let trace, let statement, let nanoseconds else { return 0 }
                let label = Unmanaged<SQLiteTrace>.fromOpaque(trace).takeUnretainedValue().storeIdentifier.withLock { $0 }
                let statementPointer = OpaquePointer(statement)
                let sql = sqlite3_sql(statementPointer).map { String(cString: $0) } ?? ""
                var expanded = sql
                if let pointer = sqlite3_expanded_sql(statementPointer) {
                    expanded = String(cString: pointer)
                    sqlite3_free(pointer)
                }
                let duration = Double(nanoseconds.load(as: Int64.self)) / 1e9
                SQLDebug.record(SQLStatementEvent(sql: sql, expandedSQL: expanded, duration: duration, storeIdentifier: label))
                return 0
            },
            Unmanaged.passUnretained(self).toOpaque())
    }
}
