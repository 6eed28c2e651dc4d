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
public struct ModelConfiguration: Hashable, Identifiable, Sendable {
    /// The name of the configuration; the default store file is named after it.
    public let name: String
    /// The store file's URL (`/dev/null` for an in-memory store).
    public let url: URL
    /// Whether the store lives in memory only and disappears with the container.
    public let isStoredInMemoryOnly: Bool
    /// Whether contexts may save to the store. `save()` throws `.readOnlyStore` when `false`.
    public let allowsSave: Bool
    /// The schema this configuration stores, or `nil` for the container's whole schema.
    public let schema: Schema?

    public var id: String { name }

    /// A configuration at the default location, or in memory.
    public init(_ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true) {
        let name = name ?? "default"
        self.name = name
        self.schema = schema
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        self.url = isStoredInMemoryOnly ? URL(fileURLWithPath: "/dev/null") : Self.defaultDirectory.appendingPathComponent("\(name).store")
    }

    /// A configuration storing its models in the file at `url`.
    public init(_ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true) {
        self.name = name ?? url.deletingPathExtension().lastPathComponent
        self.schema = schema
        self.url = url
        self.isStoredInMemoryOnly = false
        self.allowsSave = allowsSave
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

    /// The directory holding stores created without a URL.
    public static var defaultDirectory: URL {
        let executable = (ProcessInfo.processInfo.arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "Stowage")
        #if canImport(Darwin)
        let base = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent("Library/Application Support")
        #else
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_DATA_HOME"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".local/share")
        #endif
        return base.appendingPathComponent(executable.isEmpty ? "Stowage" : executable)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.name == rhs.name && lhs.url == rhs.url && lhs.isStoredInMemoryOnly == rhs.isStoredInMemoryOnly
            && lhs.allowsSave == rhs.allowsSave && lhs.schema === rhs.schema
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(url)
        hasher.combine(isStoredInMemoryOnly)
    }
}
