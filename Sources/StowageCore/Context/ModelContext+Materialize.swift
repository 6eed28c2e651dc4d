import Foundation

/// How the rows of one query become models, prepared once per query instead of once per row: which
/// column holds each property (what the `_$load(_:into:)` `@Model` generates reads, see
/// ``ModelRowReader``) and the to-one relationships whose foreign keys follow the attributes.
///
/// Materialising is not generic over the model type: the rows of every fetch go through the same
/// compiled code, which the generic entry points (`fetch<T>`, `enumerate<T>`…) cast once per result
/// (unspecialised generic code would look up `Array<T>`'s metadata on every append).
struct RowLayout {
    let entity: Schema.Entity
    let attributes: [Schema.Attribute]
    let foreignKeys: [Schema.Relationship]
    /// The column of each of the entity's properties, by property index, or -1 when the query does not
    /// read it.
    let columns: [Int32]
    /// The identifier of the entity's store, which every model made from these rows carries.
    let storeIdentifier: String
    /// Each to-one relationship read, as (property index, column): the foreign keys follow the attributes.
    let foreignKeyColumns: [(index: Int, column: Int)]

    /// For an entity of a class hierarchy: the column naming each row's entity, and how the row fills a
    /// model of each entity the query can return (`nil` otherwise).
    let hierarchy: (entityColumn: Int, members: [String: Member])?

    /// How a row of a class hierarchy's table fills a model of one of its entities.
    struct Member {
        let entity: Schema.Entity
        /// The column of each of the entity's properties, by property index, or -1.
        let columns: [Int32]
        /// Each to-one relationship read, as (property index, column).
        let foreignKeys: [(index: Int, column: Int)]
    }

    init(_ query: StoreQuery, storeIdentifier: String) {
        entity = query.entity
        attributes = query.attributes
        foreignKeys = query.foreignKeys
        foreignKeyColumns = query.foreignKeys.enumerated().map { (offset, relationship) in
            (relationship.index, query.attributes.count + offset)
        }
        self.storeIdentifier = storeIdentifier
        if let entityColumn = query.entityColumnIndex {
            var members: [String: Member] = [:]
            for (name, member) in query.entity.fetchableEntitiesByName {
                members[name] = Self.member(member, attributes: query.attributes, foreignKeys: query.foreignKeys)
            }
            hierarchy = (entityColumn, members)
            columns = members[query.entity.name]?.columns ?? []
        } else {
            hierarchy = nil
            columns = query.readsFullRow
                ? query.entity.fullRowColumns
                : Self.columns(of: query.attributes, propertyCount: query.entity.properties.count)
        }
    }

    /// The columns of a query of a class hierarchy that fill a model of `entity`, matched by name (each
    /// class has its own property objects).
    private static func member(_ entity: Schema.Entity, attributes: [Schema.Attribute], foreignKeys: [Schema.Relationship]) -> Member {
        var columns = [Int32](repeating: -1, count: entity.properties.count)
        for (column, attribute) in attributes.enumerated() {
            if let own = entity.storedPropertiesByName[attribute.name] as? Schema.Attribute { columns[own.index] = Int32(column) }
        }
        var keys: [(index: Int, column: Int)] = []
        for (offset, relationship) in foreignKeys.enumerated() {
            if let own = entity.storedPropertiesByName[relationship.name] as? Schema.Relationship {
                keys.append((own.index, attributes.count + offset))
            }
        }
        return Member(entity: entity, columns: columns, foreignKeys: keys)
    }

    /// The column of each property, by property index, when a query reads `attributes` (-1 for the
    /// properties it does not read).
    static func columns(of attributes: [Schema.Attribute], propertyCount: Int) -> [Int32] {
        var columns = [Int32](repeating: -1, count: propertyCount)
        for (column, attribute) in attributes.enumerated() { columns[attribute.index] = Int32(column) }
        return columns
    }
}

extension ModelContext {
    /// The models of the rows `query` matches, in row order.
    func fetchObjects(_ query: StoreQuery) throws -> ContiguousArray<any PersistentModel> {
        var objects = ContiguousArray<any PersistentModel>()
        if let limit = query.limit { objects.reserveCapacity(limit) }
        try fetchObjects(query, into: &objects)
        return objects
    }

