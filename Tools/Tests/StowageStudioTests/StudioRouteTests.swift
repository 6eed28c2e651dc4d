import ExampleTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Stowage
@testable import StowageStudio
import StowageTools
import Testing

enum StudioKind: String, Codable, CaseIterable { case household, leisure }

@Model final class StudioBudget {
    @Attribute(.unique) var name: String
    var limit: Double
    var kind: StudioKind
    var note: String?
    var created: Date
    @Relationship(deleteRule: .cascade, inverse: \StudioEntry.budget) var entries: [StudioEntry] = []
    init(name: String, limit: Double, kind: StudioKind = .household, created: Date = Date(timeIntervalSinceReferenceDate: 86_400)) {
        self.name = name
        self.limit = limit
        self.kind = kind
        self.created = created
    }
}

@Model final class StudioEntry {
    var note: String
    var amount: Double
    var budget: StudioBudget?
    @Relationship(inverse: \StudioTag.entries) var tags: [StudioTag] = []
    init(note: String, amount: Double) {
        self.note = note
        self.amount = amount
    }
}

@Model final class StudioTag {
    var name: String
    var entries: [StudioEntry] = []
    init(name: String) { self.name = name }
}

nonisolated(unsafe) let studioModels: [any PersistentModel.Type] = [StudioBudget.self, StudioEntry.self, StudioTag.self]

/// A store with two budgets ("Food" with 12 entries, "Fun" with 2), and a tag on the first three entries.
func makeStudioStore(_ directory: TemporaryDirectory, models: [any PersistentModel.Type] = studioModels) throws -> URL {
    let url = directory.url.appendingPathComponent("studio.store")
    let container = try ModelContainer(for: Schema(models), configurations: ModelConfiguration(url: url))
    let context = ModelContext(container)
    let food = StudioBudget(name: "Food", limit: 400)
    let fun = StudioBudget(name: "Fun", limit: 80, kind: .leisure)
    let tag = StudioTag(name: "weekly")
    context.insert(food)
    context.insert(fun)
    context.insert(tag)
    for index in 1...12 {
        let entry = StudioEntry(note: "groceries \(index)", amount: Double(index * 10))
        entry.budget = food
        if index <= 3 { entry.tags.append(tag) }
        context.insert(entry)
    }
    for index in 1...2 {
        let entry = StudioEntry(note: "cinema \(index)", amount: 15)
        entry.budget = fun
        context.insert(entry)
    }
    try context.save()
    return url
}

/// A response's status, headers and body text.
struct Answer {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let text: String
    var json: JSONValue { (try? JSONValue(parsing: text)) ?? .null }
}

/// Requests to a studio through HummingbirdTesting's router, carrying its token and its own Host.
struct StudioClient {
    let client: any TestClientProtocol
    let studio: StowageStudio

    func get(_ uri: String, headers: HTTPFields = [:], token: Bool = true) async throws -> Answer {
        try await send(.get, uri, headers: headers, token: token)
    }

    func post(_ uri: String, json: String? = nil, form: String? = nil, csrf: Bool = true, headers: HTTPFields = [:]) async throws -> Answer {
        var headers = headers
        headers[.contentType] = json != nil ? "application/json" : "application/x-www-form-urlencoded"
        var body = json ?? form ?? ""
        if csrf {
            if json != nil { headers[.init("X-CSRF-Token")!] = studio.site.csrf } else { body += (body.isEmpty ? "" : "&") + "csrf=\(studio.site.csrf)" }
        }
        return try await send(.post, uri, headers: headers, body: body, token: true)
    }

    func send(_ method: HTTPRequest.Method, _ uri: String, headers: HTTPFields = [:], body: String? = nil, token: Bool) async throws -> Answer {
        var headers = headers
        if token, let secret = studio.token, headers[.authorization] == nil { headers[.authorization] = "Bearer \(secret)" }
        let response = try await client.execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) })
        return Answer(status: response.status, headers: response.headers, text: String(buffer: response.body))
    }
}

/// Runs `body` with a studio over the store at `url`, as `stowage studio` serves it on 127.0.0.1:8080.
func withStudio(_ url: URL, writable: Bool = false, _ body: @escaping @Sendable (StudioClient) async throws -> Void) async throws {
    let studio = try StowageStudio(storePath: url.path, writable: writable, host: "127.0.0.1")
    try await studio.application(host: "127.0.0.1", port: 0).test(.router) { client in
        try await body(StudioClient(client: client, studio: studio))
    }
}

/// The bytes of every file in `directory`.
func fileBytes(_ directory: URL) throws -> [String: Data] {
    var files: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
        files[name] = try Data(contentsOf: directory.appendingPathComponent(name))
    }
    return files
}

