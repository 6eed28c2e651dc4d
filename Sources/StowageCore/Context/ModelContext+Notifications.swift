import Foundation
import Synchronization

extension ModelContext {
    /// Posted through `NotificationCenter.default` when a context is about to save changes; the object
    /// is the context. It has no `userInfo`. An observer may still change the context: the save writes
    /// what the context holds once the observers return.
    public static let willSave = Notification.Name("ModelContextWillSave")

    /// Posted through `NotificationCenter.default` after a context's save committed; the object is the
    /// context, and `userInfo` holds `[PersistentIdentifier]` arrays under the raw values of
    /// ``NotificationKey/insertedIdentifiers``, ``NotificationKey/updatedIdentifiers`` and
    /// ``NotificationKey/deletedIdentifiers``.
    ///
    /// ```swift
    /// let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: nil, queue: nil) { note in
    ///     let inserted = note.userInfo?[ModelContext.NotificationKey.insertedIdentifiers.rawValue] as? [PersistentIdentifier]
    /// }
    /// ```
    ///
    /// The notification is posted on the thread that saved. For a stream of every save of a container,
    /// across its contexts and actors, without NotificationCenter, see ``ModelContainer/changes(bufferingPolicy:)``.
    public static let didSave = Notification.Name("ModelContextDidSave")

    /// The keys of a ``didSave`` notification's `userInfo` (their raw values).
    public enum NotificationKey: String, Sendable {
        /// A query generation token: Stowage's contexts read the latest committed state, so it is absent.
        case queryGeneration
        /// `true` in a ``ModelContainer/storeRemoteChange`` notification when another process saved
        /// without saying what (every model may have changed); ``didSave`` does not carry it.
        case invalidatedAllIdentifiers
        /// The identifiers of the models the save inserted.
        case insertedIdentifiers
        /// The identifiers of the models the save changed (attributes or relationships).
        case updatedIdentifiers
        /// The identifiers of the models the save deleted (cascades included).
        case deletedIdentifiers
    }
}

/// What one save wrote: the models inserted, updated and deleted, and for each updated model the
/// properties it changed. Every save of every context of a container, through
/// ``ModelContainer/changes(bufferingPolicy:)``.
public struct ModelChanges: Sendable, Hashable {
    /// The models the save inserted.
    public let inserted: [PersistentIdentifier]
    /// The models the save changed, in no particular order.
    public let updated: [PersistentIdentifier]
    /// The models the save deleted, cascades included.
    public let deleted: [PersistentIdentifier]
    /// For each updated model, the names of the properties (attributes and relationships) it changed.
    public let updatedProperties: [PersistentIdentifier: Set<String>]
    /// The ``ModelContext/author`` of the context that saved.
    public let author: String?
    /// When the save committed.
    public let date: Date
    /// The history transactions of the save, one per store it wrote (a store it did not write counts
    /// as none read: compared with it, `$0.token > historyToken` keeps that store's whole history);
    /// `nil` when the stores record no history.
    public let historyToken: DefaultHistoryToken?
    /// Whether another process (or another container on the same file) saved these changes (see
    /// ``ModelContainer/storeRemoteChange``).
    public let isRemote: Bool

    /// The entities the save touched.
    public var entityNames: Set<String> {
        Set((inserted + updated + deleted).map(\.entityName))
    }

    /// Whether the save touched none of the models.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

extension ModelContainer {
    /// Every save of the container's contexts and actors from now on, as Sendable values (each
    /// context's saves in order; saves committed at the same moment on several threads may arrive in
    /// either order): for code that reacts to changes without NotificationCenter (a server pushing them to
    /// clients). The sequence ends when the task iterating it is cancelled.
    ///
    /// ```swift
    /// for await changes in container.changes() {
    ///     print(changes.entityNames, changes.inserted.count)
    /// }
    /// ```
    ///
    /// Changes are buffered without limit until read (`bufferingPolicy` bounds the buffer).
    public func changes(bufferingPolicy: AsyncStream<ModelChanges>.Continuation.BufferingPolicy = .unbounded) -> AsyncStream<ModelChanges> {
        AsyncStream(bufferingPolicy: bufferingPolicy) { continuation in
            let id = UUID()
            // The flag changes with the list, under its lock: a reader ending as another starts cannot
            // leave it false with a reader registered.
            subscribers.withLock { subscribers in
                subscribers[id] = continuation
                hasSubscribers.store(true, ordering: .releasing)
            }
            continuation.onTermination = { [weak self] _ in
                guard let self else { return }
                self.subscribers.withLock { subscribers in
                    subscribers.removeValue(forKey: id)
                    if subscribers.isEmpty { self.hasSubscribers.store(false, ordering: .releasing) }
                }
            }
        }
    }

    /// Whether ``ModelContainer/changes(bufferingPolicy:)`` has a reader (one atomic read: a save builds nothing for nobody).
    var hasChangeSubscribers: Bool { hasSubscribers.load(ordering: .acquiring) }

    /// Hands one save's changes to every reader of ``ModelContainer/changes(bufferingPolicy:)``.
    func publish(_ changes: ModelChanges) {
        let continuations = subscribers.withLock { Array($0.values) }
        for continuation in continuations { continuation.yield(changes) }
    }
}
