import Foundation

// The random predicate generator of the property tests (PredicatePropertyTests), in a file of its own
// so that the predicate fuzzer (Reliability/Fuzz/Sources/fuzz-predicates) compiles the same one through
// a symlink. It uses only Foundation and the models of PredicateModels.swift (no @testable import).

/// Where a ``PredicateGenerator`` takes its random choices from: a seeded generator in the property
/// tests, the fuzzer's input bytes in `Reliability/Fuzz` (which compiles this file through a symlink).
protocol PredicateRandomSource: AnyObject {
    /// A number in `range`, which is not empty.
    func int(_ range: Range<Int>) -> Int
}

extension PredicateRandomSource {
    func int(_ range: ClosedRange<Int>) -> Int { int(range.lowerBound..<range.upperBound + 1) }
    func pick<T>(_ values: [T]) -> T { values[int(0..<values.count)] }
    func chance(_ percent: Int) -> Bool { int(0..<100) < percent }
}

/// SplitMix64: a tiny seeded generator, so a failing case can be replayed from its seed.
final class SplitMix64: RandomNumberGenerator, PredicateRandomSource {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    func int(_ range: Range<Int>) -> Int {
        var generator = Generator(owner: self)
        return Int.random(in: range, using: &generator)
    }
    private struct Generator: RandomNumberGenerator {
        let owner: SplitMix64
        mutating func next() -> UInt64 { owner.next() }
    }
}

typealias Expr<T> = any StandardPredicateExpression<T>

/// Builders that open existential operands, so random trees can be assembled from parts.
enum Build {
    static func equal<T: Equatable & Codable & Sendable>(_ l: Expr<T>, _ r: Expr<T>, negated: Bool) -> Expr<Bool> {
        func openL<L: StandardPredicateExpression<T>>(_ l: L) -> Expr<Bool> {
            func openR<R: StandardPredicateExpression<T>>(_ r: R) -> Expr<Bool> {
                negated ? PredicateExpressions.build_NotEqual(lhs: l, rhs: r) : PredicateExpressions.build_Equal(lhs: l, rhs: r)
            }
            return openR(r)
        }
        return openL(l)
    }

    static func compare<T: Comparable & Codable & Sendable>(_ l: Expr<T>, _ r: Expr<T>, _ op: PredicateExpressions.ComparisonOperator) -> Expr<Bool> {
        func openL<L: StandardPredicateExpression<T>>(_ l: L) -> Expr<Bool> {
            func openR<R: StandardPredicateExpression<T>>(_ r: R) -> Expr<Bool> { PredicateExpressions.build_Comparison(lhs: l, rhs: r, op: op) }
            return openR(r)
        }
        return openL(l)
    }

    static func arithmetic<T: Numeric & Codable & Sendable>(_ l: Expr<T>, _ r: Expr<T>, _ op: PredicateExpressions.ArithmeticOperator) -> Expr<T> {
        func openL<L: StandardPredicateExpression<T>>(_ l: L) -> Expr<T> {
            func openR<R: StandardPredicateExpression<T>>(_ r: R) -> Expr<T> { PredicateExpressions.build_Arithmetic(lhs: l, rhs: r, op: op) }
            return openR(r)
        }
        return openL(l)
    }

    static func intDivision(_ l: Expr<Int>, by divisor: Int, remainder: Bool) -> Expr<Int> {
        func openL<L: StandardPredicateExpression<Int>>(_ l: L) -> Expr<Int> {
            remainder
                ? PredicateExpressions.build_Remainder(lhs: l, rhs: PredicateExpressions.build_Arg(divisor))
                : PredicateExpressions.build_Division(lhs: l, rhs: PredicateExpressions.build_Arg(divisor))
        }
        return openL(l)
    }

    static func doubleDivision(_ l: Expr<Double>, by divisor: Double) -> Expr<Double> {
        func openL<L: StandardPredicateExpression<Double>>(_ l: L) -> Expr<Double> {
            PredicateExpressions.build_Division(lhs: l, rhs: PredicateExpressions.build_Arg(divisor))
        }
        return openL(l)
    }

    static func negate<T: SignedNumeric & Codable & Sendable>(_ e: Expr<T>) -> Expr<T> {
        func open<E: StandardPredicateExpression<T>>(_ e: E) -> Expr<T> { PredicateExpressions.build_UnaryMinus(e) }
        return open(e)
    }

