import Foundation
import Logging

/// Fetches, inserts and deletes models, tracks their changes and saves them.
///
/// ```swift
/// let context = ModelContext(container)
/// let budget = Budget(name: "Groceries", limit: 500)
/// context.insert(budget)
/// try context.save()
/// let budgets = try context.fetch(FetchDescriptor<Budget>(sortBy: [SortDescriptor(\.name)]))
/// ```
///
/// A context holds one object per stored row (its identity map): fetching the same row twice returns
/// the same object. Unsaved inserts, changes and deletions are visible to the context's own fetches and
/// invisible to other contexts until ``save()``. After another context of the container saves, this
/// context refreshes the objects it holds on its next operation (a property with an unsaved change keeps it).
///
/// A context is not `Sendable`: use it from one actor or thread. The container's
/// ``ModelContainer/mainContext`` belongs to the main actor.
///
/// Models do not keep their context alive, as in SwiftData: keep the context while you use its models.
/// A context released with unsaved changes discards them, and its models' ``PersistentModel/modelContext``
/// becomes `nil`; a model still held loads what it had not loaded through its container (new objects,
/// one query per property), where SwiftData would trap.
public final class ModelContext {
    /// The container the context reads from and saves to.
    public let container: ModelContainer

    /// Whether the context saves by itself shortly after changes. `false` by default; `true` for the
    /// container's ``ModelContainer/mainContext``.
    ///
    /// Autosave runs where the context is used, once the code that changed it is done: on the main actor
    /// for the main context and contexts used on the main thread, and on a ``ModelActor``'s executor for
    /// the actor's context (after the executor's current job: soon after the call that made the change,
    /// though a caller that calls the actor again at once may run first). A context used on some other
    /// thread has no such place to run it and saves when you call ``save()``.
    @exclusivity(unchecked) public var autosaveEnabled = false {
        didSet { if autosaveEnabled && hasChanges { scheduleAutosave() } }
    }

    /// A name recorded as the author of the context's saves.
    public var author: String?

    /// The undo manager that records the context's inserts, deletes, attribute and relationship
    /// changes, or `nil` (the default) for none. `UndoManager` belongs to the main actor: give one only
    /// to a context used on the main actor (``ModelContainer/mainContext``). On Linux, Stowage provides
    /// `UndoManager` with Foundation's API. Undoing a saved deletion inserts the model again (with a new
    /// identifier).
    @exclusivity(unchecked) public var undoManager: UndoManager?
    /// The object the context's undo actions are registered with (see `registerUndo`).
    lazy var undoTarget = UndoTarget(self)

    /// Strict predicate mode: when `true`, a fetch whose predicate or sort cannot run entirely in SQL
    /// throws ``StowageError/Code/unsupportedPredicate`` instead of evaluating the remainder in Swift.
    /// Defaults to `true` when the environment variable `STOWAGE_STRICT_PREDICATES` is `1`.
    public var requiresSQLTranslation = ModelContext.strictPredicatesByDefault

    /// `STOWAGE_STRICT_PREDICATES=1`, read once: reading the environment costs ~340k instructions, which
    /// every context made for a request or a task would pay.
    private static let strictPredicatesByDefault = ProcessInfo.processInfo.environment["STOWAGE_STRICT_PREDICATES"] == "1"

    let schema: Schema
    let store: any ModelStore
    let inbox = ContextInbox()
    /// What the context's models refer to (they do not retain the context itself).
    let link: ModelContextLink
    // The change sets and flags below are read on every change of a model: their dynamic exclusivity
    // checks cost a runtime call each (five per property write) and could only catch a data race, which
    // they do not reliably catch anyway (a context is not Sendable).
    @exclusivity(unchecked) var isMainContext = false
    @exclusivity(unchecked) private var autosaveScheduled = false
    /// The serial queue of the ``DefaultSerialModelExecutor`` that owns the context, where its autosave
    /// runs (see ``autosaveEnabled``).
    @exclusivity(unchecked) var autosaveQueue: DispatchQueue?
    /// The identity of the context's ``editingState``.
    var editingStateID = UUID()

