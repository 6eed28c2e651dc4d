import Foundation

/// A custom ``DataStore`` behind a context's store boundary.
///
/// Contexts speak to every store in queries and change sets; this turns them into the protocol's
/// snapshots. Fetches hand the store the user's ``FetchDescriptor`` (without its limit and offset,
/// which the context applies after merging its unsaved changes); a store that prefers it leaves the
/// predicate or the sort to the context, which evaluates both in Swift whatever the store did. Models
/// are filed under the stand-in row keys of their identifiers (see `CustomPrimaryKeys`).
///
/// The adapter keeps the last snapshot it saw of each model: a relationship or an attribute a model has
/// not loaded is read from it, and a save writes each model whole. Calls into the store are serialized:
/// a `DataStore` is not `Sendable`.
final class DataStoreAdapter<Store: DataStore>: ModelStore, @unchecked Sendable {
    let store: Store
    private let lock = NSRecursiveLock()
    /// The last snapshot seen of each model, by entity name and stand-in key.
    private var snapshots: [SnapshotKey: DefaultSnapshot] = [:]
    /// Whether every snapshot of each entity has been read (so that a scan of `snapshots` is complete).
    private var completeEntities: Set<String> = []

    private struct SnapshotKey: Hashable {
        let entity: String
        let key: Int64
    }

    init(_ configuration: Store.Configuration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        try configuration.validate()
        store = try Store(configuration, migrationPlan: migrationPlan)
    }

    private func locked<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    var acceptsDescriptors: Bool { true }

    func identifier(for entity: Schema.Entity) -> String { store.identifier }

    // MARK: Reading

    func fetch(_ query: StoreQuery, _ body: (StoreRow) throws -> Void) throws {
        let matches = try locked { try snapshots(matching: query) }
        var row: [StorageValue] = []
        for snapshot in matches {
            row.removeAll(keepingCapacity: true)
            row.append(.integer(try standInKey(snapshot.persistentIdentifier)))
            for attribute in query.attributes {
                row.append(snapshot.values[attribute.name]?.storageValue ?? .null)
            }
            for relationship in query.foreignKeys {
                if case .reference(let id?)? = snapshot.values[relationship.name] {
                    row.append(.integer(try standInKey(id)))
                } else {
                    row.append(.null)
                }
            }
            if query.entity.isInHierarchy { row.append(.text(snapshot.persistentIdentifier.entityName)) }
            try row.withUnsafeBufferPointer { try body(StoreRow(values: $0)) }
        }
    }

    func count(_ query: StoreQuery) throws -> Int {
        try locked { try snapshots(matching: query).count }
    }

    func primaryKeys(_ query: StoreQuery) throws -> [Int64] {
        try locked { try snapshots(matching: query).map { try standInKey($0.persistentIdentifier) } }
    }

    func externalValue(_ attribute: Schema.Attribute, of entity: Schema.Entity, primaryKey: Int64) throws -> StorageValue {
        try locked {
            guard let snapshot = try snapshot(of: entity, primaryKey) else {
                throw StowageError(.modelNotFound, "\(entity.name) \(primaryKey) is no longer in the data store \(store.identifier).", entityName: entity.name)
            }
            return snapshot.values[attribute.name]?.storageValue ?? .null
        }
    }

