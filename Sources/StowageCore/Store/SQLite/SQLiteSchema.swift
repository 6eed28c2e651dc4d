import Foundation
import GRDB

/// Creates and verifies the tables of a schema.
///
/// Layout: one table per entity named after it, an `INTEGER PRIMARY KEY` column `_pk`, one typed
/// column per attribute (`NOT NULL` unless optional), a unique index per `.unique` attribute and
/// `#Unique` group and an index per `#Index` group (`String` columns keyed by ``SwiftTextKey``), a
/// side table `<Entity>_<attribute>` per `.externalStorage` attribute, and `_stowage_metadata` holding
/// the schema version, its layout (``SchemaLayout``) and the layout's fingerprint.
enum SQLiteSchema {
    static func externalTableName(_ entity: Schema.Entity, _ attribute: Schema.Attribute) -> String {
        // An inherited attribute's side table is the declaring class's.
        var owner = entity
        while let superentity = owner.superentity, superentity.storedPropertiesByName[attribute.name] != nil { owner = superentity }
        return "\(owner.name)_\(attribute.name)"
    }

    /// The statements that create the schema, in order.
    static func createStatements(_ schema: Schema) -> [String] {
        schema.entities.flatMap(createStatements(for:))
            + joinTableStatements(schema).sorted { $0.key < $1.key }.flatMap(\.value)
    }

    /// The statements that create one entity's table, side tables and indexes (not its join tables).
    /// A subclass entity has no table of its own: its rows are in its hierarchy's root's table, which
    /// has a column for every attribute and to-one link of the hierarchy and an `_entity` column naming
    /// each row's class (see ``Schema/Entity/tableName``).
    static func createStatements(for entity: Schema.Entity) -> [String] {
        let statements = tableStatements(for: entity)
        let table = entity.superentity == nil ? [createTable(for: entity, named: entity.name)] : []
        let inherited = entity.superentity?.properties.count ?? 0
        return table
            + entity.externalAttributes.filter { $0.index >= inherited }.compactMap { statements.externalTables[$0.name] }
            + statements.indexes
    }

    /// `CREATE TABLE` for an entity's table, under `name` (a migration builds it under another name).
    static func createTable(for entity: Schema.Entity, named name: String) -> String {
        var definitions = ["\(SQLiteSQL.quote(SQLiteSQL.primaryKeyColumn)) INTEGER PRIMARY KEY AUTOINCREMENT"]
        for attribute in entity.fetchAttributes {
            var column = "\(SQLiteSQL.quote(attribute.name)) \(attribute.storageType.rawValue)"
            if !entity.tableColumnIsOptional(attribute) { column += " NOT NULL" }
            definitions.append(column)
        }
        for relationship in entity.fetchForeignKeys {
            definitions += foreignKeyColumns(relationship)
        }
        if entity.isInHierarchy { definitions.append(entityColumnDefinition(entity)) }
        return "CREATE TABLE \(SQLiteSQL.quote(name)) (\(definitions.joined(separator: ", ")))"
    }

    /// The `_entity` column of a hierarchy's table; rows stored before the hierarchy had subclasses are
    /// the root's.
    static func entityColumnDefinition(_ root: Schema.Entity) -> String {
        "\(SQLiteSQL.quote(Schema.Entity.entityColumn)) TEXT NOT NULL DEFAULT \(SQLiteSQL.literal(root.name))"
    }

    /// An entity's indexes (uniqueness constraints, foreign keys, `#Index`) and side tables (by
    /// attribute name), which refer to its table by its name.
    static func tableStatements(for entity: Schema.Entity) -> (indexes: [String], externalTables: [String: String]) {
        let q = SQLiteSQL.quote
        let pk = q(SQLiteSQL.primaryKeyColumn)
        var indexes: [String] = []
        var externalTables: [String: String] = [:]
        // A subclass's table is its root's, which declares the hierarchy's indexes.
        guard entity.superentity == nil else {
            for attribute in entity.externalAttributes {
                let table = q(externalTableName(entity, attribute))
                externalTables[attribute.name] =
                    "CREATE TABLE \(table) (\(pk) INTEGER PRIMARY KEY REFERENCES \(q(entity.tableName))(\(pk)) ON DELETE CASCADE, \"value\" \(attribute.storageType.rawValue))"
            }
            return (indexes, externalTables)
        }
        for group in entity.uniquenessConstraints {
            let name = q("\(entity.name)_\(group.joined(separator: "_"))_unique")
            indexes.append("CREATE UNIQUE INDEX \(name) ON \(q(entity.name)) (\(keyList(group, of: entity)))")
        }
        for attribute in entity.externalAttributes {
            let table = q(externalTableName(entity, attribute))
            externalTables[attribute.name] =
                "CREATE TABLE \(table) (\(pk) INTEGER PRIMARY KEY REFERENCES \(q(entity.name))(\(pk)) ON DELETE CASCADE, \"value\" \(attribute.storageType.rawValue))"
        }
        for relationship in entity.fetchForeignKeys {
            guard case .foreignKey(let column, _) = relationship.storage else { continue }
            indexes.append("CREATE INDEX \(q("\(entity.name)_\(column)_index")) ON \(q(entity.name)) (\(q(column)))")
        }
        for group in entity.indices {
            let name = q("\(entity.name)_\(group.joined(separator: "_"))_index")
            indexes.append("CREATE INDEX \(name) ON \(q(entity.name)) (\(keyList(group, of: entity)))")
        }
        return (indexes, externalTables)
    }

