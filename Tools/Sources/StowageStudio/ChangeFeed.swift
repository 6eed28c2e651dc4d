import Foundation
import GRDB
import StowageCore
import StowageTools

/// The saves committed to the store, from any process, as the pages' Server-Sent Events.
///
/// How: while a page listens, the sizes and times of the store's file and `-wal` are looked at every
/// ``interval``; when they changed, the history is read after the newest transaction seen, as an app's
/// own container watches for other processes' saves. Each new history transaction becomes one event
/// naming the entities it changed; a write outside Stowage (frames added to the `-wal` without a
/// transaction) becomes an event without entities, after which every page refreshes. A checkpoint,
/// which changes no row, is no event.
///
/// A page says which transaction it showed (`since`, or the browser's `Last-Event-ID` when it
/// reconnects), and first gets the saves after it: nothing committed while it loaded or reconnected
/// is missed. A connection gets a comment every ``heartbeat`` (a closed one is noticed) and ends after
/// ``lifetime`` (the browser reconnects at once), so that a server stopping waits for none of them.
final class ChangeFeed: @unchecked Sendable {  // @unchecked: the mutable state is behind `lock`.
    /// What a connection is sent.
    enum Event: Sendable {
        case change(Change)
        /// A comment line that keeps the connection alive, and fails on a closed one.
        case heartbeat
    }

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

    static let interval: DispatchTimeInterval = .milliseconds(100)
    static let heartbeat: Duration = .seconds(15)
    static let lifetime: Duration = .seconds(60)
    static let replayLimit: Int64 = 100

    private struct Listener {
        let continuation: AsyncStream<Event>.Continuation
        let started: ContinuousClock.Instant
        var lastBeat: ContinuousClock.Instant
    }

    private let backend: any StudioBackend
    private let lock = NSLock()
    private var listeners: [UUID: Listener] = [:]
    /// Polls on a queue of its own, not on Swift's cooperative threads, which a busy server (or test
    /// run) may keep occupied.
    private let queue = DispatchQueue(label: "StowageStudio.ChangeFeed")
    private var poller: DispatchSourceTimer?
    private var newest: Int64?
    private var signature: FileSignature?
    private var stopped = false

    init(backend: any StudioBackend) {
        self.backend = backend
    }

    deinit {
        poller?.cancel()
    }

    /// The saves after the transaction `since` (from now on when `nil`), until the stream ends.
    func events(since: Int64?) -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        let now = ContinuousClock.now
        lock.withLock {
            guard !stopped else {
                continuation.finish()
                return
            }
            if newest == nil {
                // The files first: a commit between the two reads is then seen by the next poll.
                signature = backend.signature
                newest = try? newestTransaction()
            }
            if let since, let newest, since < newest {
                // At most the last ``replayLimit`` saves: a page that old refreshes once anyway.
                for change in changes(after: max(since, newest - Self.replayLimit), upTo: newest) { continuation.yield(.change(change)) }
            }
            listeners[id] = Listener(continuation: continuation, started: now, lastBeat: now)
            if poller == nil {
                let timer = DispatchSource.makeTimerSource(queue: queue)
                timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval)
                timer.setEventHandler { [weak self] in self?.poll() }
                timer.resume()
                poller = timer
            }
        }
        continuation.onTermination = { [weak self] _ in self?.drop(id) }
        return stream
    }

    /// Ends every connection and refuses new ones: the server is stopping.
    func stop() {
        let ending = lock.withLock {
            stopped = true
            poller?.cancel()
            poller = nil
            defer { listeners = [:] }
            return listeners.values.map(\.continuation)
        }
        for continuation in ending { continuation.finish() }
    }

    /// The newest history transaction now: what a page shows is as of it.
    func currentToken() -> Int64 { (try? newestTransaction()) ?? 0 }

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

    /// Sends what was committed since the last poll, heartbeats that are due, and ends connections
    /// that have lived their time.
    private func poll() {
        let now = ContinuousClock.now
        var ending: [AsyncStream<Event>.Continuation] = []
        lock.withLock {
            for (id, listener) in listeners {
                if now - listener.started > Self.lifetime {
                    ending.append(listener.continuation)
                    listeners[id] = nil
                } else if now - listener.lastBeat > Self.heartbeat {
                    listener.continuation.yield(.heartbeat)
                    listeners[id]?.lastBeat = now
                }
            }
        }
        for continuation in ending { continuation.finish() }

        let files = backend.signature
        guard let (last, lastFiles) = lock.withLock({ newest.map { ($0, signature) } }), files != lastFiles,
              let current = try? newestTransaction()
        else { return }
        // Without a new transaction, the files changed by a checkpoint (which changes no row) or by a
        // commit outside Stowage (`stowage sql --write`), which adds frames to the `-wal`.
        let changes: [Change]
        if current > last {
            changes = self.changes(after: last, upTo: current)
        } else if let frames = files.walFrames, frames > lastFiles?.walFrames ?? 0 {
            changes = [Change(token: current, entities: nil, author: nil)]
        } else {
            changes = []
        }
        lock.withLock {
            signature = files
            newest = current
            for listener in listeners.values {
                for change in changes { listener.continuation.yield(.change(change)) }
            }
        }
    }

    /// The changes of the transactions after `last` up to `current`.
    private func changes(after last: Int64, upTo current: Int64) -> [Change] {
        var changes: [Change] = []
        if let transactions = try? HistoryLog.transactions(in: backend.reader(), after: last) {
            for transaction in transactions where transaction.id <= current {
                var entities: [String] = []
                for run in transaction.runs where !entities.contains(run.entity) { entities.append(run.entity) }
                changes.append(Change(token: transaction.id, entities: entities, author: transaction.author))
            }
        }
        // Transactions without history (a store that records none) say only that something changed.
        if (changes.last?.token ?? last) < current {
            changes.append(Change(token: current, entities: nil, author: nil))
        }
        return changes
    }

    private func newestTransaction() throws -> Int64 { try newestHistoryTransaction(in: backend.reader()) }
}

/// The newest history transaction's number in the store `reader` reads (0 without history): the
/// token of what a page shows, and where the change feed starts.
func newestHistoryTransaction(in reader: StoreReader) throws -> Int64 {
    let table = StoreToolSupport.historyTables.transactions
    return try reader.read { db in
        guard try db.tableExists(table) else { return 0 }
        return try Int64.fetchOne(db, sql: "SELECT MAX(\"id\") FROM \(StoreToolSupport.quote(table))") ?? 0
    }
}
