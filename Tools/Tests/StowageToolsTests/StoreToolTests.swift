import ExampleTestSupport
import Foundation
import GRDB
import Stowage
import StowageTools
import Testing

enum ToolMood: String, Codable, CaseIterable {
    case happy, sad
    case soSo = "so-so"
}
enum ToolLevel: Int, Codable, CaseIterable { case low = 1, high = 2 }
struct ToolAddress: Codable, Hashable {
    var street: String
    var zip: Int
}

@Model final class ToolGadget {
    #Index<ToolGadget>([\.count], [\.created, \.ratio])
    @Attribute(.unique) var name: String
    var flag: Bool
    var small: Int8
    var count: Int
    var ratio: Double
    var created: Date
    var serial: UUID
    var site: URL?
    var price: Decimal
    @Attribute(.externalStorage) var blob: Data?
    var mood: ToolMood
    var level: ToolLevel?
    var address: ToolAddress?
    var nickname: String?
    @Relationship(deleteRule: .cascade, inverse: \ToolPart.gadget) var parts: [ToolPart] = []
    @Relationship(inverse: \ToolTag.gadgets) var tags: [ToolTag] = []

    init(name: String, count: Int = 0, ratio: Double = 0, created: Date = Date(timeIntervalSinceReferenceDate: 0), price: Decimal = 0, mood: ToolMood = .happy) {
        self.name = name
        flag = count % 2 == 0
        small = Int8(count % 100)
        self.count = count
        self.ratio = ratio
        self.created = created
        serial = UUID()
        self.price = price
        self.mood = mood
    }
}

@Model final class ToolPart {
    var label: String
    var gadget: ToolGadget?
    init(label: String) { self.label = label }
}

@Model final class ToolTag {
    var name: String
    var gadgets: [ToolGadget] = []
    init(name: String) { self.name = name }
}

nonisolated(unsafe) let toolModels: [any PersistentModel.Type] = [ToolGadget.self, ToolPart.self, ToolTag.self]

/// A store of the test models with a few rows, in a directory of its own.
@MainActor
func makeGadgetStore(_ directory: TemporaryDirectory, models: [any PersistentModel.Type] = toolModels) throws -> URL {
    let url = directory.url.appendingPathComponent("gadgets.store")
    let container = try ModelContainer(for: Schema(models), configurations: ModelConfiguration(url: url))
    let context = ModelContext(container)
    let tag = ToolTag(name: "red")
    for index in 0..<5 {
        let gadget = ToolGadget(
            name: "Gadget \(index)", count: index, ratio: Double(index) / 4, created: Date(timeIntervalSinceReferenceDate: 800_000_000 + Double(index) * 86_400.25),
            price: Decimal(string: "1\(index).05")!, mood: index.isMultiple(of: 2) ? .happy : .sad)
        gadget.address = index == 1 ? ToolAddress(street: "Main \"St\"", zip: 12345) : nil
        gadget.level = index == 2 ? .high : nil
        gadget.blob = index == 3 ? Data([1, 2, 3]) : nil
        gadget.site = URL(string: "https://example.com/\(index)")
        context.insert(gadget)
        gadget.parts = [ToolPart(label: "a\(index)"), ToolPart(label: "b\(index)")]
        if index < 3 { gadget.tags = [tag] }
    }
    try context.save()
    return url
}