    /// The statements that create each join table of the schema (many-to-many relationships), by table.
    static func joinTableStatements(_ schema: Schema) -> [String: [String]] {
        var tables: [String: [String]] = [:]
        let q = SQLiteSQL.quote
        let pk = q(SQLiteSQL.primaryKeyColumn)
        for entity in schema.entities {
            for relationship in entity.relationshipList {
                guard case .joinTable(let table, let own, let other, let ownPosition, let otherPosition) = relationship.storage,
                      let destination = relationship.destinationEntity, table.hasPrefix(entity.name + "_"),
                      tables[table] == nil
                else { continue }
                let reference = { (entity: Schema.Entity) in
                    "INTEGER NOT NULL REFERENCES \(q(entity.tableName))(\(pk)) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED"
                }
                tables[table] = [
                    "CREATE TABLE \(q(table)) (\(q(own)) \(reference(entity)), \(q(other)) \(reference(destination)), \(q(ownPosition)) INTEGER, \(q(otherPosition)) INTEGER, PRIMARY KEY (\(q(own)), \(q(other)))) WITHOUT ROWID",
                    "CREATE INDEX \(q("\(table)_\(other)_index")) ON \(q(table)) (\(q(other)))",
                ]
            }
        }
        return tables
    }

    /// The indexed expressions of a uniqueness constraint or an index over `names`: the column itself,
    /// or for a `String` attribute its key `stowage_nfc("column")`, so that the constraint and the
    /// index compare as Swift does (see ``SwiftTextKey``). Upserts name the same list as their
    /// conflict target.
    static func keyList(_ names: [String], of entity: Schema.Entity) -> String {
        keyList(names) { (entity.storedPropertiesByName[$0] as? Schema.Attribute)?.comparesAsSwiftString == true }
    }

    /// The indexed expressions over `names`, keying the names for which `comparesAsSwiftString` is true
    /// by ``SwiftTextKey`` (see ``keyList(_:of:)``).
    static func keyList(_ names: [String], comparesAsSwiftString: (String) -> Bool) -> String {
        names.map { name in
            let column = SQLiteSQL.quote(name)
            guard comparesAsSwiftString(name) else { return column }
            return "\(SwiftTextKey.function)(\(column))"
        }.joined(separator: ", ")
    }

    /// The foreign key column (and position column) of a to-one relationship stored on its entity's table,
    /// with the delete action of ``Schema/Relationship/foreignKeyDeleteAction``.
    static func foreignKeyColumns(_ relationship: Schema.Relationship) -> [String] {
        guard case .foreignKey(let column, let positionColumn) = relationship.storage,
              let destination = relationship.destinationEntity
        else { return [] }
        let q = SQLiteSQL.quote
        var columns = ["\(q(column)) INTEGER REFERENCES \(q(destination.tableName))(\(q(SQLiteSQL.primaryKeyColumn))) ON DELETE \(relationship.foreignKeyDeleteAction) DEFERRABLE INITIALLY DEFERRED"]
        if let positionColumn { columns.append("\(q(positionColumn)) INTEGER") }
        return columns
    }

    /// Creates the schema in an empty store, or checks that the store's tables match it.
    /// - Parameter allowsCreation: `false` for a store opened read-only: an empty store is refused rather
    ///   than given tables.
    /// - Returns: the store's identifier.
    static func prepare(_ schema: Schema, in writer: any DatabaseWriter, path: String?, allowsCreation: Bool = true) throws -> String {
        if let identifier = try existingIdentifier(schema, in: writer, path: path) {
            if allowsCreation { try describe(schema, in: writer) }
            return identifier
        }
        guard allowsCreation else {
            throw StowageError(
                .storeOpenFailed,
                "The store at \(path ?? "in memory") is empty and its configuration has allowsSave: false, so Stowage cannot create its tables. Open it once with a configuration that allows saving.")
        }
        let meta = SQLiteSQL.quote(SQLiteSQL.metadataTable)
        let identifier = UUID().uuidString
        var createdElsewhere = false
        // An immediate transaction, checked again inside it: another process creating the same new
        // store at the same moment either finished first (its tables are then checked like any store's)
        // or waits for this one.
        try writer.writeWithoutTransaction { db in try db.inTransaction(.immediate) {
            if try db.tableExists(SQLiteSQL.metadataTable) {
                createdElsewhere = true
                return .commit
            }
            try db.execute(sql: "CREATE TABLE \(meta) (\"key\" TEXT PRIMARY KEY, \"value\" TEXT NOT NULL)")
            for statement in createStatements(schema) { try db.execute(sql: statement) }
            for (key, value) in [("store_identifier", identifier)] + schema.metadataRows {
                try db.execute(sql: "INSERT INTO \(meta) (\"key\", \"value\") VALUES (?, ?)", arguments: [key, value])
            }
            return .commit
        } }
        if createdElsewhere, let existing = try existingIdentifier(schema, in: writer, path: path) { return existing }
        return identifier
    }

