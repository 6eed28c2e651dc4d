import Foundation
import GRDB

/// Creates and verifies the tables of a schema.
///
/// Layout: one table per entity named after it, an `INTEGER PRIMARY KEY` column `_pk`, one typed
/// column per attribute (`NOT NULL` unless optional), `UNIQUE` constraints for `.unique` attributes and
/// `#Unique` groups, an index per `#Index` group, a side table `<Entity>_<attribute>` per
/// `.externalStorage` attribute, and `_stowage_metadata` holding the schema version and fingerprint.
enum SQLiteSchema {
    static func externalTableName(_ entity: Schema.Entity, _ attribute: Schema.Attribute) -> String {
        "\(entity.name)_\(attribute.name)"
    }

    /// The statements that create the schema, in order.
    static func createStatements(_ schema: Schema) -> [String] {
        var statements: [String] = []
        let pk = SQLiteSQL.quote(SQLiteSQL.primaryKeyColumn)
        for entity in schema.entities {
            var definitions = ["\(pk) INTEGER PRIMARY KEY AUTOINCREMENT"]
            for attribute in entity.columnAttributes {
                var column = "\(SQLiteSQL.quote(attribute.name)) \(attribute.storageType.rawValue)"
                if !attribute.isOptional { column += " NOT NULL" }
                if attribute.isUnique { column += " UNIQUE" }
                definitions.append(column)
            }
            for relationship in entity.foreignKeyRelationships {
                definitions += foreignKeyColumns(relationship)
            }
            let uniqueColumns = Set(entity.columnAttributes.filter(\.isUnique).map(\.name))
            for group in entity.uniquenessConstraints where group.count > 1 || !uniqueColumns.contains(group[0]) {
                definitions.append("UNIQUE(\(group.map(SQLiteSQL.quote).joined(separator: ", ")))")
            }
            statements.append("CREATE TABLE \(SQLiteSQL.quote(entity.name)) (\(definitions.joined(separator: ", ")))")
            for attribute in entity.externalAttributes {
                let table = SQLiteSQL.quote(externalTableName(entity, attribute))
                statements.append(
                    "CREATE TABLE \(table) (\(pk) INTEGER PRIMARY KEY REFERENCES \(SQLiteSQL.quote(entity.name))(\(pk)) ON DELETE CASCADE, \"value\" \(attribute.storageType.rawValue))")
            }
            for relationship in entity.foreignKeyRelationships {
                guard case .foreignKey(let column, _) = relationship.storage else { continue }
                statements.append(
                    "CREATE INDEX \(SQLiteSQL.quote("\(entity.name)_\(column)_index")) ON \(SQLiteSQL.quote(entity.name)) (\(SQLiteSQL.quote(column)))")
            }
            for group in entity.indices {
                let name = SQLiteSQL.quote("\(entity.name)_\(group.joined(separator: "_"))_index")
                statements.append(
                    "CREATE INDEX \(name) ON \(SQLiteSQL.quote(entity.name)) (\(group.map(SQLiteSQL.quote).joined(separator: ", ")))")
            }
        }
        var joinTables: Set<String> = []
        for entity in schema.entities {
            for relationship in entity.relationshipList {
                guard case .joinTable(let table, let own, let other, let ownPosition, let otherPosition) = relationship.storage,
                      let destination = relationship.destinationEntity, table.hasPrefix(entity.name + "_"),
                      joinTables.insert(table).inserted
                else { continue }
                let q = SQLiteSQL.quote
                let reference = { (entity: Schema.Entity) in
                    "INTEGER NOT NULL REFERENCES \(q(entity.name))(\(pk)) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED"
                }
                statements.append(
                    "CREATE TABLE \(q(table)) (\(q(own)) \(reference(entity)), \(q(other)) \(reference(destination)), \(q(ownPosition)) INTEGER, \(q(otherPosition)) INTEGER, PRIMARY KEY (\(q(own)), \(q(other)))) WITHOUT ROWID")
                statements.append("CREATE INDEX \(q("\(table)_\(other)_index")) ON \(q(table)) (\(q(other)))")
            }
        }
        return statements
    }

    /// The foreign key column (and position column) of a to-one relationship stored on its entity's table.
    /// Deleting the related row applies the inverse's delete rule in SQL too, so no sequence of
    /// operations can leave a dangling reference: cascade deletes, deny refuses (checked at commit),
    /// nullify and noAction clear the reference.
    static func foreignKeyColumns(_ relationship: Schema.Relationship) -> [String] {
        guard case .foreignKey(let column, let positionColumn) = relationship.storage,
              let destination = relationship.destinationEntity
        else { return [] }
        let action: String = switch relationship.inverse?.deleteRule {
        case .cascade?: "CASCADE"
        case .deny?: "NO ACTION"
        default: "SET NULL"
        }
        let q = SQLiteSQL.quote
        var columns = ["\(q(column)) INTEGER REFERENCES \(q(destination.name))(\(q(SQLiteSQL.primaryKeyColumn))) ON DELETE \(action) DEFERRABLE INITIALLY DEFERRED"]
        if let positionColumn { columns.append("\(q(positionColumn)) INTEGER") }
        return columns
    }