    func fetchRelated(_ relationship: Schema.Relationship, owners: [Int64], columns query: StoreQuery,
                      _ body: (Int64, StoreRow) throws -> Void) throws {
        guard let ownerEntity = relationship.entity, let destination = relationship.destinationEntity else { return }
        let related: [(owner: Int64, keys: [Int64])] = try locked {
            var related: [(Int64, [Int64])] = []
            // The to-one side is the one a save always writes (as a foreign key in SQL): members of a
            // to-many whose inverse is a to-one are the destinations that point back at the owner, in
            // the order of the owner's list where it has them.
            var pointingBack: [Int64: [Int64]]?
            if let inverse = relationship.inverse, inverse.isToOneRelationship {
                var byOwner: [Int64: [Int64]] = [:]
                for snapshot in try allSnapshots(of: destination) {
                    guard case .reference(let owner?)? = snapshot.values[inverse.name] else { continue }
                    byOwner[try standInKey(owner), default: []].append(try standInKey(snapshot.persistentIdentifier))
                }
                pointingBack = byOwner
            }
            for owner in owners {
                var listed: [Int64] = []
                switch try snapshot(of: ownerEntity, owner)?.values[relationship.name] {
                case .references(let ids)?: listed = try ids.map(standInKey)
                case .reference(let id?)?: listed = [try standInKey(id)]
                default: break
                }
                guard let pointing = pointingBack?[owner] else {
                    related.append((owner, pointingBack == nil ? listed : []))
                    continue
                }
                let members = Set(pointing)
                let ordered = listed.filter { members.contains($0) }
                let rest = Set(ordered)
                related.append((owner, ordered + pointing.filter { !rest.contains($0) }.sorted(by: >)))
            }
            return related
        }
        var columns = query
        for (owner, keys) in related where !keys.isEmpty {
            columns.primaryKeys = keys
            // Keep the owner's order: the query returns rows by key.
            var rows: [Int64: [StorageValue]] = [:]
            try fetch(columns) { row in
                rows[row.primaryKey] = [.integer(row.primaryKey)] + (0..<(columns.attributes.count + columns.foreignKeys.count + (destination.isInHierarchy ? 1 : 0))).map { row.value(at: $0) }
            }
            for key in keys {
                guard let values = rows[key] else { continue }  // a reference to a model deleted since
                try values.withUnsafeBufferPointer { try body(owner, StoreRow(values: $0)) }
            }
        }
    }

    /// The snapshots `query` selects: the entity's (and its subclasses'), restricted to its keys and
    /// filter, in its order, within its offset and limit.
    private func snapshots(matching query: StoreQuery) throws -> [DefaultSnapshot] {
        var matches: [DefaultSnapshot]
        if let keys = query.primaryKeys {
            matches = []
            for key in keys {
                if let snapshot = try snapshot(of: query.entity, key) { matches.append(snapshot) }
            }
        } else {
            matches = try fetchSnapshots(of: query.entity, descriptor: query.descriptor)
        }
        if let filter = query.filter {
            matches = try matches.filter { try Self.evaluate(filter, key: try standInKey($0.persistentIdentifier), query) }
        }
        // Stand-ins grow in the order keys were first seen. A query over a custom store sorts by nothing
        // or by its primary key (keyset paging): predicates' sorts run in Swift.
        let descending = query.sort.first.map { $0.expression == .primaryKey && !$0.ascending } ?? false
        if query.descriptor == nil || query.primaryKeys != nil || !query.sort.isEmpty {
            let keyed = try matches.map { (try standInKey($0.persistentIdentifier), $0) }
            matches = keyed.sorted { descending ? $0.0 > $1.0 : $0.0 < $1.0 }.map(\.1)
        }
        if let offset = query.offset { matches = Array(matches.dropFirst(offset)) }
        if let limit = query.limit { matches = Array(matches.prefix(limit)) }
        return matches
    }

