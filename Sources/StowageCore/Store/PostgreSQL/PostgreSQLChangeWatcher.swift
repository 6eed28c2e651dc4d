import Foundation

/// Hands the saves other processes commit to a PostgreSQL database to the container, as the
/// ``StoreChangeWatcher`` does for SQLite files.
///
/// How: each save writes its history in its transaction and notifies the channel
/// ``PostgreSQLSchema/notificationChannel`` with its transaction's number (PostgreSQL delivers it at
/// the commit). The watcher listens on a connection of its own; on a notification it reads the history
/// transactions after the last one it handled. Saves commit in the order of their numbers (see
/// ``PostgreSQLSchema/historyLock``), so nothing below a number read is still to come. When the listening
/// connection drops and comes back, the watcher reads the history from where it was: a save committed
/// meanwhile is delivered then, not lost.
final class PostgreSQLChangeWatcher: StoreWatcher, @unchecked Sendable {
    // @unchecked Sendable: `lastSeen` is only touched on `queue`, `checkScheduled` under `lock`.
    private let store: PostgreSQLStore
    private weak var container: ModelContainer?
    private let queue = DispatchQueue(label: "Stowage.PostgreSQLChangeWatcher")
    private var listener: (any PostgreSQLListener)?
    private var lastSeen: Int64 = 0
    private let lock = NSLock()
    /// Whether a check is queued and has not started: notifications that arrive meanwhile are read by
    /// it (under load, one read of the history serves many saves).
    private var checkScheduled = false

    init(store: PostgreSQLStore, container: ModelContainer) throws {
        self.store = store
        self.container = container
        lastSeen = max(try store.newestHistoryTransaction(), try store.historyDeletedThrough())
        // A notification of this store's own save is not read: what it changed, the container knows.
        // (`nil` comes after a reconnection: anything may have been missed.)
        let ownSaves = " \(store.origin)"
        listener = try store.driver.listen(on: PostgreSQLSchema.notificationChannel) { [weak self] payload in
            if let payload, payload.hasSuffix(ownSaves) { return }
            self?.scheduleCheck()
        }
    }

    func cancel() {
        listener?.stop()
        listener = nil
    }

    deinit { cancel() }

    private func scheduleCheck() {
        let schedule = lock.withLock {
            defer { checkScheduled = true }
            return !checkScheduled
        }
        guard schedule else { return }
        queue.async {
            self.lock.withLock { self.checkScheduled = false }
            self.check()
        }
    }

    private func check() {
        guard let container else {
            cancel()
            return
        }
        do {
            let deletedThrough = try store.historyDeletedThrough()
            let headers = try store.historyHeaders(after: lastSeen, detailedOnly: false)
            let unreadHistoryDeleted = deletedThrough > lastSeen
            lastSeen = max(lastSeen, headers.last?.id ?? 0, deletedThrough)
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