    /// Appends the models of the rows `query` matches to `objects`, in row order. Batched reads reuse
    /// one buffer: freeing a block of 64 KB or more makes glibc consolidate its free lists.
    func fetchObjects(_ query: StoreQuery, into objects: inout ContiguousArray<any PersistentModel>) throws {
        let layout = RowLayout(query, storeIdentifier: store.identifier(for: query.entity))
        try store.fetch(query) { row in objects.append(try materialize(row, layout)) }
    }

    /// The models of the rows `query` matches, by primary key.
    func fetchObjectsByKey(_ query: StoreQuery) throws -> [Int64: any PersistentModel] {
        let layout = RowLayout(query, storeIdentifier: store.identifier(for: query.entity))
        var byKey: [Int64: any PersistentModel] = [:]
        try store.fetch(query) { row in byKey[row.primaryKey] = try materialize(row, layout) }
        return byKey
    }

    /// Loads models by primary key, in the order of `primaryKeys` (keys without a row are skipped).
    func models<T: PersistentModel>(_ type: T.Type, entity: Schema.Entity, primaryKeys: [Int64], attributes: [Schema.Attribute]) throws -> [T] {
        let query = StoreQuery(entity: entity, attributes: attributes, primaryKeys: primaryKeys)
        // The store returns rows in key order: the requested order when the keys are increasing.
        if zip(primaryKeys, primaryKeys.dropFirst()).allSatisfy({ $0 < $1 }) {
            return [T](castingElementsOf: try fetchObjects(query))
        }
        let byKey = try fetchObjectsByKey(query)
        return primaryKeys.compactMap { byKey[$0].map { unsafeDowncast($0 as AnyObject, to: T.self) } }
    }

    /// The object for a row: the registered one (refreshed from the row unless it has unsaved changes),
    /// or a new one registered in the identity map.
    func materialize(_ row: StoreRow, _ layout: RowLayout) throws -> any PersistentModel {
        let pk = row.primaryKey
        let entity = layout.entity
        let key = RowKey(entity: entity, primaryKey: pk)
        if let model = registered[key]?.model {
            try refresh(model, from: row, layout)
            return model
        }
        if let hierarchy = layout.hierarchy {
            return try materialize(row, layout, hierarchy: hierarchy, key: key)
        }
        let model = try newModel(
            entity, from: row, columns: layout.columns, foreignKeys: layout.foreignKeyColumns, storeIdentifier: layout.storeIdentifier)
        registered.insert(RegisteredModel(model: model), for: key)
        return model
    }

    /// A new model of `entity` filled from `row`, whose `columns` hold its properties (by property
    /// index, -1 for none) and `foreignKeys` the foreign keys of its to-one relationships, not registered
    /// yet.
    @inline(__always)
    private func newModel(
        _ entity: Schema.Entity, from row: StoreRow, columns: [Int32], foreignKeys: [(index: Int, column: Int)],
        storeIdentifier: String
    ) throws -> any PersistentModel {
        // The model's state is filled in place by its `_$load(_:into:)` (`ModelRowReader.loadState(into:)`).
        let model = entity.modelType.init(backingData: ModelBackingData.Storage())
        do {
            try columns.withUnsafeBufferPointer { columns in
                var reader = ModelRowReader(
                    row: row, columns: columns.baseAddress!, entity: entity, link: link, storeIdentifier: storeIdentifier,
                    foreignKeys: foreignKeys)
                try entity.modelType._$load(&reader, into: model)
            }
        } catch var error as StowageError {
            error.entityName = entity.name
            throw error
        }
        return model
    }

