import Foundation

/// Where and how a container stores its models.
///
/// ```swift
/// ModelConfiguration(isStoredInMemoryOnly: true)                 // tests, previews
/// ModelConfiguration(url: URL(fileURLWithPath: "budgets.store")) // a file you choose
/// ModelConfiguration()                                           // the default location
/// ```
///
/// The default location is `<data directory>/<executable name>/<name>.store` with `name` defaulting to
/// `default`. The data directory is `$XDG_DATA_HOME` (or `~/.local/share`) on Linux and
/// `~/Library/Application Support` on Apple platforms, as for SwiftData.
public struct ModelConfiguration: Hashable, Identifiable, Sendable, CustomDebugStringConvertible {
    /// The name of the configuration; the default store file is named after it.
    public let name: String
    /// The store file's URL (`/dev/null` for an in-memory store).
    public let url: URL
    /// Whether the store lives in memory only and disappears with the container.
    public let isStoredInMemoryOnly: Bool
    /// Whether contexts may save to the store. `save()` throws `.readOnlyStore` when `false`.
    ///
    /// A store that allows saving but whose file this process cannot write (permissions, a read-only
    /// directory or file system) opens read-only: fetching works, and `save()` throws `.readOnlyStore`
    /// saying why. Such a store is not migrated: one that needs a migration fails to open.
    public let allowsSave: Bool
    /// The models this configuration's store holds, or `nil` for the container's models that no other
    /// configuration names (all of them when the container has one configuration).
    public var schema: Schema?
    /// Where a store created without a URL lives (see ``GroupContainer``).
    public let groupContainer: GroupContainer
    /// The CloudKit database SwiftData would sync with: Stowage does not sync (see ``CloudKitDatabase``).
    public let cloudKitDatabase: CloudKitDatabase
    /// How long a save, a migration or opening the store waits while another connection or process
    /// writes to the same file, before failing with ``StowageError/Code/storeBusy`` (nothing written).
    /// Five seconds unless set. Not in SwiftData, whose stores wait on their own.
    ///
    /// On Linux, the saves of several processes (or containers) to one file take turns, through advisory
    /// locks on a `-lock` file kept beside the store while it is in use: a process that has just saved
    /// cannot take the write lock back ahead of one that waits, so a save waits for the few saves
    /// queued with it rather than for luck.
    public var busyTimeout: TimeInterval = 5
    /// Whether each save writes a transaction to the store's history, in the save's own SQL transaction
    /// (see ``ModelContext/fetchHistory(_:)``). `true` unless set, as in SwiftData, which always records
    /// history. Turning it off saves its cost (a few percent of a save; see `BENCHMARKS.md`) for stores
    /// whose history nobody reads; another process's saves are then seen as "anything may have changed"
    /// rather than as the models they changed. Not in SwiftData.
    public var recordsHistory = true

    /// The configuration's URL: two configurations of a container cannot share one.
    public var id: URL { url }

    /// The group named by ``groupContainer`` (`.identifier(_:)`), if any.
    public var groupAppContainerIdentifier: String? {
        if case .identifier(let name) = groupContainer.option { return name }
        return nil
    }

    /// The container named by ``cloudKitDatabase`` (`.private(_:)`), if any.
    public var cloudKitContainerIdentifier: String? {
        if case .private(let name) = cloudKitDatabase.option { return name }
        return nil
    }

    /// A configuration at the default location (or in a group's directory), or in memory.
    public init(
        _ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true,
        groupContainer: GroupContainer = .automatic, cloudKitDatabase: CloudKitDatabase = .automatic
    ) {
        let name = name ?? "default"
        self.name = name
        self.schema = schema
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        self.groupContainer = groupContainer
        self.cloudKitDatabase = cloudKitDatabase
        self.url = isStoredInMemoryOnly
            ? URL(fileURLWithPath: "/dev/null")
            : groupContainer.directory.appendingPathComponent("\(name).store")
    }

    /// A configuration storing its models in the file at `url`.
    public init(_ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true, cloudKitDatabase: CloudKitDatabase = .automatic) {
        self.name = name ?? url.deletingPathExtension().lastPathComponent
        self.schema = schema
        self.url = url
        self.isStoredInMemoryOnly = false
        self.allowsSave = allowsSave
        self.groupContainer = .automatic
        self.cloudKitDatabase = cloudKitDatabase
    }