    static func and(_ l: Expr<Bool>, _ r: Expr<Bool>, or: Bool) -> Expr<Bool> {
        func openL<L: StandardPredicateExpression<Bool>>(_ l: L) -> Expr<Bool> {
            func openR<R: StandardPredicateExpression<Bool>>(_ r: R) -> Expr<Bool> {
                or ? PredicateExpressions.build_Disjunction(lhs: l, rhs: r) : PredicateExpressions.build_Conjunction(lhs: l, rhs: r)
            }
            return openR(r)
        }
        return openL(l)
    }

    static func not(_ e: Expr<Bool>) -> Expr<Bool> {
        func open<E: StandardPredicateExpression<Bool>>(_ e: E) -> Expr<Bool> { PredicateExpressions.build_Negation(e) }
        return open(e)
    }

    static func conditional<T>(_ test: Expr<Bool>, _ yes: Expr<T>, _ no: Expr<T>) -> Expr<T> {
        func openT<C: StandardPredicateExpression<Bool>>(_ test: C) -> Expr<T> {
            func openY<Y: StandardPredicateExpression<T>>(_ yes: Y) -> Expr<T> {
                func openN<N: StandardPredicateExpression<T>>(_ no: N) -> Expr<T> {
                    PredicateExpressions.build_Conditional(test, yes, no)
                }
                return openN(no)
            }
            return openY(yes)
        }
        return openT(test)
    }

    static func coalesce<T: Codable & Sendable>(_ l: Expr<T?>, _ r: T) -> Expr<T> {
        func open<L: StandardPredicateExpression<T?>>(_ l: L) -> Expr<T> {
            PredicateExpressions.build_NilCoalesce(lhs: l, rhs: PredicateExpressions.build_Arg(r))
        }
        return open(l)
    }

    static func count(_ e: Expr<String>) -> Expr<Int> {
        func open<E: StandardPredicateExpression<String>>(_ e: E) -> Expr<Int> { PredicateExpressions.build_KeyPath(root: e, keyPath: \.count) }
        return open(e)
    }

    static func stringTest(_ l: Expr<String>, _ r: String, startsWith: Bool) -> Expr<Bool> {
        func open<L: StandardPredicateExpression<String>>(_ l: L) -> Expr<Bool> {
            startsWith
                ? PredicateExpressions.build_starts(l, with: PredicateExpressions.build_Arg(r))
                : PredicateExpressions.build_contains(l, PredicateExpressions.build_Arg(r))
        }
        return open(l)
    }
}

/// Random predicates over `Item` made only of constructs Stowage translates to SQL.
struct PredicateGenerator {
    let rng: any PredicateRandomSource
    let item: PredicateExpressions.Variable<Item>

    static let strings = ["", "a", "b", "ab", "Ab", "é", "e\u{301}", "a10", "a2", "K", "\u{212A}", "zz"]
    static let doubles: [Double] = [-1.5, 0, 0.5, 2, 3.25]
    static let dates = [0.0, 1.5, 86_400].map { Date(timeIntervalSinceReferenceDate: $0) }

    /// `count` items with random values drawn from the generator's constants, numbered from 0.
    static func randomItems(_ rng: any PredicateRandomSource, count: Int) -> [Item] {
        (0..<count).map { index in
            Item(
                number: index, count: rng.int(-5...5), price: rng.pick(PredicateGenerator.doubles),
                name: rng.pick(PredicateGenerator.strings), note: rng.chance(30) ? nil : rng.pick(PredicateGenerator.strings),
                rank: rng.chance(30) ? nil : rng.int(-3...3), flag: rng.chance(50),
                date: rng.pick(PredicateGenerator.dates), status: rng.pick(Status.allCases),
                previous: rng.chance(30) ? nil : rng.pick(Status.allCases))
        }
    }

    func key<V>(_ path: KeyPath<Item, V> & Sendable) -> PredicateExpressions.KeyPath<PredicateExpressions.Variable<Item>, V> {
        PredicateExpressions.build_KeyPath(root: item, keyPath: path)
    }

