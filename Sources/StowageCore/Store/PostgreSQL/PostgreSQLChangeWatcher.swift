import Foundation

/// Hands the saves other processes commit to a PostgreSQL database to the container, as the
/// ``StoreChangeWatcher`` does for SQLite files.
///
/// How: each save writes its history in its transaction and, right after its commit, notifies the
/// channel ``PostgreSQLSchema/notificationChannel`` with its transaction's number, its store's origin
/// and, when they fit, its changes (``PostgreSQLNotice``). The watcher listens on a connection of its
/// own and hands over the transactions in the order of their numbers, without a gap: a notice whose
/// number follows the last one handled is handed over from its payload, without reading the database;
/// the notices after a missing number wait for it. When a number stays missing (its save rolled back,
/// or its process ended before notifying), when a notice carries no changes, and after the listening
/// connection dropped and came back, the watcher reads the history from the last number it handled
/// (see ``PostgreSQLStore/historyHeaders(after:detailedOnly:)``): nothing is lost.
final class PostgreSQLChangeWatcher: StoreWatcher, @unchecked Sendable {
    // @unchecked Sendable: `lastSeen`, `waiting` and `gapCheckScheduled` are only touched on `queue`.
    private let store: PostgreSQLStore
    private weak var container: ModelContainer?
    private let queue = DispatchQueue(label: "Stowage.PostgreSQLChangeWatcher")
    private var listener: (any PostgreSQLListener)?
    private var lastSeen: Int64 = 0
    /// Notices after a missing number, by number.
    private var waiting: [Int64: PostgreSQLNotice] = [:]
    private var gapCheckScheduled = false
    /// How long notices wait for a missing number before the history is read.
    static let gapWait: DispatchTimeInterval = .milliseconds(100)

    init(store: PostgreSQLStore, container: ModelContainer) throws {
        self.store = store
        self.container = container
        lastSeen = max(try store.newestHistoryTransaction(), try store.historyDeletedThrough())
        // `nil` comes after a reconnection: anything may have been missed.
        listener = try store.driver.listen(on: PostgreSQLSchema.notificationChannel) { [weak self] payload in
            guard let self else { return }
            let notice = payload.flatMap(PostgreSQLNotice.init)
            self.queue.async { notice.map(self.receive) ?? self.readHistory() }
        }
    }

    func cancel() {
        listener?.stop()
        listener = nil
    }

    deinit { cancel() }

    /// Takes a notice in: hands over it and those waiting after it when its number is the next one.
    private func receive(_ notice: PostgreSQLNotice) {
        guard notice.number > lastSeen else { return }
        waiting[notice.number] = notice
        handOverWaiting()
    }

    /// Hands over the waiting notices that follow the last number handled; reads the history for one
    /// without its changes; checks the history later when a number is missing.
    private func handOverWaiting() {
        var ready: [(HistoryHeader, [SQLiteHistory.Run])] = []
        while let next = waiting.removeValue(forKey: lastSeen + 1) {
            guard let transaction = next.transaction else {
                // Its changes are in the history only.
                deliver(ready)
                readHistory()
                return
            }
            lastSeen += 1
            if next.origin != store.origin { ready.append(transaction) }
        }
        deliver(ready)
        if !waiting.isEmpty, !gapCheckScheduled {
            gapCheckScheduled = true
            queue.asyncAfter(deadline: .now() + Self.gapWait) {
                self.gapCheckScheduled = false
                if !self.waiting.isEmpty { self.readHistory() }
            }
        }
    }

    private func deliver(_ transactions: [(HistoryHeader, [SQLiteHistory.Run])]) {
        guard !transactions.isEmpty else { return }
        container?.receiveRemoteChanges(transactions, from: store)
    }

    /// Reads the history after the last transaction handled and hands over other processes' saves,
    /// then the notices waiting after them.
    private func readHistory() {
        readHistoryOnce()
        if !waiting.isEmpty { handOverWaiting() }
    }

    private func readHistoryOnce() {
        guard let container else {
            cancel()
            return
        }
        do {
            let deletedThrough = try store.historyDeletedThrough()
            let headers = try store.historyHeaders(after: lastSeen, detailedOnly: false)
            let unreadHistoryDeleted = deletedThrough > lastSeen
            lastSeen = max(lastSeen, headers.last?.id ?? 0, deletedThrough)
            waiting = waiting.filter { $0.key > lastSeen }
            let foreign = headers.filter { $0.origin != store.origin }
            if unreadHistoryDeleted || foreign.contains(where: { !$0.detailed }) {
                container.receiveRemoteChanges(nil, from: store)
                return
            }
            guard let first = foreign.first?.id, let last = foreign.last?.id else { return }
            let runs = try store.historyRuns(from: first, through: last)
            container.receiveRemoteChanges(foreign.map { header in (header, runs.filter { $0.transaction == header.id }) }, from: store)
        } catch {
            ModelContext.logger.error("Reading the changes another process saved to PostgreSQL at \(store.location) failed: \(error)")
        }
    }
}
