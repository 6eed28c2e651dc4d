import Foundation
import GRDBSQLite
import Logging

/// Notices the saves other processes (or other containers of this process) commit to a store file, and
/// hands them to the container as if one of its contexts had saved them.
///
/// How: every ``interval`` a timer reads `PRAGMA data_version` on a connection of its own. SQLite
/// changes that number whenever another connection committed to the file since the last read, and
/// reading it costs a few microseconds, so an idle store costs next to nothing. When it changed, the
/// watcher reads the history transactions after the last one it handled (``SQLiteHistory``): those
/// whose `origin` is not its store's were saved elsewhere, and their change runs say which models were
/// inserted, updated (which properties) and deleted. The container's contexts then refresh the models
/// they hold (on their next operation, each in its own isolation), ``ModelContainer/changes(bufferingPolicy:)`` yields
/// the changes, and ``ModelContainer/storeRemoteChange`` is posted.
///
/// When the history cannot say what changed — a save of a store that records no history
/// (``ModelConfiguration/recordsHistory``: its transaction row only says that it happened), or history
/// the watcher had not read yet that was deleted (`deleteHistory`, another process's `erase()`) — every
/// model is treated as possibly changed
/// (``ModelContext/NotificationKey/invalidatedAllIdentifiers``).
final class StoreChangeWatcher: StoreWatcher, @unchecked Sendable {
    // @unchecked Sendable: the connection is behind `connectionLock`; the rest of the mutable state is
    // only touched on `queue`.

    /// How often the file is checked: changes reach the other process within this, plus the time to
    /// read them.
    static let interval: DispatchTimeInterval = .milliseconds(20)

    private let store: SQLiteStore
    private weak var container: ModelContainer?
    private let queue = DispatchQueue(label: "Stowage.StoreChangeWatcher")
    private let timer: DispatchSourceTimer
    /// The watcher's own read-only connection and its statement: closed by ``cancel()`` at once, from
    /// any thread, so that the store's last connection (the pool's, closing next) checkpoints the WAL
    /// into the file as before.
    private let connectionLock = NSLock()
    private var connection: OpaquePointer?
    private var dataVersionStatement: OpaquePointer?
    private var dataVersion: Int64 = 0
    /// The newest history transaction handled.
    private var lastSeen: Int64 = 0

