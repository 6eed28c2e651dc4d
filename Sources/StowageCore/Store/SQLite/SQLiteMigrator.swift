import Foundation
import GRDB
import GRDBSQLite

/// Brings an existing store from the layout it recorded (``SchemaLayout``) to a schema's, in one
/// transaction: the store is at its old layout or at its new one, never in between.
///
/// Tables whose layout changed are rebuilt with SQLite's documented procedure (create the new table,
/// copy the rows with their primary keys, drop the old table, rename the new one, create its indexes),
/// with foreign-key enforcement off during the transaction and `PRAGMA foreign_key_check` before the
/// commit. Each row keeps its primary key, so a `PersistentIdentifier` saved before the migration finds
/// its model after it.
enum SQLiteMigrator {
    /// Migrates the store at `path` to `schema` when the layout it recorded differs. A store without
    /// Stowage's metadata, or with no tables, is left to ``SQLiteSchema/prepare(_:in:path:allowsCreation:)``.
    ///
    /// With a plan, the store's version is the plan's schema whose layout it has, and the stages from
    /// there run in order (each custom stage's `willMigrate` on the old version's models, the layout
    /// change, then its `didMigrate` on the new version's models); without one, the change is one
    /// lightweight migration. Either way everything happens in one transaction.
    /// - Parameter partial: whether the store holds part of the plan's models (one configuration of
    ///   several): the plan's versions are then compared and migrated for those models only.
    /// - Parameter statementObserver: called with each statement the migration runs, its values spliced in.
    static func migrateIfNeeded(
        path: String, to schema: Schema, plan: (any SchemaMigrationPlan.Type)?, partial: Bool = false, busyTimeout: TimeInterval = 5,
        statementObserver: (@Sendable (String) -> Void)? = nil
    ) throws {
        var configuration = Configuration()
        configuration.label = "Stowage migration"
        configuration.busyMode = SQLiteBusyWait.mode(timeout: busyTimeout)
        configuration.foreignKeysEnabled = false
        configuration.prepareDatabase { db in
            if let connection = db.sqliteConnection { SQLiteFunctions.register(on: connection) }
            if let statementObserver {
                db.trace(options: .statement) { event in
                    if case .statement(let statement) = event { statementObserver(statement.expandedSQL) }
                }
            }
        }
        // Read through a read-only connection first: a store that needs no migration, or that is
        // refused, is never opened for writing (closing a connection that can write checkpoints a
        // -wal found beside the file into it, even the -wal of another database).
        // A store without Stowage's metadata or a recorded layout (a new or foreign file) is left to
        // opening, which reports it.
        let (tables, metadata) = try readMetadata(path: path, busyTimeout: busyTimeout)
        guard metadata["schema_layout"] != nil, let stored = try SQLiteSchema.storedLayout(tables: tables, metadata: metadata, location: path) else {
            return
        }
        let target = schema.layout
        guard stored != target else { return }
        let location = path
        let stages = try plan.map { try PlannedMigration(plan: $0, stored: stored, target: schema, location: location, partial: partial) }
        let identifier = metadata["store_identifier"] ?? UUID().uuidString
        // A -wal already beside the file (a crash's, or another database's) must not be checkpointed
        // into a store whose migration fails. The last connection to close checkpoints; a read-only
        // connection cannot: one is kept open (after a read, it holds its shared lock) until the
        // migration's connection has closed.
        var walGuard: OpaquePointer?
        if FileManager.default.fileExists(atPath: path + "-wal"),
           sqlite3_open_v2(path, &walGuard, SQLITE_OPEN_READONLY, nil) == SQLITE_OK {
            sqlite3_exec(walGuard, "SELECT count(*) FROM sqlite_master", nil, nil, nil)
        }
        defer { sqlite3_close_v2(walGuard) }
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? queue.close() }
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA legacy_alter_table = ON")
            defer { try? db.execute(sql: "PRAGMA legacy_alter_table = OFF") }
            try db.inTransaction(.immediate) {
                if let stages {
                    try stages.run(db, queue: queue, storeIdentifier: identifier)
                } else {
                    try LightweightMigration(from: stored, to: schema, location: location).run(db)
                }
                try checkForeignKeys(db, location: location)
                try record(schema, in: db)
                return .commit
            }
        }
    }

    /// What opening the store at `path` with `schema` and `plan` would do, read without changing the
    /// file (a read-only connection): throws what opening would throw for a backward, unknown or
    /// foreign store.
    static func status(path: String, url: URL, schema: Schema, plan: (any SchemaMigrationPlan.Type)?, partial: Bool) throws -> MigrationStatus {
        func status(_ state: MigrationStatus.State, recorded: Schema.Version? = nil, at version: (any VersionedSchema.Type)? = nil,
                    stages: [MigrationStage] = [], changes: [String] = []) -> MigrationStatus {
            MigrationStatus(url: url, state: state, recordedVersion: recorded, storeVersion: version.map { $0.versionIdentifier },
                            storeVersionName: version.flatMap(versionName(of:)), targetVersion: schema.version, stages: stages, changes: changes)
        }
        if let plan { try PlannedMigration.validate(plan) }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        guard let size, size > 0 else { return status(.noStore) }
        let (tables, metadata) = try readMetadata(path: path)
        let recorded = metadata["schema_version"].flatMap(Schema.Version.init(parsing:))
        guard let stored = try SQLiteSchema.storedLayout(tables: tables, metadata: metadata, location: path) else {
            return status(.noStore)
        }
        let changes = schema.layout.differences(from: stored)
        guard let plan else {
            return status(changes.isEmpty ? .upToDate : .needsMigration, recorded: recorded, changes: changes)
        }
        let planned = try PlannedMigration(plan: plan, stored: stored, target: schema, location: path, partial: partial)
        return status(changes.isEmpty ? .upToDate : .needsMigration, recorded: recorded, at: planned.startVersion,
                      stages: changes.isEmpty ? [] : planned.stages, changes: changes)
    }

    /// The statements migrating the store at `path` to `schema` runs, found by migrating a copy of it
    /// (SQLite's backup of what the store holds now, its WAL included) in a temporary directory, which is
    /// removed afterwards. The store itself is only read: its bytes do not change.
    static func dryRun(path: String, schema: Schema, plan: (any SchemaMigrationPlan.Type)?, partial: Bool) throws -> [String] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stowage-dry-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let copy = directory.appendingPathComponent("store").path
        do {
            var reading = Configuration()
            reading.readonly = true
            let source = try DatabaseQueue(path: try untouchedReadingPath(path), configuration: reading)
            let destination = try DatabaseQueue(path: copy)
            try source.backup(to: destination)
            try source.close()
            try destination.close()
        } catch let error as DatabaseError {
            throw SQLiteStore.openError(error, path: path)
        }
        let statements = Locked<[String]>([])
        try migrateIfNeeded(path: copy, to: schema, plan: plan, partial: partial) { statement in statements.withLock { $0.append(statement) } }
        return statements.withLock { $0 }
    }

    /// A URI that reads the store at `path` as it is now without changing a byte of it or of its `-wal`
    /// and `-shm`: immutable without a `-wal`, else read-only with the `-shm` opened read-only (SQLite
    /// then reads the WAL itself when it cannot use the `-shm` as it is).
    static func untouchedReadingPath(_ path: String) throws -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        var components = URLComponents()
        components.scheme = "file"
        components.path = absolute
        let fileManager = FileManager.default
        if !fileManager.fileExists(atPath: absolute + "-wal") {
            components.queryItems = [URLQueryItem(name: "immutable", value: "1")]
        } else if fileManager.fileExists(atPath: absolute + "-shm") {
            components.queryItems = [URLQueryItem(name: "mode", value: "ro"), URLQueryItem(name: "readonly_shm", value: "1")]
        } else {
            throw StowageError(
                .storeOpenFailed,
                "The store at \(path) has a -wal file but no -shm beside it, which SQLite would have to create to read it: open it once with a container that can save to recover it.")
        }
        return components.string ?? path
    }

    /// The names of a store's tables and its metadata, read through a read-only connection of its own
    /// that creates no file (see ``SQLiteStore/readingPath(_:acceptsURI:)``).
    private static func readMetadata(path: String, busyTimeout: TimeInterval = 5) throws -> (tables: [String], metadata: [String: String]) {
        var connection: OpaquePointer?
        defer { sqlite3_close_v2(connection) }
        func failure(_ code: Int32) -> StowageError {
            let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "code \(code)"
            guard code & 0xff == SQLITE_NOTADB || code & 0xff == SQLITE_CORRUPT else {
                return StowageError.sqlite(code, .storeOpenFailed, "Cannot read the store at \(path)", message: message)
            }
            return StowageError(.notADatabase, "The file \(path) is not a valid SQLite database (\(message)). Stowage did not modify it.", sqliteCode: code)
        }
        let opened = sqlite3_open_v2(SQLiteStore.readingPath(path, acceptsURI: true), &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nil)
        guard opened == SQLITE_OK, let connection else { throw failure(opened) }
        sqlite3_extended_result_codes(connection, 1)
        // Waits, as every connection of the store does, for another process recovering or checkpointing.
        SQLiteBusyWait.install(on: connection, timeout: busyTimeout)
        func rows(_ sql: String) throws -> [[String]] {
            var statement: OpaquePointer?
            defer { sqlite3_finalize(statement) }
            let prepared = sqlite3_prepare_v2(connection, sql, -1, &statement, nil)
            guard prepared == SQLITE_OK, let statement else { throw failure(prepared) }
            var result: [[String]] = []
            while true {
                let code = sqlite3_step(statement)
                if code == SQLITE_DONE { return result }
                guard code == SQLITE_ROW else { throw failure(code) }
                result.append((0..<sqlite3_column_count(statement)).map { SQLiteStatement.text(of: sqlite3_column_value(statement, $0)) })
            }
        }
        let tables = try rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").map { $0[0] }
        guard tables.contains(SQLiteSQL.metadataTable) else { return (tables, [:]) }
        let metadata = try rows("SELECT \"key\", \"value\" FROM \(SQLiteSQL.quote(SQLiteSQL.metadataTable))")
        return (tables, Dictionary(metadata.map { ($0[0], $0[1]) }, uniquingKeysWith: { first, _ in first }))
    }

    private static func checkForeignKeys(_ db: Database, location: String) throws {
        let violations = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
        guard let first = violations.first else { return }
        throw StowageError(
            .schemaMismatch,
            "Migrating the store at \(location) would leave \(violations.count) link(s) to missing rows (the first in table \(first[0] as String? ?? "?")). The store was not modified.")
    }

    /// Records the schema's version, layout and description in the store's metadata.
    static func record(_ schema: Schema, in db: Database) throws {
        let meta = SQLiteSQL.quote(SQLiteSQL.metadataTable)
        for (key, value) in schema.metadataRows {
            try db.execute(sql: "INSERT OR REPLACE INTO \(meta) (\"key\", \"value\") VALUES (?, ?)", arguments: [key, value])
        }
    }
}