    /// One entry per stored row with a live object. Entries do not retain their object: a model that
    /// nobody else holds is released and its entry removed, so iterating millions of rows keeps memory
    /// flat. Models with unsaved changes are retained by the change sets below.
    let registered: IdentityMap
    @exclusivity(unchecked) var inserted = ModelSet(.inserted)
    @exclusivity(unchecked) var changed = ModelSet(.changed)
    @exclusivity(unchecked) var deleted = ModelSet(.deleted)
    /// Emptied snapshot boxes that saves and rollbacks gave back, for the next changed models (see
    /// `PropertySnapshots`).
    @exclusivity(unchecked) var snapshotBoxes: [PropertySnapshots.Box] = []
    /// Misuse detected by non-throwing methods (`insert` of a deleted model…), thrown by the next save.
    @exclusivity(unchecked) var pendingErrors: [StowageError] = []
    /// The ``ResultsObserver``s that follow this context's unsaved changes, told of each one.
    @exclusivity(unchecked) var pendingChangeListeners: [ObjectIdentifier: PendingChangeListenerReference] = [:]
    /// The storage key paths of the last properties changed, with their entity and index (see
    /// `propertyIndex(of:in:)`).
    @exclusivity(unchecked) private var recentKeyPaths: [(keyPath: AnyKeyPath, entity: Schema.Entity, index: Int)] = []

    static let logger = Logger(label: "Stowage")

    /// Creates a context for a container.
    public init(_ container: ModelContainer) {
        self.container = container
        self.schema = container.schema
        self.store = container.store
        let link = ModelContextLink(container: container)
        self.link = link
        self.registered = link.registered
        link.context = self
        container.register(inbox, for: ObjectIdentifier(self))
    }

    /// A released context takes its unsaved changes with it (see ``releaseModels()``).
    deinit {
        container.unregister(ObjectIdentifier(self))
        releaseModels()
    }

    // MARK: - State

    /// Whether the context has inserts, changes or deletions not yet saved.
    public var hasChanges: Bool { !inserted.isEmpty || !changed.isEmpty || !deleted.isEmpty }

    /// The models inserted since the last save, in insertion order.
    public var insertedModelsArray: [any PersistentModel] { inserted.models }

    /// The models changed since the last save.
    public var changedModelsArray: [any PersistentModel] { changed.models }

    /// The models deleted since the last save.
    public var deletedModelsArray: [any PersistentModel] { deleted.models }

    func entity(for type: any PersistentModel.Type) throws -> Schema.Entity {
        guard let entity = schema.entity(forType: type) else { throw unknownModelType(type) }
        return entity
    }

    /// The error for a model type outside the schema.
    func unknownModelType(_ type: any PersistentModel.Type) -> StowageError {
        let name = String(describing: type)
        if schema.entitiesByName[name] != nil {
            return StowageError(
                .unknownModelType,
                "\(String(reflecting: type)) is not the schema's class for entity \(name), and does not store the same properties (another version's class?). In a migration stage, use the class of the version the closure runs on: willMigrate the old one's, didMigrate the new one's.",
                entityName: name)
        }
        return StowageError(
            .unknownModelType,
            "\(name) is not part of the container's schema. Add it to ModelContainer(for: ...) or make it reachable through a relationship.",
            entityName: name)
    }

    // MARK: - Insert and delete

