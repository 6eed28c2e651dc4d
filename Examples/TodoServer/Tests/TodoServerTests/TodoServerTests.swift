import ExampleTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import PostgresTestSupport
import Stowage
import Testing
import TodoServerKit

/// What a client of the API relies on, run against `container`: on an SQLite file and on PostgreSQL.
func exerciseTheAPI(_ container: ModelContainer) async throws {
    try await withAPI(container) { api in
        // Lists: created with a Location, names refused twice, renamed.
        let groceries = try await api.call("POST", "/lists", #"{"name": "Groceries"}"#, expect: .created, as: List.self)
        let (_, headers, _) = try await api.send(.get, "/lists/\(groceries.id)", json: nil)
        #expect(headers[.contentType]?.hasPrefix("application/json") == true)
        let taken = try await api.fail("POST", "/lists", #"{"name": " Groceries "}"#, expect: .conflict)
        #expect(taken == #"A list named "Groceries" already exists."#)
        let chores = try await api.call("POST", "/lists", #"{"name": "Chores"}"#, expect: .created, as: List.self)
        let renamed = try await api.call("PATCH", "/lists/\(chores.id)", #"{"name": "House"}"#, as: List.self)
        #expect(renamed.name == "House" && renamed.id == chores.id)
        try await api.fail("PATCH", "/lists/\(chores.id)", #"{"name": "Groceries"}"#, expect: .conflict)

        // Items, with the query's filters, sorts and pages.
        let milk = try await api.call("POST", "/lists/\(groceries.id)/items", #"{"title": "Milk", "priority": 2}"#, expect: .created, as: Item.self)
        let eggs = try await api.call("POST", "/lists/\(groceries.id)/items", #"{"title": "Eggs", "dueDate": "2026-12-01T10:00:00Z"}"#, expect: .created, as: Item.self)
        let bread = try await api.call("POST", "/lists/\(groceries.id)/items", #"{"title": "Bread", "priority": 5, "dueDate": "2026-12-03T10:00:00Z"}"#, expect: .created, as: Item.self)
        let sweep = try await api.call("POST", "/lists/\(chores.id)/items", #"{"title": "Sweep"}"#, expect: .created, as: Item.self)
        #expect(milk.listID == groceries.id && sweep.listID == chores.id)
        #expect(eggs.dueDate == ISO8601DateFormatter().date(from: "2026-12-01T10:00:00Z"))

        func titles(_ query: String, list: UUID = groceries.id) async throws -> [String] {
            try await api.call("GET", "/lists/\(list)/items\(query)", as: [Item].self).map(\.title)
        }
        #expect(try await titles("") == ["Milk", "Eggs", "Bread"])
        #expect(try await titles("?sort=title") == ["Bread", "Eggs", "Milk"])
        #expect(try await titles("?sort=priority&order=desc") == ["Bread", "Milk", "Eggs"])
        #expect(try await titles("?sort=due") == ["Milk", "Eggs", "Bread"], "items without a date first, as Swift orders nil")
        #expect(try await titles("?search=MIL") == ["Milk"])
        #expect(try await titles("?minPriority=2") == ["Milk", "Bread"])
        #expect(try await titles("?dueBefore=2026-12-02T00:00:00Z") == ["Eggs"])
        #expect(try await titles("?sort=title&limit=2") == ["Bread", "Eggs"])
        #expect(try await titles("?sort=title&limit=2&offset=2") == ["Milk"])
        #expect(try await titles("", list: chores.id) == ["Sweep"])

        // Changing an item: absent members stay, null clears the date.
        let done = try await api.call("PATCH", "/items/\(bread.id)", #"{"isDone": true}"#, as: Item.self)
        #expect(done.isDone && done.dueDate == bread.dueDate && done.priority == 5)
        let undated = try await api.call("PATCH", "/items/\(bread.id)", #"{"dueDate": null, "title": "Rye bread"}"#, as: Item.self)
        #expect(undated.dueDate == nil && undated.title == "Rye bread" && undated.isDone)
        #expect(try await api.call("GET", "/items/\(bread.id)", as: Item.self) == undated)
        #expect(try await titles("?done=true") == ["Rye bread"])
        #expect(try await titles("?done=false") == ["Milk", "Eggs"])
        let counted = try await api.call("GET", "/lists/\(groceries.id)", as: List.self)
        #expect(counted.itemCount == 3 && counted.openCount == 2)
        #expect(try await api.call("GET", "/lists", as: [List].self).map(\.name) == ["Groceries", "House"])

        // Deleting: an item, then a list with its items (the cascade).
        let (deleted, _, _) = try await api.send(.delete, "/items/\(milk.id)", json: nil)
        #expect(deleted == .noContent)
        try await api.fail("GET", "/items/\(milk.id)", expect: .notFound)
        let (deletedList, _, _) = try await api.send(.delete, "/lists/\(groceries.id)", json: nil)
        #expect(deletedList == .noContent)
        try await api.fail("GET", "/items/\(eggs.id)", expect: .notFound)
        try await api.fail("GET", "/lists/\(groceries.id)/items", expect: .notFound)
        #expect(try await api.call("GET", "/lists", as: [List].self).map(\.name) == ["House"])
    }
}

extension APIClient {
    func call<T: Decodable>(_ method: String, _ uri: String, _ json: String? = nil, expect status: HTTPResponse.Status = .ok, as type: T.Type) async throws -> T {
        try await call(HTTPRequest.Method(method)!, uri, json, expect: status, as: type)
    }
    @discardableResult
    func fail(_ method: String, _ uri: String, _ json: String? = nil, expect status: HTTPResponse.Status) async throws -> String {
        try await fail(HTTPRequest.Method(method)!, uri, json, expect: status)
    }
}

@Suite("TodoServer: the JSON API on SQLite")
struct TodoServerTests {
    @Test func theAPIOnAnSQLiteFile() async throws {
        let directory = try TemporaryDirectory(prefix: "todo-server")
        defer { directory.remove() }
        var options = TodoServerOptions()
        options.store = .file(directory.path("todo.store"))
        try await exerciseTheAPI(try options.makeContainer())
    }

    @Test func badRequestsGetAStatusAndAMessage() async throws {
        let container = try ModelContainer(for: TodoList.self, TodoItem.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        try await withAPI(container) { api in
            #expect(try await api.fail("POST", "/lists", #"{"name": "  "}"#, expect: .badRequest) == "A list needs a name.")
            try await api.fail("POST", "/lists", #"{"title": "Groceries"}"#, expect: .badRequest)
            try await api.fail("POST", "/lists", "not json", expect: .badRequest)
            try await api.fail("GET", "/lists/\(UUID())", expect: .notFound)
            #expect(try await api.fail("GET", "/items/12", expect: .notFound) == #""12" is not an identifier (a UUID)."#)
            let list = try await api.call("POST", "/lists", #"{"name": "Groceries"}"#, expect: .created, as: List.self)
            #expect(try await api.fail("POST", "/lists/\(list.id)/items", #"{"title": ""}"#, expect: .badRequest) == "An item needs a title.")
            #expect(try await api.fail("GET", "/lists/\(list.id)/items?done=maybe", expect: .badRequest) == "done=maybe: expected true or false.")
            try await api.fail("GET", "/lists/\(list.id)/items?sort=colour", expect: .badRequest)
            try await api.fail("GET", "/lists/\(list.id)/items?limit=0", expect: .badRequest)
            try await api.fail("GET", "/lists/\(list.id)/items?dueBefore=tomorrow", expect: .badRequest)
            // Nothing was stored by the refused requests.
            #expect(try await api.call("GET", "/lists", as: [List].self).map(\.itemCount) == [0])
        }
    }

    /// What the server stored is there for a new container with the models in another order, and for
    /// another `todo-server` process started on the same file.
    @Test func whatItStoresSurvivesReopeningAndAnotherProcess() async throws {
        let directory = try TemporaryDirectory(prefix: "todo-server")
        defer { directory.remove() }
        let path = directory.path("todo.store")
        var options = TodoServerOptions()
        options.store = .file(path)
        let list = try await withAPI(try options.makeContainer()) { api in
            let list = try await api.call("POST", "/lists", #"{"name": "Books"}"#, expect: .created, as: List.self)
            _ = try await api.call("POST", "/lists/\(list.id)/items", #"{"title": "Middlemarch", "priority": 1}"#, expect: .created, as: Item.self)
            return list
        }
        let reopened = ModelContext(try ModelContainer(for: TodoItem.self, TodoList.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: path))))
        let items = try reopened.fetch(FetchDescriptor<TodoItem>())
        #expect(items.map(\.title) == ["Middlemarch"] && items.first?.list?.name == "Books")

        let server = try ServerProcess(["--store", path])
        let titles = try await server.withClient { client in
            try await client.call("GET", "/lists/\(list.id)/items", as: [Item].self).map(\.title)
        }
        #expect(titles == ["Middlemarch"])
        #expect(server.stop() == 0, "SIGTERM stops the server gracefully")
    }

    @Test func theCommandLine() throws {
        #expect(try TodoServerOptions(parsing: []) == TodoServerOptions())
        #expect(try TodoServerOptions(parsing: ["--help"]) == nil)
        let options = try #require(try TodoServerOptions(parsing: ["--postgres", "postgres://me@db:5432/todo", "--port", "0", "--host", "0.0.0.0"]))
        #expect(options.store == .postgres(URL(string: "postgres://me@db:5432/todo")!) && options.port == 0 && options.host == "0.0.0.0")
        #expect(throws: TodoServerError.self) { try TodoServerOptions(parsing: ["--port", "http"]) }
        #expect(throws: TodoServerError.self) { try TodoServerOptions(parsing: ["--postgres", "/tmp/todo.store"]) }
        #expect(throws: TodoServerError.self) { try TodoServerOptions(parsing: ["--store"]) }
        #expect(throws: TodoServerError.self) { try TodoServerOptions(parsing: ["serve"]) }
    }
}

@Suite("TodoServer on PostgreSQL", .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct TodoServerPostgresTests {
    @Test func theAPIOnPostgreSQL() async throws {
        let database = try TestDatabase()
        var options = TodoServerOptions()
        options.store = .postgres(database.url)
        try await exerciseTheAPI(try options.makeContainer())
    }

    /// Two `todo-server` processes on one database, as two instances behind a load balancer: what one
    /// writes, the other reads, both ways.
    @Test func twoServerProcessesShareOneDatabase() async throws {
        let database = try TestDatabase()
        let first = try ServerProcess(["--postgres", database.url.absoluteString])
        let second = try ServerProcess(["--postgres", database.url.absoluteString])
        let list = try await first.withClient { (client: TestClient) async throws in
            try await client.call("POST", "/lists", #"{"name": "Shared"}"#, expect: .created, as: List.self)
        }
        let item = try await second.withClient { (client: TestClient) async throws in
            #expect(try await client.call("GET", "/lists", as: [List].self).map(\.name) == ["Shared"])
            try await client.fail("POST", "/lists", #"{"name": "Shared"}"#, expect: .conflict)
            return try await client.call("POST", "/lists/\(list.id)/items", #"{"title": "Written through the second"}"#, expect: .created, as: Item.self)
        }
        try await first.withClient { (client: TestClient) async throws in
            #expect(try await client.call("GET", "/lists/\(list.id)/items", as: [Item].self) == [item])
            _ = try await client.call("PATCH", "/items/\(item.id)", #"{"isDone": true}"#, as: Item.self)
        }
        try await second.withClient { (client: TestClient) async throws in
            #expect(try await client.call("GET", "/items/\(item.id)", as: Item.self).isDone)
            #expect(try await client.call("GET", "/lists/\(list.id)", as: List.self).openCount == 0)
        }
        #expect(first.stop() == 0)
        #expect(second.stop() == 0)
    }
}
