import Foundation
import Logging
import PostgresNIO
import StowageCore

/// The PostgreSQL store's connections, over postgres-nio: a pool that hands one connection at a time to
/// a synchronous caller, and a listening connection for notifications.
///
/// A `ModelContext`'s API is synchronous, as SwiftData's is: an operation waits for its statements'
/// results on the calling thread, while postgres-nio's event loops do the I/O. Waiting on an event loop
/// would stop that loop for good, so an operation called on one fails at once.
package final class PostgresDriver: PostgreSQLDriver, @unchecked Sendable {
    // @unchecked: the mutable state is behind `condition`.
    private let configuration: PostgresConnection.Configuration
    private let settings: PostgresConfiguration
    private let group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    private let logger: Logger = {
        var logger = Logger(label: "stowage.postgres")
        logger.logLevel = .critical
        return logger
    }()
    private let condition = NSCondition()
    private var idle: [PostgresNIOConnection] = []
    private var open = 0
    private var isShutDown = false
    private static let ids = ConnectionIDs()

    package init(_ settings: PostgresConfiguration) throws {
        self.settings = settings
        var configuration = switch settings.endpoint {
        case .tcp(let host, let port):
            PostgresConnection.Configuration(host: host, port: port, username: settings.username, password: settings.password, database: settings.database, tls: .disable)
        case .unixSocket(let path):
            PostgresConnection.Configuration(unixSocketPath: path, username: settings.username, password: settings.password, database: settings.database)
        }
        configuration.options.connectTimeout = .nanoseconds(Int64(settings.connectTimeout.components.seconds) * 1_000_000_000 + settings.connectTimeout.components.attoseconds / 1_000_000_000)
        self.configuration = configuration
    }

    deinit { shutdown() }

    package func withConnection<Result>(_ body: (any PostgreSQLConnection) throws -> Result) throws -> Result {
        try Self.refuseOnEventLoop()
        let connection = try take()
        defer { give(connection) }
        return try body(connection)
    }

    /// A free connection, a new one when the pool is not full, or the next one given back.
    private func take() throws -> PostgresNIOConnection {
        let deadline = Date().addingTimeInterval(seconds(settings.connectTimeout))
        condition.lock()
        while true {
            if isShutDown {
                condition.unlock()
                throw StowageError(.connectionFailed, "The container's PostgreSQL connections to \(settings.location) are closed.")
            }
            if let connection = idle.popLast() {
                condition.unlock()
                if connection.isUsable { return connection }
                connection.close()
                condition.lock()
                open -= 1
                continue
            }
            if open < settings.maximumConnections {
                open += 1
                condition.unlock()
                do {
                    return try connect()
                } catch {
                    condition.lock()
                    open -= 1
                    condition.signal()
                    condition.unlock()
                    throw error
                }
            }
            guard condition.wait(until: deadline) else {
                condition.unlock()
                throw StowageError(
                    .connectionFailed,
                    "Every one of the \(settings.maximumConnections) connections to \(settings.location) stayed busy for \(settings.connectTimeout): raise maximumConnections, or shorten the operations that hold them.")
            }
        }
    }

    private func give(_ connection: PostgresNIOConnection) {
        condition.lock()
        if connection.isUsable && !isShutDown {
            idle.append(connection)
        } else {
            open -= 1
            connection.close()
        }
        condition.signal()
        condition.unlock()
    }

    private func connect() throws -> PostgresNIOConnection {
        do {
            let connection = try PostgresConnection.connect(
                on: group.next(), configuration: configuration, id: Self.ids.next(), logger: logger
            ).wait()
            return PostgresNIOConnection(connection, logger: logger, location: settings.location)
        } catch {
            throw Self.connectionError(error, settings)
        }
    }

    package func listen(on channel: String, _ handler: @escaping @Sendable (String?) -> Void) throws -> any PostgreSQLListener {
        try Self.refuseOnEventLoop()
        let listener = PostgresNotificationListener(channel: channel, handler: handler) { [weak self] in
            guard let self else { throw StowageError(.connectionFailed, "The container was released.") }
            return try self.connect()
        }
        try listener.start()
        return listener
    }

    package func shutdown() {
        condition.lock()
        isShutDown = true
        let connections = idle
        idle = []
        condition.broadcast()
        condition.unlock()
        for connection in connections { connection.close() }
    }

    private func seconds(_ duration: Duration) -> TimeInterval {
        TimeInterval(duration.components.seconds) + TimeInterval(duration.components.attoseconds) / 1e18
    }

    /// An operation on a SwiftNIO event loop would wait for results that only that loop can deliver.
    static func refuseOnEventLoop() throws {
        if MultiThreadedEventLoopGroup.currentEventLoop != nil {
            throw StowageError(
                .blocksEventLoop,
                "A ModelContext on PostgreSQL was used on a SwiftNIO event loop thread; its operations wait for the server and would stop the loop. Use the context from a task or a thread of your own (in a server, from the request handler's async context, not from an EventLoopFuture callback).")
        }
    }

    /// Why a connection could not be opened, with what to do.
    static func connectionError(_ error: any Error, _ settings: PostgresConfiguration) -> StowageError {
        if let error = error as? PSQLError, error.code == .server, let info = error.serverInfo {
            let state = info[.sqlState] ?? ""
            let message = info[.message] ?? "refused"
            switch state {
            case "28P01", "28000":
                return StowageError(.connectionFailed, "PostgreSQL at \(settings.location) refused the user \(settings.username): \(message). Check the user name and the password in the configuration (and the server's pg_hba.conf).", underlying: error)
            case "3D000":
                return StowageError(.storeNotFound, "PostgreSQL at \(settings.location) has no database \(settings.database): create it (createdb \(settings.database)) or name another in the URL.", underlying: error)
            default:
                return StowageError(.connectionFailed, "PostgreSQL at \(settings.location) refused the connection: \(message) (SQLSTATE \(state)).", underlying: error)
            }
        }
        return StowageError(.connectionFailed, "Could not connect to PostgreSQL at \(settings.location) within \(settings.connectTimeout): \(describe(error)). Check that the server runs and that the host, port or socket path are right.", underlying: error)
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let underlying = error.underlying { return "\(error.code), \(underlying)" }
            return "\(error.code)"
        }
        return "\(error)"
    }
}