/// The stages of a ``SchemaMigrationPlan`` that take a store from the version it is at to a schema.
struct PlannedMigration {
    let stages: [MigrationStage]
    /// The plan's version the store is at, and its name (see ``versionName(of:)``).
    let startVersion: any VersionedSchema.Type
    let startVersionName: String
    let startLayout: SchemaLayout
    let target: Schema
    let location: String
    /// The schema of every version of the plan, in the plan's order (for a partial store, of the
    /// models it holds), and each version's name.
    let versionSchemas: [Schema]
    let versionNames: [String]

    init(plan: any SchemaMigrationPlan.Type, stored: SchemaLayout, target: Schema, location: String, partial: Bool = false) throws {
        self.target = target
        self.location = location
        self.startLayout = stored
        let versions = plan.schemas
        func planError(_ problem: String) -> StowageError {
            StowageError(.invalidSchema, "The migration plan \(plan) \(problem). The store at \(location) was not modified.")
        }
        // The plan's shape was checked when the container was created (`validate`): every version has a name.
        let names = versions.map { versionName(of: $0) ?? "?" }
        versionNames = names
        // The models this store holds now, and those it held before (removed or renamed since).
        let held = Set(target.entities.map(\.name)).union(stored.entities.map(\.name))
        versionSchemas = versions.map { version in
            let schema = Schema(versionedSchema: version)
            guard partial else { return schema }
            return Schema(schema.entities.filter { held.contains($0.name) }.map(\.modelType), version: schema.version)
        }
        let layouts = versionSchemas.map(\.layout)
        guard let start = layouts.firstIndex(of: stored) else {
            let newest = layouts.last.map { $0.differences(from: stored).joined(separator: "; ") } ?? "the plan has no versions"
            throw StowageError(
                .unknownDataStoreSchema,
                "The store at \(location) matches none of the versions of \(plan) (\(names.joined(separator: ", "))); against the newest: \(newest). The store was not modified.")
        }
        guard let end = layouts.lastIndex(of: target.layout) ?? names.firstIndex(of: target.version.description) else {
            throw StowageError(
                .unknownSchema,
                "The migration plan \(plan) does not list the container's schema (version \(target.version)) among its versions. The store at \(location) was not modified.")
        }
        guard start <= end else {
            throw StowageError(
                .backwardMigration,
                "The store at \(location) is at version \(names[start]) of \(plan), newer than the container's \(names[end]) (a backward migration); open it with the newer models. The store was not modified.")
        }
        startVersion = versions[start]
        startVersionName = names[start]
        var stages: [MigrationStage] = []
        var current = start
        while current < end {
            let from = names[current]
            let candidates = plan.stages.filter { versionName(of: $0.fromVersion) == from }
            guard candidates.count <= 1 else { throw planError("has \(candidates.count) stages from version \(from)") }
            guard let stage = candidates.first, let to = versionName(of: stage.toVersion), let next = names.firstIndex(of: to) else {
                throw planError("has no stage from version \(from) to a later version of the plan")
            }
            guard next > current else { throw planError("goes back from version \(from) to \(to)") }
            stages.append(stage)
            current = next
        }
        self.stages = stages
    }

