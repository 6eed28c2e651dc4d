// What happens to a context's models when the context is released.
//
// A model does not keep its context alive (``ModelContextLink``), as in SwiftData and Core Data. Models
// do keep each other: a loaded relationship and its loaded inverse are a reference cycle, and a model
// keeps its container (so that it can still load what it has not loaded). Unbroken, such a cycle would
// keep the models, the container and its open store alive after the code let go of all of them. So a
// released context breaks the cycles among the models it held, unloading as little as it can: a
// to-one side before a to-many one (a prefetched to-many stays loaded), a stored model's side before
// an unsaved one's (the stored one loads it again from its row when read).

extension ModelContext {
    /// Discards the unsaved changes (inserted models become plain objects again, changed ones show their
    /// stored values) and breaks the reference cycles among the context's models.
    func releaseModels() {
        let hasRelationships = schema.entities.contains { !$0.relationshipList.isEmpty }
        guard hasRelationships || hasChanges else { return }
        let live = hasRelationships ? registered.models : []
        let unsaved = inserted.models
        for model in changed.models + deleted.models { discardChanges(of: model) }
        if hasRelationships { Self.breakReferenceCycles(among: live + unsaved) }
        for model in unsaved { detach(model.persistentBackingData) }
        inserted.removeAll()
        changed.removeAll()
        deleted.removeAll()
    }

    /// Unloads loaded relationships of `models` (and of the models they reach) until no reference cycle
    /// is left among them: first each relationship loaded on both sides, then whatever cycle remains
    /// (through relationships without an inverse), one reference of each.
    static func breakReferenceCycles(among models: [any PersistentModel]) {
        for model in models { breakInverseCycles(of: model) }
        var search = CycleSearch()
        for model in models { search.visit(model) }
    }

    /// Breaks the cycles `model` makes with the models it is related to through a relationship whose
    /// inverse is loaded on their side too.
    private static func breakInverseCycles(of model: any PersistentModel) {
        guard let entity = model.persistentBackingData.entity else { return }
        for relationship in entity.relationshipList {
            guard let accessor = relationship.accessor, accessor.isLoaded(model) else { continue }
            for inverse in relationship.inverses {
                guard let back = inverse.accessor else { continue }
                guard accessor.isLoaded(model) else { break }
                let holdingBack = accessor.related(model).filter { object in
                    back.isLoaded(object) && back.related(object).contains { $0 === model }
                }
                guard !holdingBack.isEmpty else { continue }
                if unloadsOwnSide(model, relationship, rather: holdingBack, inverse) {
                    accessor.unload(model)
                } else {
                    for object in holdingBack { back.unload(object) }
                }
            }
        }
    }

    /// Whether `model` lets go of `relationship` rather than `others` of `inverse`: the side that can
    /// load again (a stored model), then the to-one side, then a fixed order of the two names.
    private static func unloadsOwnSide(
        _ model: any PersistentModel, _ relationship: Schema.Relationship,
        rather others: [AnyObject], _ inverse: Schema.Relationship
    ) -> Bool {
        let reloads = canReload(model)
        let othersReload = others.allSatisfy { canReload($0) }
        if reloads != othersReload { return reloads }
        if relationship.isToOneRelationship != inverse.isToOneRelationship { return relationship.isToOneRelationship }
        return (relationship.entity?.name ?? "", relationship.name) >= (inverse.entity?.name ?? "", inverse.name)
    }

    /// Whether an unloaded relationship of the object loads again from its row.
    private static func canReload(_ object: AnyObject) -> Bool {
        guard let data = (object as? any PersistentModel)?.persistentBackingData else { return false }
        guard case .row? = data.key else { return false }
        return data.state == .persisted || data.state == .deleted
    }
}

/// A depth-first search through loaded relationships that unloads the reference that closes each cycle
/// it finds (an edge back to a model on the current path).
private struct CycleSearch {
    private enum Mark { case onPath, done }
    private var marks: [ObjectIdentifier: Mark] = [:]

    mutating func visit(_ root: any PersistentModel) {
        guard marks[ObjectIdentifier(root)] == nil, Self.hasLoadedRelationship(root) else { return }
        // The path: each model with the relationships and related objects left to follow.
        var path: [(model: any PersistentModel, edges: [(Schema.Relationship, AnyObject)])] = []
        func enter(_ model: any PersistentModel) {
            marks[ObjectIdentifier(model)] = .onPath
            path.append((model, Self.edges(of: model)))
        }
        enter(root)
        while !path.isEmpty {
            guard let (relationship, object) = path[path.count - 1].edges.popLast() else {
                marks[ObjectIdentifier(path.removeLast().model)] = .done
                continue
            }
            let model = path[path.count - 1].model
            switch marks[ObjectIdentifier(object)] {
            case .onPath?:
                // Still loaded unless an earlier back edge of the same relationship unloaded it.
                if relationship.accessor?.isLoaded(model) == true { relationship.accessor?.unload(model) }
            case .done?:
                break
            case nil:
                if let related = object as? any PersistentModel, Self.hasLoadedRelationship(related) {
                    enter(related)
                } else {
                    marks[ObjectIdentifier(object)] = .done
                }
            }
        }
    }

    private static func hasLoadedRelationship(_ model: any PersistentModel) -> Bool {
        guard let entity = model.persistentBackingData.entity else { return false }
        return entity.relationshipList.contains { $0.accessor?.isLoaded(model) == true }
    }

    private static func edges(of model: any PersistentModel) -> [(Schema.Relationship, AnyObject)] {
        guard let entity = model.persistentBackingData.entity else { return [] }
        var edges: [(Schema.Relationship, AnyObject)] = []
        for relationship in entity.relationshipList {
            guard let accessor = relationship.accessor, accessor.isLoaded(model) else { continue }
            for object in accessor.related(model) { edges.append((relationship, object)) }
        }
        return edges
    }
}
