import Foundation
import GRDB
import StowageCore
import StowageTools

/// The saves committed to the store, from any process, as the pages' Server-Sent Events.
///
/// How: while a page listens, the sizes and times of the store's file and `-wal` are looked at every
/// ``interval``; when they changed, the history is read after the newest transaction seen, as an app's
/// own container watches for other processes' saves. Each new history transaction becomes one event naming
/// the entities it changed; a save of a store that records no history, or a write outside Stowage,
/// becomes an event without entities, after which every page refreshes.
final class ChangeFeed: @unchecked Sendable {  // @unchecked: the mutable state is behind `lock`.
    /// One save, as an event's data.
    struct Change: Sendable {
        let token: Int64
        /// The entities it changed, or `nil` when the store records no history of it.
        let entities: [String]?
        let author: String?

        var json: JSONValue {
            .object([
                ("token", .integer(token)),
                ("entities", entities.map { .array($0.map(JSONValue.string)) } ?? .null),
                ("author", author.map(JSONValue.string) ?? .null),
            ])
        }
    }

    static let interval: Duration = .milliseconds(100)

    private let backend: any StudioBackend
    private let lock = NSLock()
    private var listeners: [UUID: AsyncStream<Change>.Continuation] = [:]
    private var poller: Task<Void, Never>?
    private var newest: Int64?
    private var signature: FileSignature?

    init(backend: any StudioBackend) {
        self.backend = backend
    }

    /// The saves from now on, until the stream is dropped.
    func changes() -> AsyncStream<Change> {
        let (stream, continuation) = AsyncStream.makeStream(of: Change.self, bufferingPolicy: .bufferingNewest(64))
        let id = UUID()
        lock.withLock {
            listeners[id] = continuation
            if newest == nil {
                newest = try? newestTransaction()
                signature = backend.signature
            }
            if poller == nil {
                poller = Task.detached { [weak self] in
                    while !Task.isCancelled {
                        try? await Task.sleep(for: Self.interval)
                        self?.poll()
                    }
                }
            }
        }
        continuation.onTermination = { [weak self] _ in self?.drop(id) }
        return stream
    }

    private func drop(_ id: UUID) {
        lock.withLock {
            listeners[id] = nil
            if listeners.isEmpty {
                poller?.cancel()
                poller = nil
                newest = nil
                signature = nil
            }
        }
    }

    /// Reads the transactions committed since the last poll and sends them to every listener.
    private func poll() {
        let files = backend.signature
        guard let (last, lastFiles) = lock.withLock({ newest.map { ($0, signature) } }), files != lastFiles || lastFiles == nil,
              let current = try? newestTransaction()
        else { return }
        lock.withLock { signature = files }
        // A change of the files without a transaction: a write outside Stowage (`stowage sql --write`).
        guard current > last else {
            if files != lastFiles { send([Change(token: current, entities: nil, author: nil)], newest: current) }
            return
        }
        var changes: [Change] = []
        if let transactions = try? HistoryLog.transactions(in: backend.reader(), after: last) {
            for transaction in transactions {
                var entities: [String] = []
                for run in transaction.runs where !entities.contains(run.entity) { entities.append(run.entity) }
                changes.append(Change(token: transaction.id, entities: entities, author: transaction.author))
            }
        }
        // Transactions without history (a store that records none) say only that something changed.
        if changes.last?.token ?? last < current {
            changes.append(Change(token: current, entities: nil, author: nil))
        }
        send(changes, newest: current)
    }

    private func send(_ changes: [Change], newest current: Int64) {
        lock.withLock {
            newest = current
            for listener in listeners.values {
                for change in changes { listener.yield(change) }
            }
        }
    }

    /// The newest history transaction's number (0 without history).
    private func newestTransaction() throws -> Int64 {
        let table = StoreToolSupport.historyTables.transactions
        return try backend.reader().read { db in
            guard try db.tableExists(table) else { return 0 }
            return try Int64.fetchOne(db, sql: "SELECT MAX(\"id\") FROM \(StoreToolSupport.quote(table))") ?? 0
        }
    }
}