/// Connection numbers for postgres-nio's logs.
private final class ConnectionIDs: @unchecked Sendable {
    private let lock = NSLock()
    private var last = 0
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        last += 1
        return last
    }
}

/// One postgres-nio connection, used by one caller at a time.
final class PostgresNIOConnection: PostgreSQLConnection, @unchecked Sendable {
    let connection: PostgresConnection
    private let logger: Logger
    private let location: String
    private var failed = false

    init(_ connection: PostgresConnection, logger: Logger, location: String) {
        self.connection = connection
        self.logger = logger
        self.location = location
    }

    var isUsable: Bool { !failed && !connection.isClosed }

    /// Closes the connection, waiting for it unless this is an event loop thread.
    func close() {
        guard !connection.isClosed else { return }
        let connection = self.connection
        let closed: EventLoopFuture<Void> = connection.close()
        if MultiThreadedEventLoopGroup.currentEventLoop == nil {
            try? closed.wait()
        } else {
            // postgres-nio requires a connection to be closed before it is released.
            closed.whenComplete { _ in withExtendedLifetime(connection) {} }
        }
    }

    deinit { close() }

    func query(_ sql: String, _ arguments: [StorageValue], _ body: ([StorageValue]) throws -> Void) throws {
        let query = try prepare(sql, arguments)
        try flush()
        try rows(of: try answer(connection.query(query, logger: logger)), body)
    }

    /// The statements sent and not yet waited for, with their checks, in order.
    private var sent: [(answer: EventLoopFuture<PostgresQueryResult>, check: ([[StorageValue]]) throws -> Void)] = []

    func send(_ sql: String, _ arguments: [StorageValue], check: @escaping ([[StorageValue]]) throws -> Void) throws {
        let query = try prepare(sql, arguments)
        sent.append((connection.query(query, logger: logger), check))
    }

