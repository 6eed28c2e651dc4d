import Foundation

/// Finds which relationship and attribute a key path like `\Transaction.budget?.name` reads, by
/// evaluating it once on a probe model: Swift on Linux cannot take a key path apart, but every stored
/// property of a model loads through its backing data, which the probe records. Used to run sorts
/// through to-one relationships in SQL.
final class KeyPathProbe {
    private(set) var relationships: [Schema.Relationship] = []
    private(set) var attribute: Schema.Attribute?
    private(set) var failed = false

    /// The to-one path and attribute `keyPath` reads from a model of `entity`, or `nil` when it reads
    /// something else (a computed value, a to-many relationship, a value SQL cannot order by).
    static func resolve(_ keyPath: AnyKeyPath, entity: Schema.Entity) -> ([Schema.Relationship], Schema.Attribute)? {
        guard isProbeable(entity, visited: []) else { return nil }
        let probe = KeyPathProbe()
        var state = ModelBackingData.Storage()
        state.entity = entity
        state.probe = probe
        let root = entity.modelType.init(backingData: state)
        guard let result = root[keyPath: keyPath], !probe.failed, let attribute = probe.attribute, !probe.relationships.isEmpty,
              let expected = attribute.accessor.probeValue,
              let produced = try? attribute.accessor.encode(constant: unwrapOptional(result) as Any),
              let stored = try? attribute.accessor.encode(constant: expected), produced == stored
        else { return nil }
        return (probe.relationships, attribute)
    }

    /// Every attribute of the entity, and of entities reached through its to-one relationships, has a
    /// probe value: the probe can answer any read without fabricating a value it cannot make.
    private static func isProbeable(_ entity: Schema.Entity, visited: Set<ObjectIdentifier>) -> Bool {
        guard !visited.contains(ObjectIdentifier(entity)) else { return true }
        let visited = visited.union([ObjectIdentifier(entity)])
        return entity.attributeList.allSatisfy { $0.accessor.probeValue != nil }
            && entity.relationshipList.allSatisfy { relationship in
                !relationship.isToOneRelationship || relationship.destinationEntity.map { isProbeable($0, visited: visited) } ?? false
            }
    }

    private static func unwrapOptional(_ value: Any) -> Any? {
        if let optional = value as? any OptionalProtocol { return unwrap(optional) }
        return value
    }

    private static func unwrap<O: OptionalProtocol>(_ optional: O) -> Any? { optional.wrappedValue.flatMap(unwrapOptional) }

    /// Answers a read of a probe model's property: a probe model for a to-one relationship, the probe
    /// value for an attribute, an empty value (and failure) for anything else.
    func answer<Model: PersistentModel, Value>(_ model: Model, _ data: ModelBackingData, _ storage: ReferenceWritableKeyPath<Model, Value?>) -> Value {
        guard let entity = data.entity, let index = entity.propertyIndex(for: storage) else { return fail(Value.self) }
        let property = entity.properties[index]
        if attribute != nil { return fail(Value.self) }
        if let relationship = property as? Schema.Relationship {
            guard relationship.isToOneRelationship, let destination = relationship.destinationEntity else { return fail(Value.self) }
            relationships.append(relationship)
            var next = ModelBackingData.Storage()
            next.entity = destination
            next.probe = self
            func make<M: PersistentModel>(_ type: M.Type) -> Any { M(backingData: next) as M? as Any }
            return make(destination.modelType) as? Value ?? fail(Value.self)
        }
        if let attribute = property as? Schema.Attribute, let value = attribute.accessor.probeValue as? Value {
            self.attribute = attribute
            return value
        }
        return fail(Value.self)
    }

    private func fail<Value>(_ type: Value.Type) -> Value {
        failed = true
        guard let empty = ModelBackingData.emptyValue(of: Value.self) else {
            preconditionFailure("Stowage internal error: the key path probe met a value it cannot make")
        }
        return empty
    }
}
