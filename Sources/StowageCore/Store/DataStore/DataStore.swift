import Foundation

/// A place a container keeps its models, for stores you write yourself: a JSON file, a web service,
/// another database.
///
/// SwiftData's custom-store API. Create a container with your store's configuration in place of a
/// ``ModelConfiguration``, and contexts read and write through your store:
///
/// ```swift
/// let configuration = JSONStoreConfiguration(name: "Trips", schema: Schema([Trip.self]), fileURL: url)
/// let container = try ModelContainer(for: Trip.self, configurations: configuration)
/// ```
///
/// The container creates the store with ``init(_:migrationPlan:)``. A context asks it for models with
/// ``fetch(_:)`` and hands it each save with ``save(_:)``; models travel as snapshots
/// (``DataStoreSnapshot``, usually ``DefaultSnapshot``), values that are `Codable`, so a store can write
/// them as they are. A store that cannot filter or sort throws ``DataStoreError/preferInMemoryFilter``
/// or ``DataStoreError/preferInMemorySort`` from `fetch`, and the context asks again without the
/// predicate or the sort and does that part itself.
///
/// Stowage's own stores (SQLite, PostgreSQL) do not go through this protocol: they take queries in SQL
/// and rows in bulk. See the "Custom Data Stores" article for what a context expects of a store.
public protocol DataStore: AnyObject {
    /// The configuration type that describes this store.
    associatedtype Configuration: DataStoreConfiguration where Self == Self.Configuration.Store
    /// The snapshot type the store reads and writes models as.
    associatedtype Snapshot: DataStoreSnapshot

    /// The identifier of the store, part of every ``PersistentIdentifier`` it gives.
    var identifier: String { get }
    /// The models the store holds.
    var schema: Schema { get }
    /// The configuration the store was created with.
    var configuration: Configuration { get }

    /// Opens the store for `configuration`; the container passes its migration plan, if any.
    init(_ configuration: Configuration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws

    /// Deletes every model the store holds (``ModelContainer/erase()``).
    func erase() throws
    /// The snapshots of the models matching `request`'s descriptor, and any related snapshots the store
    /// read with them.
    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, Snapshot>
    /// The number of models matching `request`'s descriptor.
    func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int
    /// The identifiers of the models matching `request`'s descriptor.
    func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier]
    /// Writes one save: inserted, updated and deleted models. Give each inserted snapshot a permanent
    /// identifier (``PersistentIdentifier/identifier(for:entityName:primaryKey:)``) and return the
    /// mapping from its temporary one.
    func save(_ request: DataStoreSaveChangesRequest<Snapshot>) throws -> DataStoreSaveChangesResult<Snapshot>
    /// Called when a context starts using the store.
    func initializeState(for editingState: EditingState)
    /// Called when a context stops using the store.
    func invalidateState(for editingState: EditingState)
    /// The snapshots the store still holds in memory for some identifiers, so that a context can resolve
    /// a relationship without a fetch; an empty dictionary when it keeps none.
    func cachedSnapshots(for persistentIdentifiers: [PersistentIdentifier], editingState: EditingState) throws -> [PersistentIdentifier: Snapshot]
}

extension DataStore {
    /// Counts the snapshots ``fetch(_:)`` returns.
    public func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        try fetch(request).fetchedSnapshots.count
    }

    /// The identifiers of the snapshots ``fetch(_:)`` returns.
    public func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        try fetch(request).fetchedSnapshots.map(\.persistentIdentifier)
    }

    /// Refuses: a store that can erase itself implements this.
    public func erase() throws {
        throw DataStoreError.unsupportedFeature
    }

    /// Does nothing.
    public func initializeState(for editingState: EditingState) {}

    /// Does nothing.
    public func invalidateState(for editingState: EditingState) {}

    /// Keeps nothing: an empty dictionary.
    public func cachedSnapshots(for persistentIdentifiers: [PersistentIdentifier], editingState: EditingState) throws -> [PersistentIdentifier: Snapshot] {
        [:]
    }
}