    /// Registers a new model; the next save writes it.
    ///
    /// Inserting a model that is already in the context does nothing. Misuse (a model of a type outside
    /// the schema, a model whose deletion was saved, a model of another context) makes the next
    /// ``save()`` throw a ``StowageError`` naming it.
    public func insert<T: PersistentModel>(_ model: T) {
        processInbox()
        let data = model.persistentBackingData
        if data.state != .detached, data.link !== link {
            let owner = data.context == nil ? "a ModelContext that was released" : "another ModelContext"
            pendingErrors.append(StowageError(
                .foreignModel, "A \(T.self) that belongs to \(owner) was inserted; fetch it in this context with model(for:) instead.",
                entityName: data.entity?.name))
            return
        }
        switch data.state {
        case .detached:
            // The model's own class: a subclass instance inserted through a superclass-typed reference
            // is stored as the subclass.
            guard let entity = schema.entity(forType: type(of: model)) else {
                pendingErrors.append(unknownModelType(type(of: model)))
                return
            }
            data.link = link
            data.entity = entity
            data.state = .inserted
            inserted.insert(model)
            if undoManager != nil { registerUndoOfInsert(model) }
            noteChange()
            // Inserting a model inserts every model reachable from it.
            for relationship in entity.relationshipList {
                guard let accessor = relationship.accessor, accessor.isLoaded(model) else { continue }
                for related in accessor.related(model) {
                    let related = related as! any PersistentModel
                    if related.persistentBackingData.state == .detached { insert(related) }
                }
            }
        case .deleted:
            // Inserting a model deleted in this context undoes the deletion.
            deleted.remove(model)
            if data.rowDeletedElsewhere {
                removeDeletedElsewhere(data)
                pendingErrors.append(StowageError(
                    .deletedModel, "A \(T.self) whose row another context deleted was inserted again. Create a new model instead.",
                    entityName: data.entity?.name))
                return
            }
            data.state = .persisted
            if !data.changedProperties.isEmpty { changed.insert(model) }
        case .removed:
            pendingErrors.append(StowageError(
                .deletedModel, "A \(T.self) whose deletion was saved was inserted again. Create a new model instead.",
                entityName: data.entity?.name))
        case .inserted, .persisted:
            break
        }
    }

    /// Marks a model for deletion; the next save removes its row.
    ///
    /// Deleting a model inserted but never saved simply discards it.
    public func delete<T: PersistentModel>(_ model: T) {
        processInbox()
        let data = model.persistentBackingData
        guard data.context === self else { return }
        switch data.state {
        case .inserted:
            if undoManager != nil { registerUndoOfDelete(model, wasInserted: true) }
            inserted.remove(model)
            data.state = .detached
            if let entity = data.entity {
                // Unsaved models its cascade relationships hold go with it.
                for relationship in entity.relationshipList where relationship.deleteRule == .cascade {
                    guard let accessor = relationship.accessor, accessor.isLoaded(model) else { continue }
                    for related in accessor.related(model) {
                        let related = related as! any PersistentModel
                        delete(related)
                    }
                }
                // An unsaved model leaves the graph: the models it was related to forget it.
                for relationship in entity.relationshipList {
                    guard let accessor = relationship.accessor, accessor.isLoaded(model) else { continue }
                    for inverse in relationship.inverses {
                        for related in accessor.related(model) { RelationshipGraph.unlink(model, from: related, through: inverse) }
                    }
                }
            }
            detach(data)
            noteChange()
        case .persisted:
            if undoManager != nil { registerUndoOfDelete(model, wasInserted: false) }
            data.state = .deleted
            changed.remove(model)
            deleted.insert(model)
            noteChange()
        case .detached, .deleted, .removed:
            break
        }
    }

    /// Marks every model of a type matching a predicate for deletion; the next save removes them.
    ///
    /// - Parameters:
    ///   - model: The model type.
    ///   - predicate: The condition, or `nil` for every model of the type.
    ///   - includeSubclasses: Whether models of `T`'s model subclasses are deleted too (the default);
    ///     `false` deletes only the models whose class is `T` itself.
    public func delete<T: PersistentModel>(model: T.Type, where predicate: Predicate<T>? = nil, includeSubclasses: Bool = true) throws {
        let exact = !includeSubclasses && schema.entity(for: T.self)?.subentityList.isEmpty == false
        for object in try fetch(FetchDescriptor<T>(predicate: predicate)) where !exact || type(of: object) == T.self {
            delete(object)
        }
    }

    // MARK: - Change tracking (called by model accessors)

    func propertyWillChange<Model: PersistentModel, Value>(
        _ model: Model, _ data: ModelBackingData, storage: ReferenceWritableKeyPath<Model, Value?>
    ) {
        guard let entity = data.entity, let index = propertyIndex(of: storage, in: entity) else { return }
        propertyWillChange(model, data, entity: entity, index: index)
    }