    /// The filters contexts add to queries of a custom store: comparisons of the primary key with
    /// constants (keyset paging), and their combinations. Predicates run in Swift.
    private static func evaluate(_ expression: QueryExpression, key: Int64, _ query: StoreQuery) throws -> Bool {
        func constant(_ expression: QueryExpression) throws -> Int64 {
            switch expression {
            case .value(.integer(let value)): return value
            case .parameter(let index) where query.parameters.indices.contains(index):
                if case .integer(let value) = query.parameters[index] { return value }
            default: break
            }
            throw StowageError(.unsupportedPredicate, "A custom data store's query compares its keys with \(expression), which Stowage does not evaluate; predicates run through the store's fetch(_:).")
        }
        switch expression {
        case .and(let terms): return try terms.allSatisfy { try evaluate($0, key: key, query) }
        case .or(let terms): return try terms.contains { try evaluate($0, key: key, query) }
        case .not(let term): return try !evaluate(term, key: key, query)
        case .comparison(let op, .primaryKey, let other, _):
            let value = try constant(other)
            switch op {
            case .greater: return key > value
            case .greaterOrEqual: return key >= value
            case .less: return key < value
            case .lessOrEqual: return key <= value
            case .equal, .is: return key == value
            case .notEqual, .isNot: return key != value
            }
        case .inList(.primaryKey, let values, _):
            return try values.map(constant).contains(key)
        default: break
        }
        throw StowageError(.unsupportedPredicate, "A custom data store's query has the condition \(expression), which Stowage does not evaluate; predicates run through the store's fetch(_:).")
    }

    /// Every snapshot of `entity` and its subclasses, fetched from the store (with `descriptor`'s
    /// predicate and sort when the store takes them).
    private func fetchSnapshots(of entity: Schema.Entity, descriptor: Any?) throws -> [DefaultSnapshot] {
        func fetch<T: PersistentModel>(_: T.Type) throws -> [DefaultSnapshot] {
            var descriptor = descriptor as? FetchDescriptor<T> ?? FetchDescriptor<T>()
            descriptor.fetchLimit = nil
            descriptor.fetchOffset = nil
            descriptor.propertiesToFetch = []
            let complete = descriptor.predicate == nil
            var result: DataStoreFetchResult<T, Store.Snapshot>?
            while result == nil {
                do {
                    result = try store.fetch(DataStoreFetchRequest(descriptor: descriptor, editingState: Self.editingState))
                } catch DataStoreError.preferInMemoryFilter where descriptor.predicate != nil {
                    descriptor.predicate = nil
                } catch DataStoreError.preferInMemorySort where !descriptor.sortBy.isEmpty {
                    descriptor.sortBy = []
                }
            }
            for (_, related) in result!.relatedSnapshots { try remember(related) }
            var fetched: [DefaultSnapshot] = []
            for snapshot in result!.fetchedSnapshots {
                let values = try remember(snapshot)
                // A store may return every model it holds: keep the entity's.
                guard entity.fetchableEntitiesByName[values.persistentIdentifier.entityName] != nil
                        || values.persistentIdentifier.entityName == entity.name else { continue }
                fetched.append(values)
            }
            if complete && descriptor.predicate == nil { completeEntities.insert(entity.name) }
            return fetched
        }
        return try fetch(entity.modelType)
    }

    private func allSnapshots(of entity: Schema.Entity) throws -> [DefaultSnapshot] {
        if completeEntities.contains(entity.name) {
            let names = Set(entity.fetchableEntitiesByName.keys).union([entity.name])
            return snapshots.values.filter { names.contains($0.persistentIdentifier.entityName) }
        }
        return try fetchSnapshots(of: entity, descriptor: nil)
    }

    /// The snapshot of one model, remembered or fetched.
    private func snapshot(of entity: Schema.Entity, _ key: Int64) throws -> DefaultSnapshot? {
        let names = [entity.name] + entity.fetchableEntitiesByName.keys.filter { $0 != entity.name }
        for name in names {
            if let snapshot = snapshots[SnapshotKey(entity: name, key: key)] { return snapshot }
        }
        guard !completeEntities.contains(entity.name) else { return nil }
        _ = try fetchSnapshots(of: entity, descriptor: nil)
        for name in names {
            if let snapshot = snapshots[SnapshotKey(entity: name, key: key)] { return snapshot }
        }
        return nil
    }