    /// Checks a plan's shape: every version named (by a ``Schema/Version`` or a text) and listed once,
    /// every stage between versions of the plan and forward, one stage from each version but the last.
    static func validate(_ plan: any SchemaMigrationPlan.Type) throws {
        func planError(_ problem: String) -> StowageError {
            StowageError(.invalidSchema, "The migration plan \(plan) \(problem).")
        }
        var names: [String] = []
        for version in plan.schemas {
            guard let name = versionName(of: version) else {
                throw planError("lists \(version), which declares no versionIdentifier (a Schema.Version other than 0.0.0, or a text)")
            }
            names.append(name)
        }
        if let duplicate = names.first(where: { name in names.filter { $0 == name }.count > 1 }) {
            throw planError("lists version \(duplicate) more than once")
        }
        var starts: Set<String> = []
        for stage in plan.stages {
            guard let from = versionName(of: stage.fromVersion), let to = versionName(of: stage.toVersion),
                  let fromIndex = names.firstIndex(of: from), let toIndex = names.firstIndex(of: to)
            else {
                throw planError("has a stage (\(stage)) between versions it does not list in `schemas`")
            }
            guard fromIndex < toIndex else { throw planError("has a stage that goes back (\(stage))") }
            guard starts.insert(from).inserted else { throw planError("has more than one stage from version \(from)") }
        }
        for name in names.dropLast() where !starts.contains(name) {
            throw planError("has no stage from version \(name) (a gap)")
        }
    }

