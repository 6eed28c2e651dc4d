import Foundation
import Stowage
@testable import StowagePostgres
import Testing

enum Grade: String, Codable, CaseIterable {
    case alpha, beta, gamma
}

@Model final class Specimen {
    var ordinal: Int
    var name: String
    var note: String?
    var count: Int
    var score: Double
    var flag: Bool
    var seen: Date
    var price: Decimal
    var grade: Grade
    @Relationship(deleteRule: .cascade, inverse: \Part.specimen) var parts: [Part] = []

    init(ordinal: Int, name: String, note: String?, count: Int, score: Double, flag: Bool, seen: Date, price: Decimal, grade: Grade) {
        self.ordinal = ordinal
        self.name = name
        self.note = note
        self.count = count
        self.score = score
        self.flag = flag
        self.seen = seen
        self.price = price
        self.grade = grade
    }
}

@Model final class Part {
    var label: String
    var weight: Int
    var specimen: Specimen?
    init(label: String, weight: Int) {
        self.label = label
        self.weight = weight
    }
}

/// A small deterministic generator, so that a failure can be replayed from its seed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The same randomly drawn predicates and sorts over the same rows, on SQLite, on PostgreSQL and in
/// Swift (`Predicate.evaluate` and `SortDescriptor` over every model): the three results must be
/// identical, row for row and in order.
@Suite("Differential: SQLite, PostgreSQL and Swift", .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct DifferentialTests {
    /// Names with composed and decomposed forms, case and digits: what string semantics differ on.
    static let names = [
        "émile", "e\u{301}mile", "Émile", "E\u{301}mile", "zoe", "Zoé", "zoe\u{301}", "Bob", "bob", "BOB", "item 9", "item 10",
        "Item 2", "ça", "c\u{327}a", "straße", "strasse", "", " lead", "ß", "ﬁle", "file", "Ünïcödé", "u\u{308}nico",
    ]
    static let probes = ["e", "é", "e\u{301}", "mile", "MILE", "Zo", "zoé", "item", "b", "ss", "ß", "", "ç", "c", "fi", "ü", "x"]

    static func rows(_ random: inout SplitMix) -> [Specimen] {
        (0..<48).map { ordinal in
            let specimen = Specimen(
                ordinal: ordinal, name: names.randomElement(using: &random)!,
                note: Bool.random(using: &random) ? nil : names.randomElement(using: &random)!,
                count: Int.random(in: -5...5, using: &random), score: [0, 0.5, -1.25, 3.75, 1e-9, 1e9].randomElement(using: &random)!,
                flag: Bool.random(using: &random),
                seen: Date(timeIntervalSinceReferenceDate: [0, 86_400.5, 700_000_000.123456, -1].randomElement(using: &random)!),
                price: [Decimal(string: "0.1")!, Decimal(string: "0.10")!, 2, Decimal(string: "-3.333")!, Decimal(string: "12345678901234567890.5")!, .nan].randomElement(using: &random)!,
                grade: Grade.allCases.randomElement(using: &random)!)
            for index in 0..<Int.random(in: 0...3, using: &random) {
                specimen.parts.append(Part(label: names.randomElement(using: &random)!, weight: index * Int.random(in: 1...4, using: &random)))
            }
            return specimen
        }
    }

    /// The predicates drawn, each made with random constants.
    static func predicate(_ random: inout SplitMix) -> (String, Predicate<Specimen>) {
        let name = names.randomElement(using: &random)!
        let probe = probes.randomElement(using: &random)!
        let count = Int.random(in: -5...5, using: &random)
        let score = [0, 0.5, -1.25, 3.75, 1e-9].randomElement(using: &random)!
        let date = Date(timeIntervalSinceReferenceDate: [0, 86_400.5, 700_000_000.123456].randomElement(using: &random)!)
        let price = [Decimal(string: "0.1")!, 2, Decimal(string: "-3.333")!, 0, .nan].randomElement(using: &random)!
        let grade = Grade.allCases.randomElement(using: &random)!
        let flag = Bool.random(using: &random)
        let choices: [(String, Predicate<Specimen>)] = [
            ("name == \(name.debugDescription)", #Predicate { $0.name == name }),
            ("name != \(name.debugDescription)", #Predicate { $0.name != name }),
            ("name < \(name.debugDescription)", #Predicate { $0.name < name }),
            ("name >= \(name.debugDescription)", #Predicate { $0.name >= name }),
            ("name.contains(\(probe.debugDescription))", #Predicate { $0.name.contains(probe) }),
            ("name.starts(with: \(probe.debugDescription))", #Predicate { $0.name.starts(with: probe) }),
            ("name.localizedStandardContains(\(probe.debugDescription))", #Predicate { $0.name.localizedStandardContains(probe) }),
            ("note == nil", #Predicate { $0.note == nil }),
            ("note == \(name.debugDescription)", #Predicate { $0.note == name }),
            ("note ?? \"\" < name", #Predicate { ($0.note ?? "") < $0.name }),
            ("count > \(count)", #Predicate { $0.count > count }),
            ("count * 2 + 1 <= \(count)", #Predicate { $0.count * 2 + 1 <= count }),
            ("score < \(score)", #Predicate { $0.score < score }),
            ("flag == \(flag)", #Predicate { $0.flag == flag }),
            ("!flag && count >= \(count)", #Predicate { !$0.flag && $0.count >= count }),
            ("flag || score > \(score)", #Predicate { $0.flag || $0.score > score }),
            ("seen > \(date.timeIntervalSinceReferenceDate)", #Predicate { $0.seen > date }),
            ("seen == \(date.timeIntervalSinceReferenceDate)", #Predicate { $0.seen == date }),
            ("price > \(price)", #Predicate { $0.price > price }),
            ("price == \(price)", #Predicate { $0.price == price }),
            ("price <= \(price)", #Predicate { $0.price <= price }),
            ("[\(price), 2].contains(price)", #Predicate { [price, 2].contains($0.price) }),
            ("grade == .\(grade)", #Predicate { $0.grade == grade }),
            ("parts.isEmpty", #Predicate { $0.parts.isEmpty }),
            ("parts.count > 1", #Predicate { $0.parts.count > 1 }),
            ("parts.contains { weight > \(count) }", #Predicate { $0.parts.contains { $0.weight > count } }),
            ("parts.contains { label == \(name.debugDescription) }", #Predicate { $0.parts.contains { $0.label == name } }),
            ("name.count > \(count + 4)", #Predicate { $0.name.count > count + 4 }),
            ("true", #Predicate { _ in true }),
        ]
        return choices.randomElement(using: &random)!
    }

    static func sorts(_ random: inout SplitMix) -> (String, [SortDescriptor<Specimen>]) {
        let choices: [(String, [SortDescriptor<Specimen>])] = [
            ("none", []),
            ("name lexical", [SortDescriptor(\.name, comparator: .lexical)]),
            ("name localizedStandard", [SortDescriptor(\.name, comparator: .localizedStandard)]),
            ("name localizedStandard desc", [SortDescriptor(\.name, comparator: .localizedStandard, order: .reverse)]),
            ("count, score desc", [SortDescriptor(\.count), SortDescriptor(\.score, order: .reverse)]),
            ("price desc", [SortDescriptor(\.price, order: .reverse)]),
            ("seen", [SortDescriptor(\.seen)]),
            ("note, count", [SortDescriptor(\.note), SortDescriptor(\.count)]),
        ]
        return choices.randomElement(using: &random)!
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func sameAnswersEverywhere(seed: UInt64) throws {
        var random = SplitMix(state: seed)
        let database = try TestDatabase()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("differential-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sqlite = try ModelContainer(for: Specimen.self, Part.self, configurations: ModelConfiguration(url: directory.appendingPathComponent("d.store")))
        let postgres = try database.container([Specimen.self, Part.self])
        for container in [sqlite, postgres] {
            var copy = random
            let context = ModelContext(container)
            for row in Self.rows(&copy) { context.insert(row) }
            try context.save()
        }
        _ = Self.rows(&random)
        let all = try ModelContext(sqlite).fetch(FetchDescriptor<Specimen>())
        let onSQLite = ModelContext(sqlite)
        let onPostgres = ModelContext(postgres)
        // Every predicate and sort drawn runs in SQL: strict contexts refuse to fall back to Swift.
        onSQLite.requiresSQLTranslation = true
        onPostgres.requiresSQLTranslation = true
        for round in 0..<120 {
            let (text, predicate) = Self.predicate(&random)
            let (sortText, sort) = Self.sorts(&random)
            // The ordinal breaks ties, so that the order is the same everywhere.
            var descriptor = FetchDescriptor<Specimen>(predicate: predicate, sortBy: sort + [SortDescriptor(\.ordinal)])
            if Int.random(in: 0..<4, using: &random) == 0 {
                descriptor.fetchOffset = Int.random(in: 0...3, using: &random)
                descriptor.fetchLimit = Int.random(in: 1...10, using: &random)
            }
            let matching = try all.filter { try predicate.evaluate($0) }
            var expected: [Int]
            if sortText == "note, count" {
                // `SortDescriptor(\.note)` on an optional String sorts by `localizedStandardCompare`
                // in SwiftData (Apple's Foundation declares that default), and so in Stowage; the
                // `SortDescriptor` of Foundation on Linux compares such a key path by code points. nil
                // comes first in both.
                expected = matching.sorted { a, b in
                    switch (a.note, b.note) {
                    case (nil, nil): break
                    case (nil, _): return true
                    case (_, nil): return false
                    case (let x?, let y?):
                        let order = x.localizedStandardCompare(y)
                        if order != .orderedSame { return order == .orderedAscending }
                    }
                    return (a.count, a.ordinal) < (b.count, b.ordinal)
                }.map(\.ordinal)
            } else if sortText.hasPrefix("name localizedStandard") {
                // Foundation on Linux sorts a String key path by code points whatever the comparator;
                // Stowage, as SwiftData, by `localizedStandardCompare`.
                let descending = sortText.hasSuffix("desc")
                expected = matching.sorted { a, b in
                    let order = a.name.localizedStandardCompare(b.name)
                    if order != .orderedSame { return (order == .orderedAscending) != descending }
                    return a.ordinal < b.ordinal
                }.map(\.ordinal)
            } else {
                expected = matching.sorted(using: descriptor.sortBy).map(\.ordinal)
            }
            if let offset = descriptor.fetchOffset { expected = Array(expected.dropFirst(offset)) }
            if let limit = descriptor.fetchLimit { expected = Array(expected.prefix(limit)) }
            let fromSQLite = try onSQLite.fetch(descriptor).map(\.ordinal)
            let fromPostgres = try onPostgres.fetch(descriptor).map(\.ordinal)
            #expect(fromSQLite == expected, "seed \(seed) round \(round): \(text), sorted by \(sortText), on SQLite")
            #expect(fromPostgres == expected, "seed \(seed) round \(round): \(text), sorted by \(sortText), on PostgreSQL")
            let count = try onPostgres.fetchCount(FetchDescriptor<Specimen>(predicate: predicate))
            #expect(count == all.filter { (try? predicate.evaluate($0)) == true }.count, "seed \(seed) round \(round): count of \(text) on PostgreSQL")
        }
    }
}
