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
            var definitions = ["\(pk) INTEGER PRIMARY KEY"]
            for attribute in entity.columnAttributes {
                var column = "\(SQLiteSQL.quote(attribute.name)) \(attribute.storageType.rawValue)"
                if !attribute.isOptional { column += " NOT NULL" }
                if attribute.isUnique { column += " UNIQUE" }
                definitions.append(column)
            }
            for group in entity.uniquenessConstraints where group.count > 1 {
                definitions.append("UNIQUE(\(group.map(SQLiteSQL.quote).joined(separator: ", ")))")
            }
            statements.append("CREATE TABLE \(SQLiteSQL.quote(entity.name)) (\(definitions.joined(separator: ", ")))")
            for attribute in entity.externalAttributes {
                let table = SQLiteSQL.quote(externalTableName(entity, attribute))
                statements.append(
                    "CREATE TABLE \(table) (\(pk) INTEGER PRIMARY KEY REFERENCES \(SQLiteSQL.quote(entity.name))(\(pk)) ON DELETE CASCADE, \"value\" \(attribute.storageType.rawValue))")
            }
            for group in entity.indices {
                let name = SQLiteSQL.quote("\(entity.name)_\(group.joined(separator: "_"))_index")
                statements.append(
                    "CREATE INDEX \(name) ON \(SQLiteSQL.quote(entity.name)) (\(group.map(SQLiteSQL.quote).joined(separator: ", ")))")
            }
        }
        return statements
    }

    /// Creates the schema in an empty store, or checks that the store's tables match it.
    /// - Returns: the store's identifier.
    static func prepare(_ schema: Schema, in writer: any DatabaseWriter, path: String?) throws -> String {
        let meta = SQLiteSQL.quote(SQLiteSQL.metadataTable)
        let tables = try writer.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        }
        if tables.isEmpty {
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
        let location = path ?? "in memory"
        guard tables.contains(SQLiteSQL.metadataTable) else {
            throw StowageError(
                .schemaMismatch,
                "The store at \(location) has tables (\(tables.sorted().joined(separator: ", "))) but was not created by Stowage. Open it with a new URL, or remove the file.")
        }
        let metadata = try writer.read { db in
            try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT \"key\", \"value\" FROM \(meta)").map {
                ($0["key"] as String, $0["value"] as String)
            })
        }
        if metadata["schema_fingerprint"] != schema.fingerprint {
            let differences = try writer.read { db in try self.differences(schema, db) }
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
