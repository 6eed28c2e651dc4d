import Foundation

/// Runs the statements that write a save's links, on whatever connection a store writes with.
protocol SQLStatementRunner {
    /// Runs a statement that writes rows, returning how many it changed.
    func run(_ sql: String, _ arguments: [StorageValue]) throws -> Int
    /// The first column of the first row a query returns, as an integer.
    func firstInteger(_ sql: String, _ arguments: [StorageValue]) throws -> Int64?
}

/// Writes the links of a save (foreign keys, their positions, join tables) once every inserted row has
/// its key, in SQL that SQLite and PostgreSQL both run.
struct RelationshipLinks<Runner: SQLStatementRunner> {
    let insertedKeys: [ObjectIdentifier: Int64]
    let removed: Set<ObjectIdentifier>
    let runner: Runner
    private var positions = PositionsInArrays()

    init(insertedKeys: [ObjectIdentifier: Int64], removed: Set<ObjectIdentifier>, runner: Runner) {
        self.insertedKeys = insertedKeys
        self.removed = removed
        self.runner = runner
    }

    /// The row key of a model of the save, or `nil` for a model the save deletes (directly or by
    /// cascade), which is no longer linked to anything.
    private func key(_ object: AnyObject) -> Int64? {
        let data = (object as! any PersistentModel).persistentBackingData
        guard data.state != .deleted && data.state != .removed && !removed.contains(ObjectIdentifier(object)) else { return nil }
        if case .row(let pk)? = data.key { return pk }
        return insertedKeys[ObjectIdentifier(object)]
    }

    /// Writes the links of one relationship of one model.
    mutating func write(_ write: ChangeSet.RelationshipWrite) throws {
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
            try requireChange(try runner.run(sql, values), entity, owner)
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
                try requireChange(try runner.run(sql, values), destination, childKey)
            }
        case .joinTable(let table, let own, let other, let ownPosition, _):
            let keys = related.compactMap(key)
            var delete = "DELETE FROM \(q(table)) WHERE \(q(own)) = ?"
            var arguments: [StorageValue] = [.integer(owner)]
            if !keys.isEmpty {
                delete += " AND \(q(other)) NOT IN (\(Array(repeating: "?", count: keys.count).joined(separator: ", ")))"
                arguments += keys.map { .integer($0) }
            }
            _ = try runner.run(delete, arguments)
            let upsert = "INSERT INTO \(q(table)) (\(q(own)), \(q(other)), \(q(ownPosition))) VALUES (?, ?, ?) ON CONFLICT (\(q(own)), \(q(other))) DO UPDATE SET \(q(ownPosition)) = excluded.\(q(ownPosition))"
            for (index, relatedKey) in keys.enumerated() {
                _ = try runner.run(upsert, [.integer(owner), .integer(relatedKey), .integer(Int64(index))])
            }
        }
    }

    /// An UPDATE of a row that changed nothing: another context or process deleted the row.
    private func requireChange(_ changed: Int, _ entity: Schema.Entity, _ primaryKey: Int64) throws {
        guard changed == 0 else { return }
        throw StowageError.saveConflict(entity, primaryKey)
    }

    /// Refuses a save that leaves a model related through a `@Relationship(.unique)` relationship to two
    /// models of the relationship's entity: checked in the save's transaction, after its links are
    /// written, so a failure writes nothing (SwiftData: the related model is unique across the models of
    /// the entity).
    ///
    /// A to-one relationship stored as a foreign key (no inverse, or a to-many inverse) is checked on its
    /// column, and a to-many one stored in a join table on the table's other column. A relationship
    /// whose inverse is to-one already relates each model to one model at most.
    func checkUnique(_ writes: [ChangeSet.RelationshipWrite]) throws {
        let q = SQLiteSQL.quote
        let pk = q(SQLiteSQL.primaryKeyColumn)
        for write in writes where write.relationship.isUnique {
            let relationship = write.relationship
            guard let accessor = relationship.accessor, let entity = relationship.entity, let owner = key(write.model) else { continue }
            let targets = accessor.related(write.model).compactMap(key)
            for target in targets {
                let other: Int64?
                switch relationship.storage {
                case .foreignKey(let column, _):
                    other = try runner.firstInteger(
                        "SELECT \(pk) FROM \(q(entity.tableName)) WHERE \(q(column)) = ? AND \(pk) <> ? LIMIT 1",
                        [.integer(target), .integer(owner)])
                case .joinTable(let table, let ownColumn, let otherColumn, _, _):
                    other = try runner.firstInteger(
                        "SELECT \(q(ownColumn)) FROM \(q(table)) WHERE \(q(otherColumn)) = ? AND \(q(ownColumn)) <> ? LIMIT 1",
                        [.integer(target), .integer(owner)])
                case .inverseForeignKey:
                    other = nil
                }
                guard let other else { continue }
                throw StowageError.uniqueRelationship(
                    entity: entity.name, relationship: relationship.name, target: "\(relationship.destination)/p\(target)",
                    other: "\(entity.name)/p\(other)", owner: "\(entity.name)/p\(owner)")
            }
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

extension StowageError {
    /// A save wrote to a row that another context or process deleted since this context read it.
    static func saveConflict(_ entity: Schema.Entity, _ primaryKey: Int64) -> StowageError {
        StowageError(
            .saveConflict,
            "A \(entity.name) with unsaved changes (\(entity.name)/p\(primaryKey)) was deleted from the store by another context or process. Roll back or delete the model in this context, then save again.",
            entityName: entity.name)
    }
}