    @discardableResult
    private func remember(_ snapshot: Store.Snapshot) throws -> DefaultSnapshot {
        let values = try Self.defaultSnapshot(snapshot)
        snapshots[SnapshotKey(entity: values.persistentIdentifier.entityName, key: try standInKey(values.persistentIdentifier))] = values
        return values
    }

    /// A snapshot's values: a ``DefaultSnapshot`` as it is, another type through its encoded form, which
    /// uses ``DataStoreSnapshotCodingKey``s and ``DefaultSnapshot``'s value forms.
    private static func defaultSnapshot(_ snapshot: Store.Snapshot) throws -> DefaultSnapshot {
        if let snapshot = snapshot as? DefaultSnapshot { return snapshot }
        do {
            return try JSONDecoder().decode(DefaultSnapshot.self, from: JSONEncoder().encode(snapshot))
        } catch {
            throw StowageError(.invalidStoredValue, "A snapshot of type \(Store.Snapshot.self) does not encode as DefaultSnapshot does (its identifier under persistentIdentifier, each property under its name): \(error)")
        }
    }

    /// The editing state of requests that no one context makes (reads shared by every context).
    private static var editingState: EditingState { EditingState(id: sharedEditingStateID, author: nil) }
    private static var sharedEditingStateID: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }

    // MARK: Writing

    func apply(_ changes: ChangeSet) throws -> SaveResult {
        try locked {
            let editingState = EditingState(id: changes.editingStateID ?? Self.sharedEditingStateID, author: changes.author)
            var related: [PersistentIdentifier: any BackingData] = [:]
            var inserted: [Store.Snapshot] = []
            var temporaryIdentifiers: [PersistentIdentifier] = []
            for insert in changes.inserts {
                let backing = try ModelSnapshots.backingData(of: insert.model as! any PersistentModel, entity: insert.entity, stored: nil)
                temporaryIdentifiers.append(backing.persistentModelID!)
                inserted.append(Store.Snapshot(from: backing, relatedBackingDatas: &related))
            }
            var updatedModels: [ObjectIdentifier: (model: any PersistentModel, entity: Schema.Entity)] = [:]
            var order: [ObjectIdentifier] = []
            func note(_ model: AnyObject, _ entity: Schema.Entity) {
                let id = ObjectIdentifier(model)
                guard updatedModels[id] == nil, !changes.removed.contains(id) else { return }
                let persistent = model as! any PersistentModel
                guard persistent.persistentBackingData.state == .persisted else { return }
                updatedModels[id] = (persistent, entity)
                order.append(id)
            }
            for update in changes.updates { note(update.model, update.entity) }
            for write in changes.relationshipWrites {
                guard let entity = (write.model as! any PersistentModel).persistentBackingData.entity else { continue }
                note(write.model, entity)
            }
            var updated: [Store.Snapshot] = []
            for id in order {
                let (model, entity) = updatedModels[id]!
                let key = model.persistentBackingData.key.flatMap { if case .row(let key) = $0 { key } else { nil } }
                let stored = try key.flatMap { try snapshot(of: entity, $0) }
                updated.append(Store.Snapshot(from: try ModelSnapshots.backingData(of: model, entity: entity, stored: stored), relatedBackingDatas: &related))
            }
            var deleted: [Store.Snapshot] = []
            var deletedKeys: [SnapshotKey] = []
            for delete in changes.deletes {
                let stored = try snapshot(of: delete.entity, delete.primaryKey)
                let identifier = stored?.persistentIdentifier
                    ?? PersistentIdentifier(entityName: delete.entity.name, storeIdentifier: store.identifier, key: .row(delete.primaryKey))
                deletedKeys.append(SnapshotKey(entity: identifier.entityName, key: delete.primaryKey))
                let values = stored ?? DefaultSnapshot(persistentIdentifier: identifier, values: [:])
                deleted.append(try Self.snapshot(values))
            }
            let request = DataStoreSaveChangesRequest(editingState: editingState, inserted: inserted, updated: updated, deleted: deleted)
            let result = try store.save(request)
            var insertedKeys: [Int64] = []
            for temporary in temporaryIdentifiers {
                guard let permanent = result.remappedIdentifiers[temporary] else {
                    throw StowageError(.saveFailed, "The data store \(store.identifier) saved without giving the inserted \(temporary.entityName) a permanent identifier: its save(_:) returns each inserted snapshot's new identifier in remappedIdentifiers.", entityName: temporary.entityName)
                }
                insertedKeys.append(try standInKey(permanent))
            }
            // Remember what the store now holds.
            let remapped = result.remappedIdentifiers
            for key in deletedKeys { snapshots[key] = nil }
            for snapshot in inserted {
                let values = try Self.defaultSnapshot(snapshot)
                let permanent = remapped[values.persistentIdentifier] ?? values.persistentIdentifier
                try remember(try Self.snapshot(values.copy(persistentIdentifier: permanent, remappedIdentifiers: remapped)))
            }
            for snapshot in updated {
                let values = try Self.defaultSnapshot(snapshot)
                try remember(try Self.snapshot(values.copy(persistentIdentifier: values.persistentIdentifier, remappedIdentifiers: remapped)))
            }
            for (_, snapshot) in result.snapshotsToReregister { try remember(snapshot) }
            return SaveResult(insertedKeys: insertedKeys)
        }
    }

    /// A snapshot of the store's type made from ``DefaultSnapshot`` values.
    private static func snapshot(_ values: DefaultSnapshot) throws -> Store.Snapshot {
        if let snapshot = values as? Store.Snapshot { return snapshot }
        return try JSONDecoder().decode(Store.Snapshot.self, from: JSONEncoder().encode(values))
    }

    func eraseAll(_ erased: inout [String]) throws {
        try locked {
            try store.erase()
            snapshots = [:]
            completeEntities = []
        }
    }

    var sqliteStores: [SQLiteStore] { [] }
}

