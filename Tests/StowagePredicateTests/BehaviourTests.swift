import Foundation
import Stowage
@testable import StowageCore
import Testing

/// Each construct returns the right models from an in-memory store.
@Suite("Predicate behaviour")
struct BehaviourTests {
    let fixture: Fixture

    init() throws {
        fixture = try Fixture()
        try fixture.insert([
            Item(number: 0, count: 7, price: 1.5, name: "apple", note: nil, rank: nil, flag: true, status: .draft),
            Item(number: 1, count: -3, price: 0, name: "Banana", note: "ripe", rank: 2, flag: false, status: .active, previous: .draft),
            Item(number: 2, count: 4, price: 9.25, name: "e\u{301}clair", note: "", rank: 0, flag: true, status: .archived, previous: .active),
            Item(number: 3, count: 10, price: -1, name: "date", note: "Ripe soon", rank: -1, flag: false, status: .active),
        ])
    }

    @Test func comparisonsAndLogic() throws {
        #expect(try fixture.numbers(#Predicate { $0.count > 3 && !$0.flag }) == [3])
        #expect(try fixture.numbers(#Predicate { $0.count < 0 || $0.price > 9 }) == [1, 2])
        #expect(try fixture.numbers(#Predicate { $0.flag }) == [0, 2])
        #expect(try fixture.numbers(#Predicate { $0.name == "\u{E9}clair" }) == [2], "canonically equivalent strings are equal, as in Swift")
    }

    @Test func nilSemantics() throws {
        #expect(try fixture.numbers(#Predicate { $0.note != "ripe" }) == [0, 2, 3], "nil != \"ripe\" is true in Swift")
        #expect(try fixture.numbers(#Predicate { $0.rank == nil }) == [0])
        #expect(try fixture.numbers(#Predicate { !($0.note?.isEmpty == true) }) == [0, 1, 3])
        #expect(try fixture.numbers(#Predicate { ($0.rank ?? 5) > 1 }) == [0, 1])
        #expect(try fixture.numbers(#Predicate { $0.rank != nil && $0.rank! < 1 }) == [2, 3])
    }

    @Test func nanConstantsCompareAsInSwift() throws {
        // SQLite stores NaN as NULL; the translator answers comparisons with a NaN constant itself.
        let nan = Double.nan
        #expect(try fixture.numbers(#Predicate { $0.price == nan }) == [])
        #expect(try fixture.numbers(#Predicate { $0.price != nan }) == [0, 1, 2, 3])
        #expect(try fixture.numbers(#Predicate { $0.price < nan }) == [])
        #expect(try fixture.numbers(#Predicate { nan >= $0.price }) == [])
        #expect(try fixture.numbers(#Predicate { $0.price * 2 != nan && $0.count > 5 }) == [0, 3])
    }

    @Test func forceUnwrapOfNilFailsTheFetch() throws {
        let error = try #require(throws: StowageError.self) { try fixture.numbers(#Predicate { $0.rank! > 0 }) }
        #expect(error.code == .fetchFailed, "\(error)")
        #expect(error.message.contains("force-unwrapped (`!`) a nil value"), "\(error.message)")
        #expect(error.sql?.contains("stowage_unwrap(") == true, "\(error.sql ?? "no SQL")")
        // The rows that are not nil unwrap fine: only the nil (item 0) fails the fetch.
        #expect(try fixture.numbers(#Predicate { $0.rank != nil && $0.rank! > 0 }) == [1])
    }

    @Test func arithmetic() throws {
        #expect(try fixture.numbers(#Predicate { $0.count / 2 == -1 }) == [1], "integer division truncates toward zero")
        #expect(try fixture.numbers(#Predicate { $0.count % 3 == 0 }) == [1])
        #expect(try fixture.numbers(#Predicate { $0.count % 3 == -0 && $0.count < 0 }) == [1])
        #expect(try fixture.numbers(#Predicate { $0.price / 2 == 0.75 }) == [0])
        #expect(try fixture.numbers(#Predicate { -$0.count * 2 + 1 > 0 }) == [1])
    }

    @Test func strings() throws {
        let ripe = "ripe"
        #expect(try fixture.numbers(#Predicate { $0.name.contains("an") }) == [1])
        #expect(try fixture.numbers(#Predicate { $0.name.starts(with: "e") }) == [], "the first Character of \"e\u{301}clair\" is é")
        #expect(try fixture.numbers(#Predicate { $0.name.starts(with: "\u{E9}") }) == [2])
        #expect(try fixture.numbers(#Predicate { $0.note?.localizedStandardContains(ripe) == true }) == [1, 3])
        #expect(try fixture.numbers(#Predicate { $0.name.localizedStandardContains("BAN") }) == [1])
        #expect(try fixture.numbers(#Predicate { $0.name.count == 6 }) == [1, 2], "count is in Characters")
    }

    @Test func collectionsAndRanges() throws {
        let names = ["apple", "date", "kiwi"]
        let ranks: [Int?] = [nil, 2]
        let empty: [String] = []
        #expect(try fixture.numbers(#Predicate { names.contains($0.name) }) == [0, 3])
        #expect(try fixture.numbers(#Predicate { !names.contains($0.name) }) == [1, 2])
        #expect(try fixture.numbers(#Predicate { ranks.contains($0.rank) }) == [0, 1])
        #expect(try fixture.numbers(#Predicate { empty.contains($0.name) }) == [])
        #expect(try fixture.numbers(#Predicate { item in names.contains(where: { $0 == item.name }) }) == [0, 3])
        #expect(try fixture.numbers(#Predicate { (0...7).contains($0.count) }) == [0, 2])
        #expect(try fixture.numbers(#Predicate { (0..<7).contains($0.count) }) == [2])
    }

    @Test func enumsDatesUUIDs() throws {
        let active = Status.active
        let statuses = [Status.draft, .archived]
        let noon = Date(timeIntervalSinceReferenceDate: 43_200)
        let zero = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
        #expect(try fixture.numbers(#Predicate { $0.status == active }) == [1, 3])
        #expect(try fixture.numbers(#Predicate { $0.previous == active }) == [2])
        #expect(try fixture.numbers(#Predicate { $0.previous != active }) == [0, 1, 3])
        #expect(try fixture.numbers(#Predicate { $0.status.rawValue == "archived" }) == [2])
        #expect(try fixture.numbers(#Predicate { $0.previous?.rawValue == "draft" }) == [1])
        #expect(try fixture.numbers(#Predicate { statuses.contains($0.status) }) == [0, 2])
        #expect(try fixture.numbers(#Predicate { $0.date < noon }) == [0, 1, 2, 3])
        #expect(try fixture.numbers(#Predicate { $0.token == zero }) == [0, 1, 2, 3])
    }

    @Test func conditionals() throws {
        #expect(try fixture.numbers(#Predicate { $0.flag ? $0.count > 5 : $0.price < 0 }) == [0, 3])
        #expect(try fixture.numbers(#Predicate {
            if $0.flag {
                return $0.count > 5
            } else {
                return $0.count < 0
            }
        }) == [0, 1])
    }

    @Test func pendingChangesAreMatchedToo() throws {
        fixture.context.insert(Item(number: 4, count: 100, name: "fig"))
        #expect(try fixture.numbers(#Predicate { $0.count > 5 }) == [0, 3, 4])
    }
}
