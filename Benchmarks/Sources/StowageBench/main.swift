import Foundation

// stowage-bench: Stowage against raw SQLite, GRDB (and Fluent with --traits Fluent), in one process,
// interleaved, median of several runs. See BENCHMARKS.md at the repository root.


let options: Options
do {
    options = try Options(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(64)
}

if let child = options.postgresChild {
    #if Postgres
    do {
        let url = URL(string: child[1])!
        if child[0] == "--postgres-writer" {
            try PostgresLoad.writer(url: url, seconds: Double(child[2])!, index: Int(child[3])!)
        } else {
            try await PostgresLoad.observer(url: url)
        }
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(1)
    }
    #endif
}

let raw = RawContender()
let stowage = StowageContender()
var contenders: [any Contender] = [
    raw,
    GRDBContender<CodableRecord>(name: "GRDB Codable"),
    GRDBContender<ManualRecord>(name: "GRDB manual"),
    stowage,
]
#if Fluent
contenders.append(FluentContender())
#endif

if let child = options.child {
    do {
        try MemoryProbe.runChild(child, contenders: contenders)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(1)
    }
}

#if Fluent
if !options.fluent { contenders.removeAll { $0 is FluentContender } }
#else
if options.fluent {
    FileHandle.standardError.write(Data("--fluent needs a build with --traits Fluent\n".utf8))
    exit(64)
}
#endif

@MainActor func scaled(_ count: Int) -> Int { max(1, Int((Double(count) * options.scale).rounded())) }
let rowCount = scaled(100_000)
let bigRowCount = scaled(1_000_000)
let lookupCount = min(scaled(10_000), rowCount)
let updateCount = max(1, rowCount / 10)
let equalityValues = (0..<100).map { $0 * 7 % 1000 }
let batchSize = 5000

if let server = options.postgres {
    #if Postgres
    try await runPostgresBenchmarks(server: server)
    exit(0)
    #else
    FileHandle.standardError.write(Data("--postgres needs a build with --traits Postgres\n".utf8))
    exit(64)
    #endif
}

let directory: URL
if let path = options.directory {
    directory = URL(fileURLWithPath: path)
} else {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("stowage-bench-\(getpid())")
}
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { if options.directory == nil { try? FileManager.default.removeItem(at: directory) } }

@MainActor func storePath(_ contender: any Contender, _ label: String) -> String {
    directory.appendingPathComponent("\(slug(contender.name))-\(label).sqlite").path
}

func removeStore(_ path: String) {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}

/// Runs `body` `options.runs` times for every contender, rotating the order each run.
@MainActor func interleave(_ body: (any Contender, Int) throws -> Void) throws {
    for run in 0..<options.runs {
        for offset in 0..<contenders.count {
            try body(contenders[(offset + run) % contenders.count], run)
        }
    }
}

func describeMachine() -> String {
    let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
        .split(separator: "\n").first { $0.hasPrefix("model name") }?
        .split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
    let memory = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8))?
        .split(separator: "\n").first { $0.hasPrefix("MemTotal") }?
        .split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap { Int($0) }.map { "\($0 / 1024 / 1024) GiB RAM" } ?? "unknown RAM"
    return "\(ProcessInfo.processInfo.activeProcessorCount) cores (\(cpu)), \(memory)"
}

print("stowage-bench: \(rowCount) rows, \(bigRowCount) for W6 and W7, \(lookupCount) lookups, \(options.runs) runs, scale \(options.scale)")
print("machine: \(describeMachine())")
print("contenders: \(contenders.map(\.name).joined(separator: ", "))")

let sqlCheck = try stowage.checkSQL(in: directory)
print("\nStowage SQL per workload (SQLDebug):")
for line in sqlCheck { print("  \(line)") }

var results = Results()
/// Lines printed under the tables (and written to the Markdown report).
var notes: [String] = []
let values = RowValues.make(count: rowCount)

if options.workloads.contains("W1") {
    print("\nW1 insert \(rowCount)…")
    try interleave { contender, run in
        let path = storePath(contender, "insert-\(run)")
        results.record("W1", "insert \(rowCount), one save", try contender.insert(values, path: path))
        removeStore(path)
    }
}