    func flush() throws {
        guard !sent.isEmpty else { return }
        let statements = sent
        sent = []
        // Every answer is waited for, so that the connection is ready for the next statement; the first
        // error (the server refuses the rest of a failed transaction) is thrown.
        var firstError: (any Error)?
        // The answers come in order: once the last is in, the others are, and the thread sleeps once.
        _ = try? statements.last?.answer.wait()
        for statement in statements {
            do {
                let result = try answer(statement.answer)
                if firstError == nil { try statement.check(try allRows(of: result)) }
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        if let firstError { throw firstError }
    }

    func finish(_ sql: String, _ arguments: [StorageValue], endingTransaction: Bool, then followUp: String) throws -> [[StorageValue]] {
        let query = try prepare(sql, arguments)
        try flush()
        // postgres-nio queues each query behind the one before and sends it as soon as that one's answer
        // arrives, on its event loop: a transaction's locks are held one round trip less, and the
        // follow-up costs no wait of its own.
        let statement = connection.query(query, logger: logger)
        let commit = endingTransaction ? connection.query("COMMIT", logger: logger) : nil
        // The follow-up is sent from the event loop once the save is known to be done (a save that
        // failed sends none), and not waited for: the connection's next statement queues behind it.
        let (connection, logger) = (self.connection, self.logger)
        (commit ?? statement).whenSuccess { result in
            guard commit == nil || result.metadata.command == "COMMIT" else { return }
            _ = connection.query(PostgresQuery(unsafeSQL: followUp), logger: logger)
        }
        // The answers come in order: once the last is in, the others are, and the thread sleeps once.
        _ = try? (commit ?? statement).wait()
        let statementResult: PostgresQueryResult
        do {
            statementResult = try answer(statement)
        } catch {
            // The server ends a failed transaction's COMMIT with a rollback.
            _ = try? commit?.wait()
            throw error
        }
        if let commit {
            let committed = try answer(commit)
            guard committed.metadata.command == "COMMIT" else {
                throw StowageError(.saveFailed, "PostgreSQL at \(location) rolled the transaction back (\(committed.metadata.command)).")
            }
        }
        return try allRows(of: statementResult)
    }

    /// The query of a statement with `?` placeholders, checking first that the connection can take it.
    private func prepare(_ sql: String, _ arguments: [StorageValue]) throws -> PostgresQuery {
        try PostgresDriver.refuseOnEventLoop()
        // A statement sent on a connection that has closed would wait for an answer forever.
        guard isUsable else {
            failed = true
            throw StowageError(
                .connectionLost,
                "The connection to PostgreSQL at \(location) had closed; the statement was not sent, and its transaction did not commit. Later operations reconnect.")
        }
        var binds = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument {
            case .null: binds.appendNull()
            // Numbers too go as text the server types from their place: a Bool's 0 and 1 are then a
            // `boolean` column's values, and an integer compares with a `numeric` one.
            case .integer(let value): binds.append(InferredText(String(value)))
            case .real(let value): binds.append(InferredText("\(value)"))
            case .text(let value): binds.append(InferredText(value))
            case .blob(let value): binds.append(ByteBuffer(bytes: value))
            }
        }
        return PostgresQuery(unsafeSQL: Self.numberingPlaceholders(sql), binds: binds)
    }

    /// Waits for a statement's answer; the server's refusal as a ``PostgreSQLServerError``, anything else
    /// as a lost connection.
    private func answer(_ future: EventLoopFuture<PostgresQueryResult>) throws -> PostgresQueryResult {
        do {
            return try future.wait()
        } catch let error as PSQLError where error.code == .server {
            let info = error.serverInfo
            throw PostgreSQLServerError(
                sqlState: info?[.sqlState] ?? "", message: info?[.message] ?? "\(error)", detail: info?[.detail],
                constraint: info?[.constraintName])
        } catch {
            failed = true
            throw StowageError(
                .connectionLost,
                "The connection to PostgreSQL at \(location) failed during a statement (\(PostgresDriver.describe(error))); the statement's transaction did not commit. Later operations reconnect.",
                underlying: error)
        }
    }

    private func allRows(of result: PostgresQueryResult) throws -> [[StorageValue]] {
        var values: [[StorageValue]] = []
        try rows(of: result) { values.append($0) }
        return values
    }

    private func rows(of result: PostgresQueryResult, _ body: ([StorageValue]) throws -> Void) throws {
        var values: [StorageValue] = []
        for row in result.rows {
            values.removeAll(keepingCapacity: true)
            for cell in row {
                values.append(try Self.value(of: cell))
            }
            try body(values)
        }
    }

    /// A cell as a stored value.
    private static func value(of cell: PostgresCell) throws -> StorageValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8, .oid: return .integer(try cell.decode(Int64.self))
        case .float4, .float8: return .real(try cell.decode(Double.self))
        case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
        case .bytea:
            var buffer = try cell.decode(ByteBuffer.self)
            return .blob(Data(buffer.readBytes(length: buffer.readableBytes) ?? []))
        default: return .text(try cell.decode(String.self))
        }
    }

    /// `?` placeholders as PostgreSQL's `$1`, `$2`…, leaving quoted text and identifiers alone.
    static func numberingPlaceholders(_ sql: String) -> String {
        // Over UTF-8 bytes: quotes and `?` are ASCII, and no byte of a multi-byte character is.
        var result: [UInt8] = []
        result.reserveCapacity(sql.utf8.count + 16)
        var number = 0
        var quote: UInt8?
        for byte in sql.utf8 {
            if let open = quote {
                if byte == open { quote = nil }
                result.append(byte)
            } else if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                quote = byte
                result.append(byte)
            } else if byte == UInt8(ascii: "?") {
                number += 1
                result.append(UInt8(ascii: "$"))
                result.append(contentsOf: String(number).utf8)
            } else {
                result.append(byte)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}

/// Text bound without a type: the server gives it the type its place needs (a `uuid`, `numeric` or
/// `jsonb` column, or text).
private struct InferredText: PostgresDynamicTypeEncodable {
    let text: String
    init(_ text: String) { self.text = text }
    var psqlType: PostgresDataType { .null }
    var psqlFormat: PostgresFormat { .text }
    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeString(text)
    }
}

