import Foundation
import Stowage

// "Unique under race": 8 tasks (each a @ModelActor with its own context; four on one container, four
// on a second container on the same file, as another process would be) each insert the same 100
// `@Attribute(.unique)` keys, in their own shuffled order, one insert per save, all at once.
//
// What Stowage does (SwiftData's behaviour): an insert whose unique key matches a stored row updates
// that row instead (`INSERT … ON CONFLICT(key) DO UPDATE SET <every column>`, an upsert), so no save
// fails: the store ends with exactly one row per key, holding the values of the insert saved last (all
// its columns), and every task's model for a key has that row's identifier.

@Model final class RaceKeyed {
    @Attribute(.unique) var key: String
    var writer: Int
    var payload: String

    init(key: String, writer: Int) {
        self.key = key
        self.writer = writer
        self.payload = RaceKeyed.payload(key: key, writer: writer)
    }

    static func payload(key: String, writer: Int) -> String { "\(key) by \(writer) — " + String(repeating: "·", count: writer + 1) }
}

/// What one racing task did.
struct RaceResult: Sendable {
    var identifiers: [String: PersistentIdentifier] = [:]
    var errors: [String: Int] = [:]
    var samples: [String] = []
    var rowsSeen = 0
    var keysSeen = 0
}

@ModelActor
actor RaceInserter {
    func run(writer: Int, keys: [String], seed: UInt64) -> RaceResult {
        var random = SeededGenerator(seed: seed)
        var result = RaceResult()
        for key in keys.shuffled(using: &random) {
            let model = RaceKeyed(key: key, writer: writer)
            modelContext.insert(model)
            do {
                try modelContext.save()
                result.identifiers[key] = model.persistentModelID
            } catch {
                let code = (error as? StowageError)?.code.rawValue ?? "untyped"
                result.errors[code, default: 0] += 1
                if result.samples.count < 3 { result.samples.append("\(key): \(error)") }
                modelContext.rollback()
            }
        }
        // The context's own view: one model per key.
        if let all = try? modelContext.fetch(FetchDescriptor<RaceKeyed>()) {
            result.rowsSeen = all.count
            result.keysSeen = Set(all.map(\.key)).count
        }
        return result
    }

    /// Every stored row's key, and whether its columns are those of one insert.
    func stored() throws -> [(key: String, consistent: Bool)] {
        try ModelContext(modelContainer).fetch(FetchDescriptor<RaceKeyed>()).map {
            ($0.key, $0.payload == RaceKeyed.payload(key: $0.key, writer: $0.writer))
        }
    }
}

enum UniqueRace {
    static let scenario = Scenario(
        "unique-race",
        "8 tasks (on two containers of one file) × 100 identical @Attribute(.unique) keys, one insert per save, at once: exactly 1 row per key, no error (upsert)"
    ) { options in
        var report = Report("unique-race")
        let tasks = 8
        let keyCount = options.size(quick: 40, full: 100)
        let keys = (0..<keyCount).map { "key-\($0)" }
        let seed = SeededGenerator.seed()
        report.figure("seed", "\(seed)")
        let store = options.directory.appendingPathComponent("unique.store")
        let containers = try (0..<2).map { _ in try ModelContainer(for: RaceKeyed.self, configurations: ModelConfiguration(url: store)) }

        let start = now()
        let results = await withTaskGroup(of: RaceResult.self) { group in
            for writer in 0..<tasks {
                let inserter = RaceInserter(modelContainer: containers[writer % 2])
                let taskSeed = seed &+ UInt64(writer) &* 0x9E37_79B9
                group.addTask { await inserter.run(writer: writer, keys: keys, seed: taskSeed) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let elapsed = now() - start

        let stored = try await RaceInserter(modelContainer: containers[0]).stored()
        var rowsPerKey: [String: Int] = [:]
        for row in stored { rowsPerKey[row.key, default: 0] += 1 }
        let duplicated = rowsPerKey.values.filter { $0 > 1 }.count
        let missing = keys.filter { rowsPerKey[$0] == nil }.count
        let inconsistent = stored.count { !$0.consistent }
        var errors: [String: Int] = [:]
        for result in results { errors.merge(result.errors, uniquingKeysWith: +) }
        let errorCount = errors.values.reduce(0, +)
        // Every task's model for a key has the identifier of the key's one row.
        var identifiersPerKey: [String: Set<PersistentIdentifier>] = [:]
        for result in results { for (key, identifier) in result.identifiers { identifiersPerKey[key, default: []].insert(identifier) } }
        let splitKeys = identifiersPerKey.values.filter { $0.count > 1 }.count

        report.figure("tasks", "\(tasks) × \(keyCount) keys, one insert per save, on 2 containers")
        report.figure("saves", results.reduce(0) { $0 + $1.identifiers.count })
        report.figure("rows", stored.count)
        report.figure("keys", rowsPerKey.count)
        report.figure("keys with more than one row", duplicated)
        report.figure("keys missing", missing)
        report.figure("rows mixing two inserts", inconsistent)
        report.figure("errors", errorCount)
        report.figure("errors by code", errors.isEmpty ? "none" : errors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        report.figure("keys whose tasks got different identifiers", splitKeys)
        report.figure("each task's fetch: rows/keys", results.map { "\($0.rowsSeen)/\($0.keysSeen)" }.joined(separator: ", "))
        report.figure("behaviour", "upsert: an insert matching a stored unique key updates that row (all columns, the last save's values); no error")
        report.figure("saves per second", String(format: "%.0f", Double(tasks * keyCount) / max(elapsed, 1e-9)))

        report.check(stored.count == keyCount && duplicated == 0 && missing == 0, "\(stored.count) rows for \(keyCount) keys: \(duplicated) duplicated, \(missing) missing")
        report.check(inconsistent == 0, "\(inconsistent) rows mix the columns of two inserts")
        report.check(errorCount == 0, "saves failed: \(results.flatMap(\.samples).prefix(3))")
        report.check(splitKeys == 0, "\(splitKeys) keys have models with different identifiers")
        for (index, result) in results.enumerated() {
            report.check(result.rowsSeen == keyCount && result.keysSeen == keyCount, "task \(index)'s context fetches \(result.rowsSeen) models for \(result.keysSeen) keys")
        }
        return report
    }
}
