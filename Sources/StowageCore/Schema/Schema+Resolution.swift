import Foundation

extension Schema {
    /// Pairs every relationship with its inverse (declared with `inverse:` on either side, or inferred
    /// when exactly one relationship of the destination points back) and decides where its links live.
    static func resolveRelationships(of entities: [Entity], byType: [ObjectIdentifier: Entity]) -> [StowageError] {
        var problems: [StowageError] = []
        // A subclass's inherited relationships are its superclass's: they take their inverse and their
        // storage from there once those are resolved.
        func isInherited(_ relationship: Relationship) -> Bool {
            relationship.index < (relationship.entity?.superentity?.properties.count ?? 0)
        }
        let all = entities.flatMap(\.relationshipList).filter { !isInherited($0) }
        for relationship in all {
            relationship.destinationEntity = relationship.destinationType.flatMap { byType[ObjectIdentifier($0)] }
        }
        // Declared inverses, from either side.
        for relationship in all {
            guard let keyPath = relationship.inverseKeyPath, let destination = relationship.destinationEntity else { continue }
            guard let index = destination.propertyIndex(for: keyPath),
                  let inverse = destination.properties[index] as? Relationship,
                  inverse.destinationEntity === relationship.entity
            else {
                problems.append(StowageError(
                    .invalidSchema,
                    "\(relationship.entity?.name ?? "?").\(relationship.name) declares an inverse that is not a relationship of \(destination.name) back to \(relationship.entity?.name ?? "?").",
                    entityName: relationship.entity?.name, propertyName: relationship.name))
                continue
            }
            if let existing = inverse.inverse, existing !== relationship {
                // Several relationships of one entity may share a to-one inverse (Apple's Backyard Birds:
                // `leadingPlants` and `trailingPlants` both `inverse: \Plant.backyard`): the model is in
                // at most one of them, and the to-one names the model holding it.
                guard inverse.isToOneRelationship, existing.entity === relationship.entity else {
                    problems.append(StowageError(
                        .invalidSchema,
                        "\(destination.name).\(inverse.name) is the inverse of both \(existing.entity?.name ?? "?").\(existing.name) and \(relationship.entity?.name ?? "?").\(relationship.name). Only a to-one relationship can be the inverse of several relationships, and only of relationships of one entity.",
                        entityName: destination.name, propertyName: inverse.name))
                    continue
                }
                if inverse.sharingRelationships.isEmpty { inverse.sharingRelationships = [UnownedRelationship(value: existing)] }
                inverse.sharingRelationships.append(UnownedRelationship(value: relationship))
                inverse.sharingRelationships.sort { $0.value.index < $1.value.index }
                inverse.inverse = inverse.sharingRelationships[0].value
                relationship.inverse = inverse
                continue
            }
            relationship.inverse = inverse
            inverse.inverse = relationship
        }
        // A to-one that is also declared from its own side names the first sharing relationship.
        for relationship in all where !relationship.sharingRelationships.isEmpty {
            relationship.inverse = relationship.sharingRelationships[0].value
        }
        // Inferred inverses: exactly one unpaired relationship of the destination pointing back.
        for relationship in all where relationship.inverse == nil && relationship.inverseKeyPath == nil {
            guard let destination = relationship.destinationEntity else { continue }
            let candidates = destination.relationshipList.filter {
                !isInherited($0) && $0 !== relationship && $0.destinationEntity === relationship.entity && $0.inverse == nil && $0.inverseKeyPath == nil
            }
            let rivals = relationship.entity?.relationshipList.filter {
                !isInherited($0) && $0.destinationEntity === destination && $0.inverse == nil && $0.inverseKeyPath == nil
            } ?? []
            if candidates.count == 1 && rivals.count == 1 {
                relationship.inverse = candidates[0]
                candidates[0].inverse = relationship
            } else if candidates.count >= 1 && rivals.count >= 1 && (candidates.count > 1 || rivals.count > 1) {
                let names = (rivals + candidates).map { "\($0.entity?.name ?? "?").\($0.name)" }
                problems.append(StowageError(
                    .invalidSchema,
                    "The inverses of \(names.joined(separator: ", ")) are ambiguous. Declare them with @Relationship(inverse: \\\(destination.name).property).",
                    entityName: relationship.entity?.name, propertyName: relationship.name))
            }
        }
        for relationship in all { relationship.storage = storage(of: relationship) }
        func depth(_ entity: Entity) -> Int { entity.superentity.map { depth($0) + 1 } ?? 0 }
        for entity in entities.sorted(by: { depth($0) < depth($1) }) {
            guard let superentity = entity.superentity else { continue }
            for relationship in entity.relationshipList where isInherited(relationship) {
                guard let source = superentity.properties[relationship.index] as? Relationship else { continue }
                relationship.destinationEntity = source.destinationEntity
                relationship.inverse = source.inverse
                relationship.sharingRelationships = source.sharingRelationships
                relationship.storage = source.storage
            }
        }
        for entity in entities {
            entity.foreignKeyRelationships = entity.relationshipList.filter {
                if case .foreignKey = $0.storage { return true }
                return false
            }
        }
        return problems
    }

    /// Decides where a relationship's links live. The side with the smaller `Entity.property` name owns
    /// a shared foreign key or join table, so both sides agree; a renamed side counts under its
    /// `originalName`, so renaming a relationship does not move its links to the other table.
    private static func storage(of relationship: Relationship) -> RelationshipStorage {
        let own = relationship.entity?.name ?? ""
        let other = relationship.destinationEntity?.name ?? ""
        // A shared inverse: each side keeps its own links (a foreign key for the to-one, a join table for
        // each relationship sharing it), kept in step by the context.
        guard let inverse = relationship.inverse, !relationship.hasSharedInverse else {
            if relationship.isToOneRelationship {
                return .foreignKey(column: "\(relationship.name)_pk", positionColumn: nil)
            }
            let (ownColumn, otherColumn) = own == other ? ("source_pk", "target_pk") : ("\(own)_pk", "\(other)_pk")
            return .joinTable(table: "\(own)_\(relationship.name)", ownColumn: ownColumn, otherColumn: otherColumn,
                              ownPosition: "\(relationship.name)_position", otherPosition: "inverse_position")
        }
        let isOwner = "\(own).\(relationship.originalName)" <= "\(other).\(inverse.originalName)"
        switch (relationship.isToOneRelationship, inverse.isToOneRelationship) {
        case (true, false):
            return .foreignKey(column: "\(relationship.name)_pk", positionColumn: "\(relationship.name)_position")
        case (false, true):
            return .inverseForeignKey
        case (true, true):
            return isOwner ? .foreignKey(column: "\(relationship.name)_pk", positionColumn: nil) : .inverseForeignKey
        case (false, false):
            let owner = isOwner ? relationship : inverse
            let ownerEntity = owner.entity?.name ?? ""
            let table = "\(ownerEntity)_\(owner.name)"
            let (ownColumn, otherColumn) = own == other
                ? (isOwner ? ("source_pk", "target_pk") : ("target_pk", "source_pk"))
                : ("\(own)_pk", "\(other)_pk")
            return .joinTable(table: table, ownColumn: ownColumn, otherColumn: otherColumn,
                              ownPosition: "\(relationship.name)_position", otherPosition: "\(inverse.name)_position")
        }
    }
}
