import Foundation

extension ModelContext {
    /// Writes every unsaved insert, change and deletion to the store in one transaction.
    ///
    /// Only the columns of changed properties are written. An inserted model whose unique attribute (or
    /// `#Unique` group) matches a stored row updates that row instead (SwiftData's upsert).
    ///
    /// - Throws: ``StowageError``: `.readOnlyStore` for a configuration with `allowsSave: false` or a
    ///   store file this process cannot write, `.diskFull`, `.ioError` or `.outOfMemory` when the system
    ///   fails the write, `.storeBusy` when another writer keeps the store locked past the busy timeout,
    ///   `.constraintViolation` or `.saveFailed` when the store refuses the changes, `.saveConflict` when a
    ///   changed model's row was deleted by another context or process since it was read, or the misuse recorded
    ///   by `insert` (`.deletedModel`, `.unknownModelType`, `.foreignModel`). When a save throws, nothing
    ///   is written and the context keeps all its changes.
    public func save() throws {
        processInbox()
        // Observers of willSave may still change the context: every check below sees their changes.
        if hasChanges { NotificationCenter.default.post(name: ModelContext.willSave, object: self) }
        if let error = pendingErrors.first {
            // Reported once: the misused models were never registered, so the next save can proceed.
            pendingErrors = []
            throw error
        }
        guard hasChanges else { return }
        if let refusal = container.saveRefusal {
            throw StowageError(.readOnlyStore, "\(refusal), so its contexts cannot save. Nothing was written; the context keeps its changes.")
        }
        if !container.readOnlyEntities.isEmpty { try checkWritable() }
        // Nothing below changes the context until the store has committed: a failed save leaves the
        // context exactly as it was.
        let cascade: [any PersistentModel]
        var goingAway = Set(deleted.models.map { ObjectIdentifier($0) })
        do {
            // Delete rules and count limits read relationships not loaded yet: a read that fails fails
            // the save (acting on a relationship read as empty would leave cascaded rows unannounced).
            cascade = try cascadedDeletions()
            for model in cascade { goingAway.insert(ObjectIdentifier(model)) }
            try validateRelationshipCounts(goingAway: goingAway)
        } catch var error as StowageError where error.code != .deleteDenied && error.code != .relationshipCount {
            let (entityName, propertyName) = (error.entityName, error.propertyName)
            error = StowageError(
                error.code, "The save failed and nothing was written: \(error.message)", entityName: entityName,
                propertyName: propertyName, sql: error.sql, sqliteCode: error.sqliteCode, underlying: error.underlying)
            throw error
        }

        var changes = ChangeSet()
        changes.removed = goingAway
        changes.author = author
        changes.editingStateID = editingStateID
        let insertedModels = inserted.models.filter { !goingAway.contains(ObjectIdentifier($0)) }
        let cascadedRows = cascade.filter { $0.persistentBackingData.state == .persisted }
        for model in insertedModels {
            let data = model.persistentBackingData
            guard let entity = data.entity else { continue }
            changes.inserts.append(.init(entity: entity, model: model))
        }
        // Models changed in the same properties (a loop over rows) share one list of written attributes.
        var last: (entity: Schema.Entity, properties: PropertySet, attributes: [Schema.Attribute])?
        for model in changed.models where !goingAway.contains(ObjectIdentifier(model)) {
            let data = model.persistentBackingData
            guard data.state == .persisted, let entity = data.entity, case .row(let pk)? = data.key else { continue }
            let attributes: [Schema.Attribute]
            if let last, last.entity === entity, last.properties == data.changedProperties {
                attributes = last.attributes
            } else {
                attributes = data.changedProperties.compactMap { entity.properties[$0] as? Schema.Attribute }
                    .filter { !$0.options.contains(.ephemeral) }
                last = (entity, data.changedProperties, attributes)
            }
            if !attributes.isEmpty {
                changes.updates.append(.init(entity: entity, model: model, primaryKey: pk, attributes: attributes))
            }
        }
        for model in deleted.models + cascadedRows {
            let data = model.persistentBackingData
            guard let entity = data.entity, case .row(let pk)? = data.key else { continue }
            changes.deletes.append(.init(entity: entity, primaryKey: pk))
        }
        changes.relationshipWrites = relationshipWrites(excluding: goingAway)

        let result = try store.apply(changes)

        // Committed: now the cascade happens in the context too.
        for model in cascade where model.persistentBackingData.state == .inserted { delete(model) }
        for model in cascadedRows {
            changed.remove(model)
            model.persistentBackingData.state = .deleted
        }
        var saved = SavedChanges()
        let deletedModels = deleted.models + cascadedRows
        let deletedIdentifiers = deletedModels.map(\.persistentModelID)
        for model in deletedModels {
            let data = model.persistentBackingData
            data.state = .removed
            data.changedProperties.removeAll()
            data.snapshot.recycle(into: &snapshotBoxes)
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
            data.storeIdentifier = store.identifier(for: insert.entity)
            data.state = .persisted
            let key = RowKey(entity: insert.entity, primaryKey: pk)
            if let existing = registered[key]?.model, existing !== model {
                // An upsert updated a row this context already holds: that object stays the row's one
                // object and is refreshed below with the values just written; this duplicate instance
                // is retired (it reports isDeleted, and later changes to it are not saved).
                staleUpserts[insert.entity, default: []].append(pk)
                data.state = .removed
            } else {
                registered.insert(RegisteredModel(model: model), for: key)
            }
        }
        // Foreign keys as now stored, once every inserted model has its primary key.
        for model in [insertedModels, changed.models].joined() {
            let data = model.persistentBackingData
            guard let entity = data.entity, !entity.foreignKeyRelationships.isEmpty else { continue }
            for relationship in entity.foreignKeyRelationships {
                guard let accessor = relationship.accessor, accessor.isLoaded(model) else { continue }
                let target = accessor.related(model).first.map { ($0 as! any PersistentModel).persistentBackingData.key }
                if case .row(let key)?? = target { data.foreignKeys[relationship.index] = key } else { data.foreignKeys[relationship.index] = nil }
            }
        }
        for model in changed.models {
            let data = model.persistentBackingData
            data.changedProperties.removeAll()
            data.snapshot.recycle(into: &snapshotBoxes)
        }
        inserted.removeAll()
        changed.removeAll()
        deleted.removeAll()
        detachDeleted(deletedModels)

        for (entity, keys) in staleUpserts {
            _ = try? fetchObjects(StoreQuery(entity: entity, primaryKeys: keys))
        }
        announce(changes, result, deleted: deletedIdentifiers)
        // Other contexts hear of the saved rows; the sets are built only when one exists (checked after
        // the commit: a context created later reads the committed state anyway).
        if container.hasListeners(besides: ObjectIdentifier(self)) {
            for (insert, pk) in zip(changes.inserts, result.insertedKeys) {
                saved.updated[insert.entity.name, default: []].insert(pk)
            }
            for update in changes.updates {
                saved.updated[update.entity.name, default: []].insert(update.primaryKey)
            }
            for write in changes.relationshipWrites {
                let data = (write.model as! any PersistentModel).persistentBackingData
                if let entity = data.entity, case .row(let pk)? = data.key { saved.updated[entity.name, default: []].insert(pk) }
            }
            container.broadcast(saved, from: ObjectIdentifier(self))
        }
    }

