import Foundation
import Stowage
@testable import StowageCore
import Testing

/// The exact SQL and arguments each predicate construct becomes.
@Suite("SQL snapshots")
struct SQLSnapshotTests {
    private func expect(
        _ predicate: Predicate<Item>, _ sql: String, _ arguments: [StorageValue], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let rendered = countSQL(predicate)
        #expect(rendered.sql == sql, sourceLocation: sourceLocation)
        #expect(rendered.arguments == arguments, sourceLocation: sourceLocation)
        #expect(rendered.complete, "translation fell back to Swift", sourceLocation: sourceLocation)
    }

    private let prefix = #"SELECT COUNT(*) FROM "Item" WHERE "#

    @Test func comparisons() {
        let limit = 3
        expect(#Predicate<Item> { $0.count == limit }, prefix + #"("count" = ?)"#, [.integer(3)])
        expect(#Predicate<Item> { $0.count != 3 }, prefix + #"("count" <> ?)"#, [.integer(3)])
        expect(#Predicate<Item> { $0.price < 2.5 }, prefix + #"("price" < ?)"#, [.real(2.5)])
        expect(#Predicate<Item> { 3 <= $0.count }, prefix + #"(? <= "count")"#, [.integer(3)])
        expect(#Predicate<Item> { $0.name > "m" }, prefix + #"(stowage_nfc("name") > ?)"#, [.text("m")])
        expect(#Predicate<Item> { $0.count >= $0.number }, prefix + #"("count" >= "number")"#, [])
    }

    @Test func optionalsAndNil() {
        let missing: String? = nil
        expect(#Predicate<Item> { $0.note == nil }, prefix + #"("note" IS NULL)"#, [])
        expect(#Predicate<Item> { $0.note != nil }, prefix + #"(NOT ("note" IS NULL))"#, [])
        expect(#Predicate<Item> { $0.note == missing }, prefix + #"("note" IS NULL)"#, [])
        expect(#Predicate<Item> { $0.note == "a" }, prefix + #"(stowage_nfc("note") IS ?)"#, [.text("a")])
        expect(#Predicate<Item> { $0.note != "a" }, prefix + #"(stowage_nfc("note") IS NOT ?)"#, [.text("a")])
        expect(#Predicate<Item> { ($0.rank ?? 0) > 2 }, prefix + #"(COALESCE("rank", ?) > ?)"#, [.integer(0), .integer(2)])
        expect(#Predicate<Item> { $0.rank! > 2 }, prefix + #"(stowage_unwrap("rank") > ?)"#, [.integer(2)])
        expect(#Predicate<Item> { $0.note?.count == 2 }, prefix + #"(stowage_count("note") IS ?)"#, [.integer(2)])
        expect(
            #Predicate<Item> { $0.note.flatMap { $0.isEmpty } == true },
            prefix + #"(("note" = ?) IS ?)"#, [.text(""), .integer(1)])
        expect(
            #Predicate<Item> { $0.previous?.rawValue == "draft" },
            prefix + #"(stowage_nfc("previous") IS ?)"#, [.text("draft")])
    }

    @Test func logic() {
        expect(
            #Predicate<Item> { $0.flag && ($0.count > 1 || !($0.price == 0)) },
            prefix + #"("flag" AND (("count" > ?) OR (NOT ("price" = ?))))"#, [.integer(1), .real(0)])
        expect(#Predicate<Item> { !$0.flag }, prefix + #"(NOT "flag")"#, [])
        expect(#Predicate<Item> { $0.flag == false }, prefix + #"("flag" = ?)"#, [.integer(0)])
        // A force unwrap after `&&` keeps Swift's order: it is only evaluated where the left side holds.
        expect(
            #Predicate<Item> { $0.rank != nil && $0.rank! > 2 },
            prefix + #"(CASE WHEN (NOT ("rank" IS NULL)) THEN (stowage_unwrap("rank") > ?) ELSE ? END)"#,
            [.integer(2), .integer(0)])
    }

    @Test func arithmetic() {
        expect(
            #Predicate<Item> { -$0.count + 2 * $0.number > 4 },
            prefix + #"(((-"count") + (? * "number")) > ?)"#, [.integer(2), .integer(4)])
        expect(#Predicate<Item> { $0.count / 2 == 1 }, prefix + #"(("count" / ?) = ?)"#, [.integer(2), .integer(1)])
        expect(#Predicate<Item> { $0.count % 3 == 1 }, prefix + #"(("count" % ?) = ?)"#, [.integer(3), .integer(1)])
        expect(#Predicate<Item> { $0.price / 2 > 1 }, prefix + #"(("price" / ?) > ?)"#, [.real(2), .real(1)])
        expect(#Predicate<Item> { $0.price * 3 - 1 > 1 }, prefix + #"((("price" * ?) - ?) > ?)"#, [.real(3), .real(1), .real(1)])
    }

    @Test func stringsAndCollections() {
        let names = ["a", "b"]
        let ranks = [1, nil]
        expect(#Predicate<Item> { $0.name.contains("ab") }, prefix + #"stowage_contains("name", ?)"#, [.text("ab")])
        expect(#Predicate<Item> { $0.name.starts(with: "ab") }, prefix + #"stowage_starts_with("name", ?)"#, [.text("ab")])
        expect(
            #Predicate<Item> { $0.name.localizedStandardContains("ab") },
            prefix + #"stowage_localized_standard_contains("name", ?)"#, [.text("ab")])
        expect(#Predicate<Item> { names.contains($0.name) }, prefix + #"(stowage_nfc("name") IN (?, ?))"#, [.text("a"), .text("b")])
        expect(#Predicate<Item> { ranks.contains($0.rank) }, prefix + #"(("rank" IS NULL) OR ("rank" IN (?)))"#, [.integer(1)])
        expect(
            #Predicate<Item> { item in names.contains(where: { $0 == item.name }) },
            prefix + #"((? = stowage_nfc("name")) OR (? = stowage_nfc("name")))"#, [.text("a"), .text("b")])
        expect(#Predicate<Item> { (2...5).contains($0.count) }, prefix + #"(("count" >= ?) AND ("count" <= ?))"#, [.integer(2), .integer(5)])
        expect(#Predicate<Item> { $0.name.count > 2 }, prefix + #"(stowage_count("name") > ?)"#, [.integer(2)])
    }

    @Test func storedForms() {
        let status = Status.active
        let statuses = [Status.active, .archived]
        let day = Date(timeIntervalSinceReferenceDate: 86_400.5)
        let token = UUID(uuidString: "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")!
        expect(#Predicate<Item> { $0.status == status }, prefix + #"("status" = ?)"#, [.text("active")])
        expect(#Predicate<Item> { $0.status.rawValue == "active" }, prefix + #"(stowage_nfc("status") = ?)"#, [.text("active")])
        expect(#Predicate<Item> { statuses.contains($0.status) }, prefix + #"("status" IN (?, ?))"#, [.text("active"), .text("archived")])
        expect(#Predicate<Item> { $0.previous == status }, prefix + #"("previous" IS ?)"#, [.text("active")])
        expect(#Predicate<Item> { $0.date < day }, prefix + #"("date" < ?)"#, [.real(86_400.5)])
        expect(#Predicate<Item> { $0.token == token }, prefix + #"("token" = ?)"#, [.text("E621E1F8-C36C-495A-93FC-0C247A3E6E5F")])
        expect(#Predicate<Item> { $0.flag }, prefix + #""flag""#, [])
    }

    @Test func conditionals() {
        let draft = Status.draft
        let archived = Status.archived
        expect(
            #Predicate<Item> { $0.flag ? $0.count > 1 : $0.price < 1 },
            prefix + #"(CASE WHEN "flag" THEN ("count" > ?) ELSE ("price" < ?) END)"#, [.integer(1), .real(1)])
        expect(
            #Predicate<Item> { ($0.flag ? $0.status : draft) == archived },
            prefix + #"((CASE WHEN "flag" THEN "status" ELSE ? END) = ?)"#, [.text("draft"), .text("archived")])
    }

    @Test func constantsFold() {
        let threshold = 10
        let rendered = countSQL(#Predicate<Item> { $0.count > threshold * 2 - 1 && true })
        #expect(rendered.sql == prefix + #"("count" > ?)"#)
        #expect(rendered.arguments == [.integer(19)])
        #expect(countSQL(#Predicate<Item> { _ in true }).sql == #"SELECT COUNT(*) FROM "Item""#)
    }

    /// The whole statement a fetch runs, captured from the store.
    @Test func fetchStatement() throws {
        let fixture = try Fixture()
        let mark = fixture.statementCount
        let minimum = 2
        var descriptor = FetchDescriptor<Item>(
            predicate: #Predicate { $0.count >= minimum && $0.note != nil }, sortBy: [SortDescriptor(\.name), SortDescriptor(\.price, order: .reverse)])
        descriptor.fetchLimit = 10
        descriptor.fetchOffset = 5
        _ = try fixture.context.fetch(descriptor)
        #expect(fixture.log.events(of: fixture.container).dropFirst(mark).map(\.sql) == [
            #"SELECT "_pk", "number", "count", "price", "name", "note", "rank", "flag", "date", "status", "previous", "token" FROM "Item" "#
                + #"WHERE (("count" >= ?) AND (NOT ("note" IS NULL))) ORDER BY "name" COLLATE localizedStandard, "price" DESC, "_pk" LIMIT ? OFFSET ?"#,
        ])
        #expect(fixture.statements(after: mark) == [
            #"SELECT "_pk", "number", "count", "price", "name", "note", "rank", "flag", "date", "status", "previous", "token" FROM "Item" "#
                + #"WHERE (("count" >= 2) AND (NOT ("note" IS NULL))) ORDER BY "name" COLLATE localizedStandard, "price" DESC, "_pk" LIMIT 10 OFFSET 5"#,
        ])
    }

    /// Lookups by primary key are rendered from a cached prefix; the text is the general renderer's.
    @Test func primaryKeyLookupMatchesTheGeneralRenderer() {
        for keys: [Int64] in [[7], [3, 1, 2]] {
            var query = StoreQuery(entity: itemEntity)
            query.primaryKeys = keys
            #expect(SQLiteSQL.isPrimaryKeyLookup(query))
            let general = SQLiteSQL.select(query)
            let fast = SQLiteSQL.selectByPrimaryKeys(prefix: SQLiteSQL.primaryKeyLookupPrefix(query, columns: SQLiteSQL.columnList(query)), keys)
            #expect(fast == general)
            #expect(fast.arguments == keys.map { .integer($0) })
        }
        var limited = StoreQuery(entity: itemEntity)
        limited.primaryKeys = [1]
        limited.limit = 1
        #expect(!SQLiteSQL.isPrimaryKeyLookup(limited))
    }

    /// `model(for:)` on an empty context runs one lookup by primary key and registers the model.
    @Test func modelForIdentifierRunsOneLookup() throws {
        let fixture = try Fixture()
        try fixture.insert([Item(number: 41), Item(number: 42)])
        let id = try #require(try fixture.context.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.number == 42 })).first?.persistentModelID)
        let context = ModelContext(fixture.container)
        let mark = fixture.statementCount
        let model = try #require(context.model(for: id) as? Item)
        #expect(model.number == 42)
        #expect(fixture.log.events(of: fixture.container).dropFirst(mark).map(\.sql) == [
            #"SELECT "_pk", "number", "count", "price", "name", "note", "rank", "flag", "date", "status", "previous", "token" FROM "Item" WHERE ("_pk" IN (?)) ORDER BY "_pk""#,
        ])
        #expect(context.registeredModel(for: id) as Item? === model)
    }
}
