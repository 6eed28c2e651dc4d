import Foundation
import Stowage
@testable import StowageCore
import Testing

/// A fetch reuses the translation (and the SQL text) of an earlier predicate of the same shape, binding
/// its own captured values: each value must still find exactly its own rows, including the values that
/// change the SQL (nil, NaN), values the translator folds, and shapes that differ only by a key path,
/// an operator, a limit or an offset. (In debug builds every reuse is also checked against a fresh
/// translation and a fresh SELECT, so the whole test suite exercises the cache.)
@Suite("Predicate translation cache")
struct PredicateCacheTests {
    let fixture: Fixture
    let all: [Item]

    init() throws {
        fixture = try Fixture()
        let names = ["apple", "Banana", "e\u{301}clair", "\u{E9}clair", "date", "", "apple pie"]
        let notes: [String?] = [nil, "ripe", "", "Ripe soon", nil, "x"]
        let prices = [1.5, 0, 9.25, -1, .infinity, 3]
        var items: [Item] = []
        for number in 0..<24 {
            items.append(Item(
                number: number, count: number % 7 - 3, price: prices[number % prices.count], name: names[number % names.count],
                note: notes[number % notes.count], rank: number % 3 == 0 ? nil : number % 5, flag: number % 2 == 0,
                status: Status.allCases[number % 3], previous: number % 4 == 0 ? nil : Status.allCases[(number + 1) % 3]))
        }
        try fixture.insert(items)
        all = try fixture.context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.number)]))
    }

    /// The numbers SQL returns and the numbers Swift's evaluation of the same predicate selects.
    private func check(_ predicate: Predicate<Item>, _ comment: Comment) throws {
        let fetched = try fixture.context.fetch(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.number)]))
        let expected = try all.filter { try predicate.evaluate($0) }
        #expect(fetched.map(\.number) == expected.map(\.number), comment)
        #expect(try fixture.context.fetchCount(FetchDescriptor(predicate: predicate)) == expected.count, comment)
    }

    @Test func eachValueOfOneShapeFindsItsOwnRows() throws {
        for name in ["apple", "\u{E9}clair", "e\u{301}clair", "", "pear", "Apple"] {
            try check(#Predicate { $0.name == name }, "name == \(name.debugDescription)")
            try check(#Predicate { $0.name != name && $0.flag }, "name != \(name.debugDescription) && flag")
            try check(#Predicate { $0.name.contains(name) }, "name.contains(\(name.debugDescription))")
            try check(#Predicate { $0.name.starts(with: name) }, "name.starts(with: \(name.debugDescription))")
        }
        for (low, high) in [(-3, 0), (0, 4), (2, 2), (5, -5)] {
            try check(#Predicate { $0.count >= low && $0.count < high }, "\(low) ≤ count < \(high)")
        }
        for status in Status.allCases {
            try check(#Predicate { $0.status == status }, "status == \(status)")
        }
    }

    @Test func nilAndNaNChangeTheSQLAndAreNeverBoundIntoAReusedTranslation() throws {
        // Alternating: a translation made for one kind of value is offered to the other kind next.
        for note in ["ripe", nil, "", nil, "x", "nothing"] as [String?] {
            try check(#Predicate { $0.note == note }, "note == \(String(describing: note))")
            try check(#Predicate { $0.note != note }, "note != \(String(describing: note))")
        }
        for rank in [1, nil, 4, nil] as [Int?] {
            try check(#Predicate { $0.rank == rank || $0.count == 3 }, "rank == \(String(describing: rank)) || count == 3")
        }
        for price in [1.5, .nan, -1, .nan, .infinity, 0] {
            try check(#Predicate { $0.price == price }, "price == \(price)")
            try check(#Predicate { $0.price != price }, "price != \(price)")
            try check(#Predicate { $0.price < price }, "price < \(price)")
        }
    }

    @Test func valuesTheTranslatorReadsAreNotCachedAsParameters() throws {
        // Folded arithmetic, a branch chosen by a constant, a captured collection, a range, `??` on a
        // constant: each depends on the value, so each value must give its own answer.
        for (a, b) in [(1, 2), (-3, 0), (0, 0)] {
            try check(#Predicate { $0.count == a + b }, "count == \(a) + \(b)")
        }
        for flag in [true, false, true] {
            try check(#Predicate { flag ? $0.count > 0 : $0.count < 0 }, "\(flag) ? count > 0 : count < 0")
            try check(#Predicate { flag && $0.flag }, "\(flag) && flag")
        }
        for names in [["apple", "date"], [], ["Banana"]] {
            try check(#Predicate { names.contains($0.name) }, "\(names).contains(name)")
        }
        for range in [0.0..<2.0, -5.0..<0.0, 3.0..<3.0] {
            try check(#Predicate { range.contains($0.price) }, "\(range).contains(price)")
        }
        for fallback in [nil, 2, nil] as [Int?] {
            try check(#Predicate { $0.count == (fallback ?? 1) }, "count == (\(String(describing: fallback)) ?? 1)")
        }
        for divisor in [2, 3] {
            try check(#Predicate { $0.count % divisor == 0 }, "count % \(divisor) == 0")
        }
    }

    @Test func keyPathsOperatorsAndClosureVariablesAreTheShape() throws {
        // Same node types, so the same expression type: only the key path or the operator differs.
        for value in [0, 2, -1] {
            try check(#Predicate { $0.count == value }, "count == \(value)")
            try check(#Predicate { $0.number == value }, "number == \(value)")
            try check(#Predicate { $0.count > value }, "count > \(value)")
            try check(#Predicate { $0.count <= value }, "count <= \(value)")
            try check(#Predicate { $0.count + value > 0 }, "count + \(value) > 0")
            try check(#Predicate { $0.count - value > 0 }, "count - \(value) > 0")
            try check(#Predicate { $0.rank.flatMap { $0 > value } ?? false }, "rank.flatMap { $0 > \(value) } ?? false")
        }
    }

    /// The translation of `predicate` through the fixture's cache of translations.
    private func translation(_ predicate: Predicate<Item>) throws -> PredicateTranslation {
        PredicateTranslator.cachedTranslation(
            predicate.expression, variable: predicate.variable.key, entity: try fixture.context.entity(for: Item.self),
            storeIdentifier: (fixture.container.store as! SQLiteStore).identifier)
    }

    @Test func aShapeIsTranslatedOnceAndItsSQLTextIsReused() throws {
        let first = "date", second = "apple"
        let made = try translation(#Predicate { $0.name == first })
        let reused = try translation(#Predicate { $0.name == second })
        let template = try #require(made.template, "a translation that only binds its value is kept")
        #expect(reused.template === template)
        #expect(made.parameters == [.text("date")] && reused.parameters == [.text("apple")])
        let nilNote: String? = nil
        #expect(try translation(#Predicate { $0.note == nilNote }).template == nil, "IS NULL depends on the value")

        let mark = fixture.statementCount
        _ = try fixture.context.fetch(FetchDescriptor(predicate: #Predicate<Item> { $0.name == first }))
        _ = try fixture.context.fetch(FetchDescriptor(predicate: #Predicate<Item> { $0.name == second }))
        let statements = fixture.log.events(of: fixture.container).dropFirst(mark)
        #expect(statements.count == 2)
        #expect(Set(statements.map(\.sql)).count == 1, "one SQL text: \(statements.map(\.sql))")
        #expect(statements.map(\.expandedSQL).allSatisfy { $0.contains("stowage_nfc") }, "\(statements.map(\.expandedSQL))")
    }

    /// A lookup by identifier in a loop (`#Predicate { $0.persistentModelID == id }`) is translated
    /// once, as a comparison of an attribute is.
    @Test func anIdentifierComparisonIsTranslatedOnce() throws {
        let first = all[0].persistentModelID, second = all[1].persistentModelID
        let made = try translation(#Predicate { $0.persistentModelID == first })
        let reused = try translation(#Predicate { $0.persistentModelID == second })
        let template = try #require(made.template, "a translation that only binds its identifier is kept")
        #expect(reused.template === template)
        #expect(made.parameters == [.integer(first.primaryKey!)] && reused.parameters == [.integer(second.primaryKey!)])
    }

    @Test func limitsAndOffsetsAreBoundNotCached() throws {
        let flag = true
        let matching = all.filter(\.flag).map(\.number)
        for (limit, offset) in [(1, 0), (3, 0), (3, 2), (1, 5), (50, 0), (2, 2)] {
            var descriptor = FetchDescriptor(predicate: #Predicate<Item> { $0.flag == flag }, sortBy: [SortDescriptor(\.number)])
            descriptor.fetchLimit = limit
            descriptor.fetchOffset = offset
            #expect(try fixture.context.fetch(descriptor).map(\.number) == Array(matching.dropFirst(offset).prefix(limit)),
                    "limit \(limit), offset \(offset)")
        }
    }

    @Test func identifiersOfAnotherStoreMatchNothingEvenThroughAReusedTranslation() throws {
        let other = try Fixture()
        try other.insert([Item(number: 100)])
        let foreign = try #require(try other.context.fetch(FetchDescriptor<Item>()).first?.persistentModelID)
        let own = all[0].persistentModelID
        #expect(own.primaryKey == foreign.primaryKey, "the same row number in both stores")
        for id in [own, foreign, own, foreign] {
            let found = try fixture.context.fetch(FetchDescriptor(predicate: #Predicate<Item> { $0.persistentModelID == id })).map(\.number)
            #expect(found == (id == own ? [0] : []), "\(id)")
        }
    }
}
