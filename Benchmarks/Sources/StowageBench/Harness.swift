import Foundation

/// One timed run of one contender (or one variant of it) on one workload.
struct Sample {
    let name: String
    let ms: Double
    /// Rows (or objects) the run produced, checked to agree across contenders.
    let rows: Int

    init(_ name: String, _ ms: Double, _ rows: Int) {
        self.name = name
        self.ms = ms
        self.rows = rows
    }
}

/// A persistence layer under test. Each method prepares what it needs untimed, times only the
/// workload itself, and returns one sample per variant it measures.
protocol Contender: AnyObject {
    var name: String { get }
    /// Creates the store the read workloads (W2–W5) use, filled with `rows` rows.
    func prepareReadStore(path: String, rows: Int) throws
    /// Creates the store W6 iterates, filled with `rows` rows.
    func prepareIterationStore(path: String, rows: Int) throws
    /// W1: inserts `rows` into a new store at `path` in one transaction (one save).
    func insert(_ rows: [RowValues], path: String) throws -> [Sample]
    /// W2: fetches every row into objects.
    func fetchAll() throws -> [Sample]
    /// W3a: fetches the rows whose unindexed `d1` is in `range`.
    func fetchRange(_ range: Range<Double>) throws -> [Sample]
    /// W3b: fetches, for each value, the rows whose indexed `i1` equals it.
    func fetchEqual(_ values: [Int]) throws -> [Sample]
    /// W4: fetches each row by identifier; `hits` when the layer already holds the objects.
    func lookup(_ keys: [Int64], hits: Bool) throws -> [Sample]
    /// W5: changes `i2` and `d2` of the rows with these identifiers, in one transaction.
    func update(_ keys: [Int64], run: Int) throws -> [Sample]
    /// W6: iterates every row of the iteration store.
    func iterate(batchSize: Int) throws -> [Sample]
    /// W9: creates the store of W9 at `path`, `rows` rows whose `s1` is unique (and so indexed).
    func prepareKeyedStore(path: String, rows: Int) throws
    /// W9: fetches the row whose unique `s1` equals each key.
    func lookupByKey(_ keys: [String]) throws -> [Sample]
    /// M1 (child process): inserts `rows` rows into a new store, saving every `saveEvery`.
    func memoryInsert(path: String, rows: Int, saveEvery: Int) throws
    /// M1 (child process): iterates the existing store at `path`; returns the rows seen.
    func memoryIterate(path: String) throws -> Int
}

@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// Milliseconds taken by `body`.
func time(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// The samples of every workload, in the order they were first seen, and the Markdown table of their
/// medians.
struct Results {
    struct Workload {
        let id: String
        let title: String
        var order: [String] = []
        var samples: [String: [Double]] = [:]
        var rows: [String: Set<Int>] = [:]
        /// The contender the "× raw" column divides by, and the one "× GRDB" divides by.
        var raw = "raw SQLite"
    }

    var workloads: [Workload] = []

    mutating func record(_ id: String, _ title: String, _ samples: [Sample]) {
        if !workloads.contains(where: { $0.id == id }) { workloads.append(Workload(id: id, title: title)) }
        let index = workloads.firstIndex { $0.id == id }!
        for sample in samples {
            if workloads[index].samples[sample.name] == nil { workloads[index].order.append(sample.name) }
            workloads[index].samples[sample.name, default: []].append(sample.ms)
            workloads[index].rows[sample.name, default: []].insert(sample.rows)
        }
    }

    /// Makes the "× raw" column of a workload divide by `raw` (a workload without raw SQLite).
    mutating func setReference(_ id: String, raw: String) {
        guard let index = workloads.firstIndex(where: { $0.id == id }) else { return }
        workloads[index].raw = raw
    }

    /// The table of medians, with a ratio column for each of `columns` (its title, and the contender it
    /// divides by; "raw" is each workload's own reference).
    func table(columns: [(String, String)] = [("× raw", "raw"), ("× GRDB Codable", "GRDB Codable"), ("× GRDB manual", "GRDB manual")]) -> String {
        var lines = [
            "| Workload | Contender | Median (ms) | Min–max (ms) | Rows |" + columns.map { " \($0.0) |" }.joined(),
            "|---|---|---:|---:|---:|" + String(repeating: "---:|", count: columns.count),
        ]
        for workload in workloads {
            let medians = workload.samples.mapValues(median)
            func ratio(_ name: String, _ base: String) -> String {
                guard let value = medians[name], let reference = medians[base], reference > 0 else { return "—" }
                return String(format: "%.2f×", value / reference)
            }
            for (offset, name) in workload.order.enumerated() {
                let values = workload.samples[name]!
                let rows = workload.rows[name]!.sorted().map(String.init).joined(separator: "/")
                lines.append(
                    "| \(offset == 0 ? "**\(workload.id)** \(workload.title)" : "") | \(name) | "
                        + String(format: "%.2f", medians[name]!)
                        + String(format: " | %.2f–%.2f", values.min()!, values.max()!)
                        + " | \(rows) |" + columns.map { " \(ratio(name, $0.1 == "raw" ? workload.raw : $0.1)) |" }.joined())
            }
        }
        return lines.joined(separator: "\n")
    }
}
