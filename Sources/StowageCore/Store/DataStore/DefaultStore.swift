import Foundation

extension ModelConfiguration: DataStoreConfiguration {
    /// The store a ``ModelConfiguration`` opens, as a ``DataStore``.
    public typealias Store = DefaultStore
}

/// Stowage's own store behind the ``DataStore`` protocol: the store of a ``ModelConfiguration``.
///
/// Containers do not use it: they talk to their SQLite stores directly, in SQL. It is there for code
/// written against the protocol, a store that wraps another (caching, logging) or a test that compares a
/// custom store with Stowage's: it answers fetches and applies saves through a container of its own.
public final class DefaultStore: DataStore, DataStoreBatching {
    /// Stowage's configuration.
    public typealias Configuration = ModelConfiguration
    /// Models as ``DefaultSnapshot``s.
    public typealias Snapshot = DefaultSnapshot

    /// The configuration the store was opened with.
    public let configuration: ModelConfiguration
    /// The configuration's name.
    public let name: String
    /// The models the store holds.
    public let schema: Schema
    private let operations: ContainerBackedStore

    /// Opens the store of `configuration`, migrating it by `migrationPlan` as a container does.
    ///
    /// - Throws: ``StowageError`` (``StowageError/Code/invalidSchema``) for a configuration without a
    ///   schema, and what opening a container throws.
    public init(_ configuration: ModelConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)? = nil) throws {
        guard let schema = configuration.schema else {
            throw StowageError(.invalidSchema, "DefaultStore opens the models of its configuration's schema; this configuration (\(configuration.name)) names none. Create it with ModelConfiguration(schema:).")
        }
        self.configuration = configuration
        self.name = configuration.name
        self.schema = schema
        operations = ContainerBackedStore(container: try ModelContainer(for: schema, migrationPlan: migrationPlan, configurations: [configuration]))
    }

    /// The identifier of the store's file (or of its in-memory database).
    public var identifier: String { operations.identifier }

    /// The snapshots of the models matching the request's descriptor, predicate and sort run in SQL.
    public func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        try operations.fetch(request)
    }

    /// The number of models matching the request's descriptor, counted in SQL.
    public func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        try operations.fetchCount(request)
    }

    /// The identifiers of the models matching the request's descriptor.
    public func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        try operations.fetchIdentifiers(request)
    }

    /// Applies a save in one transaction: inserted snapshots become new rows, updated ones overwrite
    /// theirs, deleted ones are deleted with their delete rules.
    ///
    /// - Throws: ``StowageError`` when the save fails; nothing is written then.
    public func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        try operations.save(request)
    }

    /// Deletes the models matching the request's predicate, in SQL.
    public func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws {
        try operations.delete(request)
    }

    /// Deletes every model (``ModelContainer/erase()``).
    public func erase() throws {
        try operations.container.erase()
    }
}

/// A ``DataStore``'s operations answered by a container of Stowage's own: how ``DefaultStore`` and the
/// PostgreSQL store's `DataStore` face serve code written against the protocol.
package struct ContainerBackedStore {
    package let container: ModelContainer

    package init(container: ModelContainer) {
        self.container = container
    }

    /// The identifier of the container's (only) store.
    package var identifier: String {
        container.storeIdentifiersByConfiguration.first?.storeIdentifier ?? ""
    }

    /// The snapshots of the models matching the request's descriptor, predicate and sort run in SQL.
    package func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        let context = ModelContext(container)
        let models = try context.fetch(request.descriptor)
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: try models.map(snapshot))
    }

    /// The number of models matching the request's descriptor, counted in SQL.
    package func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        try ModelContext(container).fetchCount(request.descriptor)
    }

    /// The identifiers of the models matching the request's descriptor.
    package func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        try ModelContext(container).fetchIdentifiers(request.descriptor)
    }

    /// Applies a save in one transaction: inserted snapshots become new rows, updated ones overwrite
    /// theirs, deleted ones are deleted with their delete rules.
    ///
    /// - Throws: ``StowageError`` when the save fails; nothing is written then.
    package func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        let context = ModelContext(container)
        context.author = request.editingState.author
        var created: [PersistentIdentifier: any PersistentModel] = [:]
        for snapshot in request.inserted {
            let entity = try entity(named: snapshot.persistentIdentifier.entityName)
            let model = entity.modelType.init(backingData: ModelBackingData.Storage())
            try assignAttributes(of: snapshot, to: model, entity, tracked: false)
            // Its initializer did not run: relationships start empty, and are set once every model exists.
            for relationship in entity.relationshipList { relationship.accessor?.load([], into: model) }
            context.insert(model)
            created[snapshot.persistentIdentifier] = model
        }
        func model(_ id: PersistentIdentifier) -> (any PersistentModel)? {
            if let model = created[id] { return model }
            let model = context.model(for: id)
            return model.isDeleted ? nil : model
        }
        for snapshot in request.updated {
            guard let target = model(snapshot.persistentIdentifier) else {
                throw StowageError(.modelNotFound, "The updated \(snapshot.persistentIdentifier) is not in the store.", entityName: snapshot.persistentIdentifier.entityName)
            }
            try assignAttributes(of: snapshot, to: target, try entity(named: snapshot.persistentIdentifier.entityName), tracked: true)
        }
        for snapshot in request.inserted + request.updated {
            guard let target = model(snapshot.persistentIdentifier) else { continue }
            for relationship in try entity(named: snapshot.persistentIdentifier.entityName).relationshipList {
                let related: [AnyObject]
                switch snapshot.values[relationship.name] {
                case .reference(let id)?: related = id.flatMap(model).map { [$0] } ?? []
                case .references(let ids)?: related = ids.compactMap(model)
                default: continue
                }
                relationship.accessor?.assign(related, to: target)
            }
        }
        for snapshot in request.deleted {
            if let target = model(snapshot.persistentIdentifier) { context.delete(target) }
        }
        try context.save()
        return DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: created.mapValues(\.persistentModelID))
    }

    /// Deletes the models matching the request's predicate, in SQL.
    package func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws {
        let context = ModelContext(container)
        context.author = request.editingState.author
        try context.delete(model: T.self, where: request.predicate, includeSubclasses: request.includeSubclasses)
        try context.save()
    }


    private func entity(named name: String) throws -> Schema.Entity {
        guard let entity = container.schema.entitiesByName[name] else {
            throw StowageError(.unknownModelType, "A snapshot names the entity \(name), which is not part of the store's schema.", entityName: name)
        }
        return entity
    }

    /// Sets the model's attributes to the snapshot's: through their setters (`tracked`), or, for a model
    /// made without its initializer, straight into its storage.
    private func assignAttributes(of snapshot: DefaultSnapshot, to model: any PersistentModel, _ entity: Schema.Entity, tracked: Bool) throws {
        for attribute in entity.attributeList {
            guard let value = snapshot.values[attribute.name]?.storageValue else { continue }
            if tracked {
                try attribute.accessor.assign(value, to: model)
            } else {
                try attribute.accessor.load(value, into: model)
            }
        }
    }

    /// A model's snapshot, with its relationships loaded.
    private func snapshot(_ model: some PersistentModel) throws -> DefaultSnapshot {
        guard let entity = model.persistentBackingData.entity else {
            preconditionFailure("A fetched model has its entity")
        }
        for relationship in entity.relationshipList { _ = model[keyPath: relationship.keypath] }
        var related: [PersistentIdentifier: any BackingData] = [:]
        return DefaultSnapshot(from: try ModelSnapshots.backingData(of: model, entity: entity, stored: nil), relatedBackingDatas: &related)
    }
}
