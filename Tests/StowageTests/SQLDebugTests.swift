import Foundation
import Stowage
@testable import StowageCore
import Testing

/// Item 11: the SQL debug log.
@Suite struct SQLDebugTests {
    @Test func levelFromEnvironmentAndLaunchArguments() {
        #expect(SQLDebug.levelFromEnvironment(environment: [:], arguments: ["app"]) == 0)
        #expect(SQLDebug.levelFromEnvironment(environment: ["STOWAGE_SQL_DEBUG": "1"], arguments: ["app"]) == 1)
        #expect(SQLDebug.levelFromEnvironment(environment: ["STOWAGE_SQL_DEBUG": "2"], arguments: ["app"]) == 2)
        #expect(SQLDebug.levelFromEnvironment(environment: ["STOWAGE_SQL_DEBUG": "0"], arguments: ["app", "-com.apple.CoreData.SQLDebug", "1"]) == 0)
        #expect(SQLDebug.levelFromEnvironment(environment: [:], arguments: ["app", "-com.apple.CoreData.SQLDebug", "1"]) == 1)
        #expect(SQLDebug.levelFromEnvironment(environment: [:], arguments: ["app", "-com.apple.CoreData.SQLDebug", "3"]) == 3)
        #expect(SQLDebug.levelFromEnvironment(environment: [:], arguments: ["app", "-com.apple.CoreData.SQLDebug"]) == 1)
        #expect(SQLDebug.levelFromEnvironment(environment: [:], arguments: ["app", "-com.apple.SwiftData.SQLDebug", "2"]) == 2)
        #expect(SQLDebug.levelFromEnvironment(environment: ["STOWAGE_SQL_DEBUG": "yes"], arguments: ["app"]) == 0)
        #expect(SQLDebug.levelFromEnvironment(environment: ["OTHER": "1"], arguments: ["app", "1"]) == 0)
    }

    @Test func eventsCarryStatementBoundValuesDurationAndStore() throws {
        let capture = StatementCapture()
        let container = try inMemoryContainer(Item.self)
        let other = try inMemoryContainer(Item.self)
        let context = ModelContext(container)
        context.insert(Item(name: "O'Brien\0x", value: 42))
        try context.save()
        _ = try ModelContext(other).fetch(FetchDescriptor<Item>())

        let events = capture.log.events(of: container)
        let insert = try #require(events.first { $0.sql.hasPrefix("INSERT") })
        #expect(insert.sql == #"INSERT INTO "Item" ("name", "value", "order", "note", "tags") VALUES (?, ?, ?, ?, ?)"#)
        #expect(insert.expandedSQL.hasPrefix(#"INSERT INTO "Item" ("name", "value", "order", "note", "tags") VALUES ('O''Brien"#))
        #expect(insert.expandedSQL.hasSuffix(#"', 42, 0, NULL, '[]')"#))
        #expect(insert.duration >= 0)
        #expect(insert.storeIdentifier == container.store.identifier)
        #expect(events.allSatisfy { $0.storeIdentifier == container.store.identifier })

        let otherEvents = capture.sql(of: other)
        #expect(otherEvents.contains(#"SELECT "_pk", "name", "value", "order", "note", "tags" FROM "Item" ORDER BY "_pk""#))
        #expect(!otherEvents.contains { $0.hasPrefix("INSERT") })
    }

    @Test func storesOpenedWithoutObserversAreNotObserved() throws {
        let capture = StatementCapture()
        capture.observation.cancel()
        let container = try inMemoryContainer(Item.self)
        _ = try ModelContext(container).fetch(FetchDescriptor<Item>())
        #expect(capture.sql(of: container).isEmpty)
    }

    @Test func fetchesRunTheirSQL() throws {
        let capture = StatementCapture()
        let container = try inMemoryContainer(Item.self)
        let context = ModelContext(container)
        capture.removeAll()
        var descriptor = FetchDescriptor<Item>(predicate: #Predicate { $0.value > 3 }, sortBy: [SortDescriptor(\.value, order: .reverse)])
        descriptor.fetchLimit = 5
        _ = try context.fetch(descriptor)
        _ = try context.fetchCount(FetchDescriptor<Item>())
        let events = capture.statements(of: container)
        #expect(events.map(\.sql) == [
            #"SELECT "_pk", "name", "value", "order", "note", "tags" FROM "Item" WHERE ("value" > ?) ORDER BY "value" DESC, "_pk" LIMIT ?"#,
            #"SELECT COUNT(*) FROM "Item""#,
        ])
        #expect(events.first?.expandedSQL == #"SELECT "_pk", "name", "value", "order", "note", "tags" FROM "Item" WHERE ("value" > 3) ORDER BY "value" DESC, "_pk" LIMIT 5"#)
    }
}
