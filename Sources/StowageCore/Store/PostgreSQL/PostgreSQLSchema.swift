import Foundation

/// Creates and verifies the tables of a schema in a PostgreSQL database.
///
/// The layout is the SQLite store's (one table per entity or class hierarchy, `_pk`, one column per
/// attribute, join tables, side tables for external storage, `_stowage_metadata`), in PostgreSQL's
/// types: `bigint` for integers, `boolean`, `double precision` for `Double` and `Date` (seconds since
/// 2001, as SQLite and Core Data keep them: exact), `text COLLATE "C"` for strings (compared through
/// `stowage_nfc`, Swift's `==` and `<`), `numeric` for `Decimal`, `uuid`, `jsonb` for `Codable`
/// values and `bytea` for `Data`.
enum PostgreSQLSchema {
    static let metadataTable = SQLiteSQL.metadataTable
    /// The advisory lock that serializes preparing and migrating a database among processes.
    static let setupLock: Int64 = 0x5354_4F57_4147_4501

    /// The column type of an attribute.
    static func columnType(_ attribute: Schema.Attribute) -> String {
        let type = unwrapped(attribute.accessor.valueType)
        switch attribute.storageType {
        case .integer: return type == Bool.self ? "boolean" : "bigint"
        case .real: return "double precision"
        case .blob: return "bytea"
        case .text:
            if attribute.accessor.codecKind == .json { return "jsonb" }
            if type == Decimal.self { return "numeric" }
            if type == UUID.self { return "uuid" }
            return "text COLLATE \"C\""
        }
    }

    /// How a query reads an attribute's column: as it is, or cast to text for the types the store reads
    /// as text (`numeric`, `uuid`, `jsonb`).
    static func readColumn(_ attribute: Schema.Attribute, qualifier: String? = nil, named name: String? = nil) -> String {
        let column = (qualifier.map { $0 + "." } ?? "") + SQLiteSQL.quote(name ?? attribute.name)
        switch columnType(attribute) {
        case "numeric", "uuid", "jsonb": return column + "::text"
        default: return column
        }
    }

    private static func unwrapped(_ type: any Any.Type) -> any Any.Type {
        (type as? any OptionalProtocol.Type)?.wrappedType ?? type
    }

    /// The functions and collations Stowage's SQL calls (SQLite's are registered on each connection).
    /// Strings compare and search as Swift does, through their NFC form (see ``SwiftTextKey``).
    static let supportStatements: [String] = [
        #"CREATE OR REPLACE FUNCTION stowage_nfc(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT normalize($1, NFC) $$"#,
        #"CREATE OR REPLACE FUNCTION stowage_fold(text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT replace(lower(regexp_replace(normalize($1, NFKD), '[\u0300-\u036f]', '', 'g') COLLATE "und-x-icu"), 'ß', 'ss') $$"#,
        #"CREATE OR REPLACE FUNCTION stowage_contains(text, text) RETURNS boolean LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT strpos(normalize($1, NFC), normalize($2, NFC)) > 0 $$"#,
        #"CREATE OR REPLACE FUNCTION stowage_starts_with(text, text) RETURNS boolean LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT starts_with(normalize($1, NFC), normalize($2, NFC)) $$"#,
        #"CREATE OR REPLACE FUNCTION stowage_localized_standard_contains(text, text) RETURNS boolean LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT strpos(stowage_fold($1), stowage_fold($2)) > 0 $$"#,
        #"CREATE OR REPLACE FUNCTION stowage_count(text) RETURNS bigint LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT char_length(normalize($1, NFC))::bigint $$"#,
        #"CREATE OR REPLACE FUNCTION stowage_case_insensitive_compare(text, text) RETURNS bigint LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT CASE WHEN lower($1 COLLATE "und-x-icu") COLLATE "C" < lower($2 COLLATE "und-x-icu") COLLATE "C" THEN -1 WHEN lower($1 COLLATE "und-x-icu") = lower($2 COLLATE "und-x-icu") THEN 0 ELSE 1 END::bigint $$"#,
        #"CREATE OR REPLACE FUNCTION stowage_localized_compare(text, text) RETURNS bigint LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT CASE WHEN $1 COLLATE "localized" < $2 COLLATE "localized" THEN -1 WHEN $1 COLLATE "localized" = $2 COLLATE "localized" THEN 0 ELSE 1 END::bigint $$"#,
        #"CREATE OR REPLACE FUNCTION stowage_unwrap(anyelement) RETURNS anyelement LANGUAGE plpgsql VOLATILE AS $$ BEGIN IF $1 IS NULL THEN RAISE EXCEPTION 'Stowage: a predicate force-unwrapped (`!`) a nil value'; END IF; RETURN $1; END $$"#,
    ]

