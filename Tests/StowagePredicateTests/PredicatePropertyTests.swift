import Foundation
import Stowage
@testable import StowageCore
import Testing

@Suite("Generated predicates match Foundation's evaluate")
struct PredicatePropertyTests {
    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8])
    func fetchEqualsEvaluate(seed: UInt64) throws {
        let rng = SplitMix64(seed: seed)
        let fixture = try Fixture()
        fixture.context.requiresSQLTranslation = true
        try fixture.insert(PredicateGenerator.randomItems(rng, count: 60))
        let all = try fixture.context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.number)]))
        for round in 0..<50 {
            let predicate = Predicate<Item> { item in PredicateGenerator(rng: rng, item: item).bool(3) }
            let description = "seed \(seed), round \(round): \(predicate)"
            let translation = PredicateTranslator.translate(predicate.expression, variable: predicate.variable.key, entity: itemEntity)
            #expect(translation.isComplete, "fell back to Swift (\(translation.untranslated)) for \(description)")
            let expected = try all.filter { try predicate.evaluate($0) }
            let fetched = try fixture.context.fetch(FetchDescriptor(predicate: predicate))
            #expect(Set(fetched.map(\.number)) == Set(expected.map(\.number)), "\(description)")
            #expect(try fixture.context.fetchCount(FetchDescriptor(predicate: predicate)) == expected.count, "\(description)")
            // Sorted by name (localizedStandard, SwiftData's default), then by insertion order.
            let sorted = try fixture.context.fetch(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.name, order: .reverse)]))
            let expectedOrder = expected.sorted {
                let order = $0.name.localizedStandardCompare($1.name)
                return order == .orderedSame ? $0.number < $1.number : order == .orderedDescending
            }
            #expect(sorted.map(\.number) == expectedOrder.map(\.number), "\(description)")
        }
    }
}
