import Foundation
import Synchronization

/// The schema and the store of an app's models; contexts read and write through it.
///
/// ```swift
/// let container = try ModelContainer(for: Budget.self)
/// let context = ModelContext(container)
/// ```
///
/// A container is `Sendable`: share it across actors and create a ``ModelContext`` wherever you work.
/// Its ``mainContext`` is bound to the main actor and saves automatically.
public final class ModelContainer: Sendable {
    /// The schema of the container's models.
    public let schema: Schema
    /// The configurations the container was created with (one, the default, when none was given).
    public let configurations: Set<ModelConfiguration>
    /// The migration plan the container was created with, if any.
    // nonisolated(unsafe): a metatype is immutable; the protocol is not `Sendable`, as in SwiftData.
    public nonisolated(unsafe) let migrationPlan: (any SchemaMigrationPlan.Type)?

    let store: any ModelStore
    /// Why saves are refused: `nil` when some store can save, else the reason of the first store (its
    /// configuration has `allowsSave: false`, or this process cannot write its file).
    let saveRefusal: String?
    /// With several configurations, why the entities of stores that cannot save cannot, by entity name.
    let readOnlyEntities: [String: String]
    private let inboxes = Locked<[ObjectIdentifier: ContextInbox]>([:])
    /// The readers of ``changes()``.
    let subscribers = Locked<[UUID: AsyncStream<ModelChanges>.Continuation]>([:])
    let hasSubscribers = Atomic<Bool>(false)
    /// Each configuration's name with the identifier of its store, in the order they were given.
    let storeIdentifiersByConfiguration: [(name: String, storeIdentifier: String)]
    /// One per file store: notices other processes' saves (see ``StoreChangeWatcher``).
    private let watchers = Locked<[any StoreWatcher]>([])
    @MainActor private var main: ModelContext?