let readWorkloads = ["W2", "W3", "W4", "W5"]
if !options.workloads.isDisjoint(with: readWorkloads) {
    for contender in contenders { try contender.prepareReadStore(path: storePath(contender, "read"), rows: rowCount) }
}
if options.workloads.contains("W2") {
    print("W2 fetch all…")
    try interleave { contender, _ in results.record("W2", "fetch all \(rowCount) into objects", try contender.fetchAll()) }
}
if options.workloads.contains("W3") {
    print("W3 predicate fetches…")
    try interleave { contender, _ in
        results.record("W3a", "d1 in 100..<200 (unindexed Double, 10%)", try contender.fetchRange(100..<200))
    }
    try interleave { contender, _ in
        results.record("W3b", "i1 == v (indexed Int), 100 queries", try contender.fetchEqual(equalityValues))
    }
}
if options.workloads.contains("W4") {
    print("W4 lookups by identifier…")
    let keys = randomKeys(lookupCount, of: rowCount, seed: 42)
    try interleave { contender, _ in
        results.record("W4a", "\(lookupCount) by id, empty context (misses)", try contender.lookup(keys, hits: false))
    }
    try interleave { contender, _ in
        results.record("W4b", "\(lookupCount) by id, objects registered (hits)", try contender.lookup(keys, hits: true))
    }
}
if options.workloads.contains("W5") {
    print("W5 updates…")
    let keys = (0..<updateCount).map { Int64($0 * rowCount / updateCount + 1) }
    try interleave { contender, run in
        results.record("W5", "change 2 properties of \(updateCount), one save", try contender.update(keys, run: run + 1))
    }
}
if options.workloads.contains("W6") {
    print("W6 iterate \(bigRowCount)…")
    for contender in contenders { try contender.prepareIterationStore(path: storePath(contender, "iterate"), rows: bigRowCount) }
    try interleave { contender, _ in
        results.record("W6", "iterate \(bigRowCount), batches of \(batchSize)", try contender.iterate(batchSize: batchSize))
    }
}

// L1–L3: live results (Stowage only; L1's baseline is a plain fetch of the changed row by identifier).
if options.workloads.contains("L1") {
    let rows = min(scaled(10_000), rowCount), changes = 200
    print("L1 observer latency, \(rows) rows, \(changes) changes per run…")
    for run in 0..<options.runs {
        let path = directory.appendingPathComponent("l1-\(run).sqlite").path
        let (update, save, refetch, readAtOnce, hops) = try await LiveWorkloads.latency(path: path, rows: rows, changes: changes)
        let title = "save → observer update, \(rows)-row result, 1 row changed (median of \(changes))"
        results.record("L1", title, [
            Sample("Stowage observer update", median(update), rows), Sample("Stowage fetch of that row by id", median(refetch), 1),
            Sample("Stowage save (1 row)", median(save), 1),
            Sample("Stowage observer update, read at once (no task hops)", median(readAtOnce), rows),
            Sample("the two task hops alone (no Stowage work)", median(hops), 1),
        ])
        results.setReference("L1", raw: "Stowage fetch of that row by id")
        removeStore(path)
        removeStore(path + "-hops")
    }
}
if options.workloads.contains("L2") {
    let saves = 50
    print("L2 100 observers, \(saves) saves per run…")
    var reads: [(Int, Int)] = []
    for run in 0..<options.runs {
        let path = directory.appendingPathComponent("l2-\(run).sqlite").path
        let (ms, readsA, readsOthers) = try await LiveWorkloads.fanOut(path: path, saves: saves)
        results.record("L2", "100 observers (25 per entity, 1,000 rows each), save of 1 row: all 25 affected updated", [
            Sample("Stowage observers", median(ms), 25),
        ])
        reads += zip(readsA, readsOthers).map { ($0, $1) }
        removeStore(path)
    }
    let affected = reads.map(\.0), unaffected = reads.map(\.1)
    notes.append(
        "L2 statements per save: \(affected.min()!)–\(affected.max()!) reads of the changed entity (25 observers), "
            + "\(unaffected.max()!) of the three others (75 observers)")
}
if options.workloads.contains("L3") {
    let rows = scaled(5_000_000)
    print("L3 open an observer over \(rows) rows…")
    var first: [Double] = [], firstRSS: [Double] = [], iterate: [Double] = [], peak: [Double] = []
    for run in 0..<min(options.runs, 3) {
        let path = directory.appendingPathComponent("l3-\(run).sqlite").path
        let sample = try LiveWorkloads.open(path: path, rows: rows)
        guard sample.seen == rows else { throw BenchError(description: "L3 read \(sample.seen) of \(rows) rows") }
        first.append(sample.firstMs)
        firstRSS.append(sample.firstRSS)
        iterate.append(sample.iterateMs)
        peak.append(sample.peakRSS)
        results.record("L3", "open an observer over \(rows) rows (sorted by indexed i1): first element", [Sample("Stowage observer", sample.firstMs, rows)])
        removeStore(path)
    }
    notes.append(String(
        format: "L3 \(rows) rows: first element %.1f ms (median), +%.1f MB resident after it; reading every row through results %.0f ms, at most +%.1f MB resident",
        median(first), median(firstRSS), median(iterate), peak.max()!))
}

var memoryLines: [String] = []
@MainActor func appendMemoryLine(_ line: String) {
    if memoryLines.isEmpty {
        memoryLines = ["| Memory workload | Contender | Peak RSS growth (MB) | Rows |", "|---|---|---:|---:|"]
    }
    memoryLines.append(line)
}