@Suite("A store describes its models")
@MainActor
struct StoreDescriptionTests {
    @Test func eachAttributeIsRecordedWithItsSwiftType() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-description")
        defer { directory.remove() }
        let reader = try StoreReader(path: try makeGadgetStore(directory).path)
        #expect(!reader.descriptionIsFromLayout)
        let gadget = try #require(reader.description.entity(named: "ToolGadget"))
        func attribute(_ name: String) throws -> StoreDescription.Attribute { try #require(gadget.attributes.first { $0.name == name }) }
        let expected: [(String, String, StoreDescription.Kind, Bool)] = [
            ("name", "String", .string, false), ("flag", "Bool", .bool, false), ("small", "Int8", .integer, false),
            ("count", "Int", .integer, false), ("ratio", "Double", .real, false), ("created", "Date", .date, false),
            ("serial", "UUID", .uuid, false), ("site", "URL", .url, true), ("price", "Decimal", .decimal, false),
            ("blob", "Data", .data, true), ("mood", "ToolMood", .rawValue, false), ("level", "ToolLevel", .rawValue, true),
            ("address", "ToolAddress", .codable, true), ("nickname", "String", .string, true),
        ]
        #expect(gadget.attributes.map(\.name) == expected.map(\.0))
        for (name, type, kind, optional) in expected {
            let described = try attribute(name)
            #expect(described.type == type, "\(name)")
            #expect(described.kind == kind, "\(name)")
            #expect(described.isOptional == optional, "\(name)")
        }
        #expect(try attribute("name").isUnique)
        #expect(try attribute("mood").rawType == "String")
        #expect(try attribute("mood").cases == [.text("happy"), .text("sad"), .text("so-so")])
        #expect(try attribute("level").rawType == "Int")
        #expect(try attribute("level").cases == [.integer(1), .integer(2)])
        #expect(try attribute("blob").externalTable == "ToolGadget_blob")
        #expect(gadget.indices == [["count"], ["created", "ratio"]])
        #expect(gadget.uniqueness == [["name"]])
        let parts = try #require(gadget.relationships.first { $0.name == "parts" })
        #expect(parts.destination == "ToolPart" && parts.inverse == "gadget" && parts.deleteRule == "cascade" && parts.isToMany && parts.isOrdered)
        let tags = try #require(gadget.relationships.first { $0.name == "tags" })
        #expect(tags.destination == "ToolTag" && tags.inverse == "gadgets" && tags.storage.kind == "joinTable")
        let part = try #require(reader.description.entity(named: "ToolPart"))
        #expect(part.relationships.first?.storage.kind == "foreignKey" && part.relationships.first?.isToMany == false)
    }

    /// Reopened with the models in another order, and read by the tool in a process of its own: the
    /// same description.
    @Test func theDescriptionIsTheSameWhateverTheModelsOrder() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-description-order")
        defer { directory.remove() }
        let url = try makeGadgetStore(directory)
        let first = try StoreReader(path: url.path).metadata[StoreDescription.metadataKey]
        do {
            let container = try ModelContainer(for: Schema(toolModels.reversed()), configurations: ModelConfiguration(url: url))
            _ = try ModelContext(container).fetchCount(FetchDescriptor<ToolGadget>())
        }
        #expect(try StoreReader(path: url.path).metadata[StoreDescription.metadataKey] == first)
        let run = try Tool.run("stowage", ["schema", url.path, "--format", "json"])
        #expect(run.status == 0)
        #expect(run.output.contains("\"type\": \"ToolMood\""))
    }

    /// A store made before stores described their models (no `schema_description`) still opens, the
    /// tool falls back to its layout, and a container that can save adds the description without
    /// migrating anything.
    @Test func anOlderStoreGetsItsDescriptionOnItsNextOpen() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-description-old")
        defer { directory.remove() }
        let url = try makeGadgetStore(directory)
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { try $0.execute(sql: "DELETE FROM _stowage_metadata WHERE key = 'schema_description'") }
        let layoutBefore = try queue.read { try String.fetchOne($0, sql: "SELECT value FROM _stowage_metadata WHERE key = 'schema_layout'") }
        try queue.close()

        let fallback = try StoreReader(path: url.path)
        #expect(fallback.descriptionIsFromLayout)
        #expect(fallback.description.entity(named: "ToolGadget")?.attributes.first { $0.name == "count" }?.kind == .integer)
        do {
            let readOnly = try ModelContainer(for: Schema(toolModels), configurations: ModelConfiguration(url: url, allowsSave: false))
            #expect(try ModelContext(readOnly).fetchCount(FetchDescriptor<ToolGadget>()) == 5)
        }
        #expect(try StoreReader(path: url.path).descriptionIsFromLayout, "a read-only container writes nothing")
        do {
            let container = try ModelContainer(for: Schema(toolModels), configurations: ModelConfiguration(url: url))
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<ToolGadget>()) == 5)
        }
        let reader = try StoreReader(path: url.path)
        #expect(!reader.descriptionIsFromLayout)
        #expect(reader.description.entity(named: "ToolGadget")?.attributes.first { $0.name == "mood" }?.kind == .rawValue)
        #expect(reader.metadata["schema_layout"] == layoutBefore)
    }
}

