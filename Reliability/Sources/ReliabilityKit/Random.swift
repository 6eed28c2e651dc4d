/// SplitMix64: a small seeded generator, so that a scenario's random choices can be replayed from the
/// seed its report prints.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A seed from the environment variable `STOWAGE_SEED` when set, else a random one.
    public static func seed() -> UInt64 {
        if let text = getenv("STOWAGE_SEED"), let seed = UInt64(String(cString: text)) { return seed }
        return UInt64.random(in: 1...UInt64.max)
    }
}

#if canImport(Glibc)
import Glibc
#endif