    /// The configuration's name, store location, whether it allows saving, and its models.
    public var debugDescription: String {
        "ModelConfiguration(name: \(name), url: \(isStoredInMemoryOnly ? "in memory" : url.path), allowsSave: \(allowsSave)"
            + (schema.map { ", models: \($0.entities.map(\.name).joined(separator: ", "))" } ?? "") + ")"
    }

    /// A configuration for the given model types (and those reachable from them).
    @_disfavoredOverload
    public init(for forTypes: any PersistentModel.Type..., isStoredInMemoryOnly: Bool = false) {
        self.init(schema: Schema(forTypes), isStoredInMemoryOnly: isStoredInMemoryOnly)
    }

    /// A configuration for the model types in an array, the seed articles' spelling:
    /// `ModelConfiguration(for: [Budget.self])`.
    public init(for forTypes: [any PersistentModel.Type], isStoredInMemoryOnly: Bool = false) {
        self.init(schema: Schema(forTypes), isStoredInMemoryOnly: isStoredInMemoryOnly)
    }

    /// Early SwiftData's spelling of `ModelConfiguration(isStoredInMemoryOnly:)`, used by the seed articles.
    public init(inMemory: Bool) {
        self.init(isStoredInMemoryOnly: inMemory)
    }

    /// The directory holding stores created without a URL (and without a group).
    public static var defaultDirectory: URL {
        dataDirectory.appendingPathComponent(executableName)
    }

    private static var executableName: String {
        let name = ProcessInfo.processInfo.arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? ""
        return name.isEmpty ? "Stowage" : name
    }

    /// `$XDG_DATA_HOME` (or `~/.local/share`) on Linux, Application Support on Apple platforms.
    static var dataDirectory: URL {
        #if canImport(Darwin)
        let base = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent("Library/Application Support")
        #else
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_DATA_HOME"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".local/share")
        #endif
        return base
    }

    /// Whether two configurations describe the same store in the same way: name, location, saving, schema,
    /// group and CloudKit database.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.name == rhs.name && lhs.url == rhs.url && lhs.isStoredInMemoryOnly == rhs.isStoredInMemoryOnly
            && lhs.allowsSave == rhs.allowsSave && lhs.schema === rhs.schema
            && lhs.groupContainer == rhs.groupContainer && lhs.cloudKitDatabase == rhs.cloudKitDatabase
    }

    /// Hashes the configuration's name, location and whether it is in memory.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(url)
        hasher.combine(isStoredInMemoryOnly)
    }
}

extension ModelConfiguration {
    /// Where stores created without a URL live. SwiftData's app groups share a directory between an
    /// app and its extensions; Stowage gives a group a directory shared by every program that names it.
    public struct GroupContainer: Sendable, Hashable {
        enum Option: Hashable {
            case automatic
            case identifier(String)
            case none
        }

        let option: Option

        /// The program's own directory (``ModelConfiguration/defaultDirectory``): Linux has no app groups
        /// to detect, as an app without the entitlement has none.
        public static var automatic: GroupContainer { GroupContainer(option: .automatic) }
        /// The directory `<data directory>/<groupName>`, shared by every program that names the group.
        public static func identifier(_ groupName: String) -> GroupContainer { GroupContainer(option: .identifier(groupName)) }
        /// The program's own directory, never a group's.
        public static var none: GroupContainer { GroupContainer(option: .none) }

        var directory: URL {
            if case .identifier(let name) = option { return ModelConfiguration.dataDirectory.appendingPathComponent(name) }
            return ModelConfiguration.defaultDirectory
        }
    }

    /// The CloudKit database SwiftData syncs a store with. Stowage does not sync: `.none` and
    /// `.automatic` (which syncs only for an app with the CloudKit entitlement, which no program has
    /// here) store locally; `.private(_:)`, an explicit request to sync, makes the container's creation
    /// throw (`SwiftDataError.loadIssueModelContainer`, code ``StowageError/Code/cloudKitUnavailable``)
    /// rather than silently not syncing.
    public struct CloudKitDatabase: Sendable, Hashable {
        enum Option: Hashable {
            case automatic
            case `private`(String)
            case none
        }

        let option: Option

        /// Sync when the app has the CloudKit entitlement: never, with Stowage.
        public static var automatic: CloudKitDatabase { CloudKitDatabase(option: .automatic) }
        /// Sync with the private database of a CloudKit container: refused by Stowage.
        public static func `private`(_ privateDBName: String) -> CloudKitDatabase { CloudKitDatabase(option: .private(privateDBName)) }
        /// No sync.
        public static var none: CloudKitDatabase { CloudKitDatabase(option: .none) }
    }
}
