import Foundation

extension ModelContext {
    /// Loads one relationship of a saved model from the store (one query), resolving registered objects
    /// through the identity map.
    func loadRelationship(_ relationship: Schema.Relationship, of model: AnyObject, backingData data: ModelBackingData) throws {
        guard let accessor = relationship.accessor else { return }
        guard case .row(let pk)? = data.key, let destination = relationship.destinationEntity else {
            accessor.load([], into: model)
            return
        }
        switch relationship.storage {
        case .foreignKey:
            guard let key = data.foreignKeys[relationship.index] else {
                accessor.load([], into: model)
                return
            }
            accessor.load(try objects(of: destination, primaryKeys: [key]), into: model)
        case .inverseForeignKey, .joinTable:
            let groups = try relatedObjects(relationship, owners: [pk])
            accessor.load(groups[pk] ?? [], into: model)
        }
    }

    /// The objects for rows of an entity, from the identity map or loaded in one query, in key order.
    func objects(of entity: Schema.Entity, primaryKeys: [Int64]) throws -> [AnyObject] {
        var found: [Int64: AnyObject] = [:]
        var missing: [Int64] = []
        for key in primaryKeys {
            if let model = registered[RowKey(entity: entity, primaryKey: key)]?.model { found[key] = model } else { missing.append(key) }
        }
        if !missing.isEmpty {
            for (key, model) in try fetchObjectsByKey(StoreQuery(entity: entity, primaryKeys: missing)) { found[key] = model }
        }
        return primaryKeys.compactMap { found[$0] }
    }

    /// The related objects of several owners through a relationship stored on the other side (one query),
    /// by owner, in link order.
    func relatedObjects(_ relationship: Schema.Relationship, owners: [Int64]) throws -> [Int64: [AnyObject]] {
        guard let destination = relationship.destinationEntity else { return [:] }
        let columns = StoreQuery(entity: destination)
        let layout = RowLayout(columns, storeIdentifier: store.identifier(for: destination))
        var groups: [Int64: [AnyObject]] = [:]
        try store.fetchRelated(relationship, owners: owners, columns: columns) { owner, row in
            groups[owner, default: []].append(try materialize(row, layout))
        }
        return groups
    }

    /// Loads the relationships named by `keyPaths` for all `models` with one query per key path.
    func prefetch<T: PersistentModel>(_ keyPaths: [PartialKeyPath<T>], for models: [T], entity: Schema.Entity) throws {
        for keyPath in keyPaths {
            guard let index = entity.propertyIndex(for: keyPath), let relationship = entity.properties[index] as? Schema.Relationship,
                  let accessor = relationship.accessor, let destination = relationship.destinationEntity
            else { continue }
            let pending = models.filter { !accessor.isLoaded($0) }
            guard !pending.isEmpty else { continue }
            switch relationship.storage {
            case .foreignKey:
                let keys = Set(pending.compactMap { $0.persistentBackingData.foreignKeys[relationship.index] })
                let related = try objects(of: destination, primaryKeys: keys.sorted())
                var byKey: [Int64: AnyObject] = [:]
                for object in related {
                    if case .row(let key)? = (object as! any PersistentModel).persistentBackingData.key { byKey[key] = object }
                }
                for model in pending {
                    let key = model.persistentBackingData.foreignKeys[relationship.index]
                    accessor.load(key.flatMap { byKey[$0] }.map { [$0] } ?? [], into: model)
                }
            case .inverseForeignKey, .joinTable:
                var owners: [Int64: T] = [:]
                for model in pending { if case .row(let key)? = model.persistentBackingData.key { owners[key] = model } }
                let groups = try relatedObjects(relationship, owners: owners.keys.sorted())
                for (key, model) in owners { accessor.load(groups[key] ?? [], into: model) }
            }
        }
    }

    // MARK: - Save support