    /// Creates the schema in an empty store, or checks that the store's tables match it.
    /// - Returns: the store's identifier.
    static func prepare(_ schema: Schema, in writer: any DatabaseWriter, path: String?) throws -> String {
        if let identifier = try existingIdentifier(schema, in: writer, path: path) { return identifier }
        let meta = SQLiteSQL.quote(SQLiteSQL.metadataTable)
        let identifier = UUID().uuidString
        try writer.write { db in
            try db.execute(sql: "CREATE TABLE \(meta) (\"key\" TEXT PRIMARY KEY, \"value\" TEXT NOT NULL)")
            for statement in createStatements(schema) { try db.execute(sql: statement) }
            let rows: [(String, String)] = [
                ("store_identifier", identifier),
                ("schema_version", schema.version.description),
                ("schema_fingerprint", schema.fingerprint),
            ]
            for (key, value) in rows {
                try db.execute(sql: "INSERT INTO \(meta) (\"key\", \"value\") VALUES (?, ?)", arguments: [key, value])
            }
        }
        return identifier
    }

    /// Checks that a store's tables match the schema, reading only.
    /// - Returns: the store's identifier, or `nil` for a store with no tables yet.
    /// - Throws: ``StowageError`` `.schemaMismatch` naming the differences.
    static func existingIdentifier(_ schema: Schema, in reader: any DatabaseReader, path: String?) throws -> String? {
        let meta = SQLiteSQL.quote(SQLiteSQL.metadataTable)
        let tables = try reader.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        }
        if tables.isEmpty { return nil }
        let location = path ?? "in memory"
        guard tables.contains(SQLiteSQL.metadataTable) else {
            throw StowageError(
                .schemaMismatch,
                "The store at \(location) has tables (\(tables.sorted().joined(separator: ", "))) but was not created by Stowage. Open it with a new URL, or remove the file.")
        }
        let metadata = try reader.read { db in
            try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT \"key\", \"value\" FROM \(meta)").map {
                ($0["key"] as String, $0["value"] as String)
            })
        }
        if metadata["schema_fingerprint"] != schema.fingerprint {
            let differences = try reader.read { db in try self.differences(schema, db) }
            let detail = differences.isEmpty
                ? "its constraints or indexes differ from the models"
                : differences.joined(separator: "; ")
            throw StowageError(
                .schemaMismatch,
                "The store at \(location) (schema \(metadata["schema_version"] ?? "?")) does not match the models: \(detail). Give the container a migration plan, or open a new store. The store was not modified.")
        }
        return metadata["store_identifier"] ?? UUID().uuidString
    }

    /// Human-readable differences between the store's tables and the schema.
    static func differences(_ schema: Schema, _ db: Database) throws -> [String] {
        var differences: [String] = []
        let existing = Set(try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"))
        var expectedTables: Set<String> = [SQLiteSQL.metadataTable]
        for entity in schema.entities {
            expectedTables.insert(entity.name)
            for attribute in entity.externalAttributes { expectedTables.insert(externalTableName(entity, attribute)) }
            for relationship in entity.relationshipList {
                if case .joinTable(let table, _, _, _, _) = relationship.storage { expectedTables.insert(table) }
            }
            guard existing.contains(entity.name) else {
                differences.append("the store has no table for entity \(entity.name)")
                continue
            }
            let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(\(SQLiteSQL.quote(entity.name)))")
            var actual: [String: (type: String, notNull: Bool)] = [:]
            for column in columns {
                actual[column["name"]] = (column["type"], column["notnull"] as Int != 0)
            }
            for attribute in entity.columnAttributes {
                guard let column = actual.removeValue(forKey: attribute.name) else {
                    differences.append("\(entity.name).\(attribute.name) is a property of the model but not a column of the store")
                    continue
                }
                if column.type.uppercased() != attribute.storageType.rawValue {
                    differences.append("\(entity.name).\(attribute.name) is stored as \(column.type) but the model needs \(attribute.storageType.rawValue)")
                }
                if column.notNull == attribute.isOptional {
                    differences.append("\(entity.name).\(attribute.name) is \(column.notNull ? "NOT NULL" : "nullable") in the store but \(attribute.isOptional ? "optional" : "not optional") in the model")
                }
            }
            actual.removeValue(forKey: SQLiteSQL.primaryKeyColumn)
            for relationship in entity.foreignKeyRelationships {
                guard case .foreignKey(let column, let positionColumn) = relationship.storage else { continue }
                if actual.removeValue(forKey: column) == nil {
                    differences.append("\(entity.name).\(relationship.name) is a relationship of the model but the store has no column \(column)")
                }
                if let positionColumn { actual.removeValue(forKey: positionColumn) }
            }
            for name in actual.keys.sorted() {
                differences.append("\(entity.name).\(name) is a column of the store but not a property of the model")
            }
        }
        for table in existing.subtracting(expectedTables).sorted() {
            differences.append("the store has a table \(table) that no model in the schema describes")
        }
        return differences
    }
}