    /// The index of the property a generated setter's storage key path names. A key path literal is one
    /// object per call site for the life of the process, so the last ones seen are compared by identity
    /// first: hashing a key path for the entity's dictionary costs more than the rest of the change
    /// tracking. The context holds the key paths it remembers, so an address cannot be reused meanwhile.
    private func propertyIndex(of keyPath: AnyKeyPath, in entity: Schema.Entity) -> Int? {
        for entry in recentKeyPaths where entry.keyPath === keyPath && entry.entity === entity { return entry.index }
        guard let index = entity.propertyIndex(for: keyPath) else { return nil }
        if recentKeyPaths.count == 16 { recentKeyPaths.removeFirst() }
        recentKeyPaths.append((keyPath, entity, index))
        return index
    }

    func relationshipWillChange(_ model: any PersistentModel, _ data: ModelBackingData, relationship: Schema.Relationship) {
        guard let entity = data.entity else { return }
        propertyWillChange(model, data, entity: entity, index: relationship.index)
    }

    /// Records that a property of `model` is about to change: its value before the first change since
    /// the last save is kept for `rollback()`, and the undo manager, if any, learns how to undo it.
    func propertyWillChange(_ model: any PersistentModel, _ data: ModelBackingData, entity: Schema.Entity, index: Int) {
        if undoManager != nil { registerUndoOfChange(model, data, entity: entity, index: index) }
        if !data.changedProperties.contains(index) {
            data.snapshot.record(snapshot(of: entity.properties[index], in: model), at: index, reusing: &snapshotBoxes)
            data.changedProperties.insert(index)
        }
        if data.state == .persisted, changed.insert(model) {
            noteChange()
        } else if !pendingChangeListeners.isEmpty {
            notifyPendingChangeListeners()
        }
    }

    func insertedModelDidChange() { noteChange() }

    /// A model whose row is gone (its deletion was saved here, another context or process deleted it, or
    /// an upsert merged it into the row's object) is being changed: the change cannot be saved, so the
    /// next save throws rather than dropping it silently.
    func removedModelWillChange(_ model: any PersistentModel, _ data: ModelBackingData, storage: AnyKeyPath) {
        let property = data.entity.flatMap { entity in entity.propertyIndex(for: storage).map { entity.properties[$0].name } }
        let type = data.entity?.name ?? String(describing: type(of: model))
        let error = StowageError(
            .saveConflict,
            "\(type)\(property.map { ".\($0)" } ?? "") was changed after the model's row was deleted (by a save of this context, another context or process, or merged into another object by an upsert): the change cannot be saved. Check isDeleted before changing a model; rollback() discards the change.",
            entityName: data.entity?.name, propertyName: property)
        if !pendingErrors.contains(where: { $0.message == error.message }) { pendingErrors.append(error) }
    }

    private func snapshot(of property: any SchemaProperty, in model: AnyObject) -> Any {
        if let attribute = property as? Schema.Attribute { return attribute.accessor.snapshot(model) }
        if let relationship = property as? Schema.Relationship, let accessor = relationship.accessor {
            return accessor.snapshot(model)
        }
        return ()
    }

    private func restore(_ snapshot: Any, of property: any SchemaProperty, in model: AnyObject) {
        if let attribute = property as? Schema.Attribute {
            attribute.accessor.restore(snapshot, into: model)
        } else if let relationship = property as? Schema.Relationship {
            relationship.accessor?.restore(snapshot, into: model)
        }
    }

    // MARK: - Rollback and transactions

    /// Discards every unsaved insert, change and deletion, restoring every property of every changed
    /// model to its last saved value.
    public func rollback() {
        processInbox()
        defer { if !pendingChangeListeners.isEmpty { notifyPendingChangeListeners() } }
        for model in inserted.models { detach(model.persistentBackingData) }
        for model in changed.models + deleted.models { discardChanges(of: model) }
        inserted.removeAll()
        changed.removeAll()
        deleted.removeAll()
        pendingErrors = []
    }

