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

    @Test func eventsCarryStatementBoundValuesOrderAndStore() throws {
        let capture = StatementCapture()
        let container = try inMemoryContainer(Item.self)
        let other = try inMemoryContainer(Item.self)
        #expect((container.store as! SQLiteStore).identifier != (other.store as! SQLiteStore).identifier)
        let context = ModelContext(container)
        context.insert(Item(name: "O'Brien\0x", value: 42))
        try context.save()
        _ = try ModelContext(other).fetch(FetchDescriptor<Item>())

        // The save's statements, in the order they ran: one INSERT inside one transaction.
        let events = capture.log.events(of: container).filter { !isHistoryStatement($0.sql) }
        let insertSQL = #"INSERT INTO "Item" ("name", "value", "order", "note", "tags") VALUES (?, ?, ?, ?, ?)"#
        #expect(events.map(\.sql) == ["BEGIN IMMEDIATE TRANSACTION", insertSQL, "COMMIT TRANSACTION"])
        let insert = try #require(events.first { $0.sql.hasPrefix("INSERT") })
        #expect(insert.sql == insertSQL)
        #expect(insert.expandedSQL.hasPrefix(#"INSERT INTO "Item" ("name", "value", "order", "note", "tags") VALUES ('O''Brien"#))
        #expect(insert.expandedSQL.hasSuffix(#"', 42, 0, NULL, '[]')"#))
        #expect(insert.storeIdentifier == (container.store as! SQLiteStore).identifier)
        #expect(events.allSatisfy { $0.storeIdentifier == (container.store as! SQLiteStore).identifier })
        // expandedSQL is for reading only (SQLite's rendering stops at the NUL); the bound value is whole.
        #expect(try ModelContext(container).fetch(FetchDescriptor<Item>()).map(\.name) == ["O'Brien\0x"])

        // The other store's fetch is reported under its own identifier, without a transaction.
        #expect(capture.sql(of: other) == [#"SELECT "_pk", "name", "value", "order", "note", "tags" FROM "Item" ORDER BY "_pk""#])
    }

    /// A cancelled observation stops receiving events, while the store (opened while it observed) keeps
    /// reporting its statements to the observations still alive.
    @Test func cancelledObservationsReceiveNoMoreEvents() throws {
        let capture = StatementCapture()
        let control = StatementCapture()
        let container = try inMemoryContainer(Item.self)
        let context = ModelContext(container)
        let select = #"SELECT "_pk", "name", "value", "order", "note", "tags" FROM "Item" ORDER BY "_pk""#
        _ = try context.fetch(FetchDescriptor<Item>())
        #expect(capture.sql(of: container) == [select], "the observation saw the fetch before it was cancelled")

        capture.observation.cancel()
        _ = try context.fetchCount(FetchDescriptor<Item>())
        context.insert(Item(name: "after", value: 1))
        try context.save()
        #expect(capture.sql(of: container) == [select], "a cancelled observation received events")
        #expect(control.sql(of: container).contains(#"SELECT COUNT(*) FROM "Item""#))
        #expect(control.statements(of: container).map(\.sql).contains { $0.hasPrefix(#"INSERT INTO "Item""#) })
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