    /// A new model for a row of a class hierarchy's table, of the class its `_entity` column names.
    private func materialize(
        _ row: StoreRow, _ layout: RowLayout, hierarchy: (entityColumn: Int, members: [String: RowLayout.Member]), key: RowKey
    ) throws -> any PersistentModel {
        let name = row.value(at: hierarchy.entityColumn)
        guard case .text(let entityName) = name, let member = hierarchy.members[entityName] else {
            throw StowageError(
                .schemaMismatch,
                "The row \(layout.entity.tableName)/p\(row.primaryKey) is a \(name) and the schema has no such subclass of \(layout.entity.name): add its model class to the container's schema.",
                entityName: layout.entity.name)
        }
        let model = try newModel(
            member.entity, from: row, columns: member.columns, foreignKeys: member.foreignKeys, storeIdentifier: layout.storeIdentifier)
        registered.insert(RegisteredModel(model: model), for: key)
        return model
    }

    /// Brings a registered model up to date with its row: observers hear of the values that changed, and
    /// a loaded to-one relationship whose foreign key changed is reloaded. A property with an unsaved
    /// change keeps it, but what rollback restores becomes the row's value; the others follow the row,
    /// so a model whose changes are saved, rolled back or whose deletion is undone shows the row as
    /// stored, including what other contexts saved meanwhile.
    private func refresh(_ model: any PersistentModel, from row: StoreRow, _ layout: RowLayout) throws {
        let data = model.persistentBackingData
        guard data.state == .persisted || data.state == .deleted else { return }
        if let hierarchy = layout.hierarchy {
            // The query's columns include other classes' of the hierarchy: refresh the model's own.
            guard let member = hierarchy.members[data.entity?.name ?? ""] else { return }
            for (index, property) in member.entity.properties.enumerated() where member.columns[index] >= 0 {
                guard let attribute = property as? Schema.Attribute else { continue }
                let stored = row.value(at: Int(member.columns[index]))
                if data.changedProperties.contains(index) {
                    data.snapshot[index] = try attribute.accessor.decode(stored)
                } else {
                    try attribute.accessor.refresh(stored, into: model)
                }
            }
            for (index, column) in member.foreignKeys where !data.changedProperties.contains(index) {
                guard let relationship = member.entity.properties[index] as? Schema.Relationship else { continue }
                try refreshForeignKey(of: model, data, relationship, to: row.value(at: column))
            }
            return
        }
        for (index, attribute) in layout.attributes.enumerated() {
            if data.changedProperties.contains(attribute.index) {
                data.snapshot[attribute.index] = try attribute.accessor.decode(row.value(at: index))
            } else {
                try attribute.accessor.refresh(row.value(at: index), into: model)
            }
        }
        for (offset, relationship) in layout.foreignKeys.enumerated() where !data.changedProperties.contains(relationship.index) {
            try refreshForeignKey(of: model, data, relationship, to: row.value(at: layout.attributes.count + offset))
        }
    }

    /// Follows a to-one relationship's stored foreign key, reloading the relationship if it is loaded.
    private func refreshForeignKey(
        of model: any PersistentModel, _ data: ModelBackingData, _ relationship: Schema.Relationship, to stored: StorageValue
    ) throws {
        let foreignKey: Int64? = if case .integer(let value) = stored { value } else { nil }
        guard data.foreignKeys[relationship.index] != foreignKey else { return }
        data.foreignKeys[relationship.index] = foreignKey
        if let accessor = relationship.accessor, accessor.isLoaded(model) {
            accessor.setRelated(try foreignKey.map { try objects(of: relationship.destinationEntity!, primaryKeys: [$0]) } ?? [], in: model)
        }
    }
}

extension Array where Element: AnyObject {
    /// An array of the objects, which the caller knows are all of type `Element` (models of one entity):
    /// no dynamic cast per object.
    @inlinable
    init(castingElementsOf objects: ContiguousArray<any PersistentModel>) {
        // `init(unsafeUninitializedCapacity: 0)` stores the count into the shared empty-array storage,
        // which Thread Sanitizer reports as a race between threads that do it at once.
        guard !objects.isEmpty else {
            self = []
            return
        }
        self.init(unsafeUninitializedCapacity: objects.count) { buffer, initialized in
            for object in objects {
                (buffer.baseAddress! + initialized).initialize(to: unsafeDowncast(object as AnyObject, to: Element.self))
                initialized += 1
            }
        }
    }
}