/// The description of a store: what a container is created with. ``ModelConfiguration`` is Stowage's
/// (its store is a SQLite file or memory); a custom store has its own.
public protocol DataStoreConfiguration: Hashable {
    /// The store this configuration opens.
    associatedtype Store: DataStore where Self == Self.Store.Configuration
    /// The configuration's name, unique among a container's configurations.
    var name: String { get }
    /// The models the store holds, or `nil` for all of the container's.
    var schema: Schema? { get set }
    /// Checks the configuration before the container opens its store; throws to refuse it.
    func validate() throws
}

extension DataStoreConfiguration {
    /// Accepts every configuration.
    public func validate() throws {}
}

/// A model's values as a store reads and writes them: `Codable`, so a store can keep them as they are.
public protocol DataStoreSnapshot: Codable, Sendable {
    /// The identifier of the model the snapshot holds.
    var persistentIdentifier: PersistentIdentifier { get }
    /// A snapshot of a model's current values. Related models the snapshot refers to may be added to
    /// `relatedBackingDatas`.
    init(from backingData: any BackingData, relatedBackingDatas: inout [PersistentIdentifier: any BackingData])
    /// The same values under another identifier, with references to models remapped: what a store does
    /// to an inserted snapshot once it has given it a permanent identifier.
    func copy(persistentIdentifier: PersistentIdentifier, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]?) -> Self
}

/// The values a snapshot holds.
public typealias DataStoreSnapshotValue = Codable & Sendable

/// The keys of a snapshot's encoded form: its identifier, then one key per modeled property.
public enum DataStoreSnapshotCodingKey: CodingKey, Sendable, CustomStringConvertible {
    /// The snapshot's ``DataStoreSnapshot/persistentIdentifier``.
    case persistentIdentifier
    /// A property of the model, by name.
    case modeledProperty(String)

    private static let identifierKey = "persistentIdentifier"

    /// The key's name.
    public var stringValue: String {
        switch self {
        case .persistentIdentifier: Self.identifierKey
        case .modeledProperty(let name): name
        }
    }

    /// The key named `stringValue`.
    public init?(stringValue: String) {
        self = stringValue == Self.identifierKey ? .persistentIdentifier : .modeledProperty(stringValue)
    }

    /// `nil`: snapshot keys are names.
    public var intValue: Int? { nil }

    /// `nil`: snapshot keys are names.
    public init?(intValue: Int) { nil }

    /// The key's name.
    public var description: String { stringValue }
}

/// What a custom store tells a context it cannot do.
public enum DataStoreError: Error, Hashable, Sendable {
    /// The store does not support the operation.
    case unsupportedFeature
    /// The store cannot evaluate the request's predicate: the context fetches without it and filters.
    case preferInMemoryFilter
    /// The store cannot sort as the request asks: the context fetches without the sort and sorts.
    case preferInMemorySort
    /// The request's predicate is not one the store accepts.
    case invalidPredicate
}

/// A context's request for the models matching a descriptor.
public struct DataStoreFetchRequest<T: PersistentModel>: @unchecked Sendable {
    // @unchecked: FetchDescriptor holds key paths and a predicate, values that are not marked Sendable
    // on every platform; nothing here is mutated.
    /// The descriptor: predicate, sort, limit, offset and the properties to fetch.
    public let descriptor: FetchDescriptor<T>
    /// The editing state of the context that asks.
    public let editingState: EditingState

    init(descriptor: FetchDescriptor<T>, editingState: EditingState) {
        self.descriptor = descriptor
        self.editingState = editingState
    }
}

/// The snapshots a store returns for a ``DataStoreFetchRequest``.
public struct DataStoreFetchResult<ModelType: PersistentModel, SnapshotType: DataStoreSnapshot>: @unchecked Sendable {
    // @unchecked: see DataStoreFetchRequest.
    /// The descriptor of the request.
    public let descriptor: FetchDescriptor<ModelType>
    /// A snapshot per model matching the descriptor, in its order.
    public let fetchedSnapshots: [SnapshotType]
    /// Snapshots of other models the store read along (related models), by identifier.
    public let relatedSnapshots: [PersistentIdentifier: SnapshotType]

