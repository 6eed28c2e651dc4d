import Foundation
import Stowage

/// The benchmark entity as a Stowage model: 3 Int, 3 Double, 3 String; the identifier is the row's
/// primary key (its `persistentModelID`). `i1` is indexed, as `item_i1` is for the other contenders.
@Model
final class BenchRow {
    #Index<BenchRow>([\.i1])

    var i1: Int
    var i2: Int
    var i3: Int
    var d1: Double
    var d2: Double
    var d3: Double
    var s1: String
    var s2: String
    var s3: String

    init(_ v: RowValues) {
        i1 = v.i1; i2 = v.i2; i3 = v.i3
        d1 = v.d1; d2 = v.d2; d3 = v.d3
        s1 = v.s1; s2 = v.s2; s3 = v.s3
    }
}

/// W9's entity: `BenchRow` with a unique `s1`.
@Model
final class KeyedBenchRow {
    #Index<KeyedBenchRow>([\.i1])

    var i1: Int
    var i2: Int
    var i3: Int
    var d1: Double
    var d2: Double
    var d3: Double
    @Attribute(.unique) var s1: String
    var s2: String
    var s3: String

    init(_ v: RowValues) {
        i1 = v.i1; i2 = v.i2; i3 = v.i3
        d1 = v.d1; d2 = v.d2; d3 = v.d3
        s1 = v.s1; s2 = v.s2; s3 = v.s3
    }
}

/// Stowage through its SwiftData API. Every timed run starts from a new `ModelContext` (an empty
/// identity map) unless the workload is about registered objects.
final class StowageContender: Contender {
    let name = "Stowage"
    private var readContainer: ModelContainer!
    private var iterationContainer: ModelContainer!
    /// The identifiers of the read store's rows, by primary key - 1.
    private var identifiers: [PersistentIdentifier] = []
    /// Whether `#Predicate { $0.persistentModelID == id }` runs in SQL (checked in ``checkSQL()``).
    var identifierPredicateRunsInSQL = false

    /// The name of the samples taken with ``ModelConfiguration/recordsHistory`` off (W1, W5): what
    /// recording the history costs is the ratio of the two.
    static let withoutHistory = "Stowage, no history"

    static func open(_ path: String, recordsHistory: Bool = true) throws -> ModelContainer {
        var configuration = ModelConfiguration(url: URL(fileURLWithPath: path))
        configuration.recordsHistory = recordsHistory
        return try ModelContainer(for: BenchRow.self, configurations: configuration)
    }

    func prepareReadStore(path: String, rows: Int) throws {
        readContainer = try Self.open(path)
        readPath = path
        try bulkFill(path: path, table: "BenchRow", primaryKey: "_pk", count: rows)
        identifiers = try ModelContext(readContainer).fetchIdentifiers(FetchDescriptor<BenchRow>())
    }

    func prepareIterationStore(path: String, rows: Int) throws {
        iterationContainer = try Self.open(path)
        try bulkFill(path: path, table: "BenchRow", primaryKey: "_pk", count: rows)
    }

    /// Which of the two variants of W1 and W5 goes first, alternating call by call: the first of a pair
    /// pays for growing the heap to 100k models, which the second reuses.
    private var historyFirst = true

    private func variantOrder<T>(_ pair: [T]) -> [T] {
        defer { historyFirst.toggle() }
        return historyFirst ? pair : pair.reversed()
    }

    /// W1 with history and without it, into two stores.
    func insert(_ rows: [RowValues], path: String) throws -> [Sample] {
        var samples: [Sample] = []
        for (recordsHistory, label) in variantOrder([(true, name), (false, Self.withoutHistory)]) {
            let storePath = recordsHistory ? path : path + ".no-history"
            let context = ModelContext(try Self.open(storePath, recordsHistory: recordsHistory))
            let ms = try time {
                for values in rows { context.insert(BenchRow(values)) }
                try context.save()
            }
            samples.append(Sample(label, ms, rows.count))
            if !recordsHistory { removeStore(storePath) }
        }
        return samples
    }

    func fetchAll() throws -> [Sample] {
        let context = ModelContext(readContainer)
        var count = 0
        let ms = try time { count = try context.fetch(FetchDescriptor<BenchRow>()).count }
        return [Sample(name, ms, count)]
    }

