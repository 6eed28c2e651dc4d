import Foundation
import Stowage
@testable import StowageCore
import Testing

/// The identity map is an open-addressing table with backward-shift deletion: checked against a
/// `Dictionary` through random inserts, replacements and removals across growth.
@Suite struct IdentityMapTests {
    @Test func behavesLikeADictionaryThroughInsertsRemovalsAndGrowth() {
        let owners = [NSObject(), NSObject()]  // alive for the whole test, so their identifiers differ
        let entities = owners.map(ObjectIdentifier.init)
        let models = (0..<64).map { Item(name: "m\($0)", value: $0) }
        let map = IdentityMap()
        var reference: [Int: Int] = [:]  // packed key -> index of the model
        var generator = SplitMix(seed: 7)
        func key(_ packed: Int) -> RowKey { RowKey(entity: entities[packed & 1], primaryKey: Int64(packed >> 1)) }

        for step in 0..<20_000 {
            // Clustered keys (sequential primary keys, both entities) make long probe runs.
            let packed = Int(generator.next() % 3_000)
            switch generator.next() % 4 {
            case 0, 1:
                let model = Int(generator.next() % UInt64(models.count))
                map.insert(RegisteredModel(model: models[model]), for: key(packed))
                reference[packed] = model
            case 2:
                map.removeValue(forKey: key(packed))
                reference[packed] = nil
            default:
                // Removal only when the entry is the given model's.
                let model = Int(generator.next() % UInt64(models.count))
                map.removeValue(forKey: key(packed), ifRegistered: ObjectIdentifier(models[model]))
                if reference[packed] == model { reference[packed] = nil }
            }
            if step % 1_000 == 0 || step == 19_999 {
                #expect(map.count == reference.count)
                for packed in 0..<3_000 {
                    let found = map[key(packed)].map { ObjectIdentifier($0.model) }
                    #expect(found == reference[packed].map { ObjectIdentifier(models[$0]) })
                }
                #expect(map.models.count == reference.count)
            }
        }
        withExtendedLifetime((models, owners)) {}
    }

    /// Keys are placed by runs of consecutive primary keys: sequential keys, keys a run apart, keys far
    /// apart and keys of two entities interleaved all stay findable through growth and removal, whether
    /// models are released in the order they were registered, in reverse, or scattered.
    @Test(arguments: [1, 3, 16, 17, 1_024, 1 << 20])
    func keysOfAnyStrideSurviveGrowthAndRemovalInAnyOrder(stride: Int) {
        let owners = [NSObject(), NSObject()]
        let entities = owners.map(ObjectIdentifier.init)
        let models = (0..<8).map { Item(name: "m\($0)", value: $0) }
        let keys = (0..<5_000).map { RowKey(entity: entities[$0 % 2], primaryKey: Int64(1 + ($0 / 2) * stride)) }
        var generator = SplitMix(seed: UInt64(stride))
        let scattered = keys.indices.shuffled(using: &generator)
        for order in [Array(keys.indices), keys.indices.reversed(), scattered] {
            let map = IdentityMap()
            for (index, key) in keys.enumerated() {
                let model = models[index % models.count]
                map.insert(RegisteredModel(model: model), for: key)
            }
            #expect(map.count == keys.count)
            var removed = Set<Int>()
            for (step, index) in order.enumerated() {
                map.removeValue(forKey: keys[index])
                removed.insert(index)
                if step % 500 == 0 {
                    let wrong = keys.indices.filter { other in
                        let found = map[keys[other]].map { ObjectIdentifier($0.model) }
                        let expected = removed.contains(other) ? nil : ObjectIdentifier(models[other % models.count])
                        return found != expected
                    }
                    #expect(wrong.isEmpty, "stride \(stride), after \(step + 1) removals")
                }
            }
            #expect(map.count == 0)
        }
        withExtendedLifetime((models, owners)) {}
    }
}

/// A small deterministic random number generator.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