@Suite("Stowage Studio's routes")
struct StudioRouteTests {
    @Test("The overview's JSON is what stowage inspect reports")
    func overview() async throws {
        let directory = try TemporaryDirectory(prefix: "studio-overview")
        defer { directory.remove() }
        let url = try makeStudioStore(directory)
        try await withStudio(url) { client in
            let json = try await client.get("/overview.json").json
            var counts: [String: String] = [:]
            if case .array(let entities)? = json["entities"] {
                for entity in entities {
                    if case .string(let name)? = entity["name"], case .number(let rows)? = entity["rows"] { counts[name] = rows }
                }
            }
            #expect(counts == ["StudioBudget": "2", "StudioEntry": "14", "StudioTag": "1"])
            let page = try await client.get("/")
            #expect(page.status == .ok)
            #expect(page.text.contains("<a href=\"/entities/StudioEntry\">StudioEntry</a>"))
            #expect(page.headers[.init("Content-Security-Policy")!]?.contains("script-src 'self'") == true)
        }
    }

    @Test("A table's JSON filters with the predicate language, sorts and pages by key")
    func table() async throws {
        let directory = try TemporaryDirectory(prefix: "studio-table")
        defer { directory.remove() }
        let url = try makeStudioStore(directory)
        try await withStudio(url) { client in
            let filtered = try await client.get("/entities/StudioEntry.json?where=\(encodeQuery("amount > 50 && note.contains(\"groceries\")"))&sort=amount:desc").json
            let amounts = Self.rows(filtered).compactMap { row -> Double? in if case .number(let text)? = row["amount"] { Double(text) } else { nil } }
            #expect(amounts == [120, 110, 100, 90, 80, 70, 60])

            var keys: [String] = []
            var after: String?
            repeat {
                let page = try await client.get("/entities/StudioEntry.json?limit=5" + (after.map { "&after=\($0)" } ?? "")).json
                keys += Self.rows(page).compactMap { if case .number(let key)? = $0["_pk"] { key } else { nil } }
                if case .number(let next)? = page["nextAfter"] { after = next } else { after = nil }
            } while after != nil
            #expect(keys.count == 14 && Set(keys).count == 14)

            let bad = try await client.get("/entities/StudioEntry.json?where=\(encodeQuery("amount >"))")
            #expect(bad.status == .badRequest)
            #expect(bad.json["error"] != nil)
            let missing = try await client.get("/entities/Nothing.json")
            #expect(missing.status == .notFound)
        }
    }