/// The row key a context files the model of `id` under (see `CustomPrimaryKeys`).
private func standInKey(_ id: PersistentIdentifier) throws -> Int64 {
    guard let key = id.rowKey else {
        throw StowageError(.invalidStoredValue, "The data store returned the temporary identifier \(id); a saved model's identifier comes from PersistentIdentifier.identifier(for:entityName:primaryKey:).")
    }
    return key
}

/// The history of a custom data store: the store's own, when it adopts ``HistoryProviding``.
protocol CustomStoreHistory {
    func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T]
    func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws
}

extension DataStoreAdapter: CustomStoreHistory {
    private func provider<T: HistoryTransaction>(for descriptor: HistoryDescriptor<T>) throws -> any HistoryProviding {
        guard let provider = store as? any HistoryProviding else {
            throw StowageError(.invalidTransactionFetchRequest, "The data store \(store.identifier) (\(Store.self)) keeps no history: it does not adopt HistoryProviding.")
        }
        return provider
    }

    private static func typed<T: HistoryTransaction, H: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>, as: H.Type) throws -> HistoryDescriptor<H> {
        guard let typed = descriptor as? HistoryDescriptor<H> else {
            throw StowageError(.invalidTransactionFetchRequest, "The data store records its history as \(H.self); a HistoryDescriptor<\(T.self)> cannot select it.")
        }
        return typed
    }

    func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T] {
        func fetch<Provider: HistoryProviding>(_ provider: Provider) throws -> [T] {
            try provider.fetchHistory(Self.typed(descriptor, as: Provider.HistoryType.self)) as! [T]
        }
        return try locked { try fetch(try provider(for: descriptor)) }
    }

    func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws {
        func delete<Provider: HistoryProviding>(_ provider: Provider) throws {
            try provider.deleteHistory(Self.typed(descriptor, as: Provider.HistoryType.self))
        }
        try locked { try delete(try provider(for: descriptor)) }
    }
}
