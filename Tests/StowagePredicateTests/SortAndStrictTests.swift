import Foundation
import Stowage
@testable import StowageCore
import Testing

@Suite("Sorting")
struct SortTests {
    static let names = ["a10", "A2", "b", "a2", "B1", "é", "e", "Zed", "a1", "\u{212A}", "K"]

    private func fixture() throws -> Fixture {
        let fixture = try Fixture()
        try fixture.insert(Self.names.enumerated().map { Item(number: $0.offset, count: $0.offset % 3, name: $0.element) })
        return fixture
    }

    private func expectedNumbers(_ compare: (String, String) -> ComparisonResult, reverse: Bool = false) -> [Int] {
        Self.names.enumerated().sorted { lhs, rhs in
            let order = compare(lhs.element, rhs.element)
            if order == .orderedSame { return lhs.offset < rhs.offset }
            return reverse ? order == .orderedDescending : order == .orderedAscending
        }.map(\.offset)
    }

    @Test func defaultStringOrderIsLocalizedStandard() throws {
        let fixture = try fixture()
        #expect(try fixture.numbers(#Predicate { _ in true }, sortBy: [SortDescriptor(\.name)]) == expectedNumbers { $0.localizedStandardCompare($1) })
        #expect(
            try fixture.numbers(#Predicate { _ in true }, sortBy: [SortDescriptor(\.name, order: .reverse)])
                == expectedNumbers({ $0.localizedStandardCompare($1) }, reverse: true))
    }

