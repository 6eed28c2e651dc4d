import ExampleTestSupport
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Stowage
@testable import StowageStudio
import StowageTools
import Testing

@Suite("Stowage Studio's edits")
struct StudioEditTests {
    /// The store reopened by the app, with its models listed in another order.
    func reopened(_ url: URL) throws -> ModelContext {
        ModelContext(try ModelContainer(for: Schema(studioModels.reversed()), configurations: ModelConfiguration(url: url)))
    }

    func budget(_ name: String, in context: ModelContext) throws -> StudioBudget? {
        try context.fetch(FetchDescriptor<StudioBudget>(predicate: #Predicate { $0.name == name })).first
    }

    @Test("A form's edit saves only what changed, as one save by stowage-studio the app reads back")
    func formEdit() async throws {
        let directory = try TemporaryDirectory(prefix: "studio-form")
        defer { directory.remove() }
        let url = try makeStudioStore(directory)
        let key = try #require(try budget("Food", in: reopened(url))?.persistentModelID.rowKeyForTests)
        try await withStudio(url, writable: true) { client in
            let page = try await client.get("/entities/StudioBudget/\(key)")
            #expect(page.text.contains("name=\"value:limit\""))
            #expect(page.text.contains("<select id=\"field-kind\" name=\"value:kind\">"))
            // The form as the browser posts it: every field with what it showed; only limit and note changed.
            let form = [
                "value:name=Food", "shown:name=Food", "value:limit=450.5", "shown:limit=400.0",
                "value:kind=%22household%22", "shown:kind=%22household%22",
                "value:note=weekly+shop", "shown:note=", "wasNil:note=on",
                // What the page showed, and what a browser posts back for the same instant.
                "value:created=2001-01-02T00:00", "shown:created=2001-01-02T00:00:00",
            ].joined(separator: "&")
            let saved = try await client.post("/entities/StudioBudget/\(key)", form: form)
            #expect(saved.status == .seeOther)
            #expect(saved.headers[.location] == "/entities/StudioBudget/\(key)")
        }
        let context = try reopened(url)
        let food = try #require(try budget("Food", in: context))
        #expect(food.limit == 450.5)
        #expect(food.note == "weekly shop")
        #expect(food.created == Date(timeIntervalSinceReferenceDate: 86_400))
        let transactions = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let last = try #require(transactions.last)
        #expect(last.author == "stowage-studio")
        let updates = last.changes.compactMap { change -> Set<AnyKeyPath>? in
            guard case .update(let update) = change, let budget = update as? DefaultHistoryUpdate<StudioBudget> else { return nil }
            return Set(budget.updatedAttributes.map { $0 as AnyKeyPath })
        }
        #expect(updates == [[\StudioBudget.limit, \StudioBudget.note]])
    }

    @Test("Nil and empty are different: the nil box stores nil, an empty field an empty string")
    func nilAndEmpty() async throws {
        let directory = try TemporaryDirectory(prefix: "studio-nil")
        defer { directory.remove() }
        let url = try makeStudioStore(directory)
        try await withStudio(url, writable: true) { client in
            let page = try await client.get("/entities/StudioBudget/1")
            #expect(page.text.contains("name=\"wasNil:note\" value=\"on\""))
            // Untouched, the nil stays nil and nothing is saved.
            let newest = try await client.get("/overview.json").json["history"]?["newest"]
            let untouched = try await client.post("/entities/StudioBudget/1", form: "value:note=&nil:note=on&shown:note=&wasNil:note=on")
            #expect(untouched.status == .seeOther)
            #expect(try await client.get("/overview.json").json["history"]?["newest"] == newest)
            _ = try await client.post("/entities/StudioBudget/1", form: "value:note=&shown:note=&wasNil:note=on")
            #expect(try await client.get("/entities/StudioBudget/1.json").json["values"]?["note"] == .string(""))
            _ = try await client.post("/entities/StudioBudget/1", form: "value:note=line+one%0D%0Aline+two&shown:note=")
            #expect(try await client.get("/entities/StudioBudget/1.json").json["values"]?["note"] == .string("line one\nline two"))
            #expect(try await client.get("/entities/StudioBudget/1").text.contains("<textarea id=\"field-note\" name=\"value:note\" rows=\"4\">line one\nline two</textarea>"))
            _ = try await client.post("/entities/StudioBudget/1", form: "value:note=&nil:note=on&shown:note=")
            #expect(try await client.get("/entities/StudioBudget/1.json").json["values"]?["note"] == .null)
        }
    }

    @Test("A unique value another row has is refused with the app's message, and nothing is written")
    func uniqueness() async throws {
        let directory = try TemporaryDirectory(prefix: "studio-unique")
        defer { directory.remove() }
        let url = try makeStudioStore(directory)
        // What the app itself says for the same change, on a copy of the store.
        let copy = directory.url.appendingPathComponent("copy.store")
        try FileManager.default.copyItem(at: url, to: copy)
        let appContext = try reopened(copy)
        try #require(try budget("Fun", in: appContext)).name = "Food"
        var message = ""
        do { try appContext.save() } catch let error as StowageError { message = error.message }
        let appMessage = message
        #expect(!appMessage.isEmpty)

        let before = try Data(contentsOf: url)
        try await withStudio(url, writable: true) { client in
            let fun = try await client.get("/entities/StudioBudget.json?where=\(encodeQuery("name == \"Fun\""))").json
            guard case .number(let key)? = StudioRouteTests.rows(fun).first?["_pk"] else { Issue.record("no Fun"); return }
            let refused = try await client.post("/entities/StudioBudget/\(key).json", json: #"{"values": {"name": "Food"}}"#)
            #expect(refused.status == .conflict)
            #expect(refused.json["error"] == .string(appMessage))
        }
        #expect(try Data(contentsOf: url) == before || (try budget("Fun", in: reopened(url))) != nil)
        #expect(try reopened(url).fetchCount(FetchDescriptor<StudioBudget>()) == 2)
    }

    @Test("Deleting shows what the delete rules remove first, then removes exactly that")
    func deleteWithRules() async throws {
        let directory = try TemporaryDirectory(prefix: "studio-delete")
        defer { directory.remove() }
        let url = try makeStudioStore(directory)
        let food = try #require(try budget("Food", in: reopened(url)))
        let key = try #require(food.persistentModelID.rowKeyForTests)
        try await withStudio(url, writable: true) { client in
            let preview = try await client.get("/entities/StudioBudget/\(key)/delete")
            #expect(preview.text.contains("Deleting StudioBudget &#39;Food&#39; also deletes 12 StudioEntry rows"))
            #expect(preview.text.contains("<button type=\"submit\" class=\"danger\">Delete</button>"))
            let deleted = try await client.post("/entities/StudioBudget/\(key)/delete", form: "")
            #expect(deleted.status == .seeOther)
        }
        let context = try reopened(url)
        #expect(try context.fetchCount(FetchDescriptor<StudioBudget>()) == 1)
        #expect(try context.fetch(FetchDescriptor<StudioEntry>()).map(\.note).sorted() == ["cinema 1", "cinema 2"])
        #expect(try context.fetch(FetchDescriptor<StudioTag>()).first?.entries.isEmpty == true)
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.author == "stowage-studio")
    }

    @Test("To-many lists are edited from the row's page: Add by key, Remove per row, as assigning the array in the app")
    func relink() async throws {
        let directory = try TemporaryDirectory(prefix: "studio-relink")
        defer { directory.remove() }
        let url = try makeStudioStore(directory)
        let context = try reopened(url)
        let fun = try #require(try budget("Fun", in: context)?.persistentModelID.rowKeyForTests)
        let entries = try context.fetch(FetchDescriptor<StudioEntry>(sortBy: [SortDescriptor(\.note)]))
        let groceries = try #require(entries.first { $0.note == "groceries 1" }?.persistentModelID.rowKeyForTests)
        let cinema = try #require(entries.first { $0.note == "cinema 1" }?.persistentModelID.rowKeyForTests)
        let tag = try #require(try context.fetch(FetchDescriptor<StudioTag>()).first?.persistentModelID.rowKeyForTests)
        try await withStudio(url, writable: true) { client in
            let page = try await client.get("/entities/StudioEntry/\(cinema)").text
            #expect(page.contains("<form method=\"post\" action=\"/entities/StudioEntry/\(cinema)/tags\" class=\"link-rows\">"))
            #expect(page.contains("<label for=\"link-tags\">Add a StudioTag to tags, by key</label>"))
            // Many-to-many: the tag is added to the entry, from the entry's page.
            let added = try await client.post("/entities/StudioEntry/\(cinema)/tags", form: "from=row&add=\(tag)")
            #expect(added.status == .seeOther, "\(added.text)")
            #expect(added.headers[.location] == "/entities/StudioEntry/\(cinema)")
            #expect(try await client.get("/entities/StudioEntry/\(cinema).json").json["relationships"]?["tags"]?["count"] == .number("1"))
            // One-to-many: a Food entry moves to Fun, from Fun's list of entries.
            let moved = try await client.post("/entities/StudioBudget/\(fun)/entries", form: "from=related&add=\(groceries)")
            #expect(moved.status == .seeOther, "\(moved.text)")
            #expect(moved.headers[.location] == "/entities/StudioBudget/\(fun)/entries")
            // Refused: a row already there, a row not there, a to-one relationship; nothing written.
            let newest = try await client.get("/overview.json").json["history"]?["newest"]
            let twice = try await client.post("/entities/StudioEntry/\(cinema)/tags.json", json: "{\"add\": \(tag)}")
            #expect(twice.status == .badRequest && twice.text.contains("tags of StudioEntry 'cinema 1' already includes StudioTag \(tag); nothing was written"), "\(twice.text)")
            let absent = try await client.post("/entities/StudioBudget/\(fun)/entries.json", json: #"{"remove": 999}"#)
            #expect(absent.status == .badRequest && absent.text.contains("entries of StudioBudget 'Fun' does not include StudioEntry 999"), "\(absent.text)")
            let toOne = try await client.post("/entities/StudioEntry/\(cinema)/budget", form: "add=\(fun)")
            #expect(toOne.status == .badRequest && toOne.text.contains("is a to-one relationship"), "\(toOne.text)")
            #expect(try await client.get("/overview.json").json["history"]?["newest"] == newest)
        }
        do {
            let context = try reopened(url)
            let cinemaEntry = try #require(try context.fetch(FetchDescriptor<StudioEntry>(predicate: #Predicate { $0.note == "cinema 1" })).first)
            #expect(cinemaEntry.tags.map(\.name) == ["weekly"])
            let moved = try #require(try context.fetch(FetchDescriptor<StudioEntry>(predicate: #Predicate { $0.note == "groceries 1" })).first)
            #expect(moved.budget?.name == "Fun")
            #expect(try budget("Fun", in: context)?.entries.count == 3)
            #expect(try budget("Food", in: context)?.entries.count == 11)
            let authors = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).suffix(2).map(\.author)
            #expect(authors == ["stowage-studio", "stowage-studio"])
        }
        // Removing: the tag leaves the entry; the entry stays.
        try await withStudio(url, writable: true) { client in
            let removed = try await client.post("/entities/StudioEntry/\(cinema)/tags.json", json: "{\"remove\": \(tag)}")
            #expect(removed.status == .ok, "\(removed.text)")
            #expect(removed.json["keys"] == .array([]))
        }
        let after = try reopened(url)
        #expect(try after.fetch(FetchDescriptor<StudioEntry>(predicate: #Predicate { $0.note == "cinema 1" })).first?.tags.isEmpty == true)
        #expect(try after.fetch(FetchDescriptor<StudioTag>()).first?.entries.count == 3)
    }

    @Test("Lists sharing one inverse get no Add or Remove over a file, whose editor does not set them")
    func sharedInverseListsAreNotOffered() async throws {
        let directory = try TemporaryDirectory(prefix: "studio-shared-inverse")
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("yard.store")
        do {
            let context = ModelContext(try ModelContainer(for: StudioYard.self, StudioPlant.self, configurations: ModelConfiguration(url: url)))
            let yard = StudioYard(name: "Back")
            context.insert(yard)
            yard.leading = [StudioPlant(name: "Fern")]
            context.insert(StudioPlant(name: "Moss"))
            try context.save()
        }
        try await withStudio(url, writable: true) { client in
            let page = try await client.get("/entities/StudioYard/1").text
            #expect(page.contains("<h2>leading"), "the list is shown")
            #expect(!page.contains("class=\"link-rows\""), "but not offered for editing")
            let refused = try await client.post("/entities/StudioYard/1/leading.json", json: #"{"add": 2}"#)
            #expect(refused.status == .badRequest && refused.text.contains("shares its inverse StudioPlant.yard with trailing"), "\(refused.text)")
        }
    }

    @Test("A new row from the form is inserted, with every value by its type")
    func insert() async throws {
        let directory = try TemporaryDirectory(prefix: "studio-insert")
        defer { directory.remove() }
        let url = try makeStudioStore(directory)
        try await withStudio(url, writable: true) { client in
            let form = try await client.get("/entities/StudioBudget/new")
            #expect(form.text.contains("<form method=\"post\" action=\"/entities/StudioBudget\""))
            let missing = try await client.post("/entities/StudioBudget", form: "value:name=Travel")
            #expect(missing.status == .badRequest || missing.status == .conflict)
            let created = try await client.post(
                "/entities/StudioBudget",
                form: "value:name=Travel&value:limit=1200&value:kind=%22leisure%22&nil:note=on&value:note=&value:created=2026-03-01T08:30")
            #expect(created.status == .seeOther)
        }
        let travel = try #require(try budget("Travel", in: reopened(url)))
        #expect(travel.limit == 1200 && travel.kind == .leisure && travel.note == nil)
        #expect(travel.created == ISO8601DateFormatter().date(from: "2026-03-01T08:30:00Z"))
    }

    @Test("Mounted in an app's server, under its path, edits are saves of the app's container")
    func mounted() async throws {
        let directory = try TemporaryDirectory(prefix: "studio-mounted")
        defer { directory.remove() }
        let url = try makeStudioStore(directory)
        let container = try ModelContainer(for: Schema(studioModels), configurations: ModelConfiguration(url: url))
        let studio = try StowageStudio(container: container, allowsEditing: true)
        #expect(studio.token == nil)
        let router = Router()
        studio.addRoutes(to: router.group("admin/studio"))
        let app = Application(router: router)
        let mainContext = ModelContext(container)
        let food = try #require(try budget("Food", in: mainContext))
        let key = try #require(food.persistentModelID.rowKeyForTests)
        try await app.test(.router) { client in
            let overview = try await client.execute(uri: "/admin/studio", method: .get)
            #expect(overview.status == .ok)
            #expect(String(buffer: overview.body).contains("href=\"/admin/studio/entities/StudioBudget\""))
            let edit = try await client.execute(
                uri: "/admin/studio/entities/StudioBudget/\(key).json", method: .post,
                headers: [.contentType: "application/json", .init("X-CSRF-Token")!: studio.site.csrf],
                body: ByteBuffer(string: #"{"values": {"limit": 999, "kind": "leisure"}}"#))
            #expect(edit.status == .ok, "\(String(buffer: edit.body))")
            let delete = try await client.execute(
                uri: "/admin/studio/entities/StudioEntry/1/delete.json", method: .post,
                headers: [.init("X-CSRF-Token")!: studio.site.csrf])
            #expect(delete.status == .ok, "\(String(buffer: delete.body))")
            let tagged = try await client.execute(
                uri: "/admin/studio/entities/StudioEntry/14/tags.json", method: .post,
                headers: [.contentType: "application/json", .init("X-CSRF-Token")!: studio.site.csrf],
                body: ByteBuffer(string: #"{"add": 1}"#))
            #expect(tagged.status == .ok, "\(String(buffer: tagged.body))")
        }
        let fresh = ModelContext(container)
        let edited = try #require(try budget("Food", in: fresh))
        #expect(edited.limit == 999 && edited.kind == .leisure)
        #expect(try fresh.fetchCount(FetchDescriptor<StudioEntry>()) == 13)
        #expect(try fresh.fetch(FetchDescriptor<StudioEntry>(predicate: #Predicate { $0.note == "cinema 2" })).first?.tags.map(\.name) == ["weekly"])
        #expect(try fresh.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).suffix(2).allSatisfy { $0.author == "stowage-studio" })
    }

    @Test("With --write, the studio follows its app's migration of the store: new attributes are shown and edited")
    func followsAMigration() async throws {
        let directory = try TemporaryDirectory(prefix: "studio-migrated")
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("memos.store")
        do {
            let context = ModelContext(try ModelContainer(for: StudioMemosV1.StudioMemo.self, configurations: ModelConfiguration(url: url)))
            context.insert(StudioMemosV1.StudioMemo(text: "first"))
            try context.save()
        }
        try await withStudio(url, writable: true) { client in
            #expect(try await client.get("/entities/StudioMemo/1.json").json["values"]?["pinned"] == nil)
            do {
                let context = ModelContext(try ModelContainer(for: StudioMemosV2.StudioMemo.self, configurations: ModelConfiguration(url: url)))
                #expect(try context.fetchCount(FetchDescriptor<StudioMemosV2.StudioMemo>()) == 1)
            }
            #expect(try await client.get("/entities/StudioMemo/1.json").json["values"]?["pinned"] == .null)
            #expect(try await client.get("/entities/StudioMemo/1").text.contains("name=\"value:pinned\""))
            let saved = try await client.post("/entities/StudioMemo/1.json", json: #"{"values": {"pinned": true}}"#)
            #expect(saved.status == .ok, "\(saved.text)")
        }
        let context = ModelContext(try ModelContainer(for: StudioMemosV2.StudioMemo.self, configurations: ModelConfiguration(url: url)))
        #expect(try context.fetch(FetchDescriptor<StudioMemosV2.StudioMemo>()).map(\.pinned) == [true])
    }

    @Test("The change feed tells a page about another process's save, naming its entities", .timeLimit(.minutes(2)))
    func liveFeed() async throws {
        let directory = try TemporaryDirectory(prefix: "studio-live")
        defer { directory.remove() }
        let url = try makeStudioStore(directory)
        let feed = ChangeFeed(backend: try FileBackend(path: url.path, writable: false))
        let changes = feed.events(since: nil)
        let started = ContinuousClock.now
        let app = try reopened(url)
        try #require(try budget("Fun", in: app)).limit = 90
        try app.save()
        // The first event, however long the loaded machine takes to run this task again (the test's time
        // limit stops a hang).
        let received = await firstChange(changes)
        #expect(received?.entities == ["StudioBudget"])
        print("The change feed saw another container's save after \(ContinuousClock.now - started).")

        // A page that read the store before its first save first gets every save after it: none is
        // missed while it loads or reconnects.
        var replayed: [ChangeFeed.Change] = []
        for await event in feed.events(since: 0) {
            if case .change(let change) = event { replayed.append(change) }
            if replayed.count == 2 { break }
        }
        #expect(replayed.map(\.token) == [1, 2])
        #expect(replayed.first?.entities.map(Set.init) == ["StudioBudget", "StudioEntry", "StudioTag"])
        #expect(replayed.last?.entities == ["StudioBudget"])

        // Stopping ends every connection, so that a server stopping waits for none.
        feed.stop()
        var ended = true
        for await event in feed.events(since: nil) { _ = event; ended = false }
        #expect(ended)
    }

    @Test("A write outside Stowage reaches the pages as a change of anything; a checkpoint does not", .timeLimit(.minutes(2)))
    func writeOutsideStowage() async throws {
        let directory = try TemporaryDirectory(prefix: "studio-outside")
        defer { directory.remove() }
        let url = try makeStudioStore(directory)
        let feed = ChangeFeed(backend: try FileBackend(path: url.path, writable: false))
        let events = feed.events(since: nil)
        // `stowage sql --write`'s kind of write: no history transaction. The connection stays open, so
        // the write stays in the -wal.
        let outside = try DatabaseQueue(path: url.path)
        try await outside.write { db in try db.execute(sql: "UPDATE StudioBudget SET \"limit\" = 1") }
        let change = await firstChange(events)
        #expect(change != nil)
        #expect(change?.entities == nil)
        // A checkpoint moves the rows into the file and changes no row: no event.
        let quiet = feed.events(since: nil)
        _ = try await outside.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        #expect(try await firstChange(quiet, within: .milliseconds(600)) == nil)
        feed.stop()
    }

    /// The first change of `events`, waiting as long as it takes.
    func firstChange(_ events: AsyncStream<ChangeFeed.Event>) async -> ChangeFeed.Change? {
        for await event in events {
            if case .change(let change) = event { return change }
        }
        return nil
    }

    /// The first change of `events` within `limit`, or `nil`.
    func firstChange(_ events: AsyncStream<ChangeFeed.Event>, within limit: Duration) async throws -> ChangeFeed.Change? {
        try await withThrowingTaskGroup(of: ChangeFeed.Change?.self) { group in
            group.addTask {
                for await event in events {
                    if case .change(let change) = event { return change }
                }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}

extension PersistentIdentifier {
    /// The row's key, from the identifier's description (`Entity/…/123`).
    var rowKeyForTests: Int64? {
        description.split(whereSeparator: { !$0.isNumber }).last.flatMap { Int64($0) }
    }
}

/// A notes app before and after an update that adds an attribute (a lightweight migration).
enum StudioMemosV1 {
    @Model final class StudioMemo {
        var text: String
        init(text: String) { self.text = text }
    }
}

enum StudioMemosV2 {
    @Model final class StudioMemo {
        var text: String
        var pinned: Bool?
        init(text: String) { self.text = text }
    }
}

/// Two lists sharing one inverse, as Backyard Birds' `leadingPlants` and `trailingPlants`.
@Model final class StudioYard {
    var name: String
    @Relationship(inverse: \StudioPlant.yard) var leading: [StudioPlant] = []
    @Relationship(inverse: \StudioPlant.yard) var trailing: [StudioPlant] = []
    init(name: String) { self.name = name }
}

@Model final class StudioPlant {
    var name: String
    var yard: StudioYard?
    init(name: String) { self.name = name }
}
