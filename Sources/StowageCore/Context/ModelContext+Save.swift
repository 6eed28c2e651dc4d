import Foundation

extension ModelContext {
    /// Writes every unsaved insert, change and deletion to the store in one transaction.
    ///
    /// Only the columns of changed properties are written. An inserted model whose unique attribute (or
    /// `#Unique` group) matches a stored row updates that row instead (SwiftData's upsert).
    ///
    /// - Throws: ``StowageError``: `.readOnlyStore` for a configuration with `allowsSave: false`,
    ///   `.constraintViolation` or `.saveFailed` when the store refuses the changes, or the misuse recorded
    ///   by `insert` (`.deletedModel`, `.unknownModelType`, `.foreignModel`). When a save throws, nothing
    ///   is written and the context keeps all its changes.
    public func save() throws {
        processInbox()
        if let error = pendingErrors.first {
            // Reported once: the misused models were never registered, so the next save can proceed.
            pendingErrors = []
            throw error
        }
        guard hasChanges else { return }
        guard container.allowsSave else {
            throw StowageError(
                .readOnlyStore,
                "This container's configuration was created with allowsSave: false, so its contexts cannot save. Nothing was written.")
        }
        try applyDeleteRules()
        try validateRelationshipCounts()

        var changes = ChangeSet()
        let insertedModels = inserted.models
        for model in insertedModels {
            let data = model.persistentBackingData
            guard let entity = data.entity else { continue }
            changes.inserts.append(.init(entity: entity, model: model))
        }
        for model in changed.models {
            let data = model.persistentBackingData
            guard data.state == .persisted, let entity = data.entity, case .row(let pk)? = data.key else { continue }
            let attributes = data.changedProperties.compactMap { entity.properties[$0] as? Schema.Attribute }
                .filter { !$0.options.contains(.ephemeral) }
            if !attributes.isEmpty {
                changes.updates.append(.init(entity: entity, model: model, primaryKey: pk, attributes: attributes))
            }
        }
        for model in deleted.models {
            let data = model.persistentBackingData
            guard let entity = data.entity, case .row(let pk)? = data.key else { continue }
            changes.deletes.append(.init(entity: entity, primaryKey: pk))
        }
        changes.relationshipWrites = relationshipWrites()

        let result = try store.apply(changes)

        var saved = SavedChanges()
        let deletedModels = deleted.models
        for model in deletedModels {
            let data = model.persistentBackingData
            data.state = .removed
            data.changedProperties.removeAll()
            data.snapshot = [:]
            if let entity = data.entity, case .row(let pk)? = data.key {
                registered.removeValue(forKey: RowKey(entity: entity, primaryKey: pk))
                saved.deleted[entity.name, default: []].insert(pk)
            }
        }
        var staleUpserts: [Schema.Entity: [Int64]] = [:]
        for (offset, insert) in changes.inserts.enumerated() {
            let pk = result.insertedKeys[offset]
            let model = insertedModels[offset]
            let data = model.persistentBackingData
            data.key = .row(pk)
            data.storeIdentifier = store.identifier
            data.state = .persisted
            let key = RowKey(entity: insert.entity, primaryKey: pk)
            if let existing = registered[key]?.model, existing !== model {
                // An upsert updated a row this context already holds: refresh that object below.
                staleUpserts[insert.entity, default: []].append(pk)
            } else {
                registered[key] = RegisteredModel(model: model)
            }
            saved.updated[insert.entity.name, default: []].insert(pk)
        }
        // Foreign keys as now stored, once every inserted model has its primary key.
        for model in insertedModels + changed.models {
            let data = model.persistentBackingData
            guard let entity = data.entity else { continue }
            for relationship in entity.foreignKeyRelationships {
                guard let accessor = relationship.accessor, accessor.isLoaded(model) else { continue }
                let target = accessor.related(model).first.map { ($0 as! any PersistentModel).persistentBackingData.key }
                if case .row(let key)?? = target { data.foreignKeys[relationship.index] = key } else { data.foreignKeys[relationship.index] = nil }
            }
        }
        for update in changes.updates {
            saved.updated[update.entity.name, default: []].insert(update.primaryKey)
        }
        for write in changes.relationshipWrites {
            let data = (write.model as! any PersistentModel).persistentBackingData
            if let entity = data.entity, case .row(let pk)? = data.key { saved.updated[entity.name, default: []].insert(pk) }
        }
        for model in changed.models {
            let data = model.persistentBackingData
            data.changedProperties.removeAll()
            data.snapshot = [:]
        }
        inserted.removeAll()
        changed.removeAll()
        deleted.removeAll()
        detachDeleted(deletedModels)

        for (entity, keys) in staleUpserts {
            func refresh<M: PersistentModel>(_ type: M.Type) throws {
                _ = try models(M.self, entity: entity, primaryKeys: keys, attributes: entity.columnAttributes)
            }
            try? refresh(entity.modelType)
        }
        container.broadcast(saved, from: ObjectIdentifier(self))
    }
}
