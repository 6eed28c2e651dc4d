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
    /// The configurations the container was created with.
    public let configurations: [ModelConfiguration]
    /// The migration plan the container was created with, if any.
    // nonisolated(unsafe): a metatype is immutable; the protocol is not `Sendable`, as in SwiftData.
    public nonisolated(unsafe) let migrationPlan: (any SchemaMigrationPlan.Type)?

    let store: any ModelStore
    let allowsSave: Bool
    private let inboxes = Locked<[ObjectIdentifier: ContextInbox]>([:])
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
    /// A store whose tables were made for other models is migrated first (see "Changing your models"
    /// in the README): by the stages of `migrationPlan` from the version the store is at, or, without
    /// a plan, by a lightweight migration. A migration is one transaction; when it fails, the store is
    /// left as it was and this initializer throws.
    ///
    /// Stowage opens one store per container: pass at most one configuration.
    public init(for givenSchema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: [ModelConfiguration]) throws {
        guard configurations.count <= 1 else {
            throw StowageError(
                .invalidSchema,
                "Stowage stores a container's models in one store: pass one ModelConfiguration (got \(configurations.count)).")
        }
        if let problem = givenSchema.problems.first { throw problem }
        if let migrationPlan { try PlannedMigration.validate(migrationPlan) }
        let configuration = configurations.first ?? ModelConfiguration(schema: givenSchema)
        self.schema = givenSchema
        self.configurations = [configuration]
        self.allowsSave = configuration.allowsSave
        self.migrationPlan = migrationPlan
        self.store = try SQLiteStore(
            schema: givenSchema, url: configuration.isStoredInMemoryOnly ? nil : configuration.url,
            allowsSave: configuration.allowsSave, migrationPlan: migrationPlan)
    }

    /// A container over a store made elsewhere (a migration stage's).
    init(schema: Schema, store: any ModelStore) {
        self.schema = schema
        self.configurations = []
        self.allowsSave = true
        self.migrationPlan = nil
        self.store = store
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
    var isEmpty: Bool { updated.isEmpty && deleted.isEmpty }

    mutating func merge(_ other: SavedChanges) {
        updated.merge(other.updated) { $0.union($1) }
        deleted.merge(other.deleted) { $0.union($1) }
    }
}

/// Changes saved by other contexts, waiting for a context to process them in its own isolation.
final class ContextInbox: Sendable {
    private let pending = Locked(SavedChanges())
    /// Whether `pending` may hold changes: contexts check their inbox before every insert and fetch, so
    /// the common case (nothing posted) reads one atomic flag instead of taking the lock.
    private let hasPending = Atomic<Bool>(false)

    func post(_ changes: SavedChanges) {
        pending.withLock { $0.merge(changes) }
        hasPending.store(true, ordering: .releasing)
    }

    func take() -> SavedChanges {
        guard hasPending.exchange(false, ordering: .acquiring) else { return SavedChanges() }
        return pending.withLock { changes in
            defer { changes = SavedChanges() }
            return changes
        }
    }
}