if options.workloads.contains("W7") {
    print("W7 migrate \(bigRowCount) rows…")
    let title = "migrate \(bigRowCount) rows (rename, add, rewrite every row)"
    let source = directory.appendingPathComponent("w7-v1.sqlite").path
    try W7Store.prepare(path: source, rows: bigRowCount)
    var phases: [[Double]] = []
    try interleave { contender, run in
        guard let migrator = contender as? any MigrationContender else { return }
        for variant in migrator.migrationVariants {
            let path = directory.appendingPathComponent("w7-\(slug(variant))-\(run).sqlite").path
            try W7Store.copy(source, to: path)
            let sample = try migrator.migrate(variant, path: path)
            if variant == stowage.name { phases.append(lastMigrationPhases) }
            try W7Store.verify(path: path, rows: bigRowCount, variant: variant)
            try migrator.checkMigrated(variant, path: path, rows: bigRowCount)
            results.record("W7", title, [sample])
            removeStore(path)
        }
    }
    if !phases.isEmpty {
        let medians = (0..<3).map { i in String(format: "%.0f", median(phases.map { $0[i] })) }
        notes.append(
            "W7 Stowage phases (median ms): up to didMigrate (open, rebuild the table) \(medians[0]), "
                + "didMigrate (enumerate + saves) \(medians[1]), after it (record, commit, checkpoint, open) \(medians[2])")
    }
    // Peak memory of each variant's migration, each in a fresh child process.
    for case let migrator as any MigrationContender in contenders {
        for variant in migrator.migrationMemoryVariants {
            let path = directory.appendingPathComponent("w7-memory-\(slug(variant)).sqlite").path
            try W7Store.copy(source, to: path)
            let (growth, seen) = try MemoryProbe.measure(slug(variant), mode: "migrate", path: path, rows: bigRowCount)
            try W7Store.verify(path: path, rows: bigRowCount, variant: variant)
            appendMemoryLine("| **W7** \(title) | \(variant) | \(String(format: "%.1f", growth)) | \(seen) |")
            removeStore(path)
        }
    }
    removeStore(source)
}

if options.workloads.contains("W8") {
    print("W8 import \(rowCount) users from JSON…")
    // One document for every contender and run (see Users.swift): raw SQLite, GRDB Codable, Stowage.
    let json = try W8Users.document(count: rowCount)
    try interleave { contender, run in
        guard let importer = contender as? any UsersImportContender else { return }
        let path = storePath(contender, "users-\(run)")
        let title = "import \(rowCount) users from one JSON document (\(json.count / 1024) KB): decode, insert, one save"
        results.record("W8", title, [try importer.importUsers(json, count: rowCount, path: path)])
        removeStore(path)
    }
}

if options.workloads.contains("W9") {
    print("W9 lookups by a unique string…")
    let keyCount = min(scaled(1_000), rowCount)
    for contender in contenders { try contender.prepareKeyedStore(path: storePath(contender, "keyed"), rows: rowCount) }
    let keys = randomKeys(keyCount, of: rowCount, seed: 9).map { RowValues.make(Int($0) - 1).s1 }
    try interleave { contender, _ in
        results.record("W9", "\(keyCount) by unique String key", try contender.lookupByKey(keys))
    }
}

if options.workloads.contains("M1") {
    print("M1 peak memory (child processes)…")
    let memoryContenders = contenders.filter { !($0.name == "GRDB manual") }
    for (label, rows) in [("iterate", rowCount), ("iterate", bigRowCount)] {
        // The stores W6 would iterate, at this row count.
        for contender in memoryContenders {
            let path = storePath(contender, "m1-\(rows)")
            try contender.prepareIterationStore(path: path, rows: rows)
            let (growth, seen) = try MemoryProbe.measure(contender, mode: label, path: path, rows: rows)
            appendMemoryLine("| **M1** iterate \(rows) | \(contender.name) | \(String(format: "%.1f", growth)) | \(seen) |")
            removeStore(path)
        }
    }
    for contender in memoryContenders {
        let path = storePath(contender, "m1-insert")
        let (growth, seen) = try MemoryProbe.measure(contender, mode: "insert", path: path, rows: bigRowCount)
        appendMemoryLine("| **M1** insert \(bigRowCount), save every 10k | \(contender.name) | \(String(format: "%.1f", growth)) | \(seen) |")
        removeStore(path)
    }
}

let table = results.table()
print("\n" + table)
if !memoryLines.isEmpty { print("\n" + memoryLines.joined(separator: "\n")) }
if !notes.isEmpty { print("\n" + notes.joined(separator: "\n")) }

if let markdown = options.markdown {
    let formatter = ISO8601DateFormatter()
    let report = """
        Run \(formatter.string(from: Date())) on \(describeMachine()); \(options.runs) runs per workload, \
        scale \(options.scale) (\(rowCount) rows, \(bigRowCount) for W6, W7 and M1, \(lookupCount) lookups).

        \(table)

        \(memoryLines.joined(separator: "\n"))

        \(notes.joined(separator: "\n\n"))

        Statements Stowage ran for each workload (SQLDebug, on a 20-row store):

        ```
        \(sqlCheck.joined(separator: "\n"))
        ```

        """
    try report.write(toFile: markdown, atomically: true, encoding: .utf8)
    print("\nwrote \(markdown)")
}