    func fetchRange(_ range: Range<Double>) throws -> [Sample] {
        let context = ModelContext(readContainer)
        let (low, high) = (range.lowerBound, range.upperBound)
        var count = 0
        let ms = try time {
            count = try context.fetch(FetchDescriptor<BenchRow>(predicate: #Predicate { $0.d1 >= low && $0.d1 < high })).count
        }
        return [Sample(name, ms, count)]
    }

    func fetchEqual(_ values: [Int]) throws -> [Sample] {
        let context = ModelContext(readContainer)
        var count = 0
        let ms = try time {
            for value in values {
                count += try context.fetch(FetchDescriptor<BenchRow>(predicate: #Predicate { $0.i1 == value })).count
            }
        }
        return [Sample(name, ms, count)]
    }

    private var keyedContainer: ModelContainer!

    func prepareKeyedStore(path: String, rows: Int) throws {
        keyedContainer = try ModelContainer(for: KeyedBenchRow.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
        try bulkFill(path: path, table: "KeyedBenchRow", primaryKey: "_pk", count: rows)
    }

    func lookupByKey(_ keys: [String]) throws -> [Sample] {
        let context = ModelContext(keyedContainer)
        var found = 0
        let ms = try time {
            for key in keys {
                if let row = try context.fetch(FetchDescriptor<KeyedBenchRow>(predicate: #Predicate { $0.s1 == key })).first {
                    blackHole(row.i1)
                    found += 1
                }
            }
        }
        return [Sample(name, ms, found)]
    }

    func lookup(_ keys: [Int64], hits: Bool) throws -> [Sample] {
        let ids = keys.map { identifiers[Int($0 - 1)] }
        if hits {
            let context = ModelContext(readContainer)
            let held = ids.map { context.model(for: $0) }
            var found = 0
            let registered = time {
                for id in ids {
                    if let model: BenchRow = context.registeredModel(for: id) {
                        blackHole(model.i1)
                        found += 1
                    }
                }
            }
            var foundAgain = 0
            let modelFor = time {
                for id in ids {
                    let model = context.model(for: id) as! BenchRow
                    blackHole(model.i1)
                    foundAgain += 1
                }
            }
            withExtendedLifetime(held) {}
            return [Sample("Stowage registeredModel(for:)", registered, found),
                    Sample("Stowage model(for:)", modelFor, foundAgain)]
        }
        var samples: [Sample] = []
        do {
            let context = ModelContext(readContainer)
            var found = 0
            let ms = time {
                for id in ids {
                    let model = context.model(for: id) as! BenchRow
                    blackHole(model.i1)
                    found += 1
                }
            }
            samples.append(Sample("Stowage model(for:)", ms, found))
        }
        if identifierPredicateRunsInSQL {
            let context = ModelContext(readContainer)
            var found = 0
            let ms = try time {
                for id in ids {
                    var descriptor = FetchDescriptor<BenchRow>(predicate: #Predicate { $0.persistentModelID == id })
                    descriptor.fetchLimit = 1
                    if let model = try context.fetch(descriptor).first {
                        blackHole(model.i1)
                        found += 1
                    }
                }
            }
            samples.append(Sample("Stowage FetchDescriptor(id)", ms, found))
        }
        return samples
    }

    /// W5 with history and without it (a second container on the read store, values of another run).
    func update(_ keys: [Int64], run: Int) throws -> [Sample] {
        var samples: [Sample] = []
        for (container, label, value) in variantOrder([(readContainer!, name, run), (try noHistoryReadContainer(), Self.withoutHistory, run + 1000)]) {
            let context = ModelContext(container)
            let all = try context.fetch(FetchDescriptor<BenchRow>())
            let ms = try time {
                for key in keys {
                    let index = Int(key - 1)
                    let model = all[index]
                    model.i2 = value * 1_000_000 + index
                    model.d2 = Double(value) + 0.125
                }
                try context.save()
            }
            withExtendedLifetime(all) {}
            samples.append(Sample(label, ms, keys.count))
        }
        return samples
    }

    private var readPath = ""
    private var noHistoryContainer: ModelContainer?

    private func noHistoryReadContainer() throws -> ModelContainer {
        if let noHistoryContainer { return noHistoryContainer }
        let container = try Self.open(readPath, recordsHistory: false)
        noHistoryContainer = container
        return container
    }

    func iterate(batchSize: Int) throws -> [Sample] {
        var samples: [Sample] = []
        do {
            let context = ModelContext(iterationContainer)
            var count = 0
            var sum = 0
            let ms = try time {
                try context.enumerate(FetchDescriptor<BenchRow>(), batchSize: batchSize) { model in
                    sum &+= model.i1 &+ model.s1.utf8.count
                    count += 1
                }
            }
            blackHole(sum)
            samples.append(Sample("Stowage enumerate", ms, count))
        }
        do {
            let context = ModelContext(iterationContainer)
            var count = 0
            var sum = 0
            let ms = try time {
                for model in try context.fetch(FetchDescriptor<BenchRow>(), batchSize: batchSize) {
                    sum &+= model.i1 &+ model.s1.utf8.count
                    count += 1
                }
            }
            blackHole(sum)
            samples.append(Sample("Stowage fetch(batchSize:)", ms, count))
        }
        return samples
    }

    func memoryInsert(path: String, rows: Int, saveEvery: Int) throws {
        let context = ModelContext(try Self.open(path))
        for k in 0..<rows {
            context.insert(BenchRow(.make(k)))
            if (k + 1) % saveEvery == 0 { try context.save() }
        }
        try context.save()
    }

    func memoryIterate(path: String) throws -> Int {
        iterationContainer = try Self.open(path)
        return try iterate(batchSize: 5000)[0].rows
    }

    /// Runs each workload's operations once on a small store with the SQL log on, and returns the
    /// statements Stowage ran for them (what BENCHMARKS.md shows, and the check that W5 writes only
    /// the changed columns).
    func checkSQL(in directory: URL) throws -> [String] {
        let log = SQLDebug.StatementLog()
        let observation = SQLDebug.observe { log.append($0) }
        defer { withExtendedLifetime(observation) {} }
        let container = try Self.open(directory.appendingPathComponent("stowage-sql-check.store").path)
        var report: [String] = []
        func capture(_ label: String, _ body: () throws -> Void) rethrows {
            let before = log.events(of: container).count
            try body()
            report.append("\(label):")
            // Consecutive identical statements (one INSERT per model) are shown once, with a count.
            var runs: [(sql: String, count: Int)] = []
            for event in log.events(of: container).dropFirst(before) {
                if runs.last?.sql == event.sql { runs[runs.count - 1].count += 1 } else { runs.append((event.sql, 1)) }
            }
            report += runs.map { $0.count == 1 ? "    \($0.sql)" : "    \($0.sql)    (× \($0.count))" }
        }
        let context = ModelContext(container)
        try capture("W1 insert + save") {
            for k in 0..<20 { context.insert(BenchRow(.make(k))) }
            try context.save()
        }
        let models = try context.fetch(FetchDescriptor<BenchRow>())
        try capture("W5 change i2 and d2 of 2 models, save") {
            for model in models.prefix(2) {
                model.i2 += 1
                model.d2 += 1
            }
            try context.save()
        }
        let id = models[3].persistentModelID
        let (low, high) = (100.0, 200.0)
        let value = 7
        try capture("W3 range") {
            _ = try ModelContext(container).fetch(FetchDescriptor<BenchRow>(predicate: #Predicate { $0.d1 >= low && $0.d1 < high }))
        }
        try capture("W3 indexed equality") {
            _ = try ModelContext(container).fetch(FetchDescriptor<BenchRow>(predicate: #Predicate { $0.i1 == value }))
        }
        capture("W4 model(for:), empty context") {
            _ = ModelContext(container).model(for: id)
        }
        let strict = ModelContext(container)
        strict.requiresSQLTranslation = true
        do {
            try capture("W4 FetchDescriptor #Predicate { $0.persistentModelID == id } (strict mode)") {
                var descriptor = FetchDescriptor<BenchRow>(predicate: #Predicate { $0.persistentModelID == id })
                descriptor.fetchLimit = 1
                _ = try strict.fetch(descriptor)
            }
            identifierPredicateRunsInSQL = true
        } catch {
            report.append("    not translated to SQL: \(error)")
            identifierPredicateRunsInSQL = false
        }
        try capture("W6 enumerate(batchSize: 5000)") {
            try ModelContext(container).enumerate(FetchDescriptor<BenchRow>(), batchSize: 5000) { _ in }
        }
        withExtendedLifetime(models) {}
        return report
    }
}