    /// Creates a container for model types (and every type reachable from them).
    ///
    /// - Throws: ``StowageError`` when the store cannot be opened or does not match the models.
    public convenience init(
        for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: ModelConfiguration...
    ) throws {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Creates a container for a schema.
    public convenience init(
        for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: ModelConfiguration...
    ) throws {
        try self.init(for: givenSchema, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// The seed articles' spelling: `ModelContainer(for: [Budget.self], migrationPlan: Plan.self,
    /// ModelConfiguration(for: [Budget.self]))`.
    public convenience init(
        for types: [any PersistentModel.Type], migrationPlan: (any SchemaMigrationPlan.Type)? = nil, _ configurations: ModelConfiguration...
    ) throws {
        try self.init(for: Schema(types), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Creates a container for a schema.
    ///
    /// A store whose tables were made for other models is migrated first (see the "Changing Your
    /// Models" article): by the stages of `migrationPlan` from the version the store is at, or, without
    /// a plan, by a lightweight migration. A migration is one transaction; when it fails, the store is
    /// left as it was and this initializer throws.
    ///
    /// Several configurations give several stores: each configuration's store holds the models of its
    /// `schema` (and those reachable from them), a configuration without a schema the models no other
    /// one names; each store is created, checked and migrated on its own (a plan's versions are
    /// matched against the models each store holds, and a custom stage's closures run once per store
    /// that migrates, on a context over that store's models). A relationship cannot lead from one
    /// store to another.
    ///
    /// - Throws: ``SwiftDataError``: `.duplicateConfiguration` for two configurations with one name or
    ///   URL, or holding the same model; `.configurationSchemaNotFoundInContainerSchema` for a
    ///   configuration's model outside `givenSchema`; `.loadIssueModelContainer` (code
    ///   `.cloudKitUnavailable`) for `cloudKitDatabase: .private(_:)`; and what opening or migrating
    ///   a store throws.
    public init(for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: [ModelConfiguration]) throws {
        if let problem = givenSchema.problems.first { throw problem }
        if let migrationPlan { try PlannedMigration.validate(migrationPlan) }
        let configurations = configurations.isEmpty ? [ModelConfiguration(schema: givenSchema)] : configurations
        for configuration in configurations {
            if let identifier = configuration.cloudKitContainerIdentifier {
                throw StowageError(
                    .cloudKitUnavailable,
                    "The configuration \(configuration.name) asks to sync with the CloudKit container \(identifier) (cloudKitDatabase: .private): Stowage does not sync with CloudKit. Use cloudKitDatabase: .none; the store stays local.")
            }
        }
        let assignments = try Self.assign(givenSchema, to: configurations)
        var stores: [(store: SQLiteStore, entities: [String])] = []
        var refusals: [String] = []
        var readOnly: [String: String] = [:]
        var identifiers: [(name: String, storeIdentifier: String)] = []
        for (configuration, schema) in assignments {
            let store = try SQLiteStore(
                schema: schema, url: configuration.isStoredInMemoryOnly ? nil : configuration.url,
                allowsSave: configuration.allowsSave, migrationPlan: migrationPlan, partial: assignments.count > 1,
                busyTimeout: configuration.busyTimeout, recordsHistory: configuration.recordsHistory)
            stores.append((store, schema.entities.map(\.name)))
            identifiers.append((configuration.name, store.identifier))
            let refusal: String? =
                if !configuration.allowsSave { "created with allowsSave: false" }
                else if let reason = store.unwritableReason { "opened read-only: \(reason)" }
                else { nil }
            if let refusal {
                refusals.append("The configuration \(configuration.name) was \(refusal)")
                for entity in schema.entities { readOnly[entity.name] = refusal }
            }
        }
        self.schema = givenSchema
        self.storeIdentifiersByConfiguration = identifiers
        self.configurations = Set(configurations)
        self.saveRefusal = refusals.count == assignments.count ? refusals.first : nil
        self.readOnlyEntities = assignments.count > 1 ? readOnly : [:]
        self.migrationPlan = migrationPlan
        self.store = stores.count == 1 ? stores[0].store : StoreRouter(stores)
        for (store, _) in stores {
            guard let path = store.path, let watcher = StoreChangeWatcher(store: store, path: path, container: self) else { continue }
            watchers.withLock { $0.append(watcher) }
        }
    }

    deinit {
        for watcher in watchers.withLock({ $0 }) { watcher.cancel() }
    }

    /// Which models each configuration's store holds: the container's whole schema for a single
    /// configuration; otherwise each configuration's `schema`, and the rest for the one without.
    private static func assign(_ schema: Schema, to configurations: [ModelConfiguration]) throws -> [(ModelConfiguration, Schema)] {
        guard configurations.count > 1 else { return [(configurations[0], schema)] }
        func duplicate(_ problem: String) -> StowageError {
            StowageError(.duplicateConfiguration, "The container's configurations \(problem): each configuration is a store of its own.")
        }
        for (index, configuration) in configurations.enumerated() {
            for other in configurations[..<index] {
                if other.name == configuration.name { throw duplicate("share the name \(configuration.name)") }
                if !configuration.isStoredInMemoryOnly && other.url == configuration.url {
                    throw duplicate("share the file \(configuration.url.path)")
                }
            }
        }
        var owner: [String: String] = [:]  // entity name → configuration name
        var assignments: [(ModelConfiguration, [any PersistentModel.Type])] = []
        for configuration in configurations {
            guard let own = configuration.schema else { continue }
            var types: [any PersistentModel.Type] = []
            for entity in own.entities {
                guard let containerEntity = schema.entitiesByName[entity.name] else {
                    throw StowageError(
                        .configurationSchemaNotFoundInContainerSchema,
                        "The configuration \(configuration.name) names \(entity.name), which is not part of the container's schema; add it to ModelContainer(for: ...).",
                        entityName: entity.name)
                }
                if let previous = owner.updateValue(configuration.name, forKey: entity.name) {
                    throw duplicate("\(previous) and \(configuration.name) both hold \(entity.name)")
                }
                types.append(containerEntity.modelType)
            }
            assignments.append((configuration, types))
        }
        let rest = schema.entities.filter { owner[$0.name] == nil }
        let unnamed = configurations.filter { $0.schema == nil }
        guard unnamed.count <= 1 else {
            throw duplicate("\(unnamed.map(\.name).joined(separator: " and ")) both name no models, so both would hold the others")
        }
        if let configuration = unnamed.first {
            for entity in rest { owner[entity.name] = configuration.name }
            assignments.append((configuration, rest.map(\.modelType)))
        } else if let entity = rest.first {
            throw StowageError(
                .configurationSchemaNotFoundInContainerSchema,
                "No configuration holds \(entity.name): name it in a configuration's schema, or add a configuration without a schema for the models the others do not name.",
                entityName: entity.name)
        }
        // A relationship cannot lead to another store: SQLite links rows of one file.
        for entity in schema.entities {
            for relationship in entity.relationshipList {
                guard let destination = relationship.destinationEntity, owner[destination.name] != owner[entity.name] else { continue }
                throw StowageError(
                    .invalidSchema,
                    "\(entity.name).\(relationship.name) leads to \(destination.name), which another configuration holds (\(owner[destination.name] ?? "?") rather than \(owner[entity.name] ?? "?")); a relationship cannot cross stores. Put both models in one configuration.",
                    entityName: entity.name, propertyName: relationship.name)
            }
        }
        return assignments.map { configuration, types in (configuration, Schema(types, version: schema.version)) }
    }

    /// A container over a store made elsewhere (a migration stage's, a custom data store's).
    init(schema: Schema, store: any ModelStore, configurationName: String? = nil, saveRefusal: String? = nil) {
        self.schema = schema
        self.configurations = []
        self.saveRefusal = saveRefusal
        self.readOnlyEntities = [:]
        self.migrationPlan = nil
        self.store = store
        self.storeIdentifiersByConfiguration = configurationName.map { name in
            schema.entities.first.map { [(name, store.identifier(for: $0))] } ?? []
        } ?? []
    }

    /// Creates a container for model types over the stores of any configurations: Stowage's
    /// ``ModelConfiguration``s, or the configuration of a custom ``DataStore``.
    ///
    /// ```swift
    /// let container = try ModelContainer(for: Trip.self, configurations: JSONStoreConfiguration(...))
    /// ```
    ///
    /// - Throws: What ``init(for:configurations:)-(Schema,_)`` throws.
    @_disfavoredOverload
    public convenience init(for forTypes: any PersistentModel.Type..., configurations: any DataStoreConfiguration...) throws {
        try self.init(for: Schema(forTypes), configurations: configurations)
    }

    /// Creates a container for a schema over the stores of any configurations.
    ///
    /// ``ModelConfiguration``s open Stowage's stores, as ``init(for:migrationPlan:configurations:)-(_,_,[ModelConfiguration])``
    /// does. Another configuration opens its own store: the container checks it (`validate()`), gives
    /// it the container's schema when it names none, and creates its ``DataStoreConfiguration/Store``,
    /// which holds every model of the schema. A custom store is a container's only store.
    ///
    /// - Throws: ``StowageError`` (`SwiftDataError.duplicateConfiguration`) for a custom configuration
    ///   beside others, and what the configuration's `validate()` and its store's initializer throw.
    @_disfavoredOverload
    public convenience init(for givenSchema: Schema, configurations: [any DataStoreConfiguration]) throws {
        try self.init(for: givenSchema, migrationPlan: nil, configurations: configurations)
    }

    /// Creates a container for model types over any configurations, with a migration plan (Stowage's
    /// spelling: SwiftData's initializers that take any configuration take no plan). The plan migrates
    /// Stowage's stores, and is given to a custom store's initializer.
    @_disfavoredOverload
    public convenience init(
        for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)?, configurations: any DataStoreConfiguration...
    ) throws {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// Creates a container for a schema over any configurations, with a migration plan.
    @_disfavoredOverload
    public convenience init(
        for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?, configurations: [any DataStoreConfiguration]
    ) throws {
        let own = configurations.compactMap { $0 as? ModelConfiguration }
        if own.count == configurations.count {
            try self.init(for: givenSchema, migrationPlan: migrationPlan, configurations: own)
            return
        }
        guard configurations.count == 1, let configuration = configurations.first else {
            throw StowageError(
                .duplicateConfiguration,
                "A container over a custom data store has that store only; these configurations name several stores: \(configurations.map(\.name).joined(separator: ", ")).")
        }
        if let problem = givenSchema.problems.first { throw problem }
        if let migrationPlan { try PlannedMigration.validate(migrationPlan) }
        if let postgres = configuration as? any PostgreSQLStoreConfiguration {
            // Stowage's own PostgreSQL store: queries in SQL, as on SQLite.
            let store = try PostgreSQLStore(schema: givenSchema, configuration: postgres, migrationPlan: migrationPlan)
            self.init(
                schema: givenSchema, store: store, configurationName: configuration.name,
                saveRefusal: postgres.allowsSave ? nil : "The configuration \(configuration.name) was created with allowsSave: false")
            let watcher = try PostgreSQLChangeWatcher(store: store, container: self)
            watchers.withLock { $0.append(watcher) }
            return
        }
        func open<Configuration: DataStoreConfiguration>(_ configuration: Configuration) throws -> any ModelStore {
            var configuration = configuration
            if configuration.schema == nil { configuration.schema = givenSchema }
            return try DataStoreAdapter<Configuration.Store>(configuration, migrationPlan: migrationPlan)
        }
        self.init(schema: givenSchema, store: try open(configuration), configurationName: configuration.name)
    }

    /// Early SwiftData's spelling, used by the seed articles: `ModelContainer(for: Budget.self, ModelConfiguration(inMemory: true))`.
    public convenience init(for type: any PersistentModel.Type, _ configuration: ModelConfiguration) throws {
        try self.init(for: Schema([type]), configurations: [configuration])
    }

    /// The context bound to the main actor. It saves automatically shortly after changes
    /// (``ModelContext/autosaveEnabled`` is `true`).
    @MainActor public var mainContext: ModelContext {
        if let main { return main }
        let context = ModelContext(self)
        context.autosaveEnabled = true
        context.isMainContext = true
        main = context
        return context
    }

    // MARK: - Deleting the data

    /// Deletes every model of every store of the container, keeping the stores (their files and
    /// tables): one transaction per store. Every context then treats the models it holds as deleted
    /// (those with unsaved changes as deleted elsewhere: saving them fails with `.saveConflict`).
    /// Primary keys are not reused, so an identifier of a deleted model never finds a new one.
    ///
    /// - Throws: ``StowageError`` `.readOnlyStore` when a configuration does not allow saving (nothing
    ///   is deleted), `.saveFailed` when a store fails (that store keeps its data; with several
    ///   stores, those erased before it stay erased).
    public func erase() throws {
        if let configuration = configurations.first(where: { !$0.allowsSave }) {
            throw StowageError(
                .readOnlyStore,
                "The configuration \(configuration.name) was created with allowsSave: false, so the container's data cannot be deleted. Nothing was deleted.")
        }
        var erased: [String] = []
        // Contexts hear of what was erased even when a later store fails.
        defer {
            var changes = SavedChanges()
            changes.erased = Set(erased)
            broadcast(changes, from: ObjectIdentifier(self))
        }
        try store.eraseAll(&erased)
    }

    /// Deletes every model of every store of the container: ``erase()``, which SwiftData now prefers,
    /// without `throws` (a failure is logged, as SwiftData's declaration gives no way to report it).
    public func deleteAllData() {
        do {
            try erase()
        } catch {
            ModelContext.logger.error("deleteAllData() failed: \(error)")
        }
    }

    // MARK: - Change propagation between contexts

    func register(_ inbox: ContextInbox, for context: ObjectIdentifier) {
        inboxes.withLock { $0[context] = inbox }
    }

    func unregister(_ context: ObjectIdentifier) {
        _ = inboxes.withLock { $0.removeValue(forKey: context) }
    }

    /// Whether a context other than `origin` would receive a broadcast.
    func hasListeners(besides origin: ObjectIdentifier) -> Bool {
        inboxes.withLock { $0.keys.contains { $0 != origin } }
    }

    /// Tells every other context of the container which rows a save changed or deleted; each refreshes
    /// the objects it holds on its next operation.
    func broadcast(_ changes: SavedChanges, from origin: ObjectIdentifier) {
        guard !changes.isEmpty else { return }
        let targets = inboxes.withLock { $0.filter { $0.key != origin }.map(\.value) }
        for inbox in targets { inbox.post(changes) }
    }
}

/// Rows changed by a save, by entity name.
struct SavedChanges: Sendable {
    var updated: [String: Set<Int64>] = [:]
    var deleted: [String: Set<Int64>] = [:]
    /// Entities all of whose rows were deleted (``ModelContainer/erase()``).
    var erased: Set<String> = []
    /// Whether any row may have changed (another process saved without saying what).
    var refreshAll = false
    var isEmpty: Bool { updated.isEmpty && deleted.isEmpty && erased.isEmpty && !refreshAll }

    mutating func merge(_ other: SavedChanges) {
        updated.merge(other.updated) { $0.union($1) }
        deleted.merge(other.deleted) { $0.union($1) }
        erased.formUnion(other.erased)
        refreshAll = refreshAll || other.refreshAll
    }

    /// Whether the changes may concern any of `entities` (always, when anything may have changed).
    func touches(_ entities: Set<String>) -> Bool {
        refreshAll || !erased.isDisjoint(with: entities)
            || updated.keys.contains(where: entities.contains) || deleted.keys.contains(where: entities.contains)
    }

    /// Whether the row `primaryKey` of `entity` was deleted.
    func isDeleted(_ entity: String, _ primaryKey: Int64) -> Bool {
        erased.contains(entity) || deleted[entity]?.contains(primaryKey) == true
    }
}

/// Changes saved by other contexts, waiting for a context (or a ``ResultsObserver``) to process them in
/// its own isolation.
final class ContextInbox: Sendable {
    private let pending = Locked(SavedChanges())
    /// Whether `pending` may hold changes: contexts check their inbox before every insert and fetch, so
    /// the common case (nothing posted) reads one atomic flag instead of taking the lock.
    private let hasPending = Atomic<Bool>(false)
    /// The entities whose changes matter, or `nil` for all (a context). Changes to no other entity are
    /// dropped when posted, so an observer never wakes for an unrelated save.
    private let interest: Locked<Set<String>?>
    /// Called (on the posting thread) when changes arrive in an empty inbox.
    private let wake: (@Sendable () -> Void)?

    init(interest: Set<String>? = nil, wake: (@Sendable () -> Void)? = nil) {
        self.interest = Locked(interest)
        self.wake = wake
    }

    /// Changes which entities matter from now on (`nil`: all).
    func setInterest(_ entities: Set<String>?) {
        interest.withLock { $0 = entities }
    }

    func post(_ changes: SavedChanges) {
        if let entities = interest.withLock({ $0 }), !changes.touches(entities) { return }
        pending.withLock { $0.merge(changes) }
        let wasPending = hasPending.exchange(true, ordering: .acquiringAndReleasing)
        if !wasPending { wake?() }
    }

    func take() -> SavedChanges {
        guard hasPending.exchange(false, ordering: .acquiring) else { return SavedChanges() }
        return pending.withLock { changes in
            defer { changes = SavedChanges() }
            return changes
        }
    }
}
