import GRDB
import StowageCore

extension EditSession {
    /// The keys the to-many `relationship` of the row `key` holds once `adding` is appended or `removing`
    /// removed, in the order the app loads them: what ``StoreEditor/Change/append(entity:key:relationship:row:)``
    /// and ``StoreEditor/Change/remove(entity:key:relationship:row:)`` assign.
    /// - Throws: ``ToolError`` for an unknown row or relationship, a to-one relationship, a row added
    ///   that the list holds already or removed that it does not hold.
    func list(of entityName: String, key: Int64, relationship name: String, adding: Int64? = nil, removing: Int64? = nil) throws -> [Int64] {
        let row = try requireRow(entity: try entity(named: entityName), key: key)
        guard let relationship = row.entity.relationships.first(where: { $0.name == name }) else {
            throw ToolError("\(row.entity.name) has no relationship \(name)", exitCode: 64)
        }
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
}

extension StoreEditor {
    /// The keys of the rows the relationship `relationship` of the row `key` links to, in the order the
    /// app loads them (an ordered to-many's order).
    /// - Throws: ``ToolError`` for an unknown entity, row or relationship.
    package func relatedKeys(entity: String, key: Int64, relationship: String) throws -> [Int64] {
        try reader.read { db in
            let session = EditSession(db: db, description: reader.description, path: reader.path)
            let row = try session.requireRow(entity: try session.entity(named: entity), key: key)
            guard let link = row.entity.relationships.first(where: { $0.name == relationship }) else {
                throw ToolError("\(row.entity.name) has no relationship \(relationship)", exitCode: 64)
            }
            return try session.relatedRows(of: row, through: link).map(\.key)
        }
    }
}
