import Foundation
import Logging

/// The SQL debug log, like Core Data's `-com.apple.CoreData.SQLDebug 1`.
///
/// Turn it on with the environment variable `STOWAGE_SQL_DEBUG=1` (or `2`), with the launch argument
/// `-com.apple.CoreData.SQLDebug 1`, or in code with ``level``. At level 1 every statement is logged with
/// its duration; at level 2 the statement is logged with its bound values. The store's path is logged
/// when it opens. Messages go to the swift-log logger labelled `Stowage.SQL`, so your logging backend
/// decides where they end up.
///
/// The level is read when a store opens: set it before you create the container.
public enum SQLDebug {
    private static let state = Locked(State())

    private struct State {
        var level: Int = SQLDebug.levelFromEnvironment()
        var observers: [UUID: @Sendable (SQLStatementEvent) -> Void] = [:]
    }

    /// The logger the SQL log writes to.
    public static let logger = Logger(label: "Stowage.SQL")

    /// The debug level: 0 (off), 1 (statements and durations) or 2 (statements with bound values).
    public static var level: Int {
        get { state.withLock { $0.level } }
        set { state.withLock { $0.level = newValue } }
    }

    /// Calls `observer` for every statement run by stores opened while the observation is alive, on the
    /// thread that ran the statement. Useful in tests to count the queries an operation runs.
    ///
    /// ```swift
    /// let statements = Locked<[String]>([])
    /// let observation = SQLDebug.observe { statements.append($0.sql) }
    /// ```
    public static func observe(_ observer: @escaping @Sendable (SQLStatementEvent) -> Void) -> SQLObservation {
        let id = UUID()
        state.withLock { $0.observers[id] = observer }
        return SQLObservation(id: id)
    }

    /// Calls `observer` for every statement `container`'s store runs. Start observing before you create
    /// the container (tracing is installed when a store opens), then pass the container:
    ///
    /// ```swift
    /// let statements = SQLDebug.StatementLog()
    /// let observation = SQLDebug.observe { statements.append($0) }
    /// let container = try ModelContainer(for: Budget.self, configurations: .init(isStoredInMemoryOnly: true))
    /// _ = try ModelContext(container).fetch(FetchDescriptor<Budget>())
    /// print(statements.events(of: container).map(\.sql))
    /// ```
    public final class StatementLog: Sendable {
        private let events = Locked<[SQLStatementEvent]>([])
        /// An empty log: pass its ``append(_:)`` to ``SQLDebug/observe(_:)``.
        public init() {}
        /// Records an event.
        public func append(_ event: SQLStatementEvent) { events.withLock { $0.append(event) } }
        /// The events recorded for `container`'s stores, in order.
        public func events(of container: ModelContainer) -> [SQLStatementEvent] {
            let identifiers = Set(container.schema.entities.map { container.store.identifier(for: $0) })
            return events.withLock { $0.filter { identifiers.contains($0.storeIdentifier) } }
        }
        /// Forgets every recorded event.
        public func removeAll() { events.withLock { $0.removeAll() } }
    }

    static func removeObserver(_ id: UUID) {
        _ = state.withLock { $0.observers.removeValue(forKey: id) }
    }

    /// Whether a store opening now must trace its statements.
    static var isTracing: Bool { state.withLock { $0.level > 0 || !$0.observers.isEmpty } }

    static func record(_ event: SQLStatementEvent) {
        let (level, observers) = state.withLock { ($0.level, Array($0.observers.values)) }
        if level > 0 {
            let milliseconds = String(format: "%.3f", event.duration * 1000)
            let text = level >= 2 ? event.expandedSQL : event.sql
            logger.info("\(text) -- \(milliseconds) ms", metadata: ["store": "\(event.storeIdentifier)"])
        }
        for observer in observers { observer(event) }
    }

    static func storeOpened(_ description: String) {
        if level > 0 { logger.info("Stowage store: \(description)") }
    }

    static func levelFromEnvironment(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        arguments: [String] = ProcessInfo.processInfo.arguments
    ) -> Int {
        if let value = environment["STOWAGE_SQL_DEBUG"], let level = Int(value) { return level }
        for flag in ["-com.apple.CoreData.SQLDebug", "-com.apple.SwiftData.SQLDebug", "-Stowage.SQLDebug"] {
            if let index = arguments.firstIndex(of: flag) {
                return arguments.indices.contains(index + 1) ? Int(arguments[index + 1]) ?? 1 : 1
            }
        }
        return 0
    }
}

/// One statement run by a store.
public struct SQLStatementEvent: Sendable {
    /// The statement with `?` placeholders.
    public let sql: String
    /// The statement with its bound values spliced in (for reading only: never run it).
    public let expandedSQL: String
    /// How long the statement took, in seconds.
    public let duration: TimeInterval
    /// The identifier of the store that ran it.
    public let storeIdentifier: String
}

/// Keeps an ``SQLDebug/observe(_:)`` observer registered until it is cancelled or released.
public final class SQLObservation: Sendable {
    private let id: UUID
    init(id: UUID) { self.id = id }
    /// Stops the observation.
    public func cancel() { SQLDebug.removeObserver(id) }
    deinit { cancel() }
}