    /// `.lexical` is Foundation's unlocalized order: Unicode code point order of canonically normalized
    /// strings (Swift's own `<`), so the Kelvin sign sorts with "K".
    @Test func lexicalIsFoundationsCodePointOrder() throws {
        let fixture = try fixture()
        let expected = expectedNumbers { String.StandardComparator.lexical.compare($0, $1) }
        #expect(try fixture.numbers(#Predicate { _ in true }, sortBy: [SortDescriptor(\.name, comparator: .lexical)]) == expected)
        let ascii = ["A2", "B1", "K", "Zed", "a1", "a10", "a2", "b", "e"]
        let fetched = try fixture.context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.name, comparator: .lexical)])).map(\.name)
        #expect(fetched.filter { $0.allSatisfy(\.isASCII) } == ascii)
    }

    @Test func limitAndOffsetRunInSQL() throws {
        let fixture = try fixture()
        let all = expectedNumbers { $0.localizedStandardCompare($1) }
        var descriptor = FetchDescriptor<Item>(sortBy: [SortDescriptor(\.name)])
        descriptor.fetchLimit = 3
        descriptor.fetchOffset = 2
        #expect(try fixture.context.fetch(descriptor).map(\.number) == Array(all[2..<5]))
        #expect(try fixture.context.fetchCount(descriptor) == 3)
    }

    @Test func unsavedInsertsSortAsAfterSaving() throws {
        let fixture = try fixture()
        for (offset, name) in ["a3", "b", "\u{E9}", "0"].enumerated() {
            fixture.context.insert(Item(number: 100 + offset, count: offset % 3, name: name))
        }
        let sorts: [[SortDescriptor<Item>]] = [
            [SortDescriptor(\.name)], [SortDescriptor(\.count, order: .reverse), SortDescriptor(\.name, comparator: .lexical)],
        ]
        let before = try sorts.map { try fixture.numbers(#Predicate { $0.count >= 0 }, sortBy: $0) }
        try fixture.context.save()
        let after = try sorts.map { try fixture.numbers(#Predicate { $0.count >= 0 }, sortBy: $0) }
        #expect(before == after)
    }
}

/// `SortDescriptor(\.name, comparator: .localizedStandard)`, as Apple's samples spell it: it compiles on
/// Linux too, and orders strings as SwiftData does, in SQL and in Swift alike.
@Suite("Sorting with .localizedStandard")
struct LocalizedStandardSortTests {
    /// Case, numbers, accents and a width variant mixed; in Finder order they are
    /// "apple", "eclair", "Éclair", "item1", "item2", "Item10", "Seed Mix 9", "seed mix 10", "Zebra".
    static let names = ["seed mix 10", "Zebra", "Item10", "Éclair", "item2", "Seed Mix 9", "apple", "eclair", "item1"]
    static let finderOrder = ["apple", "eclair", "Éclair", "item1", "item2", "Item10", "Seed Mix 9", "seed mix 10", "Zebra"]

    private func fixture() throws -> Fixture {
        let fixture = try Fixture()
        try fixture.insert(Self.names.enumerated().map { Item(number: $0.offset, name: $0.element, note: $0.element) })
        return fixture
    }

    private func names(_ fixture: Fixture, _ sortBy: [SortDescriptor<Item>]) throws -> [String] {
        try fixture.context.fetch(FetchDescriptor<Item>(sortBy: sortBy)).map(\.name)
    }

    @Test func sortsInFinderOrder() throws {
        let fixture = try fixture()
        #expect(Self.finderOrder == Self.names.sorted { $0.localizedStandardCompare($1) == .orderedAscending })
        #expect(try names(fixture, [SortDescriptor(\.name, comparator: .localizedStandard)]) == Self.finderOrder)
        #expect(try names(fixture, [SortDescriptor(\.name, comparator: .localizedStandard, order: .reverse)]) == Self.finderOrder.reversed())
        // An optional string, and the leading-dot spelling of `@Query(sort: [.init(\Plant.name, comparator: .localizedStandard)])`.
        let sortBy: [SortDescriptor<Item>] = [.init(\Item.note, comparator: .localizedStandard)]
        #expect(try names(fixture, sortBy) == Self.finderOrder)
        // The same descriptor as SwiftData's default for strings.
        #expect(SortDescriptor(\Item.name, comparator: .localizedStandard) == SortDescriptor(\Item.name))
        // `.lexical` is still Foundation's own.
        #expect(try names(fixture, [SortDescriptor(\.name, comparator: .lexical)]) == Self.names.sorted())
    }

    /// `.localized` compiles; Stowage sorts it as `.localizedStandard` (a Linux `SortDescriptor` records no other).
    @Test func localizedSortsAsLocalizedStandard() throws {
        let fixture = try fixture()
        #expect(try names(fixture, [SortDescriptor(\.name, comparator: .localized)]) == Self.finderOrder)
    }

    @Test func orderByUsesTheLocalizedStandardCollation() throws {
        let fixture = try fixture()
        let mark = fixture.statementCount
        _ = try fixture.context.fetch(FetchDescriptor<Item>(sortBy: [
            SortDescriptor(\.name, comparator: .localizedStandard), SortDescriptor(\.note, comparator: .localizedStandard, order: .reverse),
        ]))
        #expect(fixture.statements(after: mark) == [
            #"SELECT "_pk", "number", "count", "price", "name", "note", "rank", "flag", "date", "status", "previous", "token" FROM "Item" "#
                + #"ORDER BY "name" COLLATE localizedStandard, "note" COLLATE localizedStandard DESC, "_pk""#,
        ])
    }

    /// Unsaved models merged into the sorted results take the places SQL gives them once saved.
    @Test func unsavedModelsMergeInFinderOrder() throws {
        let fixture = try fixture()
        for (offset, name) in ["Seed Mix 11", "item3", "ÉCLAIR", "seed mix 8"].enumerated() {
            fixture.context.insert(Item(number: 100 + offset, name: name))
        }
        let sortBy = [SortDescriptor<Item>(\.name, comparator: .localizedStandard)]
        let merged = try names(fixture, sortBy)
        #expect(merged == (Self.names + ["Seed Mix 11", "item3", "ÉCLAIR", "seed mix 8"]).sorted { $0.localizedStandardCompare($1) == .orderedAscending })
        #expect(merged.firstIndex(of: "seed mix 8")! < merged.firstIndex(of: "Seed Mix 9")!)
        #expect(merged.firstIndex(of: "Seed Mix 11")! > merged.firstIndex(of: "seed mix 10")!)
        try fixture.context.save()
        #expect(try names(fixture, sortBy) == merged)
    }
}

@Suite("Strict mode and Swift fallback")
struct StrictModeTests {
    @Test func strictModeThrowsNamingTheNode() throws {
        let fixture = try Fixture()
        fixture.context.requiresSQLTranslation = true
        let zero = 0.0
        let mark = fixture.statementCount
        let error = try #require(throws: StowageError.self) { try fixture.numbers(#Predicate { $0.price / $0.price > zero }) }
        #expect(error.code == .unsupportedPredicate)
        #expect(error.entityName == "Item")
        #expect(error.message == "The predicate node FloatDivision cannot run in SQL (a divisor that may be zero gives ±infinity or NaN in Swift but NULL in SQL); strict mode is on, so the fetch fails.")
        #expect(fixture.statements(after: mark).isEmpty, "strict mode refuses the fetch before running any SQL")
    }

    @Test func fallbackEvaluatesInSwiftOverNarrowedRows() throws {
        let fixture = try Fixture()
        try fixture.insert([
            Item(number: 0, count: 1, price: 0), Item(number: 1, count: 2, price: 2), Item(number: 2, count: 3, price: -4),
        ])
        let predicate = #Predicate<Item> { $0.count >= 2 && $0.price / $0.price < 2 }
        let translation = countSQL(predicate)
        #expect(translation.sql == #"SELECT COUNT(*) FROM "Item" WHERE ("count" >= ?)"#)
        #expect(!translation.complete)
        // 0/0 is NaN in Swift (not < 2); 2/2 and -4/-4 are 1.
        #expect(try fixture.numbers(predicate) == [1, 2])
        #expect(try fixture.context.fetchCount(FetchDescriptor(predicate: predicate)) == 2)
    }

    @Test func unsupportedSortThrowsInStrictMode() throws {
        let fixture = try Fixture()
        try fixture.insert([Item(number: 0, status: .draft), Item(number: 1, status: .active), Item(number: 2, status: .archived)])
        fixture.context.requiresSQLTranslation = true
        let mark = fixture.statementCount
        let error = try #require(throws: StowageError.self) {
            try fixture.numbers(#Predicate { _ in true }, sortBy: [SortDescriptor(\.status.rawValue)])
        }
        #expect(error.code == .unsupportedSortDescriptor && error == SwiftDataError.unsupportedSortDescriptor, "\(error)")
        #expect(error.entityName == "Item")
        #expect(error.message.hasPrefix("The sort "))
        #expect(error.message.hasSuffix(
            " cannot run in SQL: its key path is neither a stored attribute nor an attribute reached through to-one relationships."),
            "\(error.message)")
        #expect(fixture.statements(after: mark).isEmpty, "strict mode refuses the fetch before running any SQL")
        // Outside strict mode the same sort runs in Swift.
        fixture.context.requiresSQLTranslation = false
        #expect(try fixture.numbers(#Predicate { _ in true }, sortBy: [SortDescriptor(\.status.rawValue)]) == [1, 2, 0])
    }
}
