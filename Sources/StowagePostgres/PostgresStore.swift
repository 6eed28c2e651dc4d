import Foundation
import StowageCore

/// The PostgreSQL store behind the ``DataStore`` protocol: the store of a ``PostgresConfiguration``.
///
/// Containers do not use it: they query PostgreSQL in SQL directly. It is there for code written
/// against the protocol, as ``DefaultStore`` is for SQLite.
public final class PostgresStore: DataStore, DataStoreBatching {
    /// The PostgreSQL configuration.
    public typealias Configuration = PostgresConfiguration
    /// Models as ``DefaultSnapshot``s.
    public typealias Snapshot = DefaultSnapshot

    /// The configuration the store was opened with.
    public let configuration: PostgresConfiguration
    /// The models the store holds.
    public let schema: Schema
    private let operations: ContainerBackedStore

    /// Opens the database of `configuration`.
    ///
    /// - Throws: ``StowageError`` (``StowageError/Code/invalidSchema``) for a configuration without a
    ///   schema, and what opening a container throws.
    public init(_ configuration: PostgresConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)? = nil) throws {
        guard let schema = configuration.schema else {
            throw StowageError(.invalidSchema, "PostgresStore opens the models of its configuration's schema; this configuration (\(configuration.name)) names none.")
        }
        self.configuration = configuration
        self.schema = schema
        operations = ContainerBackedStore(container: try ModelContainer(for: schema, migrationPlan: migrationPlan, configurations: [configuration]))
    }

    /// The database's store identifier, the same in every process that uses it.
    public var identifier: String { operations.identifier }

    /// The snapshots of the models matching the request's descriptor, queried in SQL.
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

    /// Applies a save in one transaction.
    public func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        try operations.save(request)
    }

    /// Deletes the models matching the request's predicate.
    public func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws {
        try operations.delete(request)
    }

    /// Deletes every model.
    public func erase() throws {
        try operations.container.erase()
    }
}
