import Foundation

/// How the PostgreSQL store reaches its server: a pool of connections that run statements
/// synchronously, as ``ModelContext``'s API is. The `StowagePostgres` module provides it over
/// postgres-nio; the store itself (SQL, schema, saves) lives here, beside the SQLite store, and knows
/// nothing of the wire.
package protocol PostgreSQLDriver: AnyObject, Sendable {
    /// Runs `body` with a connection of its own, taken from the pool (waiting for one at most the
    /// configured timeout) and returned after. A connection that failed is replaced.
    func withConnection<Result>(_ body: (any PostgreSQLConnection) throws -> Result) throws -> Result
    /// Calls `handler` with the payload of each notification on `channel`, from a connection kept for
    /// listening, until the returned listener is stopped. After the connection drops and comes back,
    /// `handler` receives `nil`: notifications may have been missed.
    func listen(on channel: String, _ handler: @escaping @Sendable (String?) -> Void) throws -> any PostgreSQLListener
    /// Closes every connection.
    func shutdown()
}

/// A notification listener; stop it to close its connection.
package protocol PostgreSQLListener: AnyObject, Sendable {
    func stop()
}

/// One connection, used by one thread at a time.
package protocol PostgreSQLConnection: AnyObject {
    /// Runs one statement, `?` standing for each argument in order, and calls `body` with each row's
    /// values (in column order). Integers, Booleans (as 0 or 1), reals, text and bytes come back as
    /// their ``StorageValue``; other types must be cast to text by the statement.
    func query(_ sql: String, _ arguments: [StorageValue], _ body: ([StorageValue]) throws -> Void) throws
    /// Runs the last statement of a save, then `COMMIT` when `endingTransaction` (a transaction is
    /// open), then `followUp` in a transaction of its own, back to back: nothing waits for an answer
    /// before the next is sent. Throws the statement's or the commit's error (PostgreSQL then rolls the
    /// transaction back: the save did not happen). By the follow-up, the save is done: it is sent only
    /// after a save that succeeded, and its answer and error are not waited for.
    /// - Returns: the statement's rows.
    func finish(_ sql: String, _ arguments: [StorageValue], endingTransaction: Bool, then followUp: String) throws -> [[StorageValue]]
    /// Sends a statement without waiting for its answer: the statements sent so are answered in order,
    /// and `check` runs with the rows of each when the connection next waits (``flush()``, or any other
    /// statement), which throws the first error of theirs. A transaction's writes go so, one wait for
    /// many statements.
    func send(_ sql: String, _ arguments: [StorageValue], check: @escaping ([[StorageValue]]) throws -> Void) throws
    /// Waits for the statements ``send(_:_:check:)`` sent, running their checks.
    func flush() throws
    /// The statements that begin, commit and roll back a save's transaction on this connection.
    var transactionControl: (begin: String, commit: String, rollback: String) { get }
}

extension PostgreSQLConnection {
    /// A transaction of the connection's own: PostgreSQL's `BEGIN`, at READ COMMITTED.
    package var transactionControl: (begin: String, commit: String, rollback: String) {
        ("BEGIN ISOLATION LEVEL READ COMMITTED", "COMMIT", "ROLLBACK")
    }

    /// Runs a statement that returns no rows (or whose rows do not matter).
    package func execute(_ sql: String, _ arguments: [StorageValue] = []) throws {
        try query(sql, arguments) { _ in }
    }

    /// The rows of a statement.
    package func rows(_ sql: String, _ arguments: [StorageValue] = []) throws -> [[StorageValue]] {
        var rows: [[StorageValue]] = []
        try query(sql, arguments) { rows.append($0) }
        return rows
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    package func transaction<Result>(_ body: () throws -> Result) throws -> Result {
        try transaction { (_: (String, [StorageValue], String) throws -> [[StorageValue]]) in try body() }
    }

    /// Runs `body` in a transaction, giving it a function that ends the transaction with one last
    /// statement, the commit and a follow-up sent together (``finish(_:_:endingTransaction:then:)``);
    /// without a call to it, the transaction commits when `body` returns. It is rolled back when `body`
    /// throws first.
    package func transaction<Result>(_ body: (_ finish: (String, [StorageValue], String) throws -> [[StorageValue]]) throws -> Result) throws -> Result {
        let control = transactionControl
        // Sent with the transaction's first statement, not waited for alone.
        try send(control.begin, []) { _ in }
        var ended = false
        let result: Result
        do {
            result = try body { sql, arguments, followUp in
                ended = true
                return try finish(sql, arguments, endingTransaction: true, then: followUp)
            }
        } catch {
            if !ended { try? execute(control.rollback) }
            throw error
        }
        if !ended { try execute(control.commit) }
        return result
    }
}

/// Why the server refused a statement or a connection, as the driver reports it: PostgreSQL's
/// SQLSTATE and message.
package struct PostgreSQLServerError: Error, Sendable {
    package let sqlState: String
    package let message: String
    package let detail: String?
    package let constraint: String?

    package init(sqlState: String, message: String, detail: String?, constraint: String?) {
        self.sqlState = sqlState
        self.message = message
        self.detail = detail
        self.constraint = constraint
    }
}

/// What a configuration from `StowagePostgres` tells a container: how to reach the server.
package protocol PostgreSQLStoreConfiguration {
    /// The configuration's name.
    var name: String { get }
    /// The models the database holds, or `nil` for all of the container's.
    var schema: Schema? { get }
    /// Whether the container may save.
    var allowsSave: Bool { get }
    /// Where the database is, for messages (never with a password).
    var location: String { get }
    /// A driver for the configuration's server and database.
    func makeDriver() throws -> any PostgreSQLDriver
}