@Suite("stowage rows")
@MainActor
struct RowsTests {
    @Test func valuesAreShownByTheirSwiftTypes() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-rows")
        defer { directory.remove() }
        let url = try makeGadgetStore(directory)
        let run = try Tool.run("stowage", ["rows", url.path, "ToolGadget", "--format", "jsonl", "--where", "count == 1 || count == 3"])
        #expect(run.status == 0, "\(run.errorOutput)")
        let rows = try run.output.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
        #expect(rows.count == 2)
        let first = try #require(rows.first)
        #expect(first["flag"] == .bool(false))
        #expect(first["small"] == .number("1"))
        #expect(first["created"] == .string(ISODate.format(800_000_000 + 86_400.25)))
        #expect(first["price"] == .number("11.05"))
        #expect(first["mood"] == .string("sad"))
        #expect(first["level"] == .null)
        #expect(first["address"] == .object([("street", .string("Main \"St\"")), ("zip", .number("12345"))]))
        #expect(rows.last?["blob"] == .string(Data([1, 2, 3]).base64EncodedString()))
        if case .string(let serial)? = first["serial"] { #expect(UUID(uuidString: serial) != nil) } else { Issue.record("serial is not a UUID string") }
    }

    /// Pages read after a key follow each other without gaps or repeats, in a sort with ties and
    /// NULLs, ascending and descending.
    @Test func keysetPagesCoverEveryRowOnce() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-pages")
        defer { directory.remove() }
        let url = try makeGadgetStore(directory)
        let reader = try StoreReader(path: url.path)
        let entity = try reader.entity(named: "ToolGadget")
        for sort in [["mood"], ["-level", "name"], ["flag:desc", "-ratio"], []] {
            let keys = try sort.map(RowQuery.SortKey.init(parsing:))
            let all = try RowQuery(entity: entity, sort: keys).page(in: reader).rows.map { $0[0] }
            var paged: [DatabaseValue] = []
            var after: Int64?
            repeat {
                let page = try RowQuery(entity: entity, sort: keys, limit: 2, after: after).page(in: reader)
                paged += page.rows.map { $0[0] }
                after = page.nextAfter
            } while after != nil
            #expect(paged == all, "sort \(sort)")
            #expect(Set(all).count == 5)
        }
    }
}

@Model final class ToolWord {
    var text: String
    var note: String?
    init(text: String, note: String? = nil) {
        self.text = text
        self.note = note
    }
}

/// The tool's `--where` gives the app's `#Predicate` answers, operator by operator, on composed and
/// decomposed strings (é as one scalar and as e + U+0301), cases and prefixes.
@Suite("stowage rows --where means what #Predicate means")
@MainActor
struct FilterDifferentialTests {
    static let texts = ["caf\u{E9}", "cafe\u{301}", "Caf\u{E9}", "CAF\u{C9}", "cafe", "cafeteria", "\u{E9}clair", "e\u{301}clair", "Zebra", "apple", "", "na\u{EF}ve"]