    /// A result for `descriptor`.
    public init(descriptor: FetchDescriptor<ModelType>, fetchedSnapshots: [SnapshotType], relatedSnapshots: [PersistentIdentifier: SnapshotType] = [:]) {
        self.descriptor = descriptor
        self.fetchedSnapshots = fetchedSnapshots
        self.relatedSnapshots = relatedSnapshots
    }
}

/// One save of a context: the snapshots to insert, update and delete. Inserted snapshots have
/// temporary identifiers.
public struct DataStoreSaveChangesRequest<SnapshotType: DataStoreSnapshot>: Sendable {
    /// The editing state of the context that saves.
    public let editingState: EditingState
    /// Models new to the store, under temporary identifiers.
    public let inserted: [SnapshotType]
    /// Models whose values changed, with all their values.
    public let updated: [SnapshotType]
    /// Models deleted.
    public let deleted: [SnapshotType]

    init(editingState: EditingState, inserted: [SnapshotType], updated: [SnapshotType], deleted: [SnapshotType]) {
        self.editingState = editingState
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }
}

/// What a store reports of a save.
public final class DataStoreSaveChangesResult<T: DataStoreSnapshot>: Sendable {
    /// The store that saved.
    public let storeIdentifier: String
    /// The permanent identifier of each inserted model, by its temporary one.
    public let remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]
    /// Snapshots whose values the store changed while saving (values it computed), by identifier: the
    /// context reloads those models from them.
    public let snapshotsToReregister: [PersistentIdentifier: T]

    /// A result for the store `storeIdentifier`.
    public init(for storeIdentifier: String, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier] = [:],
                snapshotsToReregister: [PersistentIdentifier: T] = [:]) {
        self.storeIdentifier = storeIdentifier
        self.remappedIdentifiers = remappedIdentifiers
        self.snapshotsToReregister = snapshotsToReregister
    }
}

/// A store that deletes the models matching a predicate itself, without a context loading them
/// (``ModelContext/delete(model:where:includeSubclasses:)``).
public protocol DataStoreBatching: DataStore {
    /// Deletes the models matching `request`'s predicate.
    func delete<T: PersistentModel>(_ request: DataStoreBatchDeleteRequest<T>) throws
}

/// A context's request to delete the models matching a predicate.
public struct DataStoreBatchDeleteRequest<T: PersistentModel>: @unchecked Sendable {
    // @unchecked: see DataStoreFetchRequest.
    /// The editing state of the context that asks.
    public let editingState: EditingState
    /// The models to delete; all of the type's when `nil`.
    public let predicate: Predicate<T>?
    /// Whether models of subclasses of `T` are deleted too.
    public let includeSubclasses: Bool

    init(editingState: EditingState, predicate: Predicate<T>?, includeSubclasses: Bool) {
        self.editingState = editingState
        self.predicate = predicate
        self.includeSubclasses = includeSubclasses
    }
}

/// A store that keeps the history of its saves, read with ``ModelContext/fetchHistory(_:)``.
public protocol HistoryProviding<HistoryType> {
    /// The store's transaction type.
    associatedtype HistoryType: HistoryTransaction
    /// The store's transaction type, as a value.
    static var historyType: HistoryType.Type { get }
    /// The transactions matching `descriptor`.
    func fetchHistory(_ descriptor: HistoryDescriptor<HistoryType>) throws -> [HistoryType]
    /// Deletes the transactions matching `descriptor`.
    func deleteHistory(_ descriptor: HistoryDescriptor<HistoryType>) throws
}

extension HistoryProviding {
    /// `HistoryType.self`.
    public static var historyType: HistoryType.Type { HistoryType.self }
}