    /// Created before the functions, which use them.
    static let collationStatements: [String] = [
        // Foundation's `localizedStandardCompare` is a total order: case and accents are told apart
        // after the letters (bob < Bob < BOB), canonically equivalent forms by their bytes, digits as
        // numbers. ICU's root collation with numeric ordering, deterministic, gives the same order.
        #"CREATE COLLATION IF NOT EXISTS "localizedStandard" (provider = icu, locale = 'und-u-kn')"#,
        #"CREATE COLLATION IF NOT EXISTS "caseInsensitive" (provider = icu, locale = 'und-u-ks-level2', deterministic = false)"#,
        #"CREATE COLLATION IF NOT EXISTS "localized" (provider = icu, locale = 'und')"#,
    ]

    /// The history's tables (as the SQLite store's, see ``SQLiteHistory``), and the function that
    /// notifies the other processes of a save (``notifyFunction``).
    ///
    /// A transaction's number is its row's `id`, taken when the save inserts the row, so saves commit
    /// side by side and numbers are not in commit order: a reader can see a number while a smaller one
    /// is still to commit. Each save therefore holds, from before it takes its number to its end, an
    /// advisory lock of its own (``saveLockKey``); a reader that finds a number missing waits for the
    /// saves in flight (``waitForSave(_:)``), after which a number still missing never comes (its
    /// save rolled back). So a reader that has read a number has read every smaller one.
    static let historyStatements: [String] = [
        """
        CREATE TABLE \(SQLiteSQL.quote(SQLiteHistory.transactionTable)) ("id" bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, \
        "timestamp" double precision NOT NULL, "author" text, "bundle" text NOT NULL, "process" text NOT NULL, "origin" bigint NOT NULL, \
        "detail" bigint NOT NULL DEFAULT 1)
        """,
        """
        CREATE TABLE \(SQLiteSQL.quote(SQLiteHistory.changeTable)) ("transaction" bigint NOT NULL, "position" bigint NOT NULL, \
        "entity" text NOT NULL, "kind" bigint NOT NULL, "properties" text, "keys" bytea NOT NULL, "values" bytea, \
        PRIMARY KEY ("transaction", "position"))
        """,
        notifyFunction,
    ]

    /// The channel saves notify, with their history transaction's number and the origin of the store
    /// that saved (`"42 7310…"`).
    static let notificationChannel = "stowage_saves"

    /// `stowage_notify(payload text)`: notifies ``notificationChannel``, committing without waiting for
    /// the log to reach the disk.
    ///
    /// A save calls it right after its commit, not inside its transaction: PostgreSQL lets one
    /// notifying transaction of a database commit at a time, and a save's commit waits for the disk. A
    /// notification lost in a crash costs nothing: the listeners read the history from where they were
    /// when they reconnect.
    static let notifyFunction = """
        CREATE OR REPLACE FUNCTION stowage_notify(payload text) RETURNS void LANGUAGE plpgsql VOLATILE AS $$
        BEGIN
            PERFORM set_config('synchronous_commit', 'off', true);
            PERFORM pg_notify(\(SQLiteSQL.literal(notificationChannel)), payload);
        END $$
        """

