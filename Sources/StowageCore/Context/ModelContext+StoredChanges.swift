import Foundation

/// A change to a store's rows given by entity and property names and stored values, without the app's
/// Swift types at the call site: what Stowage Studio, mounted in an app, applies through the app's own
/// ``ModelContext``, so that an edit is the app's save (its delete rules, uniqueness, history and
/// observers).
package enum StoredChange: Sendable {
    /// Sets attributes (by name, stored values) and relationships of the row `key`. A relationship is set
    /// to the rows with the given keys, as assigning the property does: a to-one to none or one, a
    /// to-many to exactly these (an ordered one in this order).
    case update(entity: String, key: Int64, attributes: [String: StorageValue], links: [String: [Int64]])
    /// Inserts a model with these attributes (every non-optional one) and relationships.
    case insert(entity: String, attributes: [String: StorageValue], links: [String: [Int64]])
    /// Deletes the row `key`, with what its delete rules remove.
    case delete(entity: String, key: Int64)
    /// Appends the row `row` to the to-many `relationship` of the row `key`, as `model.list.append(…)` does.
    case append(entity: String, key: Int64, relationship: String, row: Int64)
    /// Removes the row `row` from the to-many `relationship` of the row `key`, as removing it from the
    /// model's array does.
    case remove(entity: String, key: Int64, relationship: String, row: Int64)
}

extension ModelContext {
    /// Applies `changes` to models of this context and saves them in one save.
    ///
    /// The models are fetched by key and changed through their properties' setters, so the save is
    /// exactly the app's: delete rules, uniqueness (an insert matching a unique value updates that row),
    /// history (with this context's ``author``), undo and observers. Nothing is saved when a change
    /// cannot be made: the context is rolled back.
    /// - Returns: the keys of the inserted rows, in order.
    /// - Throws: ``StowageError`` naming the entity, row or property that is wrong, or what the save threw.
    package func applyStoredChanges(_ changes: [StoredChange]) throws -> [Int64] {
        var inserted: [any PersistentModel] = []
        do {
            for change in changes {
                switch change {
                case .update(let entityName, let key, let attributes, let links):
                    let entity = try storedChangeEntity(entityName)
                    let model = try storedChangeModel(entity, key)
                    try setStored(attributes, links, of: model, entity: entity, isNew: false)
                case .insert(let entityName, let attributes, let links):
                    let entity = try storedChangeEntity(entityName)
                    let model = entity.modelType.init(backingData: ModelBackingData.Storage())
                    insert(model)
                    try setStored(attributes, links, of: model, entity: entity, isNew: true)
                    inserted.append(model)
                case .delete(let entityName, let key):
                    let entity = try storedChangeEntity(entityName)
                    delete(try storedChangeModel(entity, key))
                case .append(let entityName, let key, let name, let row):
                    try changeList(entityName, key, name, adding: row)
                case .remove(let entityName, let key, let name, let row):
                    try changeList(entityName, key, name, removing: row)
                }
            }
            try save()
        } catch {
            rollback()
            throw error
        }
        return inserted.compactMap { $0.persistentModelID.rowKey }
    }

