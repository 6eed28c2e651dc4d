import GRDB
import StowageCore

extension EditSession {
    /// The keys the to-many `relationship` of the row `key` holds once `adding` is appended or `removing`
    /// removed, in the order the app loads them: what ``StoreEditor/Change/append(entity:key:relationship:row:)``
    /// and ``StoreEditor/Change/remove(entity:key:relationship:row:)`` assign.
    /// - Throws: ``ToolError`` for an unknown row or relationship, a to-one relationship, a row added
    ///   that the list holds already or removed that it does not hold.
    func list(of entityName: String, key: Int64, relationship name: String, adding: Int64? = nil, removing: Int64? = nil) throws -> [Int64] {
        let (row, relationship) = try rowAndRelationship(entityName, key, name)
        guard relationship.isToMany else {
            throw ToolError("\(row.entity.name).\(name) is a to-one relationship: set it to a row's key", exitCode: 64)
        }
        var keys = try relatedRows(of: row, through: relationship).map(\.key)
        if let adding {
            guard !keys.contains(adding) else {
                throw ToolError("\(name) of \(try label(row)) already includes \(relationship.destination) \(adding)", exitCode: 65)
            }
            keys.append(adding)
        }
        if let removing {
            guard let index = keys.firstIndex(of: removing) else {
                throw ToolError("\(name) of \(try label(row)) does not include \(relationship.destination) \(removing)", exitCode: 65)
            }
            keys.remove(at: index)
        }
        return keys
    }

    /// The row `key` of the entity named `entityName` and its relationship `name`.
    /// - Throws: ``ToolError`` for an unknown entity, row or relationship.
    func rowAndRelationship(_ entityName: String, _ key: Int64, _ name: String) throws -> (StoredRow, StoreDescription.Relationship) {
        let row = try requireRow(entity: try entity(named: entityName), key: key)
        guard let relationship = row.entity.relationships.first(where: { $0.name == name }) else {
            throw ToolError("\(row.entity.name) has no relationship \(name)", exitCode: 64)
        }
        return (row, relationship)
    }
}

extension StoreEditor {
    /// The keys of the rows the relationship `relationship` of the row `key` links to, in the order the
    /// app loads them (an ordered to-many's order).
    /// - Throws: ``ToolError`` for an unknown entity, row or relationship.
    package func relatedKeys(entity: String, key: Int64, relationship: String) throws -> [Int64] {
        try reader.read { db in
            let session = EditSession(db: db, description: reader.description, path: reader.path)
            let (row, link) = try session.rowAndRelationship(entity, key, relationship)
            return try session.relatedRows(of: row, through: link).map(\.key)
        }
    }
}

extension StoreEditor {
    /// Why the editor does not set `relationship` of `entity`, or `nil` when it does. It does not set a
    /// relationship that is the inverse of several relationships of its destination (a to-one that
    /// Backyard Birds' `leadingPlants` and `trailingPlants` both declare as their inverse), nor one of
    /// those relationships sharing it: the app keeps their links in step in its memory.
    package static func refusal(toSet relationship: StoreDescription.Relationship, of entity: StoreDescription.Entity, in description: StoreDescription) -> String? {
        guard let destination = description.entity(named: relationship.destination) else {
            return "\(entity.name).\(relationship.name) leads to \(relationship.destination), which the store does not describe"
        }
        let inverse = relationship.inverse.flatMap { name in destination.relationships.first { $0.name == name } }
        let sharing = destination.relationships.filter { $0.inverse == relationship.name && $0.destination == inverse?.destination }
        if sharing.count > 1 {
            return "\(entity.name).\(relationship.name) is the inverse of several relationships of \(destination.name) (\(sharing.map(\.name).joined(separator: ", "))), whose links the app keeps in step itself: set it in the app"
        }
        if let inverse {
            let siblings = entity.relationships.filter { $0.destination == relationship.destination && $0.inverse == inverse.name }
            if siblings.count > 1 {
                return "\(entity.name).\(relationship.name) shares its inverse \(destination.name).\(inverse.name) with \(siblings.filter { $0.name != relationship.name }.map(\.name).joined(separator: ", ")), whose links the app keeps in step itself: set it in the app"
            }
        }
        return nil
    }
}
