import Foundation

/// A lightweight migration of a PostgreSQL database, inside the transaction (and under the advisory
/// lock) that opening the database holds: PostgreSQL's DDL is transactional, so a migration that fails
/// leaves the database as it was, and two instances starting together against an old database migrate
/// it once (the second finds it migrated).
///
/// What it does: creates the tables of new models and drops those of models the schema no longer has;
/// in the tables of models it keeps, adds attributes (optional ones empty, others with their declared
/// default), renames those whose `originalName` names a column, drops removed ones, and rebuilds the
/// indexes and uniqueness constraints. Changes of relationships, of an attribute's type or optionality,
/// of external storage and of class hierarchies are refused, with the database untouched.
struct PostgreSQLMigration {
    let stored: SchemaLayout
    let schema: Schema
    let location: String

    init(from stored: SchemaLayout, to schema: Schema, location: String) {
        self.stored = stored
        self.schema = schema
        self.location = location
    }

    private func refusal(_ entity: String, _ property: String?, _ reason: String) -> StowageError {
        StowageError(
            .schemaMismatch,
            "Cannot migrate the PostgreSQL database at \(location) automatically: \(reason). The database was not modified.",
            entityName: entity, propertyName: property)
    }

    func run(on connection: any PostgreSQLConnection) throws {
        let q = SQLiteSQL.quote
        let old = Dictionary(stored.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let newNames = Set(schema.entities.map(\.name))
        if !stored.entities.isEmpty && old.keys.allSatisfy({ !newNames.contains($0) }) {
            throw StowageError(
                .schemaMismatch,
                "The PostgreSQL database at \(location) holds other models (\(old.keys.sorted().joined(separator: ", "))) than the schema (\(newNames.sorted().joined(separator: ", "))); Stowage does not migrate a database that has no model in common with the schema, as that would delete all of its data. The database was not modified.")
        }
        var created: [Schema.Entity] = []
        for entity in schema.entities where entity.superentity == nil {
            guard let previous = old[entity.name] else {
                if entity.isInHierarchy || !entity.relationshipList.isEmpty {
                    throw refusal(entity.name, nil, "\(entity.name) is new and has relationships or subclasses, which the PostgreSQL store does not add to a database yet")
                }
                created.append(entity)
                continue
            }
            let current = SchemaLayout.Entity(entity)
            guard current != previous else { continue }
            guard current.relationships == previous.relationships else {
                throw refusal(entity.name, nil, "the relationships of \(entity.name) changed, which the PostgreSQL store does not migrate yet")
            }
            guard current.externalColumns == previous.externalColumns, current.subentities == previous.subentities, !entity.isInHierarchy else {
                throw refusal(entity.name, nil, "the external storage or the subclasses of \(entity.name) changed, which the PostgreSQL store does not migrate yet")
            }
            try alter(entity, from: previous, on: connection)
        }
        for entity in stored.entities where !newNames.contains(entity.name) {
            guard entity.relationships.isEmpty, entity.externalColumns.isEmpty else {
                throw refusal(entity.name, nil, "\(entity.name) is no longer a model, and its table has relationships or external storage, which the PostgreSQL store does not drop yet")
            }
            try connection.execute("DROP TABLE \(q(entity.name))")
        }
        let newTables = PostgreSQLSchema.createStatements(Schema(created.map(\.modelType), version: schema.version))
        for statement in newTables { try connection.execute(statement) }
    }

    /// Renames, drops and adds the entity's columns, and rebuilds its indexes.
    private func alter(_ entity: Schema.Entity, from previous: SchemaLayout.Entity, on connection: any PostgreSQLConnection) throws {
        let q = SQLiteSQL.quote
        let table = q(entity.name)
        var unused = Dictionary(previous.columns.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var renames: [(from: String, to: String)] = []
        var additions: [String] = []
        for attribute in entity.fetchAttributes {
            let column = SchemaLayout.Column(attribute)
            if let name = [attribute.name, attribute.originalName].first(where: { unused[$0] != nil }), let old = unused[name] {
                guard old.type == column.type, old.isOptional == column.isOptional else {
                    throw refusal(entity.name, attribute.name, "\(entity.name).\(attribute.name) changed its type or whether it is optional, which needs a custom migration stage")
                }
                unused[name] = nil
                if name != attribute.name { renames.append((name, attribute.name)) }
                continue
            }
            var definition = "\(q(attribute.name)) \(PostgreSQLSchema.columnType(attribute))"
            if !entity.tableColumnIsOptional(attribute) {
                guard let value = attribute.defaultValue, let stored = try attribute.accessor.encode(constant: value), let literal = Self.literal(stored) else {
                    throw refusal(entity.name, attribute.name, "\(entity.name).\(attribute.name) is new, required and has no default value to give the stored rows; give it a default value or make it optional")
                }
                definition += " NOT NULL DEFAULT \(literal)"
            }
            additions.append(definition)
        }
        let indexes = try connection.rows(
            "SELECT indexname::text FROM pg_indexes WHERE schemaname = 'public' AND tablename = ? AND indexname <> ?",
            [.text(entity.name), .text(entity.name + "_pkey")])
        for row in indexes { if case .text(let name)? = row.first { try connection.execute("DROP INDEX \(q(name))") } }
        for (from, to) in renames { try connection.execute("ALTER TABLE \(table) RENAME COLUMN \(q(from)) TO \(q(to))") }
        for name in unused.keys.sorted() { try connection.execute("ALTER TABLE \(table) DROP COLUMN \(q(name))") }
        for definition in additions {
            try connection.execute("ALTER TABLE \(table) ADD COLUMN \(definition)")
        }
        do {
            for statement in PostgreSQLSchema.indexStatements(for: entity) { try connection.execute(statement) }
        } catch let error as PostgreSQLServerError where error.sqlState == "23505" {
            throw refusal(entity.name, nil, "the rows of \(entity.name) break a uniqueness constraint of the new models (\(error.detail ?? error.message)); remove the duplicates first, in a custom migration stage")
        }
    }

    /// A stored value as a SQL literal the column's type accepts (PostgreSQL types a quoted literal by
    /// its place); `nil` for bytes.
    private static func literal(_ value: StorageValue) -> String? {
        switch value {
        case .null: "NULL"
        case .integer(let number): SQLiteSQL.literal(String(number))
        case .real(let number): SQLiteSQL.literal("\(number)")
        case .text(let text): SQLiteSQL.literal(text)
        case .blob: nil
        }
    }
}