    /// Posts ``didSave`` and hands the save to the readers of ``ModelContainer/changes(bufferingPolicy:)``.
    ///
    /// On the save path, so built for cost: a store identifier is looked up once per entity, models
    /// are told apart by object identity (no identifier hashing), and the changed property names are
    /// gathered only while ``ModelContainer/changes(bufferingPolicy:)`` has a reader.
    private func announce(_ changes: ChangeSet, _ result: SaveResult, deleted: [PersistentIdentifier]) {
        let insertedKeys = result.insertedKeys
        var lastEntity: Schema.Entity?
        var lastStoreIdentifier = ""
        func identifier(_ entity: Schema.Entity, _ key: Int64) -> PersistentIdentifier {
            if entity !== lastEntity {
                lastEntity = entity
                lastStoreIdentifier = store.identifier(for: entity)
            }
            return PersistentIdentifier(entityName: entity.name, storeIdentifier: lastStoreIdentifier, key: .row(key))
        }
        var inserted: [PersistentIdentifier] = []
        inserted.reserveCapacity(insertedKeys.count)
        for (insert, key) in zip(changes.inserts, insertedKeys) { inserted.append(identifier(insert.entity, key)) }
        let streaming = container.hasChangeSubscribers
        var updated: [PersistentIdentifier] = []
        updated.reserveCapacity(changes.updates.count)
        var updatedProperties: [PersistentIdentifier: Set<String>] = [:]
        for update in changes.updates {
            let id = identifier(update.entity, update.primaryKey)
            updated.append(id)
            if streaming { updatedProperties[id] = Set(update.attributes.map(\.name)) }
        }
        if !changes.relationshipWrites.isEmpty {
            // A model whose links changed is updated too, once (inserted models are not).
            let insertedObjects = Set(changes.inserts.map { ObjectIdentifier($0.model) })
            var updatedObjects = Set(changes.updates.map { ObjectIdentifier($0.model) })
            for write in changes.relationshipWrites where !insertedObjects.contains(ObjectIdentifier(write.model)) {
                let data = (write.model as! any PersistentModel).persistentBackingData
                guard let entity = data.entity, case .row(let key)? = data.key else { continue }
                let id = identifier(entity, key)
                if updatedObjects.insert(ObjectIdentifier(write.model)).inserted { updated.append(id) }
                if streaming { updatedProperties[id, default: []].insert(write.relationship.name) }
            }
        }
        NotificationCenter.default.post(name: ModelContext.didSave, object: self, userInfo: [
            ModelContext.NotificationKey.insertedIdentifiers.rawValue: inserted,
            ModelContext.NotificationKey.updatedIdentifiers.rawValue: updated,
            ModelContext.NotificationKey.deletedIdentifiers.rawValue: deleted,
        ])
        if streaming {
            container.publish(ModelChanges(
                inserted: inserted, updated: updated, deleted: deleted, updatedProperties: updatedProperties,
                author: author, date: Date(),
                historyToken: result.historyTransactions.isEmpty ? nil : DefaultHistoryToken(result.historyTransactions), isRemote: false))
        }
    }

    /// Refuses a save that changes models of a store that cannot save (its configuration has
    /// `allowsSave: false`, or its file cannot be written), in a container whose other stores can.
    private func checkWritable() throws {
        let models = inserted.models + changed.models + deleted.models
        guard let entity = models.lazy.compactMap({ $0.persistentBackingData.entity }).first(where: { container.readOnlyEntities[$0.name] != nil }),
            let refusal = container.readOnlyEntities[entity.name]
        else {
            return
        }
        throw StowageError(
            .readOnlyStore,
            "\(entity.name) is stored by a configuration \(refusal), so its changes cannot be saved. Nothing was written; the context keeps its changes.",
            entityName: entity.name)
    }
}