    func int(_ depth: Int) -> Expr<Int> {
        switch depth <= 0 ? rng.pick([0, 1, 2]) : rng.int(0..<9) {
        case 0: return key(\.count)
        case 1: return key(\.number)
        case 2: return PredicateExpressions.build_Arg(rng.int(-4...4))
        case 3: return Build.arithmetic(int(depth - 1), int(depth - 1), rng.pick([.add, .subtract, .multiply]))
        case 4: return Build.intDivision(int(depth - 1), by: rng.pick([-3, -2, 2, 3]), remainder: rng.chance(50))
        case 5: return Build.negate(int(depth - 1))
        case 6: return Build.coalesce(key(\.rank), rng.int(-2...2))
        case 7: return Build.conditional(bool(depth - 1), int(depth - 1), int(depth - 1))
        default:
            return Build.count(string(depth - 1))
        }
    }

    func double(_ depth: Int) -> Expr<Double> {
        switch depth <= 0 ? rng.pick([0, 1]) : rng.int(0..<4) {
        case 0: return key(\.price)
        case 1: return PredicateExpressions.build_Arg(rng.pick(Self.doubles))
        case 2: return Build.arithmetic(double(depth - 1), double(depth - 1), rng.pick([.add, .subtract, .multiply]))
        default: return Build.doubleDivision(double(depth - 1), by: rng.pick([-2, 0.5, 4]))
        }
    }

    func string(_ depth: Int) -> Expr<String> {
        switch depth <= 0 ? 0 : rng.int(0..<4) {
        case 0: return key(\.name)
        case 1: return PredicateExpressions.build_Arg(rng.pick(Self.strings))
        case 2: return Build.coalesce(key(\.note), rng.pick(Self.strings))
        default: return PredicateExpressions.build_KeyPath(root: key(\.status), keyPath: \.rawValue)
        }
    }

    func bool(_ depth: Int) -> Expr<Bool> {
        let op: PredicateExpressions.ComparisonOperator = rng.pick([.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual])
        switch depth <= 0 ? rng.int(0..<12) : rng.int(0..<17) {
        case 0: return key(\.flag)
        case 1: return Build.compare(int(depth - 1), int(depth - 1), op)
        case 2: return Build.equal(int(depth - 1), int(depth - 1), negated: rng.chance(50))
        case 3: return Build.compare(double(depth - 1), double(depth - 1), op)
        case 4: return Build.equal(string(depth - 1), PredicateExpressions.build_Arg(rng.pick(Self.strings)), negated: rng.chance(50))
        case 5: return Build.compare(string(depth - 1), PredicateExpressions.build_Arg(rng.pick(Self.strings)), op)
        case 6: return Build.stringTest(string(depth - 1), rng.pick(Self.strings), startsWith: rng.chance(50))
        case 7:
            let value: String? = rng.chance(30) ? nil : rng.pick(Self.strings)
            return Build.equal(key(\.note), PredicateExpressions.build_Arg(value), negated: rng.chance(50))
        case 8:
            let value: Int? = rng.chance(30) ? nil : rng.int(-3...3)
            return Build.equal(key(\.rank), PredicateExpressions.build_Arg(value), negated: rng.chance(50))
        case 9:
            let value: Status? = rng.chance(30) ? nil : rng.pick(Status.allCases)
            return Build.equal(key(\.previous), PredicateExpressions.build_Arg(value), negated: rng.chance(50))
        case 10: return Build.equal(key(\.status), PredicateExpressions.build_Arg(rng.pick(Status.allCases)), negated: rng.chance(50))
        case 11: return Build.compare(key(\.date), PredicateExpressions.build_Arg(rng.pick(Self.dates)), op)
        case 12:
            let length: Expr<Int?> = PredicateExpressions.build_flatMap(key(\.note)) { PredicateExpressions.build_KeyPath(root: $0, keyPath: \.count) }
            let value: Int? = rng.chance(30) ? nil : rng.int(0...2)
            return Build.equal(length, PredicateExpressions.build_Arg(value), negated: rng.chance(50))
        case 13:
            let values = (0..<rng.int(0...3)).map { _ in rng.pick(Self.strings) }
            return PredicateExpressions.build_contains(PredicateExpressions.build_Arg(values), key(\.name))
        case 14: return Build.and(bool(depth - 1), bool(depth - 1), or: rng.chance(50))
        case 15: return Build.not(bool(depth - 1))
        default: return Build.conditional(bool(depth - 1), bool(depth - 1), bool(depth - 1))
        }
    }
}
