import Foundation
import GRDB

extension SQLiteStore {
    /// Refuses a save that leaves a model related through a `@Relationship(.unique)` relationship to two
    /// models of the relationship's entity: checked in the save's transaction, after its links are
    /// written, so a failure writes nothing (SwiftData: the related model is unique across the models of
    /// the entity).
    ///
    /// A to-one relationship stored as a foreign key (no inverse, or a to-many inverse) is checked on its
    /// column, and a to-many one stored in a join table on the table's other column. A relationship
    /// whose inverse is to-one already relates each model to one model at most.
    func checkUniqueRelationships(
        _ writes: [ChangeSet.RelationshipWrite], insertedKeys: [ObjectIdentifier: Int64], removed: Set<ObjectIdentifier>,
        _ db: Database
    ) throws {
        func key(_ object: AnyObject) -> Int64? {
            let data = (object as! any PersistentModel).persistentBackingData
            guard data.state != .deleted && data.state != .removed && !removed.contains(ObjectIdentifier(object)) else { return nil }
            if case .row(let pk)? = data.key { return pk }
            return insertedKeys[ObjectIdentifier(object)]
        }
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
                    other = try Int64.fetchOne(
                        db, sql: "SELECT \(pk) FROM \(q(entity.tableName)) WHERE \(q(column)) = ? AND \(pk) <> ? LIMIT 1",
                        arguments: [target, owner])
                case .joinTable(let table, let ownColumn, let otherColumn, _, _):
                    other = try Int64.fetchOne(
                        db, sql: "SELECT \(q(ownColumn)) FROM \(q(table)) WHERE \(q(otherColumn)) = ? AND \(q(ownColumn)) <> ? LIMIT 1",
                        arguments: [target, owner])
                case .inverseForeignKey:
                    other = nil
                }
                guard let other else { continue }
                throw StowageError(
                    .constraintViolation,
                    "\(entity.name).\(relationship.name) is @Relationship(.unique), and \(relationship.destination)/p\(target) is already related to \(entity.name)/p\(other) through it, so \(entity.name)/p\(owner) cannot be related to it too. Unlink it from the other model first.",
                    entityName: entity.name, propertyName: relationship.name)
            }
        }
    }
}