    @Test func eachOperatorGivesThePredicatesRows() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-differential")
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("words.store")
        let container = try ModelContainer(for: ToolWord.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        for (index, text) in Self.texts.enumerated() {
            context.insert(ToolWord(text: text, note: index.isMultiple(of: 3) ? nil : Self.texts[(index + 1) % Self.texts.count]))
        }
        try context.save()
        let reader = try StoreReader(path: url.path)
        let entity = try reader.entity(named: "ToolWord")
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        let cases: [(String, Predicate<ToolWord>)] = [
            ("text == \"caf\\u{E9}\"", #Predicate { $0.text == composed }),
            ("text == \"cafe\\u{301}\"", #Predicate { $0.text == decomposed }),
            ("text != \"cafe\\u{301}\"", #Predicate { $0.text != decomposed }),
            ("text < \"cafe\\u{301}\"", #Predicate { $0.text < decomposed }),
            ("text <= \"caf\\u{E9}\"", #Predicate { $0.text <= composed }),
            ("text > \"caf\\u{E9}\"", #Predicate { $0.text > composed }),
            ("text >= \"cafe\\u{301}\"", #Predicate { $0.text >= decomposed }),
            ("text.contains(\"e\\u{301}\")", #Predicate { $0.text.contains("e\u{301}") }),
            ("text.contains(\"\\u{E9}\")", #Predicate { $0.text.contains("\u{E9}") }),
            ("text.contains(\"e\")", #Predicate { $0.text.contains("e") }),
            ("text.hasPrefix(\"cafe\")", #Predicate { $0.text.starts(with: "cafe") }),
            ("text.starts(with: \"\\u{E9}\")", #Predicate { $0.text.starts(with: "\u{E9}") }),
            ("text.localizedStandardContains(\"CAFE\")", #Predicate { $0.text.localizedStandardContains("CAFE") }),
            ("text.localizedStandardContains(\"\\u{E9}\")", #Predicate { $0.text.localizedStandardContains("\u{E9}") }),
            ("note == nil", #Predicate { $0.note == nil }),
            ("note != nil", #Predicate { $0.note != nil }),
            ("note == \"cafe\\u{301}\"", #Predicate { $0.note == decomposed }),
            ("note != \"caf\\u{E9}\"", #Predicate { $0.note != composed }),
            ("text == \"apple\" || note == \"Zebra\"", #Predicate { $0.text == "apple" || $0.note == "Zebra" }),
            ("text.contains(\"a\") && !(text == \"apple\")", #Predicate { $0.text.contains("a") && !($0.text == "apple") }),
            ("!(note == nil) && (text > \"b\" || text == \"\")", #Predicate { !($0.note == nil) && ($0.text > "b" || $0.text == "") }),
        ]
        for (filter, predicate) in cases {
            let expected = try context.fetch(FetchDescriptor(predicate: predicate)).compactMap { $0.persistentModelID.primaryKey }.sorted()
            let found = try RowQuery(entity: entity, filter: filter).page(in: reader).rows.compactMap { Int64.fromDatabaseValue($0[0]) }.sorted()
            #expect(found == expected, "\(filter)")
        }
    }

    @Test func aFilterThatCannotMeanAnythingIsAUsageError() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-bad-filter")
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("words.store")
        _ = try ModelContainer(for: ToolWord.self, configurations: ModelConfiguration(url: url))
        for filter in ["missing == 1", "text ==", "text.reversed(\"a\")", "(text == \"a\"", "text < nil"] {
            let run = try Tool.run("stowage", ["rows", url.path, "ToolWord", "--where", filter])
            #expect(run.status == 64, "\(filter)")
            #expect(run.errorOutput.hasPrefix("stowage: --where: ") && run.errorOutput.split(separator: "\n").count == 1, "\(filter): \(run.errorOutput)")
        }
    }
}

@Suite("stowage import")
@MainActor
struct ImportTests {
    /// An export imported into a new store exports the same text; imported into the store it came
    /// from, its rows get new keys and keep their links.
    @Test func anExportImportsIntoANewStoreAndExportsTheSame() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-import")
        defer { directory.remove() }
        let url = try makeGadgetStore(directory)
        let exported = try Tool.run("stowage", ["export", url.path])
        #expect(exported.status == 0, "\(exported.errorOutput)")
        let file = directory.path("gadgets.jsonl")
        try exported.output.write(toFile: file, atomically: true, encoding: .utf8)

        let copy = directory.url.appendingPathComponent("copy.store")
        _ = try ModelContainer(for: Schema(toolModels), configurations: ModelConfiguration(url: copy))
        let imported = try Tool.run("stowage", ["import", copy.path, file])
        #expect(imported.status == 0, "\(imported.errorOutput)")
        #expect(try Tool.run("stowage", ["export", copy.path]).output == exported.output)

        // The app sees the rows, their links and their values.
        let context = ModelContext(try ModelContainer(for: Schema(toolModels), configurations: ModelConfiguration(url: copy)))
        let gadgets = try context.fetch(FetchDescriptor<ToolGadget>(sortBy: [SortDescriptor(\.count)]))
        #expect(gadgets.map(\.name) == (0..<5).map { "Gadget \($0)" })
        #expect(gadgets[1].parts.map(\.label) == ["a1", "b1"])
        #expect(gadgets[0].tags.map(\.name) == ["red"])
        #expect(gadgets[1].address == ToolAddress(street: "Main \"St\"", zip: 12345))
        #expect(gadgets[3].blob == Data([1, 2, 3]))
        #expect(gadgets[2].price == Decimal(string: "12.05"))
        let history = try Tool.run("stowage", ["history", copy.path, "--format", "jsonl"])
        #expect(history.output.contains("\"author\":\"stowage-import\""))

        // Into the original store: the keys are taken, so the rows move past them.
        let again = try Tool.run("stowage", ["import", url.path, file])
        #expect(again.status != 0, "the names are unique: the second copy is refused")
        #expect(again.errorOutput.contains("nothing was imported"))
    }

    /// Imported into a store whose keys overlap the file's, the rows move past the store's own keys and
    /// every link follows them: each part still belongs to its gadget, each tag to its gadgets.
    @Test func rowsWhoseKeysAreTakenMoveWithTheirLinks() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-import-moved")
        defer { directory.remove() }
        let url = try makeGadgetStore(directory)
        let file = directory.path("gadgets.jsonl")
        try Tool.run("stowage", ["export", url.path]).output.write(toFile: file, atomically: true, encoding: .utf8)

        let target = directory.url.appendingPathComponent("target.store")
        do {
            let context = ModelContext(try ModelContainer(for: Schema(toolModels), configurations: ModelConfiguration(url: target)))
            for index in 0..<3 {
                let gadget = ToolGadget(name: "Other \(index)", count: 10 + index)
                context.insert(gadget)
                gadget.parts = [ToolPart(label: "other \(index)")]
                gadget.tags = [ToolTag(name: "blue \(index)")]
            }
            try context.save()
        }
        let run = try Tool.run("stowage", ["import", target.path, file])
        #expect(run.status == 0, "\(run.errorOutput)")
        #expect(run.output.contains("Keys were moved"))

        let context = ModelContext(try ModelContainer(for: Schema(toolModels), configurations: ModelConfiguration(url: target)))
        let gadgets = try context.fetch(FetchDescriptor<ToolGadget>(sortBy: [SortDescriptor(\.count)]))
        #expect(gadgets.map(\.name) == (0..<5).map { "Gadget \($0)" } + (0..<3).map { "Other \($0)" })
        for gadget in gadgets {
            let expected = gadget.name.hasPrefix("Gadget") ? ["a\(gadget.count)", "b\(gadget.count)"] : ["other \(gadget.count - 10)"]
            #expect(gadget.parts.map(\.label) == expected, "\(gadget.name)")
            #expect(gadget.parts.allSatisfy { $0.gadget === gadget })
        }
        #expect(gadgets[0].tags.map(\.name) == ["red"])
        #expect(Set(try context.fetch(FetchDescriptor<ToolTag>(predicate: #Predicate { $0.name == "red" })).first?.gadgets.map(\.name) ?? [])
            == ["Gadget 0", "Gadget 1", "Gadget 2"])
        #expect(gadgets[5].tags.map(\.name) == ["blue 0"])
    }

    /// A record that does not fit the store's models refuses the whole file, and the store's bytes do
    /// not change.
    @Test func oneBadRecordImportsNothing() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-import-bad")
        defer { directory.remove() }
        let url = try makeGadgetStore(directory)
        let exported = try Tool.run("stowage", ["export", url.path]).output
        let target = directory.url.appendingPathComponent("target.store")
        _ = try ModelContainer(for: Schema(toolModels), configurations: ModelConfiguration(url: target))
        let badLines = [
            #"{"entity":"ToolPart","key":99,"values":{"label":7},"links":{}}"#,
            #"{"entity":"ToolGadget","key":99,"values":{"name":"x","mood":"angry"},"links":{}}"#,
            #"{"entity":"ToolPart","key":99,"values":{"label":"x"},"links":{"gadget":12345}}"#,
            #"{"entity":"Nope","key":1,"values":{},"links":{}}"#,
        ]
        for bad in badLines {
            let file = directory.path("bad.jsonl")
            try (exported + bad + "\n").write(toFile: file, atomically: true, encoding: .utf8)
            let snapshotBefore = try snapshot(of: directory.url).filter { $0.key.hasPrefix("target.store") }
            let run = try Tool.run("stowage", ["import", target.path, file])
            #expect(run.status == 65, "\(bad): \(run.errorOutput)")
            #expect(run.errorOutput.contains("nothing was imported"), "\(run.errorOutput)")
            let snapshotAfter = try snapshot(of: directory.url).filter { $0.key.hasPrefix("target.store") }
            #expect(try StoreReader(path: target.path).read { try Int64.fetchOne($0, sql: "SELECT count(*) FROM ToolGadget") } == 0)
            #expect(snapshotBefore["target.store"] == snapshotAfter["target.store"])
        }
    }
}

/// Reading never changes a store: its bytes, its -wal and -shm and the directory listing are the same
/// after every read command, for a closed store and for one another connection holds open with a save
/// not yet checkpointed, which the tool sees.
@Suite("Reading leaves the store untouched")
@MainActor
struct UntouchedBytesTests {
    static func readCommands(_ path: String) -> [[String]] {
        [
            ["inspect", path], ["inspect", path, "--format", "json"], ["schema", path], ["schema", path, "--format", "dot"],
            ["rows", path, "ToolGadget"], ["rows", path, "ToolGadget", "--where", "name.contains(\"3\")", "--sort", "ratio:desc"],
            ["sql", path, "SELECT count(*) FROM ToolGadget WHERE stowage_nfc(name) = 'Gadget 1'"], ["sql", path, "--explain", "SELECT * FROM ToolPart"],
            ["export", path], ["history", path], ["doctor", path], ["migrate", "status", path],
        ]
    }

    @Test func aClosedStore() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-untouched")
        defer { directory.remove() }
        let url = try makeGadgetStore(directory)
        let before = try snapshot(of: directory.url)
        #expect(before.keys.sorted() == ["gadgets.store"])
        for command in Self.readCommands(url.path) {
            let run = try Tool.run("stowage", command)
            #expect(run.status == 0, "\(command): \(run.errorOutput)")
            #expect(differences(before, try snapshot(of: directory.url)) == [], "\(command)")
        }
    }

    @Test func aStoreWithASaveNotYetCheckpointed() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-untouched-wal")
        defer { directory.remove() }
        let url = try makeGadgetStore(directory)
        // Another connection, kept open, commits a row without checkpointing it.
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            if let connection = db.sqliteConnection { StowageSQLFunctions.register(on: connection) }
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        }
        let writer = try DatabaseQueue(path: url.path, configuration: configuration)
        try writer.write { db in
            try db.execute(sql: "INSERT INTO ToolPart (label) VALUES ('uncheckpointed')")
        }
        let before = try snapshot(of: directory.url)
        #expect(before.keys.contains("gadgets.store-wal") && before.keys.contains("gadgets.store-shm"))
        for command in Self.readCommands(url.path) {
            let run = try Tool.run("stowage", command)
            #expect(run.status == 0, "\(command): \(run.errorOutput)")
            #expect(differences(before, try snapshot(of: directory.url)) == [], "\(command)")
        }
        let seen = try Tool.run("stowage", ["rows", url.path, "ToolPart", "--where", "label == \"uncheckpointed\"", "--format", "jsonl"])
        #expect(seen.output.contains("uncheckpointed"))
        try writer.close()
    }
}

@Suite("stowage history --follow")
@MainActor
struct FollowTests {
    /// `--follow` prints a save of another process (this one) as it commits; the time it took is printed
    /// for the record, not asserted (the bound here only stops a hang).
    @Test func followPrintsAnotherProcesssSave() async throws {
        let directory = try TemporaryDirectory(prefix: "stowage-follow")
        defer { directory.remove() }
        let url = try makeGadgetStore(directory)
        let process = Process()
        process.executableURL = try Tool.executable("stowage")
        process.arguments = ["history", url.path, "--follow", "--format", "jsonl", "--since", "1"]
        let pipe = Pipe()
        process.standardOutput = pipe
        let lines = LinesCollector()
        try process.run()
        let handle = pipe.fileHandleForReading
        // Blocking reads on a thread of their own, until the process ends (end of file).
        Thread {
            while true {
                let data = handle.availableData
                if data.isEmpty { return }
                lines.append(data)
            }
        }.start()
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try await Task.sleep(for: .milliseconds(500))
        let context = ModelContext(try ModelContainer(for: Schema(toolModels), configurations: ModelConfiguration(url: url)))
        context.insert(ToolPart(label: "followed"))
        try context.save()
        let saved = Date()
        var seenAt: Date?
        // A minute at most: the full suite, beside this on two cores, keeps the main actor and the
        // `stowage` process waiting for seconds at a time.
        while Date().timeIntervalSince(saved) < 60 {
            if lines.text.contains("\"entity\":\"ToolPart\"") {
                seenAt = Date()
                break
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        let latency = try #require(seenAt, "--follow printed nothing within 60 s").timeIntervalSince(saved)
        print("stowage history --follow printed the save after \(Int(latency * 1000)) ms")
    }
}

final class LinesCollector: @unchecked Sendable {  // @unchecked: every access holds the lock.
    private let lock = NSLock()
    private var data = Data()
    func append(_ more: Data) { lock.withLock { data.append(more) } }
    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}
