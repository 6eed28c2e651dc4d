import Foundation

/// A change to a store's rows given by entity and property names and stored values, without the app's
/// Swift types at the call site: what Stowage Studio, mounted in an app, applies through the app's own
/// ``ModelContext``, so that an edit is the app's save (its delete rules, uniqueness, history and
/// observers).
package enum StoredChange: Sendable {
    /// Sets attributes (by name, stored values) and to-one relationships (by name, the destination's key or
    /// `nil`) of the row `key`.
    case update(entity: String, key: Int64, attributes: [String: StorageValue], links: [String: Int64?])
    /// Inserts a model with these attributes (every non-optional one) and to-one relationships.
    case insert(entity: String, attributes: [String: StorageValue], links: [String: Int64?])
    /// Deletes the row `key`, with what its delete rules remove.
    case delete(entity: String, key: Int64)
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
                }
            }
            try save()
        } catch {
            rollback()
            throw error
        }
        return inserted.compactMap { $0.persistentModelID.rowKey }
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
        _ attributes: [String: StorageValue], _ links: [String: Int64?], of model: any PersistentModel, entity: Schema.Entity, isNew: Bool
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
        for (name, key) in links {
            guard let relationship = entity.relationshipList.first(where: { $0.name == name }), relationship.isToOneRelationship,
                  let accessor = relationship.accessor
            else {
                throw StowageError(.invalidValue, "\(entity.name) has no to-one relationship \(name).", entityName: entity.name, propertyName: name)
            }
            guard let key else {
                accessor.assign([], to: model)
                continue
            }
            guard let destination = schema.entitiesByName[relationship.destination] else { continue }
            accessor.assign([try storedChangeModel(destination, key)], to: model)
        }
        if isNew {
            for relationship in entity.relationshipList where links[relationship.name] == nil {
                relationship.accessor?.assign([], to: model)
            }
        }
    }
}