    /// The key of the advisory lock a save holds in share mode from before it takes its history number
    /// to its end: its transaction's id in the low 32 bits, a constant ("STOX") above.
    static let saveLockKey = "(\(Int64(0x5354_4F58) << 32) | (pg_current_xact_id()::text::bigint % 4294967296))"

    /// The transactions in flight (as text), each of which may be a save holding a ``saveLockKey``.
    static let transactionsInFlight = #"SELECT "x"::text FROM pg_snapshot_xip(pg_current_snapshot()) AS "x""#

    /// Waits until the transaction `xid` has ended, if it is a save (the others hold no ``saveLockKey``):
    /// the lock is taken in exclusive mode and given back as the statement ends, so a save that has not
    /// taken its own yet waits an instant at most.
    static func waitForSave(_ xid: Int64) -> String {
        "SELECT pg_advisory_xact_lock(\(Int64(0x5354_4F58) << 32 | (xid % 4_294_967_296)))"
    }

    /// The statements that create the schema's tables and indexes, in order: of every model, or (in a
    /// migration) of the root entities named `tables` and the join tables not in `existingJoinTables`.
    static func createStatements(_ schema: Schema, tables: Set<String>? = nil, existingJoinTables: Set<String> = []) -> [String] {
        var statements: [String] = []
        // Foreign keys are added once every table exists, so that tables may refer to each other in any
        // order (and in cycles).
        var references: [String] = []
        let q = SQLiteSQL.quote
        let pk = q(SQLiteSQL.primaryKeyColumn)
        let created = { (entity: Schema.Entity) in tables?.contains(entity.rootEntity.name) ?? true }
        for entity in schema.entities where entity.superentity == nil && created(entity) {
            var definitions = ["\(pk) bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"]
            for attribute in entity.fetchAttributes {
                var column = "\(q(attribute.name)) \(columnType(attribute))"
                if !entity.tableColumnIsOptional(attribute) { column += " NOT NULL" }
                definitions.append(column)
            }
            for relationship in entity.fetchForeignKeys {
                guard case .foreignKey(let column, let positionColumn) = relationship.storage, let reference = foreignKey(relationship, of: entity) else { continue }
                definitions.append("\(q(column)) bigint")
                references.append(reference)
                if let positionColumn { definitions.append("\(q(positionColumn)) bigint") }
            }
            if entity.isInHierarchy {
                definitions.append("\(q(Schema.Entity.entityColumn)) text COLLATE \"C\" NOT NULL DEFAULT \(SQLiteSQL.literal(entity.name))")
            }
            statements.append("CREATE TABLE \(q(entity.name)) (\(definitions.joined(separator: ", ")))")
        }
        statements += references
        for entity in schema.entities where created(entity) {
            for attribute in entity.externalAttributes where entity.superentity == nil || entity.superentity?.storedPropertiesByName[attribute.name] == nil {
                statements.append(externalTableStatement(entity, attribute))
            }
            guard entity.superentity == nil else { continue }
            statements += indexStatements(for: entity)
        }
        var joinTables: Set<String> = []
        for entity in schema.entities {
            for relationship in entity.relationshipList {
                guard case .joinTable(let table, let own, let other, let ownPosition, let otherPosition) = relationship.storage,
                      let destination = relationship.destinationEntity, table.hasPrefix(entity.name + "_"),
                      !existingJoinTables.contains(table), joinTables.insert(table).inserted
                else { continue }
                let reference = { (entity: Schema.Entity) in
                    "bigint NOT NULL REFERENCES \(q(entity.tableName))(\(pk)) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED"
                }
                statements.append("CREATE TABLE \(q(table)) (\(q(own)) \(reference(entity)), \(q(other)) \(reference(destination)), \(q(ownPosition)) bigint, \(q(otherPosition)) bigint, PRIMARY KEY (\(q(own)), \(q(other))))")
                statements.append("CREATE INDEX \(q("\(table)_\(other)_index")) ON \(q(table)) (\(q(other)))")
            }
        }
        return statements
    }