    /// Records the schema's ``StoreDescription`` in a store that has none (made by an earlier version)
    /// or another one (models changed in ways its layout does not show, such as an enumeration's cases).
    /// Not a migration: the description is not part of what a store is opened against.
    static func describe(_ schema: Schema, in writer: any DatabaseWriter) throws {
        let description = StoreDescription(schema).json
        let meta = SQLiteSQL.quote(metadataTable)
        let recorded = try writer.read { db in
            try String.fetchOne(db, sql: "SELECT \"value\" FROM \(meta) WHERE \"key\" = ?", arguments: [StoreDescription.metadataKey])
        }
        guard recorded != description else { return }
        try writer.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO \(meta) (\"key\", \"value\") VALUES (?, ?)", arguments: [StoreDescription.metadataKey, description])
        }
    }

    /// Checks that a store's tables match the schema, reading only: the layout the store recorded when it
    /// was created is compared with the models' layout, element by element.
    /// - Returns: the store's identifier, or `nil` for a store with no tables yet.
    /// - Throws: ``StowageError`` `.schemaMismatch` naming the differences.
    static func existingIdentifier(_ schema: Schema, in reader: any DatabaseReader, path: String?) throws -> String? {
        let (tables, metadata) = try reader.read { db in
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            return (tables, try Self.metadata(in: db) ?? [:])
        }
        guard let stored = try storedLayout(tables: tables, metadata: metadata, location: path ?? "in memory") else { return nil }
        return try identifier(schema, stored: stored, metadata: metadata, location: path ?? "in memory")
    }

    private static let metadataTable = SQLiteSQL.metadataTable

    /// Stowage's metadata of a store (identifier, version, layout…), or `nil` when it has none.
    static func metadata(in db: Database) throws -> [String: String]? {
        guard try db.tableExists(metadataTable) else { return nil }
        let rows = try Row.fetchAll(db, sql: "SELECT \"key\", \"value\" FROM \(SQLiteSQL.quote(metadataTable))")
        // A damaged file may hold NULL or non-text keys and values: they are skipped, not trapped on.
        let pairs = rows.compactMap { row -> (String, String)? in
            guard let key = String.fromDatabaseValue(row["key"]), let value = String.fromDatabaseValue(row["value"]) else { return nil }
            return (key, value)
        }
        return Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }

    /// The layout a store recorded, from its tables' names and its metadata; `nil` for a store with no
    /// tables yet.
    /// - Throws: ``StowageError`` `.schemaMismatch` for tables Stowage did not create, or a layout it
    ///   cannot read.
    static func storedLayout(tables: [String], metadata: [String: String], location: String) throws -> SchemaLayout? {
        if tables.isEmpty { return nil }
        guard tables.contains(metadataTable) else {
            throw StowageError(
                .schemaMismatch,
                "The store at \(location) has tables (\(tables.sorted().joined(separator: ", "))) but was not created by Stowage. Open it with a new URL, or remove the file.")
        }
        guard let json = metadata["schema_layout"] else {
            throw mismatch(location, metadata, "it was created by an earlier version of Stowage, which did not record the layout of its tables")
        }
        do {
            return try SchemaLayout(json: json)
        } catch {
            throw mismatch(location, metadata, "the layout it recorded cannot be read (\(error))")
        }
    }

    private static func mismatch(_ location: String, _ metadata: [String: String], _ detail: String) -> StowageError {
        StowageError(
            .schemaMismatch,
            "The store at \(location) (schema \(metadata["schema_version"] ?? "?")) does not match the models: \(detail). The store was not modified.")
    }

    /// The identifier of a store whose recorded layout is the schema's.
    private static func identifier(_ schema: Schema, stored: SchemaLayout, metadata: [String: String], location: String) throws -> String {
        func mismatch(_ detail: String) -> StowageError { Self.mismatch(location, metadata, detail) }
        let differences = schema.layout.differences(from: stored)
        guard differences.isEmpty else {
            // Reached when the store was opened without saving: a configuration that can save migrates
            // lightweight changes before this check.
            throw mismatch(differences.joined(separator: "; ") + " (a configuration that allows saving migrates such changes when they are lightweight)")
        }
        guard let identifier = metadata["store_identifier"] else {
            throw mismatch("its metadata has no store identifier")
        }
        return identifier
    }
}