/// The connection that listens for notifications, reconnecting when it drops.
final class PostgresNotificationListener: PostgreSQLListener, @unchecked Sendable {
    private let channel: String
    private let handler: @Sendable (String?) -> Void
    private let connect: () throws -> PostgresNIOConnection
    private let lock = NSLock()
    private var connection: PostgresNIOConnection?
    private var stopped = false

    init(channel: String, handler: @escaping @Sendable (String?) -> Void, connect: @escaping () throws -> PostgresNIOConnection) {
        self.channel = channel
        self.handler = handler
        self.connect = connect
    }

    func start() throws {
        let connection = try connect()
        let handler = handler
        connection.connection.addListener(channel: channel) { _, notification in handler(notification.payload) }
        try connection.execute("LISTEN \"\(channel)\"")
        lock.lock()
        self.connection = connection
        let stopped = self.stopped
        lock.unlock()
        if stopped { connection.close(); return }
        connection.connection.closeFuture.whenComplete { [weak self] _ in self?.reconnect() }
    }

    /// Reconnects after a drop, then tells the handler that notifications may have been missed.
    private func reconnect() {
        Thread.detachNewThread { [weak self] in
            var delay: TimeInterval = 0.05
            while let self {
                self.lock.lock()
                let stopped = self.stopped
                self.lock.unlock()
                if stopped { return }
                do {
                    try self.start()
                    self.handler(nil)
                    return
                } catch {
                    Thread.sleep(forTimeInterval: delay)
                    delay = min(delay * 2, 2)
                }
            }
        }
    }

    func stop() {
        lock.lock()
        stopped = true
        let connection = self.connection
        self.connection = nil
        lock.unlock()
        connection?.close()
    }

    deinit { stop() }
}