    /// The statement that creates the side table of an attribute in external storage.
    static func externalTableStatement(_ entity: Schema.Entity, _ attribute: Schema.Attribute) -> String {
        let q = SQLiteSQL.quote
        let pk = q(SQLiteSQL.primaryKeyColumn)
        let table = q(SQLiteSchema.externalTableName(entity, attribute))
        return "CREATE TABLE \(table) (\(pk) bigint PRIMARY KEY REFERENCES \(q(entity.tableName))(\(pk)) ON DELETE CASCADE, \"value\" \(columnType(attribute)))"
    }

    /// The statement that adds a to-one relationship's foreign key to its entity's table.
    static func foreignKey(_ relationship: Schema.Relationship, of entity: Schema.Entity) -> String? {
        guard case .foreignKey(let column, _) = relationship.storage, let destination = relationship.destinationEntity else { return nil }
        let q = SQLiteSQL.quote
        return "ALTER TABLE \(q(entity.tableName)) ADD FOREIGN KEY (\(q(column))) REFERENCES \(q(destination.tableName))(\(q(SQLiteSQL.primaryKeyColumn))) ON DELETE \(relationship.foreignKeyDeleteAction) DEFERRABLE INITIALLY DEFERRED"
    }

    /// The indexes of a root entity's table: uniqueness constraints, foreign keys, `#Index`.
    static func indexStatements(for entity: Schema.Entity) -> [String] {
        let q = SQLiteSQL.quote
        var statements: [String] = []
        for group in entity.uniquenessConstraints {
            let name = q("\(entity.name)_\(group.joined(separator: "_"))_unique")
            statements.append("CREATE UNIQUE INDEX \(name) ON \(q(entity.name)) (\(SQLiteSchema.keyList(group, of: entity)))")
        }
        for relationship in entity.fetchForeignKeys {
            guard case .foreignKey(let column, _) = relationship.storage else { continue }
            statements.append("CREATE INDEX \(q("\(entity.name)_\(column)_index")) ON \(q(entity.name)) (\(q(column)))")
        }
        for group in entity.indices {
            statements.append("CREATE INDEX \(q("\(entity.name)_\(group.joined(separator: "_"))_index")) ON \(q(entity.name)) (\(SQLiteSchema.keyList(group, of: entity)))")
        }
        return statements
    }

