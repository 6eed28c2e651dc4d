import Foundation

extension ModelBackingData {
    /// Called by the generated setter of a relationship, with the models it will hold: tracks the
    /// change, keeps the inverse in step on both sides (immediately, whether or not the models are
    /// inserted), and inserts newly related models into the context of either side.
    @usableFromInline
    func relationshipWillChange<Model: PersistentModel>(_ model: Model, storage: AnyKeyPath, to newObjects: [AnyObject]) {
        let entity = self.entity ?? Schema.standaloneEntity(for: Model.self)
        guard let index = entity.propertyIndex(for: storage), let relationship = entity.properties[index] as? Schema.Relationship,
              let accessor = relationship.accessor
        else { return }
        if state == .removed { context?.removedModelWillChange(model, self, storage: storage) }
        RelationshipGraph.ensureLoaded(relationship, of: model)
        let oldObjects = accessor.related(model)
        RelationshipGraph.trackChange(of: relationship, in: model)
        if let inverse = relationship.inverse {
            let added = newObjects.filter { new in !oldObjects.contains { $0 === new } }
            let removed = oldObjects.filter { old in !newObjects.contains { $0 === old } }
            for object in removed {
                for inverse in relationship.inverses { RelationshipGraph.unlink(model, from: object, through: inverse) }
            }
            for object in added { RelationshipGraph.link(model, to: object, through: inverse, from: relationship) }
        }
        RelationshipGraph.propagateInsertion(from: model, to: newObjects)
    }
}

/// Keeps both sides of relationships in step, in memory.
enum RelationshipGraph {
    /// Loads a relationship whose storage is empty: from the store for a saved model, as empty for a
    /// model that has no row yet.
    ///
    /// A property getter cannot throw: when the store fails to read, the relationship reads as empty and
    /// the failure is logged. Code that must not act on a relationship it could not read (a save's
    /// delete rules and count checks) uses ``load(_:of:)``.
    static func ensureLoaded(_ relationship: Schema.Relationship, of model: AnyObject) {
        do {
            try load(relationship, of: model)
        } catch {
            ModelContext.logger.error("Loading \(relationship.entity?.name ?? "?").\(relationship.name) failed: \(error)")
            relationship.accessor?.load([], into: model)
        }
    }

    /// Loads a relationship whose storage is empty, as ``ensureLoaded(_:of:)`` does, but throws when the
    /// store fails to read it, leaving it unloaded.
    static func load(_ relationship: Schema.Relationship, of model: AnyObject) throws {
        guard let accessor = relationship.accessor, !accessor.isLoaded(model) else { return }
        let data = (model as! any PersistentModel).persistentBackingData
        if case .row? = data.key, data.state != .detached, let context = data.loadingContext {
            do {
                try context.retryingOutOfMemory { try context.loadRelationship(relationship, of: model, backingData: data) }
            } catch var error as StowageError {
                let message = "Reading \(relationship.entity?.name ?? "?").\(relationship.name) of \(data.entity?.name ?? "a model") failed: \(error.message)"
                error = StowageError(
                    error.code, message, entityName: relationship.entity?.name, propertyName: relationship.name,
                    sql: error.sql, sqliteCode: error.sqliteCode, underlying: error.underlying)
                throw error
            }
            return
        }
        accessor.load([], into: model)
    }

    /// Records that `relationship` of `model` changes: a snapshot for rollback and a dirty mark for save.
    static func trackChange(of relationship: Schema.Relationship, in model: AnyObject) {
        let data = (model as! any PersistentModel).persistentBackingData
        switch data.state {
        case .persisted, .deleted:
            // A model pending deletion is tracked too, so that rollback restores what changed meanwhile.
            data.context?.relationshipWillChange(model as! any PersistentModel, data, relationship: relationship)
        case .inserted: data.context?.insertedModelDidChange()
        case .detached, .removed: break
        }
    }

    /// Removes `owner` from `object`'s `inverse` relationship.
    static func unlink(_ owner: AnyObject, from object: AnyObject, through inverse: Schema.Relationship) {
        guard let accessor = inverse.accessor else { return }
        ensureLoaded(inverse, of: object)
        let current = accessor.related(object)
        guard current.contains(where: { $0 === owner }) else { return }
        trackChange(of: inverse, in: object)
        accessor.setRelated(current.filter { $0 !== owner }, in: object)
    }

    /// Adds `owner` to `object`'s `inverse` relationship, `owner`'s `relationship` having gained
    /// `object`; a to-one inverse first leaves its previous owner (the object moves). When several
    /// relationships share that to-one inverse, the object leaves every one of them but `relationship`.
    static func link(_ owner: AnyObject, to object: AnyObject, through inverse: Schema.Relationship, from relationship: Schema.Relationship) {
        guard let accessor = inverse.accessor else { return }
        ensureLoaded(inverse, of: object)
        let current = accessor.related(object)
        if inverse.isToOneRelationship, !inverse.sharingRelationships.isEmpty {
            if let previous = current.first {
                for sharing in inverse.inverses where previous !== owner || sharing !== relationship {
                    unlink(object, from: previous, through: sharing)
                }
            }
            if current.first !== owner {
                trackChange(of: inverse, in: object)
                accessor.setRelated([owner], in: object)
            }
            return
        }
        guard !current.contains(where: { $0 === owner }) else { return }
        trackChange(of: inverse, in: object)
        if inverse.isToOneRelationship {
            if let previous = current.first {
                for back in inverse.inverses { unlink(object, from: previous, through: back) }
            }
            accessor.setRelated([owner], in: object)
        } else {
            accessor.setRelated(current + [owner], in: object)
        }
    }

    /// Relating a model to another inserts whichever of the two is not in a context yet into the
    /// other's context.
    static func propagateInsertion(from model: any PersistentModel, to objects: [AnyObject]) {
        let data = model.persistentBackingData
        if let context = data.context, data.state == .inserted || data.state == .persisted {
            for object in objects {
                let related = object as! any PersistentModel
                if related.persistentBackingData.state == .detached { context.insert(related) }
            }
        } else if data.state == .detached {
            for object in objects {
                let related = (object as! any PersistentModel).persistentBackingData
                if let context = related.context, related.state == .inserted || related.state == .persisted {
                    context.insert(model)
                    return
                }
            }
        }
    }
}

extension Schema {
    private static let standalone = Locked<[ObjectIdentifier: Schema]>([:])

    /// The entity of a model type outside any container, for models that are not inserted yet: its
    /// relationships and inverses are resolved against the types reachable from it.
    static func standaloneEntity<T: PersistentModel>(for type: T.Type) -> Entity {
        let key = ObjectIdentifier(type)
        if let schema = standalone.withLock({ $0[key] }), let entity = schema.entity(for: type) { return entity }
        let made = Schema([type])
        // Keep whichever schema was stored first: entities refer to each other without retaining.
        let schema = standalone.withLock { cache in
            if let existing = cache[key] { return existing }
            cache[key] = made
            return made
        }
        return schema.entity(for: type)!
    }
}