    func run(_ db: Database, queue: DatabaseQueue, storeIdentifier: String) throws {
        try run(
            context: { schema in
                let store = SQLiteStore(schema: schema, migrating: db, queue: queue, identifier: storeIdentifier)
                return ModelContext(ModelContainer(schema: schema, store: store))
            },
            lightweight: { layout, schema in try LightweightMigration(from: layout, to: schema, location: location).run(db) })
    }

    /// Runs the stages on any store: `context` gives a context over the store being migrated (inside
    /// the migration's transaction) for a version's schema, `lightweight` takes the store from a layout
    /// to a schema.
    func run(context makeContext: (Schema) throws -> ModelContext, lightweight: (SchemaLayout, Schema) throws -> Void) throws {
        var layout = startLayout
        func context(_ own: Schema) throws -> ModelContext {
            // Models of the plan's other versions whose stored shape is this version's are accepted too:
            // the seed's `willMigrate` fetches the new version's class (through a typealias).
            try makeContext(Schema(own, accepting: versionSchemas))
        }
        func schema(_ version: any VersionedSchema.Type) -> Schema {
            versionSchemas[versionNames.firstIndex(of: versionName(of: version) ?? "") ?? 0]
        }
        for stage in stages {
            let from = schema(stage.fromVersion)
            let to = schema(stage.toVersion)
            if case .custom(_, _, let willMigrate?, _) = stage { try willMigrate(context(from)) }
            try lightweight(layout, to)
            layout = to.layout
            if case .custom(_, _, _, let didMigrate?) = stage { try didMigrate(context(to)) }
        }
        if layout != target.layout {
            try lightweight(layout, target)
        }
    }
}

