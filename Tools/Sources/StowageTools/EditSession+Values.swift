import Foundation
import GRDB
import StowageCore

extension EditSession {
    /// The values of an update or insert, checked against the entity's description, in declaration
    /// order: stored attribute values, and the rows relationships are set to.
    struct Assignments {
        /// Attributes and their stored values.
        var attributes: [(attribute: StoreDescription.Attribute, value: DatabaseValue)] = []
        /// Relationships and the rows they are set to, in declaration order: a to-one's row (none: `nil`
        /// was given), a to-many's rows in the order given.
        var links: [(relationship: StoreDescription.Relationship, targets: [StoredRow])] = []
    }

    /// Checks `values` (JSON as `stowage export` writes it) against `entity`: attributes take their
    /// stored values, a to-one relationship the related row's key or `null`, a to-many one an array of
    /// related rows' keys.
    /// - Parameter subject: the row in messages (`Budget 'Food'`, `a new Budget`).
    /// - Throws: ``ToolError`` naming the unknown property, the wrong value or the missing row.
    func assignments(_ values: [String: JSONValue], for entity: StoreDescription.Entity, subject: String) throws -> Assignments {
        for name in values.keys.sorted()
        where !entity.attributes.contains(where: { $0.name == name }) && !entity.relationships.contains(where: { $0.name == name }) {
            throw ToolError(
                "\(entity.name) has no attribute or relationship \(name); its attributes are \(entity.attributes.map(\.name).joined(separator: ", "))"
                    + (entity.relationships.isEmpty ? "" : " and its relationships \(entity.relationships.map(\.name).joined(separator: ", "))"),
                exitCode: 64)
        }
        var result = Assignments()
        for attribute in entity.attributes {
            guard let value = values[attribute.name] else { continue }
            do {
                result.attributes.append((attribute, try StoredValues.stored(value, for: attribute)))
            } catch let error as ToolError {
                throw ToolError("\(subject): \(error.message)", exitCode: 65)
            }
        }
        for relationship in entity.relationships {
            guard let value = values[relationship.name] else { continue }
            guard let destination = description.entity(named: relationship.destination) else {
                throw ToolError("\(entity.name).\(relationship.name) leads to \(relationship.destination), which the store does not describe")
            }
            // The row `key` of the destination.
            func target(_ key: Int64) throws -> StoredRow {
                guard let target = try storedRow(destination, key: key) else {
                    throw ToolError("\(subject): \(relationship.name) cannot link to \(destination.name) \(key), which does not exist", exitCode: 65)
                }
                return target
            }
            guard relationship.isToMany else {
                if value == .null {
                    result.links.append((relationship, []))
                    continue
                }
                guard case .number(let text) = value, let key = Int64(text) else {
                    throw ToolError(
                        "\(subject): \(relationship.name) takes the key of a \(destination.name) (a number) or null, not \(value.text.prefix(60))", exitCode: 65)
                }
                result.links.append((relationship, [try target(key)]))
                continue
            }
            // A to-many: the keys of the rows it holds, each once (an ordered one's in their order).
            let elements: [JSONValue]? = if case .array(let elements) = value { elements } else { nil }
            let keys = elements?.compactMap { element -> Int64? in
                guard case .number(let text) = element else { return nil }
                return Int64(text)
            }
            guard let elements, let keys, keys.count == elements.count else {
                throw ToolError(
                    "\(subject): \(relationship.name) takes an array of keys of \(destination.name) rows (numbers), not \(value.text.prefix(60))",
                    exitCode: 65)
            }
            var seen = Set<Int64>()
            for key in keys where !seen.insert(key).inserted {
                throw ToolError("\(subject): \(relationship.name) lists \(destination.name) \(key) more than once", exitCode: 65)
            }
            result.links.append((relationship, try keys.map(target)))
        }
        return result
    }

    // MARK: Update

    /// Sets attributes and relationships of the row `key` of `entity`, as setting the model's properties
    /// (attributes, then relationships in declaration order) and saving does.
    mutating func update(entity name: String, key: Int64, values: [String: JSONValue]) throws {
        let row = try requireRow(entity: try entity(named: name), key: key)
        guard !values.isEmpty else { throw ToolError("the update of \(try label(row)) sets no value", exitCode: 64) }
        let assignments = try self.assignments(values, for: row.entity, subject: try label(row))
        let pk = Self.pk
        let columns = assignments.attributes.filter { $0.attribute.externalTable == nil }
        if !columns.isEmpty {
            try execute(
                "UPDATE \(quote(row.entity.table)) SET \(columns.map { "\(quote($0.attribute.name)) = ?" }.joined(separator: ", ")) WHERE \(pk) = ?",
                StatementArguments(columns.map(\.value) + [row.key.databaseValue]), entity: row.entity.name)
        }
        for (attribute, value) in assignments.attributes {
            guard let side = attribute.externalTable else { continue }
            try writeExternal(value, to: side, key: row.key, entity: row.entity.name)
        }
        log.update(row, attributes: assignments.attributes.map(\.attribute.name))
        countCandidates.append(row)
        for (relationship, targets) in assignments.links {
            if relationship.isToMany {
                try setRelated(relationship, of: row, to: targets, replacing: true)
            } else {
                try setLink(relationship, of: row, to: targets.first, replacing: true)
            }
            try checkUnique(relationship, of: row, targets: targets)
        }
    }

