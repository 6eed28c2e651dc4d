import Foundation

/// One version of an app's models, for a ``SchemaMigrationPlan``.
///
/// ```swift
/// enum SpendTrackerSchemaV1: VersionedSchema {
///     static let versionIdentifier = Schema.Version(1, 0, 0)
///     static var models: [any PersistentModel.Type] { [Budget.self] }
///
///     @Model final class Budget { … }
/// }
/// ```
///
/// Models nested in different versions share their entity (and table) when they share their name.
public protocol VersionedSchema {
    /// The version of these models.
    static var versionIdentifier: Schema.Version { get }
    /// The models of this version (types reachable through their relationships are included).
    static var models: [any PersistentModel.Type] { get }
}

extension Schema {
    /// The schema of one version of an app's models.
    public convenience init(versionedSchema: any VersionedSchema.Type) {
        self.init(versionedSchema.models, version: versionedSchema.versionIdentifier)
    }
}

/// How an app's models evolved: every version, oldest first, and the stages that lead from each to
/// the next. Give it to ``ModelContainer/init(for:migrationPlan:configurations:)-(Schema,_,_)``: a store
/// at an older version is brought to the newest in one transaction.
public protocol SchemaMigrationPlan {
    /// The versions, oldest first.
    static var schemas: [any VersionedSchema.Type] { get }
    /// The stages between consecutive versions, in order.
    static var stages: [MigrationStage] { get }
}

/// One step of a ``SchemaMigrationPlan``: from one version to the next.
public enum MigrationStage: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: the closures are only called during a migration, on the thread that opens
    // the container (as in SwiftData, which declares them without `@Sendable` too).

    /// A change Stowage makes by itself (see "Changing your models" in the README): added, removed and
    /// renamed properties and models, optionality, uniqueness, indexes.
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// A change with code of yours: `willMigrate` runs on a context over the *old* version's models
    /// before the store's tables change, `didMigrate` on a context over the *new* version's models after.
    /// A context's `save()` writes into the migration's transaction; a closure that throws undoes the
    /// whole migration.
    case custom(
        fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
        willMigrate: ((ModelContext) throws -> Void)?, didMigrate: ((ModelContext) throws -> Void)?)

    /// The version the stage starts from.
    public var fromVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(let from, _), .custom(let from, _, _, _): from
        }
    }

    /// The version the stage leads to.
    public var toVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(_, let to), .custom(_, let to, _, _): to
        }
    }

    public var description: String {
        switch self {
        case .lightweight(let from, let to): "lightweight \(from.versionIdentifier) → \(to.versionIdentifier)"
        case .custom(let from, let to, _, _): "custom \(from.versionIdentifier) → \(to.versionIdentifier)"
        }
    }
}