/// The changes that take one layout to a schema without code of the app's: tables created, rebuilt and
/// dropped, columns added, removed, renamed (`originalName`) and made optional or not, uniqueness and
/// indexes added and removed, attributes moved in and out of external storage, join tables created and
/// dropped. Anything else (a column whose type changes) is refused, naming the property.
struct LightweightMigration {
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
            "Cannot migrate the store at \(location) automatically: \(reason). The store was not modified.",
            entityName: entity, propertyName: property)
    }

    func run(_ db: Database) throws {
        let old = Dictionary(stored.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let newNames = Set(schema.entities.map(\.name))
        // A store that shares no model with the schema is another program's (or another model set's):
        // migrating it would drop all of its tables.
        if !stored.entities.isEmpty && old.keys.allSatisfy({ !newNames.contains($0) }) {
            throw StowageError(
                .schemaMismatch,
                "The store at \(location) holds other models (\(old.keys.sorted().joined(separator: ", "))) than the schema (\(newNames.sorted().joined(separator: ", "))); Stowage does not migrate a store that has no model in common with the schema, as that would delete all of its data. Open it with its own models, or use another URL. The store was not modified.")
        }
        // Subclasses the schema no longer lists: their rows would silently become rows of their
        // superclass, losing their own values. Refused while such rows exist.
        for entity in schema.entities where entity.superentity == nil {
            guard let previous = old[entity.name], let stored = previous.subentities else { continue }
            let missing = stored.filter { name in !entity.descendants.contains { $0.name == name } }
            guard !missing.isEmpty else { continue }
            let names = SQLiteSQL.literalList(missing)
            let rows = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(SQLiteSQL.quote(entity.name)) WHERE \(SQLiteSQL.quote(Schema.Entity.entityColumn)) IN (\(names))") ?? 0
            if rows > 0 {
                throw refusal(entity.name, nil, "the table \(entity.name) holds \(rows) row(s) of \(missing.joined(separator: ", ")), which the schema does not list; add those model classes to the schema (a subclass is not found from its superclass), or delete their rows first with a custom MigrationStage")
            }
        }
        let joinTables = try plannedJoinTables(old: old)
        for entity in stored.entities where !newNames.contains(entity.name) {
            for column in entity.externalColumns {
                try db.execute(sql: "DROP TABLE IF EXISTS \(SQLiteSQL.quote("\(entity.name)_\(column.name)"))")
            }
            try db.execute(sql: "DROP TABLE \(SQLiteSQL.quote(entity.name))")
        }
        // A model that became a subclass: its rows are in a table of its own, which the hierarchy's
        // table does not take in by itself.
        for entity in schema.entities where entity.superentity != nil && old[entity.name] != nil {
            throw refusal(entity.name, nil, "\(entity.name) has a table of its own in the store and is now a subclass of \(entity.rootEntity.name), whose table holds every class of the hierarchy; moving its rows there needs a custom MigrationStage that copies them into new models and deletes the old ones in a version where \(entity.name) is not yet a subclass")
        }
        // A subclass's rows are in its root's table, migrated with the root's.
        for entity in schema.entities where entity.superentity == nil {
            guard let previous = old[entity.name] else {
                for statement in SQLiteSchema.createStatements(for: entity) { try db.execute(sql: statement) }
                for subentity in entity.descendants {
                    for statement in SQLiteSchema.createStatements(for: subentity) { try db.execute(sql: statement) }
                }
                continue
            }
            if SchemaLayout.Entity(entity) != previous, try !alterInPlace(entity, from: previous, db) {
                try rebuild(entity, from: previous, db)
            }
            try completeSubclasses(of: entity, db)
        }
        try migrateJoinTables(joinTables, db)
    }

    /// A join table of the schema and where its links come from in the store.
    private struct PlannedJoinTable {
        let table: String
        let statements: [String]
        /// The relationship whose storage names the table (the owner of the link).
        let relationship: Schema.Relationship
        /// The old join table holding the links, its columns listed as the new table's (own, other,
        /// own position, other position); `nil` for a new relationship.
        let source: (table: String, columns: [String])?
        /// Whether the old table is the new one unchanged.
        var isUnchanged: Bool {
            guard let source, case .joinTable(let table, let own, let other, let ownPosition, let otherPosition) = relationship.storage else { return false }
            return source.table == table && source.columns == [own, other, ownPosition, otherPosition]
        }
    }

    /// Finds, for each join table of the schema, the old join table its relationship's links were in:
    /// under the relationship's name or `originalName`, seen from either side (a renamed relationship
    /// or a renamed inverse changes the table's or its columns' names; an added inverse turns a
    /// to-many's table into a many-to-many's).
    private func plannedJoinTables(old: [String: SchemaLayout.Entity]) throws -> [PlannedJoinTable] {
        let statements = SQLiteSchema.joinTableStatements(schema)
        var planned: [PlannedJoinTable] = []
        for entity in schema.entities {
            for relationship in entity.relationshipList {
                guard case .joinTable(let table, _, _, _, _) = relationship.storage, let sql = statements[table],
                      table.hasPrefix(entity.name + "_"), !planned.contains(where: { $0.table == table })
                else { continue }
                var source: (String, [String])?
                if let link = try previousLink(of: relationship, in: old), case .joinTable(let t, let own, let other, let ownPosition, let otherPosition) = link.stored {
                    source = (t, [own, other, ownPosition, otherPosition])
                } else if let inverse = relationship.inverse, let link = try previousLink(of: inverse, in: old),
                          case .joinTable(let t, let own, let other, let ownPosition, let otherPosition) = link.stored {
                    // Seen from the inverse: its own column is this side's other one.
                    source = (t, [other, own, otherPosition, ownPosition])
                }
                planned.append(PlannedJoinTable(table: table, statements: sql, relationship: relationship, source: source))
            }
        }
        return planned
    }

    /// The stored link of a relationship that the store already has (under its name or
    /// `originalName`), refused when it led to another entity.
    private func previousLink(of relationship: Schema.Relationship, in old: [String: SchemaLayout.Entity]) throws -> SchemaLayout.Link? {
        guard let entity = relationship.entity, let previous = old[entity.name] ?? old[entity.rootEntity.name] else { return nil }
        let names = [relationship.name, relationship.originalName]
        guard let link = names.lazy.compactMap({ name in previous.relationships.first { $0.name == name } }).first else { return nil }
        guard link.destination == relationship.destination else {
            throw refusal(entity.name, relationship.name, "\(entity.name).\(relationship.name) led to \(link.destination) and now leads to \(relationship.destination); changing a relationship's destination needs a custom MigrationStage")
        }
        return link
    }

    /// Creates the join tables that changed and copies their links from the old ones, then drops the
    /// old join tables no relationship uses any more. Runs after the entity tables are rebuilt (rows
    /// keep their primary keys, so the links stay valid).
    private func migrateJoinTables(_ planned: [PlannedJoinTable], _ db: Database) throws {
        let q = SQLiteSQL.quote
        let oldTables = Set(stored.entities.flatMap { $0.relationships.compactMap(\.joinTableName) })
        let kept = Set(planned.filter(\.isUnchanged).map(\.table))
        // An old table whose name the new layout reuses with other columns is moved aside first.
        var moved: [String: String] = [:]
        for join in planned where !kept.contains(join.table) && oldTables.contains(join.table) {
            let aside = "_stowage_old_\(join.table)"
            try db.execute(sql: "ALTER TABLE \(q(join.table)) RENAME TO \(q(aside))")
            for index in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", arguments: [aside]) {
                try db.execute(sql: "DROP INDEX \(q(index))")
            }
            moved[join.table] = aside
        }
        for join in planned.sorted(by: { $0.table < $1.table }) where !kept.contains(join.table) {
            for statement in join.statements { try db.execute(sql: statement) }
            guard let source = join.source, case .joinTable(_, let own, let other, let ownPosition, let otherPosition) = join.relationship.storage else { continue }
            let from = moved[source.table] ?? source.table
            guard try db.tableExists(from) else { continue }
            try db.execute(sql: """
                INSERT INTO \(q(join.table)) (\([own, other, ownPosition, otherPosition].map(q).joined(separator: ", "))) \
                SELECT \(source.columns.map(q).joined(separator: ", ")) FROM \(q(from))
                """)
        }
        for table in oldTables.subtracting(kept) {
            try db.execute(sql: "DROP TABLE IF EXISTS \(q(moved[table] ?? table))")
        }
    }

    /// Changes one entity's table with `ALTER TABLE` when the change allows it — columns renamed,
    /// added (optional, or with a declared default) or removed, uniqueness and indexes changed — so that
    /// the rows are not copied: SQLite rewrites the schema, not the table. Returns `false`, having
    /// changed nothing, for anything else (optionality, relationships, external storage, a new
    /// required column without a default), which ``rebuild(_:from:_:)`` handles.
    private func alterInPlace(_ entity: Schema.Entity, from previous: SchemaLayout.Entity, _ db: Database) throws -> Bool {
        // DROP COLUMN needs SQLite 3.35 (RENAME COLUMN 3.25): older libraries rebuild the table.
        guard sqlite3_libversion_number() >= 3_035_000,
              previous.relationships == SchemaLayout.Entity(entity).relationships,
              previous.externalColumns.isEmpty, entity.externalAttributes.isEmpty
        else { return false }
        let q = SQLiteSQL.quote
        var unused = Dictionary(previous.columns.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var renames: [(from: String, to: String)] = []
        var additions: [String] = []
        if entity.isInHierarchy, unused.removeValue(forKey: Schema.Entity.entityColumn) == nil {
            additions.append(SQLiteSchema.entityColumnDefinition(entity))
        }
        for attribute in entity.fetchAttributes {
            // Compared as the layout records it; a subclass's column still accepts NULL in the table.
            let column = SchemaLayout.Column(attribute)
            let isOptionalInTable = entity.tableColumnIsOptional(attribute)
            if let name = [attribute.name, attribute.originalName].first(where: { unused[$0] != nil }), let old = unused[name] {
                // A type change is refused by the rebuild, with its message.
                guard old.type == column.type, old.isOptional == column.isOptional else { return false }
                unused[name] = nil
                if name != attribute.name { renames.append((name, attribute.name)) }
                continue
            }
            var definition = "\(q(attribute.name)) \(column.type)"
            if !isOptionalInTable {
                guard let value = try defaultValue(of: attribute, in: entity), let literal = Self.literal(value) else { return false }
                definition += " NOT NULL DEFAULT \(literal)"
            }
            additions.append(definition)
        }
        let table = q(entity.name)
        // Indexes go first (a column an index uses cannot be dropped) and come back under the new names.
        let indexes = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", arguments: [entity.name])
        for index in indexes { try db.execute(sql: "DROP INDEX \(q(index))") }
        for (from, to) in renames { try db.execute(sql: "ALTER TABLE \(table) RENAME COLUMN \(q(from)) TO \(q(to))") }
        for name in unused.keys.sorted() { try db.execute(sql: "ALTER TABLE \(table) DROP COLUMN \(q(name))") }
        for definition in additions { try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN \(definition)") }
        for group in entity.uniquenessConstraints { try checkDuplicates(group, of: entity, db) }
        for statement in SQLiteSchema.tableStatements(for: entity).indexes { try db.execute(sql: statement) }
        return true
    }

    /// Gives the rows of each subclass of a hierarchy what their class's own required attributes need:
    /// the declared default where the column is `NULL` (a new attribute, or one no longer optional), or a
    /// refusal when there is none; and creates the side tables of subclasses' external attributes.
    private func completeSubclasses(of root: Schema.Entity, _ db: Database) throws {
        let q = SQLiteSQL.quote
        for subentity in root.descendants {
            let inherited = subentity.superentity?.properties.count ?? 0
            let statements = SQLiteSchema.tableStatements(for: subentity)
            for attribute in subentity.externalAttributes where attribute.index >= inherited {
                let table = SQLiteSchema.externalTableName(subentity, attribute)
                if try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?", arguments: [table]) == 0,
                   let statement = statements.externalTables[attribute.name] {
                    try db.execute(sql: statement)
                }
            }
            let classes = SQLiteSQL.literalList(subentity.entityNamesForFetch)
            for attribute in subentity.columnAttributes where attribute.index >= inherited && !attribute.isOptional {
                let missing = "FROM \(q(root.name)) WHERE \(q(Schema.Entity.entityColumn)) IN (\(classes)) AND \(q(attribute.name)) IS NULL"
                let rows = try Int.fetchOne(db, sql: "SELECT COUNT(*) \(missing)") ?? 0
                guard rows > 0 else { continue }
                guard let value = try defaultValue(of: attribute, in: subentity) else {
                    throw refusal(subentity.name, attribute.name, "\(subentity.name).\(attribute.name) is not optional and has no default value in its declaration, and \(rows) stored \(subentity.name) row(s) have no value for it; declare a default (`var \(attribute.name): … = …`), make it optional, or write a custom MigrationStage")
                }
                try db.execute(sql: "UPDATE \(q(root.name)) SET \(q(attribute.name)) = ? WHERE \(q(Schema.Entity.entityColumn)) IN (\(classes)) AND \(q(attribute.name)) IS NULL", arguments: [value])
            }
        }
    }

    /// A value as an SQL literal, for a column's `DEFAULT`.
    private static func literal(_ value: DatabaseValue) -> String? {
        switch value.storage {
        case .null: "NULL"
        case .int64(let value): String(value)
        case .double(let value): value.isFinite ? "\(value)" : nil
        case .string(let value): SQLiteSQL.literal(value)
        case .blob(let data): "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }

    /// Rebuilds one entity's table with its new columns, copying every row.
    private func rebuild(_ entity: Schema.Entity, from previous: SchemaLayout.Entity, _ db: Database) throws {
        let q = SQLiteSQL.quote
        let table = q(entity.name)
        let oldColumns = Dictionary(previous.columns.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let oldExternal = Dictionary(previous.externalColumns.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let actualColumns = Set(try Row.fetchAll(db, sql: "PRAGMA table_info(\(table))").map { $0["name"] as String })
        let rowCount = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0
        // Where an attribute's values are in the old table (under its name or `originalName`, in a
        // column or a side table), refused when its stored type changed.
        func source(of attribute: Schema.Attribute) throws -> (name: String, column: SchemaLayout.Column, isExternal: Bool)? {
            let names = [attribute.name, attribute.originalName].filter { !$0.isEmpty }
            guard let name = names.first(where: { oldColumns[$0] != nil || oldExternal[$0] != nil }) else { return nil }
            let column = oldColumns[name] ?? oldExternal[name]!
            let type = SchemaLayout.Column(attribute).type
            guard column.type == type else {
                throw refusal(entity.name, attribute.name, "\(entity.name).\(attribute.name) was stored as \(column.type) and is now \(type); changing a property's type needs a custom MigrationStage")
            }
            return (name, column, oldColumns[name] == nil)
        }

        var targets: [String] = [q(SQLiteSQL.primaryKeyColumn)]
        var sources: [String] = [q(SQLiteSQL.primaryKeyColumn)]
        var arguments: [DatabaseValueConvertible?] = []
        if entity.isInHierarchy {
            targets.append(q(Schema.Entity.entityColumn))
            sources.append(oldColumns[Schema.Entity.entityColumn] != nil ? q(Schema.Entity.entityColumn) : "?")
            if oldColumns[Schema.Entity.entityColumn] == nil { arguments.append(entity.name) }
        }
        for attribute in entity.fetchAttributes {
            let isOptional = entity.tableColumnIsOptional(attribute)
            targets.append(q(attribute.name))
            guard let (sourceName, oldColumn, isExternal) = try source(of: attribute) else {
                // A new attribute: nil, the declared default, or (on an empty table) nothing to fill.
                if isOptional {
                    sources.append("NULL")
                } else if let value = try defaultValue(of: attribute, in: entity) {
                    sources.append("?")
                    arguments.append(value)
                } else if rowCount == 0 {
                    sources.append("NULL")
                } else {
                    throw refusal(entity.name, attribute.name, "\(entity.name).\(attribute.name) is new, not optional and has no default value in its declaration, and the table has \(rowCount) row(s) to give it one; declare a default (`var \(attribute.name): … = …`), make it optional, or write a custom MigrationStage")
                }
                continue
            }
            var source = !isExternal
                ? q(sourceName)
                : "(SELECT \(q("value")) FROM \(q("\(entity.name)_\(sourceName)")) AS x WHERE x.\(q(SQLiteSQL.primaryKeyColumn)) = \(table).\(q(SQLiteSQL.primaryKeyColumn)))"
            if oldColumn.isOptional && !isOptional {
                if let value = try defaultValue(of: attribute, in: entity) {
                    source = "COALESCE(\(source), ?)"
                    arguments.append(value)
                } else {
                    let nils = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table) WHERE \(source) IS NULL") ?? 0
                    if nils > 0 {
                        throw refusal(entity.name, attribute.name, "\(entity.name).\(attribute.name) is no longer optional but \(nils) row(s) hold nil and its declaration has no default value; declare one or write a custom MigrationStage")
                    }
                }
            }
            sources.append(source)
        }
        let old = Dictionary(uniqueKeysWithValues: [(entity.name, previous)])
        for relationship in entity.fetchForeignKeys {
            guard case .foreignKey(let column, let positionColumn) = relationship.storage else { continue }
            // The link's old columns: under the relationship's name or `originalName`.
            var oldColumn: String?, oldPosition: String?
            if case .foreignKey(let c, let p)? = try previousLink(of: relationship, in: old)?.stored {
                (oldColumn, oldPosition) = (c, p)
            }
            for (name, source) in [(column, oldColumn), (positionColumn, oldPosition)] {
                guard let name else { continue }
                targets.append(q(name))
                sources.append(source.flatMap { actualColumns.contains($0) ? q($0) : nil } ?? "NULL")
            }
        }
        let sequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [entity.name])
        let temporary = "_stowage_new_\(entity.name)"
        let statements = SQLiteSchema.tableStatements(for: entity)
        try db.execute(sql: SQLiteSchema.createTable(for: entity, named: temporary))
        try db.execute(
            sql: "INSERT INTO \(q(temporary)) (\(targets.joined(separator: ", "))) SELECT \(sources.joined(separator: ", ")) FROM \(table)",
            arguments: StatementArguments(arguments))
        // External storage: values that move out of the row, and side tables that go away.
        for attribute in entity.externalAttributes {
            let side = q("\(entity.name)_\(attribute.name)")
            let old = try source(of: attribute)
            if let (sourceName, _, isExternal) = old, isExternal {
                if sourceName != attribute.name {
                    try db.execute(sql: "ALTER TABLE \(q("\(entity.name)_\(sourceName)")) RENAME TO \(side)")
                }
                continue
            }
            try db.execute(sql: statements.externalTables[attribute.name]!)
            if let (sourceName, _, _) = old {
                try db.execute(sql: "INSERT INTO \(side) (\(q(SQLiteSQL.primaryKeyColumn)), \(q("value"))) SELECT \(q(SQLiteSQL.primaryKeyColumn)), \(q(sourceName)) FROM \(table) WHERE \(q(sourceName)) IS NOT NULL")
            }
        }
        let keptExternal = Set(entity.externalAttributes.flatMap { [$0.name, $0.originalName] })
        for column in previous.externalColumns where !keptExternal.contains(column.name) {
            try db.execute(sql: "DROP TABLE IF EXISTS \(q("\(entity.name)_\(column.name)"))")
        }
        try db.execute(sql: "DROP TABLE \(table)")
        try db.execute(sql: "ALTER TABLE \(q(temporary)) RENAME TO \(table)")
        if let sequence {
            try db.execute(sql: "UPDATE sqlite_sequence SET seq = MAX(seq, ?) WHERE name = ?", arguments: [sequence, entity.name])
            if db.changesCount == 0 {
                try db.execute(sql: "INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", arguments: [entity.name, sequence])
            }
        }
        for group in entity.uniquenessConstraints { try checkDuplicates(group, of: entity, db) }
        for statement in statements.indexes { try db.execute(sql: statement) }
    }

    /// The stored form of an attribute's declared default value, if it has one.
    private func defaultValue(of attribute: Schema.Attribute, in entity: Schema.Entity) throws -> DatabaseValue? {
        guard let value = attribute.defaultValue else { return nil }
        guard let stored = try attribute.accessor.encode(constant: value) else { return nil }
        return stored.databaseValue
    }

    /// Refuses a uniqueness constraint that the rows break, naming the duplicated values.
    private func checkDuplicates(_ group: [String], of entity: Schema.Entity, _ db: Database) throws {
        let keys = SQLiteSchema.keyList(group, of: entity)
        let columns = group.map(SQLiteSQL.quote).joined(separator: ", ")
        let rows = try Row.fetchAll(
            db, sql: "SELECT \(columns), COUNT(*) FROM \(SQLiteSQL.quote(entity.name)) GROUP BY \(keys) HAVING COUNT(*) > 1 LIMIT 5")
        guard !rows.isEmpty else { return }
        let values = rows.map { row in
            "(" + (0..<group.count).map { "\(row[$0] as DatabaseValue)" }.joined(separator: ", ") + ") × \(row[group.count] as Int)"
        }
        throw refusal(
            entity.name, group.count == 1 ? group[0] : nil,
            "\(entity.name) becomes unique on (\(group.joined(separator: ", "))) but rows share values: \(values.joined(separator: "; ")); remove the duplicates first (a custom MigrationStage's willMigrate can)")
    }
}

extension SchemaLayout.Link {
    /// Where the links were, read back from the recorded storage (see ``SchemaLayout/Link/init(_:)``).
    var stored: RelationshipStorage {
        func parts(after prefix: String) -> (head: String, columns: [String])? {
            guard storage.hasPrefix(prefix), let open = storage.firstIndex(of: "("), let close = storage.firstIndex(of: ")") else { return nil }
            let head = String(storage[storage.index(storage.startIndex, offsetBy: prefix.count)..<open])
            return (head, storage[storage.index(after: open)..<close].components(separatedBy: ", "))
        }
        if let (_, columns) = parts(after: "foreignKey"), let column = columns.first {
            return .foreignKey(column: column, positionColumn: columns.count > 1 ? columns[1] : nil)
        }
        if let (table, columns) = parts(after: "joinTable "), columns.count == 4 {
            return .joinTable(table: table, ownColumn: columns[0], otherColumn: columns[1], ownPosition: columns[2], otherPosition: columns[3])
        }
        return .inverseForeignKey
    }

    /// The join table of a many-to-many relationship, from its recorded storage.
    var joinTableName: String? {
        if case .joinTable(let table, _, _, _, _) = stored { return table }
        return nil
    }
}

extension StorageValue {
    /// The value as GRDB binds it.
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let value): value.databaseValue
        case .real(let value): value.databaseValue
        case .text(let value): value.databaseValue
        case .blob(let value): value.databaseValue
        }
    }
}