    /// Appends `adding` to, or removes `removing` from, the to-many `name` of the row `key`, through the
    /// model's setter with the array as its getter loads it.
    private func changeList(_ entityName: String, _ key: Int64, _ name: String, adding: Int64? = nil, removing: Int64? = nil) throws {
        let entity = try storedChangeEntity(entityName)
        let model = try storedChangeModel(entity, key)
        guard let relationship = entity.relationshipList.first(where: { $0.name == name }), let accessor = relationship.accessor,
              let destination = schema.entitiesByName[relationship.destination]
        else {
            throw StowageError(.invalidValue, "\(entity.name) has no relationship \(name).", entityName: entity.name, propertyName: name)
        }
        guard !relationship.isToOneRelationship else {
            throw StowageError(.invalidValue, "\(entity.name).\(name) is a to-one relationship: set it to a row's key.", entityName: entity.name, propertyName: name)
        }
        _ = model[keyPath: relationship.keypath]  // the getter loads the array
        var related = accessor.related(model)
        if let adding {
            let added = try storedChangeModel(destination, adding)
            guard !related.contains(where: { $0 === added }) else {
                throw StowageError(.invalidValue, "\(name) of \(entity.name) \(key) already includes \(destination.name) \(adding).", entityName: entity.name, propertyName: name)
            }
            related.append(added)
        }
        if let removing {
            let removed = try storedChangeModel(destination, removing)
            guard let index = related.firstIndex(where: { $0 === removed }) else {
                throw StowageError(.invalidValue, "\(name) of \(entity.name) \(key) does not include \(destination.name) \(removing).", entityName: entity.name, propertyName: name)
            }
            related.remove(at: index)
        }
        accessor.assign(related, to: model)
    }

    private func storedChangeEntity(_ name: String) throws -> Schema.Entity {
        guard let entity = schema.entitiesByName[name] else {
            throw StowageError(.unknownModelType, "The container's schema has no entity \(name).", entityName: name)
        }
        return entity
    }

    private func storedChangeModel(_ entity: Schema.Entity, _ key: Int64) throws -> any PersistentModel {
        let id = PersistentIdentifier(entityName: entity.name, storeIdentifier: store.identifier(for: entity), key: .row(key))
        let model = self.model(for: id)
        guard !model.isDeleted else {
            throw StowageError(.modelNotFound, "\(entity.name) has no row \(key): it was deleted or never saved.", entityName: entity.name)
        }
        return model
    }

    private func setStored(
        _ attributes: [String: StorageValue], _ links: [String: [Int64]], of model: any PersistentModel, entity: Schema.Entity, isNew: Bool
    ) throws {
        let byName = Dictionary(entity.attributeList.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for name in attributes.keys where byName[name] == nil {
            throw StowageError(.invalidValue, "\(entity.name) has no attribute \(name).", entityName: entity.name, propertyName: name)
        }
        for attribute in entity.attributeList {
            let value: StorageValue
            if let given = attributes[attribute.name] {
                value = given
            } else if isNew {
                guard attribute.isOptional else {
                    throw StowageError(
                        .modelValidationFailure, "A new \(entity.name) needs a value for \(attribute.name).",
                        entityName: entity.name, propertyName: attribute.name)
                }
                value = .null
            } else {
                continue
            }
            try attribute.accessor.assign(value, to: model)
        }
        for name in links.keys where !entity.relationshipList.contains(where: { $0.name == name }) {
            throw StowageError(.invalidValue, "\(entity.name) has no relationship \(name).", entityName: entity.name, propertyName: name)
        }
        // In declaration order, as the store editor sets them.
        for relationship in entity.relationshipList {
            guard let keys = links[relationship.name] else { continue }
            let name = relationship.name
            guard let accessor = relationship.accessor, let destination = schema.entitiesByName[relationship.destination] else {
                throw StowageError(.invalidValue, "\(entity.name).\(name) cannot be set.", entityName: entity.name, propertyName: name)
            }
            if relationship.isToOneRelationship, keys.count > 1 {
                throw StowageError(
                    .invalidValue, "\(entity.name).\(name) is a to-one relationship: it links to one \(destination.name) or none, not \(keys.count).",
                    entityName: entity.name, propertyName: name)
            }
            if Set(keys).count != keys.count {
                throw StowageError(.invalidValue, "\(entity.name).\(name) lists a \(destination.name) more than once.", entityName: entity.name, propertyName: name)
            }
            accessor.assign(try keys.map { try storedChangeModel(destination, $0) }, to: model)
        }
        if isNew {
            for relationship in entity.relationshipList where links[relationship.name] == nil {
                relationship.accessor?.assign([], to: model)
            }
        }
    }
}
