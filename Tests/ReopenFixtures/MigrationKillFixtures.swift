import Foundation
import Stowage

// Three versions of a store of entries in drawers and the plan between them, for the test that kills a
// process in the middle of a migration (`MigrationKillTests`) and `stowage-reopen-probe migrate`, which
// runs that migration in a process of its own.
//
// V1 → V2 is lightweight: `title` renamed `heading` (its index follows it), `rating` (with a default)
// and `summary` (optional) added. V2 → V3 is custom: `slug` added, and `didMigrate` rewrites every entry
// through `enumerate`, saving every `saveEvery` entries, so the migration takes a while.

public enum MigrationKillV1: VersionedSchema {
    public static let versionIdentifier = Schema.Version(1, 0, 0)
    public static var models: [any PersistentModel.Type] { [Entry.self, Drawer.self] }

    @Model public final class Entry {
        #Index<Entry>([\.title])
        @Attribute(.unique) public var serial: Int
        public var title: String
        public var body: String?
        public var pages: Int
        public var weight: Double?
        public var drawer: Drawer?

        public init(serial: Int, title: String, body: String?, pages: Int, weight: Double?) {
            self.serial = serial
            self.title = title
            self.body = body
            self.pages = pages
            self.weight = weight
        }
    }

    @Model public final class Drawer {
        @Attribute(.unique) public var name: String
        @Relationship(inverse: \Entry.drawer) public var entries: [Entry] = []
        public init(name: String) { self.name = name }
    }
}

public enum MigrationKillV2: VersionedSchema {
    public static let versionIdentifier = Schema.Version(2, 0, 0)
    public static var models: [any PersistentModel.Type] { [Entry.self, Drawer.self] }

    @Model public final class Entry {
        #Index<Entry>([\.heading])
        @Attribute(.unique) public var serial: Int
        @Attribute(originalName: "title") public var heading: String
        public var body: String?
        public var pages: Int
        public var weight: Double?
        public var rating: Int = 0
        public var summary: String?
        public var drawer: Drawer?

        public init(serial: Int, heading: String, pages: Int) {
            self.serial = serial
            self.heading = heading
            self.pages = pages
        }
    }

    @Model public final class Drawer {
        @Attribute(.unique) public var name: String
        @Relationship(inverse: \Entry.drawer) public var entries: [Entry] = []
        public init(name: String) { self.name = name }
    }
}

public enum MigrationKillV3: VersionedSchema {
    public static let versionIdentifier = Schema.Version(3, 0, 0)
    public static var models: [any PersistentModel.Type] { [Entry.self, Drawer.self] }

    @Model public final class Entry {
        #Index<Entry>([\.heading])
        @Attribute(.unique) public var serial: Int
        @Attribute(originalName: "title") public var heading: String
        public var body: String?
        public var pages: Int
        public var weight: Double?
        public var rating: Int = 0
        public var summary: String?
        public var slug: String = ""
        public var drawer: Drawer?

        public init(serial: Int, heading: String, pages: Int) {
            self.serial = serial
            self.heading = heading
            self.pages = pages
        }
    }

    @Model public final class Drawer {
        @Attribute(.unique) public var name: String
        @Relationship(inverse: \Entry.drawer) public var entries: [Entry] = []
        public init(name: String) { self.name = name }
    }
}

