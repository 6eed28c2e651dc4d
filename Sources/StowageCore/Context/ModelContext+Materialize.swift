import Foundation

/// How the rows of one query become models, prepared once per query instead of once per row: the
/// column loader of each attribute (closures `@Model` specialised for the model and value types, see
/// `AttributeOperations`) and the to-one relationships whose foreign keys follow the attributes.
///
/// Materialising is not generic over the model type: the rows of every fetch go through the same
/// compiled code, which the generic entry points (`fetch<T>`, `enumerate<T>`…) cast once per result
/// (unspecialised generic code would look up `Array<T>`'s metadata on every append).
struct RowLayout {
    let entity: Schema.Entity
    let attributes: [Schema.Attribute]
    let loaders: ContiguousArray<ColumnLoader>
    let foreignKeys: [Schema.Relationship]

    init(_ query: StoreQuery) {
        entity = query.entity
        attributes = query.attributes
        loaders = query.readsFullRow ? query.entity.columnLoaders : ContiguousArray(query.attributes.map(\.accessor.loadColumn))
        foreignKeys = query.foreignKeys
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
        let layout = RowLayout(query)
        try store.fetch(query) { row in objects.append(try materialize(row, layout)) }
    }

    /// Loads models by primary key, in the order of `primaryKeys` (keys without a row are skipped).
    func fetchObjects(_ entity: Schema.Entity, primaryKeys: [Int64], attributes: [Schema.Attribute]) throws -> ContiguousArray<any PersistentModel> {
        let query = StoreQuery(entity: entity, attributes: attributes, primaryKeys: primaryKeys)
        // The store returns rows in key order: the requested order when the keys are increasing.
        if zip(primaryKeys, primaryKeys.dropFirst()).allSatisfy({ $0 < $1 }) { return try fetchObjects(query) }
        let byKey = try fetchObjectsByKey(query)
        return ContiguousArray(primaryKeys.compactMap { byKey[$0] })
    }

    /// The models of the rows `query` matches, by primary key.
    func fetchObjectsByKey(_ query: StoreQuery) throws -> [Int64: any PersistentModel] {
        let layout = RowLayout(query)
        var byKey: [Int64: any PersistentModel] = [:]
        try store.fetch(query) { row in byKey[row.primaryKey] = try materialize(row, layout) }
        return byKey
    }

    /// Loads models by primary key, in the order of `primaryKeys`.
    func models<T: PersistentModel>(_ type: T.Type, entity: Schema.Entity, primaryKeys: [Int64], attributes: [Schema.Attribute]) throws -> [T] {
        [T](castingElementsOf: try fetchObjects(entity, primaryKeys: primaryKeys, attributes: attributes))
    }

    /// The object for a row: the registered one (refreshed from the row unless it has unsaved changes),
    /// or a new one registered in the identity map.
    func materialize(_ row: any StoreRow, _ layout: RowLayout) throws -> any PersistentModel {
        let pk = row.primaryKey
        let entity = layout.entity
        let key = RowKey(entity: entity, primaryKey: pk)
        if let model = registered[key]?.model {
            try refresh(model, from: row, layout)
            return model
        }
        let data = ModelBackingData(context: self, entity: entity, primaryKey: pk, storeIdentifier: store.identifier)
        let model = entity.modelType.init(backingData: data)
        let loaders = layout.loaders
        var index = 0
        do {
            while index < loaders.count {
                try loaders[index].load(row, index, model)
                index += 1
            }
        } catch var error as StowageError {
            error.entityName = entity.name
            error.propertyName = layout.attributes[index].name
            throw error
        }
        if !layout.foreignKeys.isEmpty {
            let first = loaders.count
            for (offset, relationship) in layout.foreignKeys.enumerated() {
                if let key = row.integer(at: first + offset) { data.foreignKeys[relationship.index] = key }
            }
        }
        registered.insert(RegisteredModel(model: model, data: data), for: key)
        return model
    }

    /// Brings a registered model up to date with its row, unless it has unsaved changes: observers hear
    /// of the values that changed, and a loaded to-one relationship whose foreign key changed is reloaded.
    private func refresh(_ model: any PersistentModel, from row: any StoreRow, _ layout: RowLayout) throws {
        let data = model.persistentBackingData
        guard data.state == .persisted && data.changedProperties.isEmpty else { return }
        for (index, attribute) in layout.attributes.enumerated() {
            try attribute.accessor.refresh(row.value(at: index), into: model)
        }
        for (offset, relationship) in layout.foreignKeys.enumerated() {
            let stored = row.value(at: layout.attributes.count + offset)
            let foreignKey: Int64? = if case .integer(let value) = stored { value } else { nil }
            if data.foreignKeys[relationship.index] != foreignKey {
                data.foreignKeys[relationship.index] = foreignKey
                if let accessor = relationship.accessor, accessor.isLoaded(model) {
                    accessor.setRelated(try foreignKey.map { try objects(of: relationship.destinationEntity!, primaryKeys: [$0]) } ?? [], in: model)
                }
            }
        }
    }
}

extension Array where Element: AnyObject {
    /// An array of the objects, which the caller knows are all of type `Element` (models of one entity):
    /// no dynamic cast per object.
    init(castingElementsOf objects: ContiguousArray<any PersistentModel>) {
        self.init(unsafeUninitializedCapacity: objects.count) { buffer, initialized in
            for object in objects {
                (buffer.baseAddress! + initialized).initialize(to: unsafeDowncast(object as AnyObject, to: Element.self))
                initialized += 1
            }
        }
    }
}