    /// Restores every changed property of a changed or deleted model to its saved value, and undoes its
    /// deletion.
    func discardChanges(of model: any PersistentModel) {
        let data = model.persistentBackingData
        if let entity = data.entity {
            for index in data.changedProperties {
                if let value = data.snapshot[index] { restore(value, of: entity.properties[index], in: model) }
            }
        }
        data.changedProperties.removeAll()
        data.snapshot.recycle(into: &snapshotBoxes)
        if data.rowDeletedElsewhere {
            removeDeletedElsewhere(data)
        } else {
            data.state = .persisted
        }
    }

    /// A model whose row another context deleted, once nothing of it is left to save: it reports
    /// `isDeleted` and leaves the identity map.
    private func removeDeletedElsewhere(_ data: ModelBackingData) {
        data.state = .removed
        if let entity = data.entity, case .row(let pk)? = data.key {
            registered.removeValue(forKey: RowKey(entity: entity, primaryKey: pk), ifRegistered: data.modelIdentifier)
        }
    }

    /// Makes a model a plain object again. It forgets the container's entity too: a detached model can
    /// outlive its container, and relationship changes then use the model type's standalone entity.
    func detach(_ data: ModelBackingData) {
        data.state = .detached
        data.link = nil
        data.entity = nil
    }

    /// Runs `block`, then saves. If `block` throws, the context rolls back and the error propagates.
    public func transaction(block: () throws -> Void) throws {
        do {
            try block()
        } catch {
            rollback()
            throw error
        }
        try save()
    }

    /// Applies changes saved by other contexts to the objects this context holds. Fetches and saves do
    /// this on their own.
    public func processPendingChanges() {
        processInbox()
    }

    // MARK: - Autosave

    private func noteChange() {
        if autosaveEnabled { scheduleAutosave() }
        if !pendingChangeListeners.isEmpty { notifyPendingChangeListeners() }
    }

    private func notifyPendingChangeListeners() {
        for (id, reference) in pendingChangeListeners {
            if let listener = reference.listener { listener.contextDidChange() } else { pendingChangeListeners[id] = nil }
        }
    }

    private func scheduleAutosave() {
        guard !autosaveScheduled else { return }
        if let queue = autosaveQueue {
            // After the executor's current job (which made the change).
            autosaveScheduled = true
            nonisolated(unsafe) let context = self
            queue.async { context.autosave() }
            return
        }
        guard isMainContext || Thread.isMainThread else { return }
        autosaveScheduled = true
        // The context is only used on the main thread (checked above), where this task runs.
        nonisolated(unsafe) let context = self
        Task { @MainActor in context.autosave() }
    }

    private func autosave() {
        autosaveScheduled = false
        guard autosaveEnabled, hasChanges else { return }
        do {
            try save()
        } catch {
            Self.logger.error("Autosave failed; the changes stay in the context: \(error)")
        }
    }
}

/// Told of a context's unsaved changes as they happen (in the context's isolation).
protocol PendingChangeListener: AnyObject {
    func contextDidChange()
}

/// A context's weak reference to a ``PendingChangeListener``.
struct PendingChangeListenerReference {
    weak var listener: (any PendingChangeListener)?
}

/// Models in insertion order, with constant-time membership: each set has a bit in the models'
/// backing data (a hash of every inserted model's identity cost ~700 instructions per insert).
struct ModelSet {
    private let member: ModelBackingData.Membership
    private var order: [any PersistentModel] = []

    init(_ member: ModelBackingData.Membership) { self.member = member }

    var isEmpty: Bool { order.isEmpty }
    var models: [any PersistentModel] { order }

    @discardableResult
    mutating func insert(_ model: any PersistentModel) -> Bool {
        let data = model.persistentBackingData
        guard !data.membership.contains(member) else { return false }
        data.membership.insert(member)
        order.append(model)
        return true
    }

    mutating func remove(_ model: any PersistentModel) {
        let data = model.persistentBackingData
        guard data.membership.contains(member) else { return }
        data.membership.remove(member)
        if let position = order.lastIndex(where: { $0 === model }) { order.remove(at: position) }
    }

    mutating func removeAll() {
        for model in order { model.persistentBackingData.membership.remove(member) }
        order = []
    }
}