public enum MigrationKillPlan: SchemaMigrationPlan {
    public static var schemas: [any VersionedSchema.Type] { [MigrationKillV1.self, MigrationKillV2.self, MigrationKillV3.self] }
    public static var stages: [MigrationStage] {
        [
            .lightweight(fromVersion: MigrationKillV1.self, toVersion: MigrationKillV2.self),
            .custom(
                fromVersion: MigrationKillV2.self, toVersion: MigrationKillV3.self,
                willMigrate: { context in
                    // Inside the migration's transaction, after the lightweight stage.
                    let count = try context.fetchCount(FetchDescriptor<MigrationKillV2.Entry>())
                    MigrationKillFixture.report("willMigrate \(count)")
                },
                didMigrate: { context in
                    var done = 0
                    try context.enumerate(FetchDescriptor<MigrationKillV3.Entry>(), allowEscapingMutations: true) { entry in
                        let expected = MigrationKillFixture.rewritten(serial: entry.serial, heading: entry.heading, pages: entry.pages)
                        entry.rating = expected.rating
                        entry.summary = expected.summary
                        entry.slug = expected.slug
                        done += 1
                        if done % MigrationKillFixture.saveEvery == 0 {
                            try context.save()
                            MigrationKillFixture.report("rewrote \(done)")
                        }
                    }
                    try context.save()
                    MigrationKillFixture.report("didMigrate \(done)")
                }),
        ]
    }
}

public enum MigrationKillFixture {
    /// Entries rewritten between two saves of the custom stage.
    public static let saveEvery = 5000
    /// Drawers hold about 85 entries each: saving an entry whose drawer holds k entries costs O(k) (its
    /// position in `entries` is looked up), so few large drawers make creating the store quadratic.
    public static let drawerCount = 500

    /// Called with the custom stage's progress (`willMigrate N`, `rewrote N`, `didMigrate N`); the probe
    /// prints it. Set it before opening a container, on the thread that opens it.
    nonisolated(unsafe) public static var progress: ((String) -> Void)?

    static func report(_ event: String) { progress?(event) }

    /// The values entry `serial` is created with.
    public static func values(_ serial: Int) -> (title: String, body: String?, pages: Int, weight: Double?, drawer: Int?) {
        let words = ["apple", "Café", "naïve", "日本語", "O'Brien", "\"quoted\"", "tab\there", "🦊 fox", "Zebra", "apple"]
        let title = serial % 11 == 0 ? "" : "\(words[serial % words.count]) \(serial % 1000)"
        let body: String? = serial % 3 == 0 ? nil : String(repeating: "lorem ", count: serial % 7) + "#\(serial)"
        let weight: Double? = serial % 5 == 0 ? nil : Double(serial) / 8 - 1000
        return (title, body, (serial * 37) % 1000 - 100, weight, serial % 7 == 0 ? nil : serial % drawerCount)
    }

    /// What the custom stage writes into an entry.
    public static func rewritten(serial: Int, heading: String, pages: Int) -> (rating: Int, summary: String, slug: String) {
        (abs(pages) % 5 + 1, "\(heading) · \(pages)p", "\(serial)-\(heading.unicodeScalars.count)")
    }

    public static func drawerName(_ index: Int) -> String { "drawer \(index)" }

    /// Creates a V1 store of `rows` entries (serials 1...rows) in `drawerCount` drawers at `url`.
    public static func create(_ url: URL, rows: Int) throws {
        let container = try ModelContainer(
            for: Schema(versionedSchema: MigrationKillV1.self), configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let drawers = (0..<drawerCount).map { MigrationKillV1.Drawer(name: drawerName($0)) }
        for drawer in drawers { context.insert(drawer) }
        // Each drawer's entries are set at once, from the to-many side: setting `entry.drawer` one entry
        // at a time copies the drawer's growing `entries` array each time.
        var contents = [[MigrationKillV1.Entry]](repeating: [], count: drawerCount)
        for serial in stride(from: 1, through: rows, by: 1) {
            let values = values(serial)
            let entry = MigrationKillV1.Entry(serial: serial, title: values.title, body: values.body, pages: values.pages, weight: values.weight)
            context.insert(entry)
            if let drawer = values.drawer { contents[drawer].append(entry) }
        }
        for (drawer, entries) in zip(drawers, contents) { drawer.entries = entries }
        try context.save()
    }

    /// Opens the store at `url` with V3's models and the plan, migrating it if needed.
    public static func openMigrating(_ url: URL) throws -> ModelContainer {
        try ModelContainer(
            for: Schema(versionedSchema: MigrationKillV3.self), migrationPlan: MigrationKillPlan.self,
            configurations: ModelConfiguration(url: url))
    }
}
