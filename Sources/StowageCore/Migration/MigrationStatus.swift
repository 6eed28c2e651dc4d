import Foundation

/// What opening a store would do to it: the version it is at, and the migration that would bring it
/// to a schema. Read with ``ModelContainer/migrationStatus(for:migrationPlan:configuration:)``, which
/// does not change the file.
///
/// ```swift
/// let status = try ModelContainer.migrationStatus(
///     for: Schema(versionedSchema: SpendTrackerSchemaV2.self), migrationPlan: SpendTrackerMigrationPlan.self,
///     configuration: ModelConfiguration(url: storeURL))
/// print(status)   // "… at version 1.0.0 of SpendTrackerMigrationPlan; opening it runs 1 stage: custom 1.0.0 → 2.0.0 …"
/// ```
public struct MigrationStatus: Sendable, CustomStringConvertible {
    /// Where the store stands against the schema.
    public enum State: Sendable, Hashable {
        /// There is no store (no file, an empty file or a database without tables): opening creates it.
        case noStore
        /// The store has the schema's tables: opening changes nothing.
        case upToDate
        /// Opening migrates the store (``MigrationStatus/stages``, then the lightweight changes left).
        case needsMigration
    }

    /// The store's file.
    public let url: URL
    /// Where the store stands.
    public let state: State
    /// The version the store recorded when its tables were last created or migrated (a store made
    /// without a plan records its schema's version, `0.0.0` unless given one).
    public let recordedVersion: Schema.Version?
    /// The migration plan's version whose tables the store has; `nil` without a plan or a store.
    public let storeVersion: Schema.Version?
    /// That version's name: its ``Schema/Version`` or, for a version named by a text (SwiftData's beta
    /// spelling, ``VersionedSchemaTextIdentifier``), its text.
    public let storeVersionName: String?
    /// The schema's version, which opening brings the store to.
    public let targetVersion: Schema.Version
    /// The plan's stages that opening would run, in order (empty without a plan or when up to date).
    public let stages: [MigrationStage]
    /// What differs between the store's tables and the schema's, one sentence each.
    public let changes: [String]

    /// A sentence saying where the store stands and what opening it would do.
    public var description: String {
        switch state {
        case .noStore:
            return "No store at \(url.path): opening creates it at version \(targetVersion)."
        case .upToDate:
            return "The store at \(url.path) is up to date (version \(recordedVersion ?? targetVersion))."
        case .needsMigration:
            var text = "The store at \(url.path)"
            if let storeVersionName { text += " is at version \(storeVersionName) of its plan" }
            else if let recordedVersion { text += " recorded version \(recordedVersion)" }
            text += "; opening it migrates it to version \(targetVersion)"
            if !stages.isEmpty {
                text += " through \(stages.count) stage\(stages.count == 1 ? "" : "s") (\(stages.map(\.description).joined(separator: ", ")))"
            }
            return text + ". Changes: " + changes.joined(separator: "; ") + "."
        }
    }
}

extension ModelContainer {
    /// Reports what creating a container for `schema` over `configuration`'s store would do: the
    /// version the store is at and the stages and changes a migration would make. The store holds
    /// the models of the configuration's `schema` when it has one (one configuration of several),
    /// else `schema`'s. The store is only
    /// read (through a read-only connection); nothing is migrated or created.
    ///
    /// - Throws: what creating the container would throw before migrating: ``SwiftDataError``
    ///   `.backwardMigration` for a store newer than the schema, `.unknownDataStoreSchema` for one
    ///   matching none of the plan's versions, `.loadIssueModelContainer` for a file that is not a
    ///   Stowage store, and the plan's own errors. A change the lightweight migration would refuse
    ///   (see "Changing your models") is listed in ``MigrationStatus/changes``, not thrown: whether it
    ///   is refused can depend on the rows (duplicates, `nil`s).
    public static func migrationStatus(
        for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configuration: ModelConfiguration
    ) throws -> MigrationStatus {
        if let problem = schema.problems.first { throw problem }
        guard !configuration.isStoredInMemoryOnly else {
            return MigrationStatus(url: configuration.url, state: .noStore, recordedVersion: nil, storeVersion: nil,
                                   storeVersionName: nil, targetVersion: schema.version, stages: [], changes: [])
        }
        // The configuration's store holds its schema's models when it names some, else the schema's.
        let held = configuration.schema.map { own in
            Schema(own.entities.compactMap { schema.entitiesByName[$0.name]?.modelType }, version: schema.version)
        } ?? schema
        return try SQLiteMigrator.status(
            path: configuration.url.path, url: configuration.url, schema: held, plan: migrationPlan,
            partial: held.entities.count < schema.entities.count)
    }
}

extension ModelContainer {
    /// The SQL statements that creating a container for `schema` over `configuration`'s store would run
    /// to migrate it, in order, with their values: the plan's stages (what their `willMigrate` and
    /// `didMigrate` save included) and the lightweight changes, between `BEGIN IMMEDIATE` and `COMMIT`.
    /// Empty when the store is up to date or does not exist.
    ///
    /// The migration runs on a copy of the store in a temporary directory, removed afterwards: the store,
    /// its `-wal` and `-shm` are only read, and not a byte of them changes. A stage's code runs (on the
    /// copy's models), so it must not reach outside its context.
    ///
    /// - Throws: what creating the container would throw: ``SwiftDataError`` `.backwardMigration`,
    ///   `.unknownDataStoreSchema`, a refused lightweight change, or the plan's own errors.
    public static func migrationStatements(
        for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configuration: ModelConfiguration
    ) throws -> [String] {
        let status = try migrationStatus(for: schema, migrationPlan: migrationPlan, configuration: configuration)
        guard status.state == .needsMigration else { return [] }
        let held = configuration.schema.map { own in
            Schema(own.entities.compactMap { schema.entitiesByName[$0.name]?.modelType }, version: schema.version)
        } ?? schema
        return try SQLiteMigrator.dryRun(
            path: configuration.url.path, schema: held, plan: migrationPlan, partial: held.entities.count < schema.entities.count)
    }
}

extension Schema.Version {
    /// Reads a version written as `major.minor.patch`.
    init?(parsing text: String) {
        let parts = text.split(separator: ".").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        self.init(parts[0], parts[1], parts[2])
    }
}