    /// Creates the schema in a database without Stowage's tables, or checks that its tables match the
    /// schema; run by one process at a time (an advisory lock held until the transaction ends), so that
    /// instances starting together create the tables once.
    /// - Returns: the store's identifier.
    static func prepare(
        _ schema: Schema, on connection: any PostgreSQLConnection, location: String, allowsCreation: Bool,
        migrationPlan: (any SchemaMigrationPlan.Type)? = nil
    ) throws -> String {
        try connection.transaction {
            try connection.execute("SELECT pg_advisory_xact_lock(\(setupLock))")
            let metadata = try Self.metadata(on: connection)
            if let metadata {
                if allowsCreation, let json = metadata["schema_layout"], let stored = try? SchemaLayout(json: json), stored != schema.layout {
                    let identifier = metadata["store_identifier"] ?? UUID().uuidString
                    let lightweight = { (layout: SchemaLayout, target: Schema) in
                        try PostgreSQLMigration(from: layout, to: target, location: location).run(on: connection)
                    }
                    if let migrationPlan {
                        // The stages' contexts save inside this transaction: a stage that fails undoes
                        // them with everything else.
                        try PlannedMigration(plan: migrationPlan, stored: stored, target: schema, location: location).run(
                            context: { version in
                                let store = PostgreSQLStore(schema: version, migratingOn: connection, identifier: identifier, location: location)
                                return ModelContext(ModelContainer(schema: version, store: store))
                            },
                            lightweight: lightweight)
                    } else {
                        try lightweight(stored, schema)
                    }
                    try record(schema, on: connection)
                    return identifier
                }
                let identifier = try identifier(schema, metadata: metadata, location: location)
                // The description is not part of what a store is opened against: one missing (an earlier
                // version's store) or different (an enumeration's cases changed) is written, not migrated.
                let description = StoreDescription(schema).json
                if allowsCreation, metadata[StoreDescription.metadataKey] != description {
                    try upsertMetadata([(StoreDescription.metadataKey, description)], on: connection)
                }
                return identifier
            }
            guard allowsCreation else {
                throw StowageError(
                    .storeOpenFailed,
                    "The PostgreSQL database at \(location) has no Stowage tables yet and its configuration has allowsSave: false, so Stowage cannot create them. Open it once with a configuration that allows saving.")
            }
            for statement in collationStatements + supportStatements { try connection.execute(statement) }
            let meta = SQLiteSQL.quote(metadataTable)
            try connection.execute("CREATE TABLE \(meta) (\"key\" text COLLATE \"C\" PRIMARY KEY, \"value\" text NOT NULL)")
            for statement in createStatements(schema) + historyStatements { try connection.execute(statement) }
            let identifier = UUID().uuidString
            for (key, value) in [("store_identifier", identifier)] + schema.metadataRows {
                try connection.execute("INSERT INTO \(meta) (\"key\", \"value\") VALUES (?, ?)", [.text(key), .text(value)])
            }
            return identifier
        }
    }

    /// Records the schema's version, layout and description after a migration.
    static func record(_ schema: Schema, on connection: any PostgreSQLConnection) throws {
        try upsertMetadata(schema.metadataRows, on: connection)
    }

    private static func upsertMetadata(_ rows: [(key: String, value: String)], on connection: any PostgreSQLConnection) throws {
        for (key, value) in rows {
            try connection.execute(
                "INSERT INTO \(SQLiteSQL.quote(metadataTable)) (\"key\", \"value\") VALUES (?, ?) ON CONFLICT (\"key\") DO UPDATE SET \"value\" = excluded.\"value\"",
                [.text(key), .text(value)])
        }
    }

    /// Stowage's metadata in the database, or `nil` when it has none.
    static func metadata(on connection: any PostgreSQLConnection) throws -> [String: String]? {
        let exists = try connection.rows("SELECT to_regclass(?)::text", [.text("public." + SQLiteSQL.quote(metadataTable))])
        guard case .text? = exists.first?.first else { return nil }
        var metadata: [String: String] = [:]
        for row in try connection.rows("SELECT \"key\", \"value\" FROM \(SQLiteSQL.quote(metadataTable))") {
            guard row.count == 2, case .text(let key) = row[0], case .text(let value) = row[1] else { continue }
            metadata[key] = value
        }
        return metadata
    }

    /// The identifier of a database whose recorded layout is the schema's.
    private static func identifier(_ schema: Schema, metadata: [String: String], location: String) throws -> String {
        func mismatch(_ detail: String) -> StowageError {
            StowageError(
                .schemaMismatch,
                "The PostgreSQL database at \(location) (schema \(metadata["schema_version"] ?? "?")) does not match the models: \(detail). The database was not modified.")
        }
        guard let json = metadata["schema_layout"], let stored = try? SchemaLayout(json: json) else {
            throw mismatch("its recorded layout cannot be read")
        }
        let differences = schema.layout.differences(from: stored)
        guard differences.isEmpty else {
            throw mismatch(differences.joined(separator: "; ") + " (a configuration that allows saving migrates such changes when they are lightweight)")
        }
        guard let identifier = metadata["store_identifier"] else { throw mismatch("its metadata has no store identifier") }
        return identifier
    }
}