    /// The models the delete rules of this save's deletions take with them (cascade, through several
    /// levels and cycles), computed without changing the context. A `.deny` relationship that still
    /// refers to models fails the save, naming them. Nullify relationships are loaded too, so the models
    /// on their other side forget the deleted ones after the save.
    func cascadedDeletions() throws -> [any PersistentModel] {
        var scheduled: [any PersistentModel] = []
        var queue = deleted.models
        var visited = Set(queue.map { ObjectIdentifier($0) })
        var denials: [String] = []
        while let model = queue.popLast() {
            guard let entity = model.persistentBackingData.entity else { continue }
            for relationship in entity.relationshipList {
                guard relationship.deleteRule != .noAction, relationship.inverse != nil || relationship.deleteRule != .nullify else { continue }
                try RelationshipGraph.load(relationship, of: model)
                let related = relationship.accessor?.related(model).filter {
                    !visited.contains(ObjectIdentifier($0)) && (($0 as! any PersistentModel).persistentBackingData.state != .removed)
                } ?? []
                switch relationship.deleteRule {
                case .deny where !related.isEmpty:
                    denials.append(StowageError.deleteDenial(
                        "\(model.persistentModelID)", relationship: relationship.name,
                        refersTo: related.map { "\(($0 as! any PersistentModel).persistentModelID)" }))
                case .cascade:
                    for object in related {
                        visited.insert(ObjectIdentifier(object))
                        let object = object as! any PersistentModel
                        scheduled.append(object)
                        queue.append(object)
                    }
                default:
                    break
                }
            }
        }
        if !denials.isEmpty {
            throw StowageError.deleteDenied(denials, entityName: deleted.models.first?.persistentBackingData.entity?.name)
        }
        return scheduled
    }

    /// Checks `minimumModelCount` / `maximumModelCount` of the to-many relationships of the models this
    /// save inserts or changes, and of the models that lose related models to its deletions.
    func validateRelationshipCounts(goingAway: Set<ObjectIdentifier>) throws {
        // Most schemas declare no count limits: nothing to check, and no pass over every pending model.
        let limited = schema.entities.contains { entity in
            entity.relationshipList.contains { ($0.minimumModelCount ?? 0) > 0 || ($0.maximumModelCount ?? 0) > 0 }
        }
        guard limited else { return }
        var candidates: [any PersistentModel] = (inserted.models + changed.models).filter { !goingAway.contains(ObjectIdentifier($0)) }
        var seen = Set(candidates.map { ObjectIdentifier($0) })
        for model in deleted.models {
            guard let entity = model.persistentBackingData.entity else { continue }
            for relationship in entity.relationshipList {
                guard relationship.inverses.contains(where: { inverse in
                    !inverse.isToOneRelationship && ((inverse.minimumModelCount ?? 0) > 0 || (inverse.maximumModelCount ?? 0) > 0)
                }) else { continue }
                try RelationshipGraph.load(relationship, of: model)
                for related in relationship.accessor?.related(model) ?? [] where !goingAway.contains(ObjectIdentifier(related)) {
                    if seen.insert(ObjectIdentifier(related)).inserted { candidates.append(related as! any PersistentModel) }
                }
            }
        }
        for model in candidates {
            guard let entity = model.persistentBackingData.entity else { continue }
            for relationship in entity.relationshipList where !relationship.isToOneRelationship {
                let minimum = relationship.minimumModelCount ?? 0
                let maximum = relationship.maximumModelCount ?? 0
                guard minimum > 0 || maximum > 0 else { continue }
                try RelationshipGraph.load(relationship, of: model)
                let count = relationship.accessor?.related(model).filter { !goingAway.contains(ObjectIdentifier($0)) }.count ?? 0
                if (minimum > 0 && count < minimum) || (maximum > 0 && count > maximum) {
                    throw StowageError.relationshipCount(
                        "\(model.persistentModelID)", entity: entity.name, relationship: relationship.name, count: count,
                        minimum: minimum, maximum: maximum)
                }
            }
        }
    }