    @Test("The filter builder writes the predicate into the address")
    func builder() async throws {
        let directory = try TemporaryDirectory(prefix: "studio-builder")
        defer { directory.remove() }
        let url = try makeStudioStore(directory)
        try await withStudio(url) { client in
            let answer = try await client.get("/entities/StudioEntry?where=&property=note&operator=hasPrefix&value=\(encodeQuery("cinema \"1"))")
            #expect(answer.status == .seeOther)
            let location = try #require(answer.headers[.location])
            #expect(location.removingPercentEncoding == "/entities/StudioEntry?where=note.hasPrefix(\"cinema \\\"1\")")
            let page = try await client.get("/entities/StudioEntry.json?where=\(encodeQuery("note.hasPrefix(\"cinema 1\")"))").json
            #expect(Self.rows(page).count == 1)
        }
    }

    @Test("A row's JSON has its values, its to-one link and its lists with their counts")
    func row() async throws {
        let directory = try TemporaryDirectory(prefix: "studio-row")
        defer { directory.remove() }
        let url = try makeStudioStore(directory)
        try await withStudio(url) { client in
            let budgets = try await client.get("/entities/StudioBudget.json?where=\(encodeQuery("name == \"Food\""))").json
            guard case .number(let food)? = Self.rows(budgets).first?["_pk"] else { Issue.record("no Food budget"); return }
            let row = try await client.get("/entities/StudioBudget/\(food).json").json
            #expect(row["values"]?["name"] == .string("Food"))
            #expect(row["values"]?["kind"] == .string("household"))
            #expect(row["relationships"]?["entries"]?["count"] == .number("12"))
            let entries = try await client.get("/entities/StudioBudget/\(food)/entries.json?limit=5").json
            #expect(entries["count"] == .number("12"))
            #expect(Self.rows(entries).count == 5, "a page of the limit's size")
            #expect(entries["nextAfter"] != .null)
            guard case .number(let entry)? = Self.rows(entries).first?["_pk"] else { Issue.record("no entry"); return }
            let entryJSON = try await client.get("/entities/StudioEntry/\(entry).json").json
            #expect(entryJSON["values"]?["budget"] == .number(food))
            #expect(entryJSON["relationships"]?["tags"]?["count"] == .number("1"))
            let html = try await client.get("/entities/StudioEntry/\(entry)")
            #expect(html.text.contains("<a href=\"/entities/StudioBudget/\(food)\">StudioBudget \(food)</a> <span class=\"row-label\">Food</span>"),
                    "a link names the row it points at")
            let table = try await client.get("/entities/StudioEntry").text
            #expect(table.components(separatedBy: "<span class=\"row-label\">Food</span>").count - 1 == 12)
            #expect(table.components(separatedBy: "<span class=\"row-label\">Fun</span>").count - 1 == 2)
            #expect(table.contains("data-watching=\"StudioEntry StudioBudget\""), "a rename of a budget refreshes the labels")
            #expect(try await client.get("/entities/StudioBudget/999.json").status == .notFound)
        }
    }

    @Test("A row's lists show their rows in the app's order, on every page")
    func listsInTheAppsOrder() async throws {
        let directory = try TemporaryDirectory(prefix: "studio-order")
        defer { directory.remove() }
        let url = try makeStudioStore(directory)
        // The app puts Food's entries in another order than their keys', and a tag's entries too.
        let (food, entryOrder, tag, tagOrder): (Int64, [Int64], Int64, [Int64]) = try {
            let context = ModelContext(try ModelContainer(for: Schema(studioModels), configurations: ModelConfiguration(url: url)))
            let budget = try #require(try context.fetch(FetchDescriptor<StudioBudget>(predicate: #Predicate { $0.name == "Food" })).first)
            budget.entries = budget.entries.enumerated().sorted { ($0.offset * 7) % 12 < ($1.offset * 7) % 12 }.map(\.element)
            let weekly = try #require(try context.fetch(FetchDescriptor<StudioTag>()).first)
            weekly.entries.reverse()
            try context.save()
            let reopened = ModelContext(try ModelContainer(for: Schema(studioModels.reversed()), configurations: ModelConfiguration(url: url)))
            let again = try #require(try reopened.fetch(FetchDescriptor<StudioBudget>(predicate: #Predicate { $0.name == "Food" })).first)
            let tag = try #require(try reopened.fetch(FetchDescriptor<StudioTag>()).first)
            return (try #require(again.persistentModelID.rowKeyForTests), try again.entries.map { try #require($0.persistentModelID.rowKeyForTests) },
                    try #require(tag.persistentModelID.rowKeyForTests), try tag.entries.map { try #require($0.persistentModelID.rowKeyForTests) })
        }()
        #expect(entryOrder != entryOrder.sorted(), "the order differs from the keys'")
        try await withStudio(url) { client in
            let row = try await client.get("/entities/StudioBudget/\(food).json").json
            #expect(row["relationships"]?["entries"]?["keys"] == .array(entryOrder.prefix(10).map(JSONValue.integer)))
            var paged: [Int64] = []
            var after: Int64?
            repeat {
                let page = try await client.get("/entities/StudioBudget/\(food)/entries.json?limit=5" + (after.map { "&after=\($0)" } ?? "")).json
                paged += Self.rows(page).compactMap { if case .number(let key)? = $0["_pk"] { Int64(key) } else { nil } }
                if case .number(let next)? = page["nextAfter"] { after = Int64(next) } else { after = nil }
            } while after != nil && paged.count < 100
            #expect(paged == entryOrder)
            let tagged = try await client.get("/entities/StudioTag/\(tag).json").json
            #expect(tagged["relationships"]?["entries"]?["keys"] == .array(tagOrder.map(JSONValue.integer)))
        }
    }

    @Test("Schema, SQL, history and CSV have their pages and twins")
    func otherPages() async throws {
        let directory = try TemporaryDirectory(prefix: "studio-pages")
        defer { directory.remove() }
        let url = try makeStudioStore(directory)
        try await withStudio(url) { client in
            let svg = try await client.get("/schema.svg")
            #expect(svg.headers[.contentType] == "image/svg+xml")
            #expect(svg.text.hasPrefix("<svg") && svg.text.contains("StudioBudget") && svg.text.contains("StudioEntry"))
            #expect(try await client.get("/schema.json").json["entities"] != nil)
            #expect(try await client.get("/schema").text.contains("<figure class=\"diagram\"><svg"))

            let sql = try await client.get("/sql.json?q=\(encodeQuery("SELECT COUNT(*) AS n FROM StudioEntry WHERE amount > 50"))").json
            #expect(sql["rows"] == .array([.array([.number("7")])]))
            #expect(sql["plan"].map { if case .array(let steps) = $0 { !steps.isEmpty } else { false } } == true)
            let write = try await client.get("/sql.json?q=\(encodeQuery("DELETE FROM StudioEntry"))")
            #expect(write.status == .badRequest)
            #expect(try await client.get("/entities/StudioEntry.json").json["rows"].map { if case .array(let rows) = $0 { rows.count } else { 0 } } == 14)

            let history = try await client.get("/history.json").json
            guard case .array(let transactions) = history, let newest = transactions.first else { Issue.record("no history"); return }
            #expect(newest["changes"] != nil)

            let csv = try await client.get("/entities/StudioEntry.csv?where=\(encodeQuery("amount >= 100"))")
            #expect(csv.headers[.contentType] == "text/csv; charset=utf-8")
            let lines = csv.text.split(separator: "\r\n")
            #expect(lines.first?.hasPrefix("_pk,note,amount") == true)
            #expect(lines.count == 4)
        }
    }

    @Test("Without its token, with another Host, or a post without its CSRF token, the studio refuses")
    func safety() async throws {
        let directory = try TemporaryDirectory(prefix: "studio-safety")
        defer { directory.remove() }
        let url = try makeStudioStore(directory)
        try await withStudio(url, writable: true) { client in
            let token = try #require(client.studio.token)
            #expect(try await client.get("/overview.json", token: false).status == .unauthorized)
            #expect(try await client.get("/assets/studio.js", token: false).status == .unauthorized)
            #expect(try await client.get("/overview.json", headers: [.authorization: "Bearer nope"]).status == .unauthorized)
            let studio = client.studio
            #expect(["127.0.0.1:8080", "localhost:41234", "LOCALHOST", "[::1]:9000"].allSatisfy(studio.acceptsHost))
            #expect(!["evil.example:8080", "127.0.0.1.evil.example", "evil.example", ""].contains(where: studio.acceptsHost))
            #expect(!studio.acceptsHost(nil))

            let first = try await client.get("/entities/StudioBudget?token=\(token)", token: false)
            #expect(first.status == .seeOther)
            #expect(first.headers[.location] == "/entities/StudioBudget")
            let cookie = try #require(first.headers[.setCookie])
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"))
            let pair = String(cookie.split(separator: ";")[0])
            #expect(try await client.get("/entities/StudioBudget", headers: [.cookie: pair], token: false).status == .ok)

            let noCSRF = try await client.post("/entities/StudioBudget/1.json", json: #"{"values": {"limit": 1}}"#, csrf: false)
            #expect(noCSRF.status == .forbidden)
            let foreign = try await client.post(
                "/entities/StudioBudget/1.json", json: #"{"values": {"limit": 1}}"#, headers: [.init("Origin")!: "http://evil.example"])
            #expect(foreign.status == .forbidden)
            #expect(try await client.get("/entities/StudioBudget/1.json").json["values"]?["limit"] == .real(400))

            // Even with --write, the SQL page cannot write: not by turning query_only off, nor by attaching.
            for sql in ["PRAGMA query_only = 0; DELETE FROM StudioEntry", "COMMIT; DELETE FROM StudioEntry", "ATTACH 'elsewhere.db' AS x; CREATE TABLE x.t(a)"] {
                let refused = try await client.get("/sql.json?q=\(encodeQuery(sql))")
                #expect(refused.status == .badRequest, "\(sql)")
            }
            #expect(Self.rows(try await client.get("/entities/StudioEntry.json?limit=100").json).count == 14)
            #expect(!FileManager.default.fileExists(atPath: "elsewhere.db"))
        }
    }

    @Test("A read-only studio refuses edits and changes no byte of the store, whatever is read")
    func readOnly() async throws {
        let directory = try TemporaryDirectory(prefix: "studio-readonly")
        defer { directory.remove() }
        let url = try makeStudioStore(directory)
        let before = try fileBytes(directory.url)
        try await withStudio(url) { client in
            for page in ["/", "/overview.json", "/entities/StudioEntry", "/entities/StudioEntry.json?sort=note", "/entities/StudioBudget/1",
                         "/entities/StudioBudget/1/entries", "/entities/StudioBudget/1/delete", "/schema", "/schema.svg", "/history",
                         "/sql?q=SELECT+1", "/entities/StudioEntry.csv"] {
                #expect(try await client.get(page).status == .ok, "\(page)")
            }
            let edit = try await client.post("/entities/StudioBudget/1.json", json: #"{"values": {"limit": 1}}"#)
            #expect(edit.status == .badRequest)
            #expect(edit.text.contains("read-only"))
        }
        #expect(try fileBytes(directory.url) == before)
    }

    static func rows(_ page: JSONValue) -> [JSONValue] {
        if case .array(let rows)? = page["rows"] { return rows }
        return []
    }
}
