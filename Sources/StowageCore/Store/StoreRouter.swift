import Foundation

/// The stores of a container created with several configurations: each entity's rows live in the
/// store of the configuration that holds it, and every call goes to that store.
///
/// A save that changes models of several stores writes each store's part inside the transaction of the
/// previous one, so that a failure in any part writes nothing anywhere; the transactions then commit
/// one after the other (the last store's first), always in the order of ``stores``, so that saves on
/// several threads never wait for each other in a cycle. SQLite cannot commit two files as one: if a
/// commit itself fails (the disk fills between two commits), the stores already committed keep the save.
final class StoreRouter: ModelStore {
    let stores: [SQLiteStore]
    private let storeByEntity: [String: SQLiteStore]

    /// - Parameter stores: each store with the names of the entities it holds (each name once).
    init(_ stores: [(store: SQLiteStore, entities: [String])]) {
        self.stores = stores.map(\.store)
        var byEntity: [String: SQLiteStore] = [:]
        for (store, entities) in stores {
            for name in entities { byEntity[name] = store }
        }
        storeByEntity = byEntity
    }

    private func store(_ entity: Schema.Entity) -> SQLiteStore {
        guard let store = storeByEntity[entity.name] else {
            preconditionFailure("No store holds entity \(entity.name): the container checked every entity has one.")
        }
        return store
    }

    func identifier(for entity: Schema.Entity) -> String { store(entity).identifier }

    func fetch(_ query: StoreQuery, _ body: (StoreRow) throws -> Void) throws {
        try store(query.entity).fetch(query, body)
    }

    func count(_ query: StoreQuery) throws -> Int {
        try store(query.entity).count(query)
    }

    func primaryKeys(_ query: StoreQuery) throws -> [Int64] {
        try store(query.entity).primaryKeys(query)
    }

    func externalValue(_ attribute: Schema.Attribute, of entity: Schema.Entity, primaryKey: Int64) throws -> StorageValue {
        try store(entity).externalValue(attribute, of: entity, primaryKey: primaryKey)
    }

    func fetchRelated(
        _ relationship: Schema.Relationship, owners: [Int64], columns query: StoreQuery, _ body: (Int64, StoreRow) throws -> Void
    ) throws {
        // A relationship never crosses stores (the container refuses such a schema): its destination's
        // store is its owner's.
        try store(query.entity).fetchRelated(relationship, owners: owners, columns: query, body)
    }

    func apply(_ changes: ChangeSet) throws -> SaveResult {
        /// One store's part of the change set, with the position of each of its inserts in the whole.
        struct Part {
            let store: SQLiteStore
            var changes = ChangeSet()
            var insertPositions: [Int] = []
        }
        var parts: [Part] = []
        func part(_ entity: Schema.Entity) -> Int {
            let store = store(entity)
            if let index = parts.firstIndex(where: { $0.store === store }) { return index }
            var part = Part(store: store)
            part.changes.removed = changes.removed
            part.changes.author = changes.author
            parts.append(part)
            return parts.count - 1
        }
        for (position, insert) in changes.inserts.enumerated() {
            let index = part(insert.entity)
            parts[index].changes.inserts.append(insert)
            parts[index].insertPositions.append(position)
        }
        for update in changes.updates { parts[part(update.entity)].changes.updates.append(update) }
        for delete in changes.deletes { parts[part(delete.entity)].changes.deletes.append(delete) }
        for write in changes.relationshipWrites {
            guard let entity = write.relationship.entity else { continue }
            parts[part(entity)].changes.relationshipWrites.append(write)
        }
        // Always in the stores' order: two saves that take the stores' write queues in opposite orders
        // would each wait for the other forever.
        parts.sort { first, second in
            stores.firstIndex { $0 === first.store } ?? 0 < stores.firstIndex { $0 === second.store } ?? 0
        }
        var combined = SaveResult(insertedKeys: [Int64](repeating: 0, count: changes.inserts.count))
        func apply(from index: Int) throws {
            guard index < parts.count else { return }
            let result = try parts[index].store.apply(parts[index].changes) { try apply(from: index + 1) }
            for (key, position) in zip(result.insertedKeys, parts[index].insertPositions) { combined.insertedKeys[position] = key }
            combined.historyTransactions.merge(result.historyTransactions) { $1 }
        }
        try apply(from: 0)
        return combined
    }

    var sqliteStores: [SQLiteStore] { stores }

    func eraseAll(_ erased: inout [String]) throws {
        for store in stores { try store.eraseAll(&erased) }
    }
}