    /// The link writes of a save: every stored relationship of inserted models, and the changed
    /// relationships of changed models.
    func relationshipWrites(excluding goingAway: Set<ObjectIdentifier>) -> [ChangeSet.RelationshipWrite] {
        var writes: [ChangeSet.RelationshipWrite] = []
        // A to-many holds each model once, as the store does: an object appended twice is kept at its
        // first position.
        for model in [inserted.models, changed.models].joined() {
            guard let entity = model.persistentBackingData.entity, !entity.relationshipList.isEmpty,
                  !goingAway.contains(ObjectIdentifier(model)) else { continue }
            for relationship in entity.relationshipList where !relationship.isToOneRelationship {
                guard let accessor = relationship.accessor, accessor.isLoaded(model) else { continue }
                let related = accessor.related(model)
                var seen = Set<ObjectIdentifier>()
                let unique = related.filter { seen.insert(ObjectIdentifier($0)).inserted }
                if unique.count != related.count { accessor.setRelated(unique, in: model) }
            }
        }
        for model in inserted.models {
            guard let entity = model.persistentBackingData.entity, !entity.relationshipList.isEmpty,
                  !goingAway.contains(ObjectIdentifier(model)) else { continue }
            for relationship in entity.relationshipList {
                guard let accessor = relationship.accessor, accessor.isLoaded(model), !accessor.related(model).isEmpty else { continue }
                // Links stored by the other side's foreign key are written by the related models
                // themselves: inverse maintenance inserted or changed each of them.
                if case .inverseForeignKey = relationship.storage { continue }
                writes.append(.init(model: model, relationship: relationship))
            }
        }
        for model in changed.models where !goingAway.contains(ObjectIdentifier(model)) {
            let data = model.persistentBackingData
            guard data.state == .persisted, let entity = data.entity, !entity.relationshipList.isEmpty else { continue }
            for index in data.changedProperties {
                guard let relationship = entity.properties[index] as? Schema.Relationship else { continue }
                if case .inverseForeignKey = relationship.storage, relationship.isToOneRelationship { continue }
                writes.append(.init(model: model, relationship: relationship))
            }
        }
        return writes
    }

    /// After a save deleted models, removes them from the relationships of the models that remain (the
    /// store already cleared or cascaded the rows), except for `.noAction` relationships.
    func detachDeleted(_ models: [any PersistentModel]) {
        for model in models {
            guard let entity = model.persistentBackingData.entity else { continue }
            for relationship in entity.relationshipList {
                guard relationship.deleteRule != .noAction, let accessor = relationship.accessor, accessor.isLoaded(model) else { continue }
                for inverse in relationship.inverses {
                    guard let inverseAccessor = inverse.accessor else { continue }
                    for related in accessor.related(model) where inverseAccessor.isLoaded(related) {
                        let current = inverseAccessor.related(related)
                        if current.contains(where: { $0 === model }) {
                            inverseAccessor.setRelated(current.filter { $0 !== model }, in: related)
                        }
                    }
                }
            }
        }
    }
}

extension StowageError {
    /// One refusal of a `.deny` relationship: `model` (an identifier's description, `Budget/p1`) still
    /// refers to `related` through `relationship`.
    static func deleteDenial(_ model: String, relationship: String, refersTo related: [String]) -> String {
        "\(model).\(relationship) still refers to \(related.joined(separator: ", "))"
    }

    /// The error of a save that leaves `model` (an identifier's description) with `count` related models
    /// through `relationship`, outside its `minimumModelCount` / `maximumModelCount` (0: no limit).
    static func relationshipCount(_ model: String, entity: String, relationship: String, count: Int, minimum: Int, maximum: Int) -> StowageError {
        StowageError(
            .relationshipCount,
            "\(model).\(relationship) has \(count) models; it needs \(minimum > 0 ? "at least \(minimum)" : "")\(minimum > 0 && maximum > 0 ? " and " : "")\(maximum > 0 ? "at most \(maximum)" : ""). Nothing was written.",
            entityName: entity, propertyName: relationship)
    }

    /// The error of a save that relates `owner` (an identifier's description) through the
    /// `@Relationship(.unique)` `relationship` of `entity` to `target`, which `other` is related to already.
    static func uniqueRelationship(entity: String, relationship: String, target: String, other: String, owner: String) -> StowageError {
        StowageError(
            .constraintViolation,
            "\(entity).\(relationship) is @Relationship(.unique), and \(target) is already related to \(other) through it, so \(owner) cannot be related to it too. Unlink it from the other model first.",
            entityName: entity, propertyName: relationship)
    }

    /// The error of a save whose deletions `.deny` relationships refuse (``deleteDenial(_:relationship:refersTo:)``).
    static func deleteDenied(_ denials: [String], entityName: String?) -> StowageError {
        StowageError(
            .deleteDenied,
            "The save would delete models whose relationships deny deletion while they refer to other models: \(denials.joined(separator: "; ")). Remove those references first, or roll back. Nothing was written.",
            entityName: entityName)
    }
}
