import CFuzzerDriver
import Foundation
import Stowage

// libFuzzer target: the fuzzer's bytes drive the property tests' predicate generator
// (PredicateGenerator.swift, a symlink to Tests/StowagePredicateTests) through a `ByteSource`; each
// predicate is fetched in strict mode (SQL only) from an in-memory store of fixed rows, and the
// identifiers and count fetched are compared with Foundation's `Predicate.evaluate` over the same
// objects. A difference prints "DIFFERENCE" with the predicate and aborts (libFuzzer saves the input);
// a predicate strict mode refuses (`.unsupportedPredicate`) is skipped.
//
//     fuzz-predicates [libFuzzer flags] [CORPUS…]       (see ../../fuzz.sh)

/// The fuzzer's input as the generator's random choices: each choice reads as many bytes as its range
/// needs; once the input is used up every choice is the range's first value (the generator's leaves),
/// so every input gives a finite predicate.
final class ByteSource: PredicateRandomSource {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func int(_ range: Range<Int>) -> Int {
        let count = range.count
        var value = 0
        var span = 1
        while span < count {
            value = value << 8 | Int(next())
            span <<= 8
        }
        return range.lowerBound + value % count
    }

    private func next() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }
}

/// The store and its rows, made once per process.
final class Harness {
    let container: ModelContainer
    let context: ModelContext
    let all: [Item]
    var executions = 0, compared = 0, unsupported = 0

    init() throws {
        container = try ModelContainer(for: Item.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        context = ModelContext(container)
        context.requiresSQLTranslation = true
        for item in PredicateGenerator.randomItems(SplitMix64(seed: 1), count: 120) { context.insert(item) }
        try context.save()
        all = try context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.number)]))
    }

    func run(_ bytes: [UInt8]) {
        executions += 1
        let source = ByteSource(bytes)
        // Depth 1...4: deeper Int arithmetic could overflow, which traps in `evaluate` as in Swift.
        let depth = source.int(1...4)
        let predicate = Predicate<Item> { item in PredicateGenerator(rng: source, item: item).bool(depth) }
        let expected: Set<Int>
        do {
            expected = Set(try all.filter { try predicate.evaluate($0) }.map(\.number))
        } catch {
            return  // Foundation cannot evaluate it either: nothing to compare.
        }
        do {
            let fetched = Set(try context.fetch(FetchDescriptor(predicate: predicate)).map(\.number))
            let count = try context.fetchCount(FetchDescriptor(predicate: predicate))
            compared += 1
            if fetched != expected || count != expected.count {
                difference(predicate, bytes, """
                    fetched \(fetched.count) (count \(count)), evaluate keeps \(expected.count); \
                    only fetched: \(fetched.subtracting(expected).sorted().prefix(10)), \
                    only evaluated: \(expected.subtracting(fetched).sorted().prefix(10))
                    """)
            }
        } catch let error as StowageError where error.code == .unsupportedPredicate {
            unsupported += 1
        } catch {
            difference(predicate, bytes, "the fetch threw \(type(of: error)): \(error)")
        }
    }

    private func difference(_ predicate: Predicate<Item>, _ bytes: [UInt8], _ detail: String) -> Never {
        let input = bytes.map { String(format: "%02x", $0) }.joined()
        FileHandle.standardError.write(Data("DIFFERENCE: \(detail)\n  predicate: \(predicate)\n  input: \(input)\n".utf8))
        abort()
    }
}

enum Fuzz {
    nonisolated(unsafe) static var harness: Harness?
}

do {
    Fuzz.harness = try Harness()
} catch {
    FileHandle.standardError.write(Data("fuzz-predicates: cannot make the store: \(error)\n".utf8))
    exit(1)
}
atexit {
    // libFuzzer's fork-mode parent runs no input itself.
    if let harness = Fuzz.harness, harness.executions > 0 {
        FileHandle.standardError.write(Data("fuzz-predicates: \(harness.executions) predicates, \(harness.compared) compared with evaluate, \(harness.unsupported) refused by strict mode\n".utf8))
    }
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in
    Fuzz.harness!.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
exit(status)
