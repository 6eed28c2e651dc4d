import Foundation
import GRDB
import GRDBSQLite

extension SQLiteStore {
    func fetchRelated(_ relationship: Schema.Relationship, owners: [Int64], columns query: StoreQuery,
                      _ body: (Int64, StoreRow) throws -> Void) throws {
        guard !owners.isEmpty, let destination = relationship.destinationEntity else { return }
        let q = SQLiteSQL.quote
        var fragment = SQLFragment("SELECT d.\(q(SQLiteSQL.primaryKeyColumn))")
        for attribute in query.attributes { fragment.append(", d.\(q(attribute.name))") }
        for foreignKey in query.foreignKeys {
            if case .foreignKey(let column, _) = foreignKey.storage { fragment.append(", d.\(q(column))") }
        }
        if destination.isInHierarchy { fragment.append(", d.\(q(Schema.Entity.entityColumn))") }
        let ownerColumn: String
        let order: [String]
        switch relationship.storage {
        case .inverseForeignKey:
            guard let inverse = relationship.inverse, case .foreignKey(let column, let position) = inverse.storage else { return }
            ownerColumn = "d.\(q(column))"
            fragment.append(", \(ownerColumn) FROM \(q(destination.tableName)) AS d")
            order = [ownerColumn] + (position.map { ["d.\(q($0))"] } ?? [])
        case .joinTable(let table, let own, let other, let ownPosition, _):
            ownerColumn = "j.\(q(own))"
            fragment.append(", \(ownerColumn) FROM \(q(destination.tableName)) AS d JOIN \(q(table)) AS j ON j.\(q(other)) = d.\(q(SQLiteSQL.primaryKeyColumn))")
            order = [ownerColumn, "j.\(q(ownPosition))"]
        case .foreignKey:
            return
        }
        fragment.append(" WHERE \(ownerColumn) IN (")
        for (index, owner) in owners.enumerated() {
            if index > 0 { fragment.append(", ") }
            fragment.bind(.integer(owner))
        }
        fragment.append(") ORDER BY \((order + ["d.\(q(SQLiteSQL.primaryKeyColumn))"]).joined(separator: ", "))")
        let ownerIndex = Int32(1 + query.attributes.count + query.foreignKeys.count + (destination.isInHierarchy ? 1 : 0))
        try read(fragment) { statement in
            let row = StoreRow(statement: statement)
            while try SQLiteStatement.step(statement) {
                try body(sqlite3_column_int64(statement, ownerIndex), row)
            }
        }
    }

    /// The position of each model in a to-many array, read once per array during a save: a save that
    /// links many new children to one parent would otherwise search the parent's array once per child.
    struct PositionsInArrays {
        private var positions: [PairKey: [ObjectIdentifier: Int]] = [:]
        private struct PairKey: Hashable {
            let relationship: ObjectIdentifier
            let owner: ObjectIdentifier
        }

        /// The index of `model` in `owner`'s array of `relationship`, if it is there.
        mutating func index(of model: AnyObject, in owner: AnyObject, _ relationship: Schema.Relationship, _ accessor: any RelationshipAccessor) -> Int? {
            let key = PairKey(relationship: ObjectIdentifier(relationship), owner: ObjectIdentifier(owner))
            if let indexes = positions[key] { return indexes[ObjectIdentifier(model)] }
            var indexes: [ObjectIdentifier: Int] = [:]
            for (index, element) in accessor.related(owner).enumerated() where indexes[ObjectIdentifier(element)] == nil {
                indexes[ObjectIdentifier(element)] = index
            }
            positions[key] = indexes
            return indexes[ObjectIdentifier(model)]
        }
    }

    /// Writes the links of one relationship of one model, once every inserted row has its key.
    func applyRelationshipWrite(
        _ write: ChangeSet.RelationshipWrite, insertedKeys: [ObjectIdentifier: Int64], removed: Set<ObjectIdentifier>,
        positions: inout PositionsInArrays, _ db: Database
    ) throws {
        func key(_ object: AnyObject) -> Int64? {
            let data = (object as! any PersistentModel).persistentBackingData
            // A model deleted by this save (directly or by cascade) is no longer linked to anything.
            guard data.state != .deleted && data.state != .removed && !removed.contains(ObjectIdentifier(object)) else { return nil }
            if case .row(let pk)? = data.key { return pk }
            return insertedKeys[ObjectIdentifier(object)]
        }
        let relationship = write.relationship
        guard let accessor = relationship.accessor, let entity = relationship.entity, let owner = key(write.model) else { return }
        let q = SQLiteSQL.quote
        let pk = q(SQLiteSQL.primaryKeyColumn)
        let related = accessor.related(write.model)
        switch relationship.storage {
        case .foreignKey(let column, let positionColumn):
            let target = related.first
            var values: [StorageValue] = [target.flatMap(key).map { .integer($0) } ?? .null]
            var sql = "UPDATE \(q(entity.tableName)) SET \(q(column)) = ?"
            if let positionColumn {
                var position: StorageValue = .null
                if let target, let inverse = relationship.inverse, let accessor = inverse.accessor,
                   let index = positions.index(of: write.model, in: target, inverse, accessor) {
                    position = .integer(Int64(index))
                }
                sql += ", \(q(positionColumn)) = ?"
                values.append(position)
            }
            sql += " WHERE \(pk) = ?"
            values.append(.integer(owner))
            try execute(db, sql, values)
            try checkRowExists(entity, owner, db)
        case .inverseForeignKey:
            guard !relationship.isToOneRelationship, let inverse = relationship.inverse, let destination = relationship.destinationEntity,
                  case .foreignKey(let column, let positionColumn) = inverse.storage
            else { return }
            var sql = "UPDATE \(q(destination.tableName)) SET \(q(column)) = ?"
            if let positionColumn { sql += ", \(q(positionColumn)) = ?" }
            sql += " WHERE \(pk) = ?"
            for (index, child) in related.enumerated() {
                guard let childKey = key(child) else { continue }
                var values: [StorageValue] = [.integer(owner)]
                if positionColumn != nil { values.append(.integer(Int64(index))) }
                values.append(.integer(childKey))
                try execute(db, sql, values)
                try checkRowExists(destination, childKey, db)
            }
        case .joinTable(let table, let own, let other, let ownPosition, _):
            let keys = related.compactMap(key)
            var delete = "DELETE FROM \(q(table)) WHERE \(q(own)) = ?"
            var arguments: [StorageValue] = [.integer(owner)]
            if !keys.isEmpty {
                delete += " AND \(q(other)) NOT IN (\(Array(repeating: "?", count: keys.count).joined(separator: ", ")))"
                arguments += keys.map { .integer($0) }
            }
            try execute(db, delete, arguments)
            let upsert = "INSERT INTO \(q(table)) (\(q(own)), \(q(other)), \(q(ownPosition))) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET \(q(ownPosition)) = excluded.\(q(ownPosition))"
            for (index, relatedKey) in keys.enumerated() {
                try execute(db, upsert, [.integer(owner), .integer(relatedKey), .integer(Int64(index))])
            }
        }
    }
}