    /// Writes an external-storage value in its side table, as the app does (a row even for `nil`).
    func writeExternal(_ value: DatabaseValue, to side: String, key: Int64, entity: String) throws {
        let pk = Self.pk
        try execute(
            "INSERT INTO \(quote(side)) (\(pk), \"value\") VALUES (?, ?) ON CONFLICT(\(pk)) DO UPDATE SET \"value\" = excluded.\"value\"",
            [key, value], entity: entity)
    }

    // MARK: Insert

    /// Inserts a row of `entity` as inserting a model and saving does: an insert with the unique values
    /// of a stored row of its class updates that row (SwiftData's upsert), which keeps its key.
    /// - Returns: the row's key.
    mutating func insert(entity name: String, values: [String: JSONValue]) throws -> Int64 {
        let entity = try entity(named: name)
        let assignments = try self.assignments(values, for: entity, subject: "a new \(entity.name)")
        let missing = entity.attributes.filter { !$0.isOptional && values[$0.name] == nil }.map(\.name)
        guard missing.isEmpty else {
            throw ToolError(
                "a new \(entity.name) needs a value for \(missing.joined(separator: ", ")): \(missing.count == 1 ? "it is" : "they are") not optional, and the editor does not know the model's default values",
                exitCode: 65)
        }
        let given = Dictionary(assignments.attributes.map { ($0.attribute.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        let columnAttributes = entity.attributes.filter { $0.externalTable == nil }
        // The columns the app's INSERT writes: every attribute of the row's class (nil when not given),
        // and its class in a hierarchy's table.
        var columns = columnAttributes.map { quote($0.name) }
        var arguments = columnAttributes.map { given[$0.name] ?? .null }
        let entityColumn = quote(StoreToolSupport.entityColumn)
        let inHierarchy = entity.entityColumnValues != nil
        if inHierarchy {
            columns.append(entityColumn)
            arguments.append(entity.name.databaseValue)
        }
        let table = quote(entity.table)
        var sql = "INSERT INTO \(table) "
        sql += columns.isEmpty ? "DEFAULT VALUES" : "(\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
        // As the app's upsert: one ON CONFLICT clause per uniqueness constraint on the row's own columns.
        let constraints = entity.uniqueness.filter { names in names.allSatisfy { name in columnAttributes.contains { $0.name == name } } }
        let pk = Self.pk
        if !constraints.isEmpty {
            let updates = columns.filter { $0 != entityColumn }.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
            let sameClass = inHierarchy ? " WHERE \(entityColumn) = excluded.\(entityColumn)" : ""
            for constraint in constraints {
                sql += " ON CONFLICT(\(StoreToolSupport.uniqueKeyList(constraint, of: entity))) DO UPDATE SET \(updates)\(sameClass)"
            }
            sql += " RETURNING \(pk)"
        }
        // A new row's key is past every key the table has had (AUTOINCREMENT); an upsert's is not.
        let newest = try Int64.fetchOne(db, sql: "SELECT max(\(pk)) FROM \(table)") ?? 0
        let key: Int64
        if constraints.isEmpty {
            try execute(sql, StatementArguments(arguments), entity: entity.name)
            key = db.lastInsertedRowID
        } else {
            let returned: Int64?
            do {
                returned = try Int64.fetchOne(db, sql: sql, arguments: StatementArguments(arguments))
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                throw StoreToolSupport.saveError(error, entityName: entity.name)
            }
            if let returned {
                key = returned
            } else if inHierarchy {
                // The upsert met a row of another class of the hierarchy, which it does not change.
                throw StoreToolSupport.upsertMetAnotherClass(entity: entity.name, table: entity.table)
            } else {
                key = db.lastInsertedRowID
            }
        }
        for attribute in entity.attributes {
            guard let side = attribute.externalTable else { continue }
            try writeExternal(given[attribute.name] ?? .null, to: side, key: key, entity: entity.name)
        }
        let row = StoredRow(entity: entity, key: key)
        log.insert(row, isNew: key > newest)
        countCandidates.append(row)
        // As the app writes a new model's links: those it has (a nil or empty one leaves an upserted
        // row's links).
        for (relationship, targets) in assignments.links where !targets.isEmpty {
            if relationship.isToMany {
                try setRelated(relationship, of: row, to: targets, replacing: false)
            } else {
                try setLink(relationship, of: row, to: targets.first, replacing: false)
            }
            try checkUnique(relationship, of: row, targets: targets)
        }
        return key
    }
}
