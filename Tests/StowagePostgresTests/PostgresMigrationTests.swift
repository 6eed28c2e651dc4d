import Foundation
import Stowage
@testable import StowagePostgres
import Testing

enum NotesV1 {
    @Model final class Jotting {
        var title: String
        var body: String
        init(title: String, body: String) {
            self.title = title
            self.body = body
        }
    }
}

enum NotesV2 {
    @Model final class Jotting {
        @Attribute(.unique) var title: String
        @Attribute(originalName: "body") var text: String
        var pinned: Bool = false
        var priority: Int?
        init(title: String, text: String) {
            self.title = title
            self.text = text
        }
    }

    @Model final class Binder {
        var name: String
        init(name: String) { self.name = name }
    }
}

enum NotesV3 {
    @Model final class Jotting {
        var title: String
        var text: Int
        init(title: String, text: Int) {
            self.title = title
            self.text = text
        }
    }
}

@Suite("PostgreSQL: lightweight migrations", .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct PostgresMigrationTests {
    @Test func addedRenamedAndNewModelsMigrateInPlace() throws {
        let database = try TestDatabase()
        do {
            let context = ModelContext(try database.container([NotesV1.Jotting.self]))
            context.insert(NotesV1.Jotting(title: "a", body: "first"))
            context.insert(NotesV1.Jotting(title: "b", body: "second"))
            try context.save()
        }
        let container = try database.container([NotesV2.Jotting.self, NotesV2.Binder.self])
        let context = ModelContext(container)
        let notes = try context.fetch(FetchDescriptor<NotesV2.Jotting>(sortBy: [SortDescriptor(\.title)]))
        #expect(notes.map(\.text) == ["first", "second"])
        #expect(notes.allSatisfy { !$0.pinned && $0.priority == nil })
        context.insert(NotesV2.Binder(name: "inbox"))
        context.insert(NotesV2.Jotting(title: "a", text: "first, edited"))  // the new unique title: an upsert
        try context.save()
        let reopened = ModelContext(try database.container([NotesV2.Binder.self, NotesV2.Jotting.self]))
        #expect(try reopened.fetchCount(FetchDescriptor<NotesV2.Jotting>()) == 2)
        #expect(try reopened.fetch(FetchDescriptor<NotesV2.Jotting>(predicate: #Predicate { $0.title == "a" })).first?.text == "first, edited")
        #expect(try reopened.fetchCount(FetchDescriptor<NotesV2.Binder>()) == 1)
    }

    @Test func aChangeItCannotMakeLeavesTheDatabaseAsItWas() throws {
        let database = try TestDatabase()
        do {
            let context = ModelContext(try database.container([NotesV2.Jotting.self]))
            context.insert(NotesV2.Jotting(title: "a", text: "words"))
            try context.save()
        }
        let error = try #require(throws: StowageError.self) { try database.container([NotesV3.Jotting.self]) }
        #expect(error.code == .schemaMismatch && error.message.contains("text"))
        // Untouched: the old models still open it and read their row.
        let context = ModelContext(try database.container([NotesV2.Jotting.self]))
        #expect(try context.fetch(FetchDescriptor<NotesV2.Jotting>()).map(\.text) == ["words"])
    }

    @Test func instancesStartingTogetherMigrateOnce() async throws {
        let database = try TestDatabase()
        do {
            let context = ModelContext(try database.container([NotesV1.Jotting.self]))
            for index in 0..<50 { context.insert(NotesV1.Jotting(title: "n\(index)", body: "b\(index)")) }
            try context.save()
        }
        let configuration = try database.configuration()
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let container = try ModelContainer(for: NotesV2.Jotting.self, NotesV2.Binder.self, configurations: configuration)
                    return try ModelContext(container).fetchCount(FetchDescriptor<NotesV2.Jotting>(predicate: #Predicate { $0.text.starts(with: "b") }))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counts == [50, 50, 50, 50])
    }
}

/// A PostgreSQL store records the description of its models as an SQLite store does: written when it
/// is created, and added again on the next open by a container that can save.
@Suite("PostgreSQL: the description of the models", .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct PostgresDescriptionTests {
    @Test func aStoreDescribesItsModelsAndGetsItBackOnOpen() throws {
        let database = try TestDatabase()
        let driver = try PostgresDriver(try PostgresConfiguration(url: database.url))
        defer { driver.shutdown() }
        func description() throws -> String? {
            try driver.withConnection { connection in
                var found: String?
                try connection.query("SELECT \"value\" FROM \"_stowage_metadata\" WHERE \"key\" = 'schema_description'", []) { row in
                    if case .text(let text) = row.first { found = text }
                }
                return found
            }
        }
        do { _ = try database.container([NotesV2.Jotting.self, NotesV2.Binder.self]) }
        let recorded = try #require(try description())
        #expect(recorded.contains("\"name\":\"Jotting\"") && recorded.contains("\"type\":\"Bool\""))
        try driver.withConnection { try $0.execute("DELETE FROM \"_stowage_metadata\" WHERE \"key\" = 'schema_description'") }
        #expect(try description() == nil)
        do { _ = try database.container([NotesV2.Binder.self, NotesV2.Jotting.self]) }
        #expect(try description() == recorded, "the same description, whatever the models' order")
    }
}
