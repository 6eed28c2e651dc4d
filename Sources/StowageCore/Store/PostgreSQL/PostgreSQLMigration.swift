import Foundation

/// A lightweight migration of a PostgreSQL database, inside the transaction (and under the advisory
/// lock) that opening the database holds: PostgreSQL's DDL is transactional, so a migration that fails
/// leaves the database as it was, and two instances starting together against an old database migrate
/// it once (the second finds it migrated).
///
/// What it does: creates the tables of new models (with their relationships and subclasses) and drops
/// those of models the schema no longer has; in the tables of models it keeps, adds attributes
/// (optional ones empty, others with their declared default), renames those whose `originalName` names
/// a column, drops removed ones, makes them optional or required (filling empty values with the
/// declared default), adds and drops to-one relationships' columns and many-to-many relationships' join
/// tables, renames relationships (`originalName`; a join table's links move to the new one), follows
/// changes of delete rules, adds subclasses (and removes those without rows), moves attributes in and
/// out of external storage, and rebuilds the indexes and uniqueness constraints. Changes of an
/// attribute's type or of a relationship's destination, and a model becoming a subclass, are refused,
/// with the database untouched: a custom migration stage, through attributes and models added and
/// removed, makes them.
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
        let oldJoinTables = Dictionary(
            stored.entities.flatMap { entity in entity.relationships.compactMap { link in link.joinTableName.map { ($0, link) } } },
            uniquingKeysWith: { a, _ in a })
        var newJoinTables: [String: Schema.Relationship] = [:]
        for entity in schema.entities {
            for relationship in entity.relationshipList {
                if case .joinTable(let table, _, _, _, _) = relationship.storage, newJoinTables[table] == nil { newJoinTables[table] = relationship }
            }
        }
        var created: Set<String> = []
        var foreignKeys: [String] = []
        for entity in schema.entities where entity.superentity == nil {
            guard let previous = old[entity.name] else {
                created.insert(entity.name)
                continue
            }
            let current = SchemaLayout.Entity(entity)
            guard current != previous else { continue }
            // A model that became a subclass: its rows are in a table of its own.
            if let moved = entity.descendants.first(where: { old[$0.name] != nil }) {
                throw refusal(moved.name, nil, "\(moved.name) has a table of its own in the database and is now a subclass of \(entity.name), whose table holds every class of the hierarchy; moving its rows there needs a custom migration stage that copies them into new models and deletes the old ones in a version where \(moved.name) is not yet a subclass")
            }
            // Subclasses the schema no longer lists: their rows would become rows of their superclass.
            let missing = (previous.subentities ?? []).filter { !(current.subentities ?? []).contains($0) }
            if !missing.isEmpty {
                let rows = try connection.rows("SELECT count(*) FROM \(q(entity.name)) WHERE \(q(Schema.Entity.entityColumn)) IN (\(SQLiteSQL.literalList(missing)))")
                if case .integer(let count)? = rows.first?.first, count > 0 {
                    throw refusal(entity.name, nil, "the table \(entity.name) holds \(count) row(s) of \(missing.joined(separator: ", ")), which the schema does not list; add those model classes to the schema, or delete their rows first in a custom migration stage")
                }
            }
            foreignKeys += try alter(entity, from: previous, on: connection)
        }
        // Tables of models the schema no longer has; the foreign keys of other tables to them go too.
        for entity in stored.entities where !newNames.contains(entity.name) {
            for column in entity.externalColumns { try connection.execute("DROP TABLE IF EXISTS \(q("\(entity.name)_\(column.name)"))") }
            try connection.execute("DROP TABLE \(q(entity.name)) CASCADE")
        }
        // Join tables: a table of both layouts must link the same way. New ones are created, and take
        // the links of the table their relationship had under its `originalName` (seen from either
        // side); old ones no relationship uses are dropped after.
        for (table, link) in oldJoinTables {
            guard let relationship = newJoinTables[table] else { continue }
            let sameSide = SchemaLayout.Link(relationship)
            let otherSide = relationship.inverse.map(SchemaLayout.Link.init)
            guard [sameSide.storage, otherSide?.storage].contains(link.storage) else {
                throw refusal(link.destination, link.name, "the join table \(table) links \(link.name) differently in the models (\(sameSide.storage)), which the PostgreSQL store does not migrate yet")
            }
        }
        let statements = PostgreSQLSchema.createStatements(schema, tables: created, existingJoinTables: Set(oldJoinTables.keys))
        for statement in statements { try connection.execute(statement) }
        for (table, relationship) in newJoinTables.sorted(by: { $0.key < $1.key }) where oldJoinTables[table] == nil {
            guard case .joinTable(_, let own, let other, let ownPosition, let otherPosition) = relationship.storage,
                  let source = previousJoinTable(of: relationship, in: old)
            else { continue }
            try connection.execute(
                "INSERT INTO \(q(table)) (\([own, other, ownPosition, otherPosition].map(q).joined(separator: ", "))) SELECT \(source.columns.map(q).joined(separator: ", ")) FROM \(q(source.table))")
        }
        for table in oldJoinTables.keys.sorted() where newJoinTables[table] == nil {
            try connection.execute("DROP TABLE IF EXISTS \(q(table))")
        }
        for statement in foreignKeys { try connection.execute(statement) }
    }

    /// The join table a many-to-many relationship's links were in, under its name or `originalName`,
    /// seen from its side or its inverse's, with its columns in the order of the relationship's (own,
    /// other, own position, other position).
    private func previousJoinTable(of relationship: Schema.Relationship, in old: [String: SchemaLayout.Entity]) -> (table: String, columns: [String])? {
        func stored(_ relationship: Schema.Relationship) -> RelationshipStorage? {
            guard let entity = relationship.entity, let previous = old[entity.rootEntity.name] else { return nil }
            let link = [relationship.name, relationship.originalName].lazy.compactMap { name in previous.relationships.first { $0.name == name } }.first
            guard let link, link.destination == relationship.destination else { return nil }
            return link.stored
        }
        if case .joinTable(let table, let own, let other, let ownPosition, let otherPosition)? = stored(relationship) {
            return (table, [own, other, ownPosition, otherPosition])
        }
        if let inverse = relationship.inverse, case .joinTable(let table, let own, let other, let ownPosition, let otherPosition)? = stored(inverse) {
            return (table, [other, own, otherPosition, ownPosition])
        }
        return nil
    }

    /// Renames, drops, adds and changes the optionality of the entity's columns, adds and drops its
    /// relationships' columns, and rebuilds its indexes.
    /// - Returns: the statements adding the foreign keys of its new relationships, to run once every
    ///   new table exists.
    private func alter(_ entity: Schema.Entity, from previous: SchemaLayout.Entity, on connection: any PostgreSQLConnection) throws -> [String] {
        let q = SQLiteSQL.quote
        let table = q(entity.name)
        var unused = Dictionary(previous.columns.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var renames: [(from: String, to: String)] = []
        var additions: [String] = []
        var optionality: [(column: String, optional: Bool, fill: String?)] = []
        // A hierarchy's table names each row's class; a model that gains subclasses gets the column, its
        // rows their class's name.
        if entity.isInHierarchy, unused.removeValue(forKey: Schema.Entity.entityColumn) == nil {
            additions.append("\(q(Schema.Entity.entityColumn)) text COLLATE \"C\" NOT NULL DEFAULT \(SQLiteSQL.literal(entity.name))")
        }
        // The hierarchy's classes, each with the properties it declares (not those it inherits).
        let classes = [(entity, 0)] + entity.descendants.map { ($0, $0.superentity?.properties.count ?? 0) }
        func sideTable(_ attribute: Schema.Attribute) -> String {
            let owner = classes.map(\.0).first { $0.storedPropertiesByName[attribute.name] != nil && $0.superentity?.storedPropertiesByName[attribute.name] == nil }
            return q(SQLiteSchema.externalTableName(owner ?? entity, attribute))
        }
        let previousExternal = Set(previous.externalColumns.map(\.name))
        // Attributes leaving external storage: a column, filled from their side table.
        var movedOut: [(column: String, table: String)] = []
        for attribute in entity.fetchAttributes {
            let column = SchemaLayout.Column(attribute)
            let required = !entity.tableColumnIsOptional(attribute)
            let fill = try attribute.defaultValue.flatMap { try attribute.accessor.encode(constant: $0) }.flatMap(Self.literal)
            if let name = [attribute.name, attribute.originalName].first(where: { unused[$0] != nil }), let old = unused[name] {
                guard old.type == column.type else {
                    throw refusal(entity.name, attribute.name, "\(entity.name).\(attribute.name) changed its type, which needs a custom migration stage (add the new attribute, copy the values in didMigrate, remove the old one in a later version)")
                }
                unused[name] = nil
                if name != attribute.name { renames.append((name, attribute.name)) }
                if old.isOptional != column.isOptional { optionality.append((attribute.name, !required, fill)) }
                continue
            }
            var definition = "\(q(attribute.name)) \(PostgreSQLSchema.columnType(attribute))"
            if previousExternal.contains(attribute.name) {
                additions.append(definition)
                movedOut.append((attribute.name, sideTable(attribute)))
                if required { optionality.append((attribute.name, false, fill)) }
                continue
            }
            if required {
                guard let fill else {
                    throw refusal(entity.name, attribute.name, "\(entity.name).\(attribute.name) is new, required and has no default value to give the stored rows; give it a default value or make it optional")
                }
                definition += " NOT NULL DEFAULT \(fill)"
            }
            additions.append(definition)
        }
        // Relationships: kept ones (under their name or `originalName`) keep their columns, renamed and
        // with their foreign key's delete action changed as needed; new to-one relationships get their
        // columns (empty), removed ones lose them.
        let oldLinks = Dictionary(previous.relationships.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var foreignKeys: [String] = []
        var replacedForeignKeys: [String] = []
        var droppedLinkColumns: [String] = []
        var kept: Set<String> = []
        let relationships = classes.flatMap { owner, inherited in owner.relationshipList.filter { $0.index >= inherited }.map { ($0, owner) } }
        for (relationship, owner) in relationships {
            let link = SchemaLayout.Link(relationship)
            guard let old = oldLinks[relationship.name] ?? oldLinks[relationship.originalName] else {
                if case .foreignKey(let column, let position) = relationship.storage, let reference = PostgreSQLSchema.foreignKey(relationship, of: owner) {
                    additions.append("\(q(column)) bigint")
                    if let position { additions.append("\(q(position)) bigint") }
                    foreignKeys.append(reference)
                }
                continue
            }
            kept.insert(old.name)
            guard old != link else { continue }
            let cannot = refusal(entity.name, relationship.name, "\(entity.name).\(relationship.name) is stored as \(old.summary) but the models need \(link.summary), which needs a custom migration stage")
            guard old.destination == link.destination, old.isToMany == link.isToMany else { throw cannot }
            switch (old.stored, relationship.storage) {
            case (.foreignKey(let oldColumn, let oldPosition), .foreignKey(let column, let position)) where (oldPosition == nil) == (position == nil):
                if oldColumn != column { renames.append((oldColumn, column)) }
                if let oldPosition, let position, oldPosition != position { renames.append((oldPosition, position)) }
                // The delete action follows the inverse's delete rule: the foreign key is replaced.
                if old.storage.components(separatedBy: " onDelete=").last != link.storage.components(separatedBy: " onDelete=").last,
                   let reference = PostgreSQLSchema.foreignKey(relationship, of: owner) {
                    replacedForeignKeys.append(oldColumn)
                    foreignKeys.append(reference)
                }
            case (.inverseForeignKey, .inverseForeignKey), (.joinTable, .joinTable):
                // Nothing in this table; a join table's links move with it (see `run`).
                break
            default:
                // A renamed many-to-many relationship would need its join table moved.
                throw cannot
            }
        }
        for (name, link) in oldLinks where !kept.contains(name) {
            guard case .foreignKey(let column, let position) = link.stored else { continue }
            droppedLinkColumns += [column] + (position.map { [$0] } ?? [])
        }
        // Attributes in external storage: side tables for new ones, dropped for removed ones. An attribute
        // moving in or out of external storage needs its values moved: refused.
        // Attributes in external storage: side tables for new ones (filled from their column when they
        // were one), dropped for removed ones.
        var oldExternal = previousExternal.subtracting(movedOut.map(\.column))
        var sideTables: [String] = []
        let pk = q(SQLiteSQL.primaryKeyColumn)
        for (owner, inherited) in classes {
            for attribute in owner.externalAttributes where attribute.index >= inherited {
                if oldExternal.remove(attribute.name) != nil { continue }
                sideTables.append(PostgreSQLSchema.externalTableStatement(owner, attribute))
                if previous.columns.contains(where: { $0.name == attribute.name }) {
                    sideTables.append(
                        "INSERT INTO \(sideTable(attribute)) (\(pk), \"value\") SELECT \(pk), \(q(attribute.name)) FROM \(table) WHERE \(q(attribute.name)) IS NOT NULL")
                }
            }
        }
        for name in oldExternal.sorted() {
            for (owner, _) in classes { try connection.execute("DROP TABLE IF EXISTS \(q("\(owner.name)_\(name)"))") }
        }
        for column in replacedForeignKeys {
            let constraints = try connection.rows(
                """
                SELECT "c"."conname"::text FROM pg_constraint AS "c" JOIN pg_attribute AS "a" ON "a"."attrelid" = "c"."conrelid" AND "a"."attnum" = ANY ("c"."conkey") \
                WHERE "c"."conrelid" = ?::regclass AND "c"."contype" = 'f' AND "a"."attname" = ?
                """,
                [.text(table), .text(column)])
            for row in constraints { if case .text(let name)? = row.first { try connection.execute("ALTER TABLE \(table) DROP CONSTRAINT \(q(name))") } }
        }
        let indexes = try connection.rows(
            "SELECT indexname::text FROM pg_indexes WHERE schemaname = 'public' AND tablename = ? AND indexname <> ?",
            [.text(entity.name), .text(entity.name + "_pkey")])
        for row in indexes { if case .text(let name)? = row.first { try connection.execute("DROP INDEX \(q(name))") } }
        for (from, to) in renames { try connection.execute("ALTER TABLE \(table) RENAME COLUMN \(q(from)) TO \(q(to))") }
        for statement in sideTables { try connection.execute(statement) }
        for name in unused.keys.sorted() + droppedLinkColumns { try connection.execute("ALTER TABLE \(table) DROP COLUMN \(q(name))") }
        for definition in additions {
            try connection.execute("ALTER TABLE \(table) ADD COLUMN \(definition)")
        }
        for move in movedOut {
            try connection.execute(
                "UPDATE \(table) SET \(q(move.column)) = \"side\".\"value\" FROM \(move.table) AS \"side\" WHERE \"side\".\(pk) = \(table).\(pk)")
            try connection.execute("DROP TABLE \(move.table)")
        }
        for change in optionality {
            let column = q(change.column)
            if change.optional {
                try connection.execute("ALTER TABLE \(table) ALTER COLUMN \(column) DROP NOT NULL")
                continue
            }
            if let fill = change.fill { try connection.execute("UPDATE \(table) SET \(column) = \(fill) WHERE \(column) IS NULL") }
            let empty = try connection.rows("SELECT count(*) FROM \(table) WHERE \(column) IS NULL")
            if case .integer(let count)? = empty.first?.first, count > 0 {
                throw refusal(entity.name, change.column, "\(entity.name).\(change.column) is no longer optional and has no default value, and \(count) stored row(s) have no value for it; declare a default, or fill them in a custom migration stage's willMigrate")
            }
            try connection.execute("ALTER TABLE \(table) ALTER COLUMN \(column) SET NOT NULL")
        }
        do {
            for statement in PostgreSQLSchema.indexStatements(for: entity) { try connection.execute(statement) }
        } catch let error as PostgreSQLServerError where error.sqlState == "23505" {
            throw refusal(entity.name, nil, "the rows of \(entity.name) break a uniqueness constraint of the new models (\(error.detail ?? error.message)); remove the duplicates first, in a custom migration stage")
        }
        return foreignKeys
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

/// The connection of a migration's transaction as the contexts of its custom stages use it: each save
/// is a savepoint inside the migration's transaction (a save that fails is undone alone, and the
/// migration may go on), and notifies no one, as the migration commits or rolls back whole.
final class PostgreSQLMigrationConnection: PostgreSQLConnection {
    private let base: any PostgreSQLConnection
    private static let savepoint = "stowage_save"

    init(_ base: any PostgreSQLConnection) {
        self.base = base
    }

    var transactionControl: (begin: String, commit: String, rollback: String) {
        ("SAVEPOINT \(Self.savepoint)", "RELEASE SAVEPOINT \(Self.savepoint)", "ROLLBACK TO SAVEPOINT \(Self.savepoint)")
    }

    func query(_ sql: String, _ arguments: [StorageValue], _ body: ([StorageValue]) throws -> Void) throws {
        try base.query(sql, arguments, body)
    }

    func send(_ sql: String, _ arguments: [StorageValue], check: @escaping ([[StorageValue]]) throws -> Void) throws {
        try base.send(sql, arguments, check: check)
    }

    func flush() throws {
        try base.flush()
    }

    /// The save's last statement, then the savepoint released; a save of one statement gets a savepoint
    /// of its own. The follow-up (the notification) is not sent.
    func finish(_ sql: String, _ arguments: [StorageValue], endingTransaction: Bool, then followUp: String) throws -> [[StorageValue]] {
        let control = transactionControl
        if !endingTransaction { try base.execute(control.begin) }
        do {
            let rows = try base.rows(sql, arguments)
            try base.execute(control.commit)
            return rows
        } catch {
            try? base.execute(control.rollback)
            try? base.execute(control.commit)
            throw error
        }
    }
}

/// The driver of the contexts of a migration's custom stages: the migration's one connection, no
/// listening.
final class PostgreSQLMigrationDriver: PostgreSQLDriver, @unchecked Sendable {
    // @unchecked Sendable: used by the migrating thread only, for the time of the migration.
    private let connection: PostgreSQLMigrationConnection

    init(_ connection: any PostgreSQLConnection) {
        self.connection = PostgreSQLMigrationConnection(connection)
    }

    func withConnection<Result>(_ body: (any PostgreSQLConnection) throws -> Result) throws -> Result {
        try body(connection)
    }

    func listen(on channel: String, _ handler: @escaping @Sendable (String?) -> Void) throws -> any PostgreSQLListener {
        throw StowageError(.invalidSchema, "A migration stage's context does not follow other processes' saves.")
    }

    func shutdown() {}
}