    init?(store: SQLiteStore, path: String, container: ModelContainer) {
        self.store = store
        self.container = container
        timer = DispatchSource.makeTimerSource(queue: queue)
        guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
              sqlite3_prepare_v2(connection, "PRAGMA data_version", -1, &dataVersionStatement, nil) == SQLITE_OK
        else {
            sqlite3_close(connection)
            connection = nil
            // A dispatch source released before it ever ran crashes: resume it for deinit to cancel.
            timer.resume()
            return nil
        }
        // Waits up to a second for a lock (another process recovering or checkpointing the WAL).
        if let connection { SQLiteBusyWait.install(on: connection, timeout: 1) }
        // Nothing else runs yet: no queue or lock needed.
        dataVersion = readDataVersion() ?? 0
        // After an erase, its used-up number is past the newest transaction left.
        lastSeen = max((try? store.newestHistoryTransaction(on: connection)) ?? 0, (try? store.historyDeletedThrough(on: connection)) ?? 0)
        timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval, leeway: .milliseconds(5))
        timer.setEventHandler { [weak self] in self?.check() }
        timer.resume()
    }

    /// Stops watching (the container is going away) and closes the connection.
    func cancel() {
        timer.cancel()
        connectionLock.withLock {
            sqlite3_finalize(dataVersionStatement)
            sqlite3_close(connection)
            dataVersionStatement = nil
            connection = nil
        }
    }

    deinit { cancel() }

    /// `PRAGMA data_version` on the watcher's connection; call with `connectionLock` held.
    private func readDataVersion() -> Int64? {
        guard let statement = dataVersionStatement else { return nil }
        defer { sqlite3_reset(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { return nil }
        return sqlite3_column_int64(statement, 0)
    }

    /// What another connection committed since the last check, read through the watcher's connection.
    private enum Finding {
        case nothing
        case unknown
        case transactions([(HistoryHeader, [SQLiteHistory.Run])])
    }

    private func check() {
        guard let container else {
            cancel()
            return
        }
        let finding: Finding
        do {
            // The connection is used under its lock; the container is called after it is released (a
            // container whose last reference goes away in there would cancel this watcher).
            finding = try connectionLock.withLock { () throws -> Finding in
                guard let connection, let version = readDataVersion(), version != dataVersion else { return .nothing }
                dataVersion = version
                // Every save leaves a transaction row, detailed or not: a version change with no new row
                // is a deletion of history (or a write that is not Stowage's).
                let deletedThrough = try store.historyDeletedThrough(on: connection)
                let headers = try store.historyHeaders(after: lastSeen, detailedOnly: false, on: connection)
                defer { lastSeen = max(lastSeen, headers.last?.id ?? 0, deletedThrough) }
                let foreign = headers.filter { $0.origin != store.origin }
                // History not read yet was deleted (by `deleteHistory` or another process's `erase()`):
                // what it said is lost. This store's own `erase()` told its contexts already.
                let unreadHistoryDeleted = deletedThrough > lastSeen && deletedThrough != store.ownErasure.load(ordering: .acquiring)
                if unreadHistoryDeleted || foreign.contains(where: { !$0.detailed }) { return .unknown }
                guard let first = foreign.first?.id, let last = foreign.last?.id else { return .nothing }
                let runs = try store.historyRuns(from: first, through: last, on: connection)
                return .transactions(foreign.map { header in (header, runs.filter { $0.transaction == header.id }) })
            }
        } catch {
            ModelContext.logger.error("Reading the changes another process saved to \(store.path ?? "the store") failed: \(error)")
            return
        }
        switch finding {
        case .nothing: break
        case .unknown: container.receiveRemoteChanges(nil, from: store)
        case .transactions(let transactions): container.receiveRemoteChanges(transactions, from: store)
        }
    }
}

/// Something that tells a container of other processes' saves, until cancelled.
protocol StoreWatcher: AnyObject, Sendable {
    func cancel()
}

extension ModelContainer {
    /// Posted through `NotificationCenter.default` when another process (or another container on the
    /// same file) saved to one of the container's stores; the object is the container. `userInfo`
    /// holds `[PersistentIdentifier]` arrays under the raw values of
    /// ``ModelContext/NotificationKey/insertedIdentifiers``, `updatedIdentifiers` and
    /// `deletedIdentifiers`, or `true` under `invalidatedAllIdentifiers` when what changed is not
    /// known (every model may have changed). Posted on a background thread, within about 20 ms of
    /// the other process's commit. The role of Core Data's `NSPersistentStoreRemoteChange`; not in
    /// SwiftData.
    public static let storeRemoteChange = Notification.Name("StowageStoreRemoteChange")

    /// Hands other processes' transactions (or, for `nil`, "anything may have changed") to the
    /// container's contexts, to ``changes(bufferingPolicy:)`` and to ``storeRemoteChange`` observers.
    func receiveRemoteChanges(_ transactions: [(HistoryHeader, [SQLiteHistory.Run])]?, from store: any HistoryStore) {
        guard let transactions else {
            var saved = SavedChanges()
            saved.refreshAll = true
            broadcast(saved, from: ObjectIdentifier(self))
            NotificationCenter.default.post(name: Self.storeRemoteChange, object: self, userInfo: [
                ModelContext.NotificationKey.invalidatedAllIdentifiers.rawValue: true,
            ])
            return
        }
        var saved = SavedChanges()
        var all = (inserted: [PersistentIdentifier](), updated: [PersistentIdentifier](), deleted: [PersistentIdentifier]())
        for (header, runs) in transactions {
            var inserted: [PersistentIdentifier] = [], updated: [PersistentIdentifier] = [], deleted: [PersistentIdentifier] = []
            var properties: [PersistentIdentifier: Set<String>] = [:]
            for run in runs where schema.entitiesByName[run.entity] != nil {
                let identifiers = run.keys.map { PersistentIdentifier(entityName: run.entity, storeIdentifier: store.identifier, key: .row($0)) }
                switch run.kind {
                case .insert:
                    inserted += identifiers
                    saved.updated[run.entity, default: []].formUnion(run.keys)
                case .update:
                    updated += identifiers
                    saved.updated[run.entity, default: []].formUnion(run.keys)
                    for identifier in identifiers { properties[identifier, default: []].formUnion(run.properties) }
                case .delete:
                    deleted += identifiers
                    saved.deleted[run.entity, default: []].formUnion(run.keys)
                }
            }
            all.inserted += inserted
            all.updated += updated
            all.deleted += deleted
            if hasChangeSubscribers {
                publish(ModelChanges(
                    inserted: inserted, updated: updated, deleted: deleted, updatedProperties: properties, author: header.author,
                    date: header.timestamp, historyToken: DefaultHistoryToken([store.identifier: header.id]), isRemote: true))
            }
        }
        broadcast(saved, from: ObjectIdentifier(self))
        NotificationCenter.default.post(name: Self.storeRemoteChange, object: self, userInfo: [
            ModelContext.NotificationKey.insertedIdentifiers.rawValue: all.inserted,
            ModelContext.NotificationKey.updatedIdentifiers.rawValue: all.updated,
            ModelContext.NotificationKey.deletedIdentifiers.rawValue: all.deleted,
        ])
    }
}
