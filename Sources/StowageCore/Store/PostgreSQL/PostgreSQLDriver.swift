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
}

extension PostgreSQLConnection {
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
        try execute("BEGIN ISOLATION LEVEL READ COMMITTED")
        let result: Result
        do {
            result = try body()
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
        try execute("COMMIT")
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
