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
///
/// The identifier of SwiftData's first beta, a text (`static let versionIdentifier: String? = "Initial
/// version"`, as in the seed articles), is accepted too (see ``VersionedSchemaTextIdentifier``).
public protocol VersionedSchema: VersionedSchemaTextIdentifier {
    /// The version of these models.
    static var versionIdentifier: Schema.Version { get }
    /// The models of this version (types reachable through their relationships are included).
    static var models: [any PersistentModel.Type] { get }
}

/// The identifier of SwiftData's first beta: a version named by a text, `static let versionIdentifier:
/// String? = "Adding unique constraint to the name property"`.
///
/// A ``VersionedSchema`` declares `versionIdentifier` as a ``Schema/Version`` (SwiftData's spelling) or
/// as a `String?` (the beta's); each has a default, so it needs only one. Where both could be meant,
/// Swift picks the `Schema.Version` (`V.versionIdentifier` in generic code); a text-named version's
/// `Schema.Version` is `0.0.0`. A plan identifies each version by the one it declares, and refuses a
/// version that declares neither, when the container is created.
public protocol VersionedSchemaTextIdentifier {
    /// The version's name, as a text.
    static var versionIdentifier: String? { get }
}

extension VersionedSchemaTextIdentifier {
    /// No text: the version is identified by its ``Schema/Version``.
    public static var versionIdentifier: String? { nil }
}

extension VersionedSchema {
    /// `0.0.0`, for a version identified by a text (``VersionedSchemaTextIdentifier``).
    public static var versionIdentifier: Schema.Version { Schema.Version(0, 0, 0) }
}

/// How a plan names a version: its ``Schema/Version`` or, for a version declared with SwiftData's beta
/// spelling, its text; `nil` when it declares neither.
func versionName(of version: any VersionedSchema.Type) -> String? {
    versionIdentity(of: version).name
}

/// A version's name for messages: its number, or its text in quotes.
func versionLabel(of version: any VersionedSchema.Type) -> String {
    let identity = versionIdentity(of: version)
    guard let name = identity.name else { return "?" }
    return identity.isText ? "\"\(name)\"" : name
}

/// The identifier a version declares: a ``Schema/Version`` other than `0.0.0` (the default), else its text.
private func versionIdentity(of version: any VersionedSchema.Type) -> (name: String?, isText: Bool) {
    let number: Schema.Version = version.versionIdentifier
    if number != Schema.Version(0, 0, 0) { return (number.description, false) }
    let text: String? = version.versionIdentifier
    return (text, true)
}

extension Schema {
    /// The schema of one version of an app's models.
    public convenience init(versionedSchema: any VersionedSchema.Type) {
        self.init(versionedSchema.models, version: versionedSchema.versionIdentifier)
    }
}

/// How an app's models evolved: every version, oldest first, and the stages that lead from each to
/// the next. Give it to a ``ModelContainer``, `ModelContainer(for: schema, migrationPlan: Plan.self,
/// configurations: configuration)`: a store at an older version is brought to the newest in one
/// transaction.
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

    /// A change Stowage makes by itself (see the "Changing Your Models" article): added, removed and
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

    /// The stage's kind and the versions it goes between (`custom 1.0.0 → 2.0.0`).
    public var description: String {
        switch self {
        case .lightweight(let from, let to): "lightweight \(versionLabel(of: from)) → \(versionLabel(of: to))"
        case .custom(let from, let to, _, _): "custom \(versionLabel(of: from)) → \(versionLabel(of: to))"
        }
    }
}
