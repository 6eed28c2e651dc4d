#if Postgres
import Foundation
import PostgresNIO
import Stowage
import StowagePostgres

/// The system's monotonic clock, in nanoseconds: the same clock in every process of the machine, so
/// that two processes' readings can be subtracted.
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// Writes a line to standard output at once (a parent process reads it).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Reads lines from a child's standard output.
final class LineReader {
    private let handle: FileHandle
    private var buffer = Data()
    init(_ handle: FileHandle) { self.handle = handle }

    func next() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = handle.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }
}

/// Starts this benchmark executable as a child process with `arguments`, its input and output piped.
func startChild(_ arguments: [String]) throws -> (Process, FileHandle, LineReader) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    process.arguments = arguments
    let input = Pipe(), output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    return (process, input.fileHandleForWriting, LineReader(output.fileHandleForReading))
}

enum PostgresLoad {
    // MARK: P1, save throughput

    /// P1's child: saves for `seconds` once told to start, each save one inserted row and one more on a
    /// row of its own, with history; prints how many saves it acknowledged.
    static func writer(url: URL, seconds: Double, index: Int) throws {
        let container = try StowagePostgresContender.open(url, [BenchRow.self])
        let context = ModelContext(container)
        let mine = BenchRow(RowValues.make(index))
        context.insert(mine)
        try context.save()
        say("ready")
        _ = readLine()
        var saves = 0
        let end = monotonicNanoseconds() + UInt64(seconds * 1e9)
        var k = 1_000_000 * (index + 1)
        while monotonicNanoseconds() < end {
            context.insert(BenchRow(RowValues.make(k)))
            mine.i2 += 1
            try context.save()
            saves += 1
            k += 1
        }
        say("saves \(saves)")
    }

    /// P1: 4 writer processes for `seconds`; the saves per second of all of them, checked against the rows
    /// stored.
    static func throughput(server: URL, seconds: Double, writers: Int = 4) async throws -> Double {
        let url = try await PostgresServer.createDatabase(server, "bench_p1")
        // The tables exist before the writers start (as after a deploy's first instance).
        _ = try StowagePostgresContender.open(url, [BenchRow.self])
        var children: [(Process, FileHandle, LineReader)] = []
        for index in 0..<writers {
            children.append(try startChild(["--postgres-writer", url.absoluteString, String(seconds), String(index)]))
        }
        for (_, _, lines) in children where lines.next() != "ready" { throw BenchError(description: "P1: a writer did not start") }
        let start = monotonicNanoseconds()
        for (_, input, _) in children { input.write(Data("go\n".utf8)) }
        var total = 0
        for (process, _, lines) in children {
            guard let line = lines.next(), line.hasPrefix("saves "), let saves = Int(line.dropFirst(6)) else {
                throw BenchError(description: "P1: a writer failed")
            }
            process.waitUntilExit()
            total += saves
        }
        let elapsed = Double(monotonicNanoseconds() - start) / 1e9
        let stored = try ModelContext(StowagePostgresContender.open(url, [BenchRow.self])).fetchCount(FetchDescriptor<BenchRow>())
        guard stored == total + writers else { throw BenchError(description: "P1: \(total) saves acknowledged, \(stored - writers) stored") }
        try await PostgresServer.dropDatabase(server, "bench_p1")
        return Double(total) / max(elapsed, seconds)
    }

    /// pgbench with 4 clients running the same transaction (one insert, one update of a row of the
    /// client's own), and, `withHistory`, also what Stowage's history adds, in Stowage's own history
    /// tables: the save's shared lock, the transaction's row and its two changes, and the notification
    /// after the commit: transactions per second.
    ///
    /// `listeners` connections listen to Stowage's channel meanwhile, as the writers' containers do in
    /// Stowage's run: the server then delivers every notification to them.
    static func pgbench(server: URL, seconds: Double, withHistory: Bool, listeners: Int = 0, clients: Int = 4) async throws -> Double {
        guard let pgbench = ["/usr/lib/postgresql/15/bin/pgbench", "/usr/bin/pgbench"].first(where: FileManager.default.isExecutableFile) else {
            throw BenchError(description: "P1: pgbench not found (Debian's postgresql package)")
        }
        let url = try await PostgresServer.createDatabase(server, "bench_pgbench")
        // Stowage's history tables and functions.
        _ = try StowagePostgresContender.open(url, [BenchRow.self])
        let connection = try await PostgresServer.connect(url)
        try await RawPostgresContender.makeTable(connection, uniqueKey: false)
        try await PostgresServer.fill(connection, table: "item", key: "id", count: clients)
        try await connection.close()
        var listening: [PostgresConnection] = []
        for _ in 0..<listeners {
            let listener = try await PostgresServer.connect(url)
            listener.addListener(channel: "stowage_saves") { _, _ in }
            try await listener.query("LISTEN stowage_saves", logger: PostgresServer.logger)
            listening.append(listener)
        }
        defer { for listener in listening { Task { try? await listener.close() } } }
        let v = RowValues.make(12345)
        var script = """
            BEGIN;
            INSERT INTO item (i1, i2, i3, d1, d2, d3, s1, s2, s3) VALUES (\(v.i1), \(v.i2), \(v.i3), \(v.d1), \(v.d2), \(v.d3), '\(v.s1)', '\(v.s2)', '\(v.s3)') RETURNING id;
            UPDATE item SET i2 = i2 + 1 WHERE id = :client_id + 1;

            """
        if withHistory {
            let current = #"currval(pg_get_serial_sequence('"_stowage_history"', 'id'))"#
            script += """
                SELECT pg_advisory_xact_lock_shared(\(Int64(0x5354_4F58) << 32) | (pg_current_xact_id()::text::bigint % 4294967296));
                INSERT INTO "_stowage_history" ("timestamp", "author", "bundle", "process", "origin", "detail") VALUES (extract(epoch from now()), NULL, 'pgbench', 'pgbench', 1, 1) RETURNING "id";
                INSERT INTO "_stowage_history_change" VALUES (\(current), 0, 'BenchRow', 0, NULL, '\\x0000000000000001', NULL), (\(current), 1, 'BenchRow', 1, 'i2', '\\x0000000000000002', NULL);
                COMMIT;
                SELECT stowage_notify(\(current)::text || ' 1');

                """
        } else {
            script += "COMMIT;\n"
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("stowage-bench-\(getpid()).pgbench")
        try script.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: pgbench)
        // A number of transactions (-t) rather than a duration (-T): pgbench ends a duration with SIGALRM,
        // which a child started from this process's threads would have blocked.
        let transactions = Int(seconds * 600)
        var arguments = ["-n", "-c", String(clients), "-j", "2", "-t", String(transactions), "-f", file.path,
                         "-h", url.host ?? "127.0.0.1", "-p", String(url.port ?? 5432), "-U", url.user ?? "postgres", String(url.path.dropFirst())]
        if url.host == nil { arguments.removeAll { $0 == "-h" || $0 == "127.0.0.1" } }
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try await PostgresServer.dropDatabase(server, "bench_pgbench")
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("tps = ") }),
              let tps = Double(line.dropFirst(6).prefix { $0 == "." || $0.isNumber }) else {
            throw BenchError(description: "P1: pgbench printed no tps:\n\(text)")
        }
        return tps
    }

    // MARK: P2, change latency across processes

    /// P2's child: a ResultsObserver over the rows sorted by `i2`, largest first; prints, for each
    /// update, the monotonic time it arrived and the largest `i2`.
    @MainActor
    static func observer(url: URL) async throws {
        let container = try StowagePostgresContender.open(url, [BenchRow.self])
        let observer = try ResultsObserver<BenchRow, Never>(sortBy: [SortDescriptor(\.i2, order: .reverse)], modelContainer: container)
        var updates = observer.updates().makeAsyncIterator()
        _ = await updates.next(isolation: #isolation)
        say("ready")
        while let snapshot = await updates.next(isolation: #isolation) {
            let arrived = monotonicNanoseconds()
            say("update \(arrived) \(snapshot.results.first?.i2 ?? -1)")
        }
    }

    /// P2: another process observes 1,000 rows; this one changes one row's `i2` (to the largest yet) and
    /// saves, `changes` times. Returns, per change, the milliseconds from `save()` returning to the other
    /// process's update, and from `save()` being called.
    static func latency(server: URL, changes: Int) async throws -> (fromCommit: [Double], fromSaveCall: [Double]) {
        let url = try await PostgresServer.createDatabase(server, "bench_p2")
        let container = try StowagePostgresContender.open(url, [BenchRow.self])
        let context = ModelContext(container)
        for k in 0..<1000 { context.insert(BenchRow(RowValues.make(k))) }
        try context.save()
        let rows = try context.fetch(FetchDescriptor<BenchRow>())
        let (process, input, lines) = try startChild(["--postgres-observer", url.absoluteString])
        guard lines.next() == "ready" else { throw BenchError(description: "P2: the observer did not start") }
        var fromCommit: [Double] = [], fromSaveCall: [Double] = []
        var generator = SystemRandomNumberGenerator()
        for change in 1...changes {
            let marker = 10_000_000 + change
            rows[Int.random(in: 0..<rows.count, using: &generator)].i2 = marker
            let called = monotonicNanoseconds()
            try context.save()
            let saved = monotonicNanoseconds()
            var arrived: UInt64?
            while arrived == nil, let line = lines.next() {
                let parts = line.split(separator: " ")
                if parts.count == 3, parts[0] == "update", let at = UInt64(parts[1]), let value = Int(parts[2]), value >= marker { arrived = at }
            }
            guard let arrived else { throw BenchError(description: "P2: the observer stopped") }
            fromCommit.append(Double(Int64(arrived) - Int64(saved)) / 1e6)
            fromSaveCall.append(Double(Int64(arrived) - Int64(called)) / 1e6)
            usleep(2_000)
        }
        try input.close()
        process.terminate()
        process.waitUntilExit()
        try await PostgresServer.dropDatabase(server, "bench_p2")
        return (fromCommit, fromSaveCall)
    }
}

/// The value at fraction `p` (0…1) of `values`, nearest rank.
func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))]
}

/// Runs the PostgreSQL workloads on the server at `server` (its databases are created and dropped here).
@MainActor
func runPostgresBenchmarks(server: URL) async throws {
    var contenders: [any PostgresContender] = [RawPostgresContender(), StowagePostgresContender()]
    #if Fluent
    if options.fluent { contenders.append(FluentPostgresContender()) }
    #endif
    print("stowage-bench on PostgreSQL: \(rowCount) rows, \(options.runs) runs, scale \(options.scale)")
    print("machine: \(describeMachine())")
    print("contenders: \(contenders.map(\.name).joined(separator: ", "))")
    var results = Results()
    let raw = "raw postgres-nio"
    func interleave(_ body: (any PostgresContender, Int) async throws -> Void) async throws {
        for run in 0..<options.runs {
            for offset in 0..<contenders.count { try await body(contenders[(offset + run) % contenders.count], run) }
        }
    }
    func database(_ contender: any PostgresContender, _ label: String) async throws -> URL {
        try await PostgresServer.createDatabase(server, "bench_\(slug(contender.name).replacingOccurrences(of: "-", with: "_"))_\(label)")
    }
    let values = RowValues.make(count: rowCount)
    if options.workloads.contains("W1") {
        print("W1 insert \(rowCount)…")
        try await interleave { contender, run in
            let url = try await database(contender, "w1")
            results.record("W1", "insert \(rowCount), one save", try await contender.insert(values, url: url))
        }
    }
    if !options.workloads.isDisjoint(with: ["W2", "W3", "W5"]) {
        for contender in contenders { try await contender.prepareRead(url: try await database(contender, "read"), rows: rowCount) }
    }
    if options.workloads.contains("W2") {
        print("W2 fetch all…")
        try await interleave { contender, _ in results.record("W2", "fetch all \(rowCount) into objects", try await contender.fetchAll()) }
    }
    if options.workloads.contains("W3") {
        print("W3 predicate fetches…")
        try await interleave { contender, _ in
            results.record("W3a", "d1 in 100..<200 (unindexed Double, 10%)", try await contender.fetchRange(100..<200))
        }
        try await interleave { contender, _ in
            results.record("W3b", "i1 == v (indexed Int), 100 queries", try await contender.fetchEqual(equalityValues))
        }
    }
    if options.workloads.contains("W5") {
        print("W5 updates…")
        let keys = (0..<updateCount).map { Int64($0 * rowCount / updateCount + 1) }
        try await interleave { contender, run in
            results.record("W5", "change 2 properties of \(updateCount), one save", try await contender.update(keys, run: run + 1))
        }
    }
    if options.workloads.contains("W9") {
        print("W9 lookups by a unique string…")
        let keyCount = min(scaled(1_000), rowCount)
        for contender in contenders { try await contender.prepareKeyed(url: try await database(contender, "keyed"), rows: rowCount) }
        let keys = randomKeys(keyCount, of: rowCount, seed: 9).map { RowValues.make(Int($0) - 1).s1 }
        try await interleave { contender, _ in
            results.record("W9", "\(keyCount) by unique String key", try await contender.lookupByKey(keys))
        }
    }
    for contender in contenders { try await contender.close() }
    for workload in results.workloads.map(\.id) { results.setReference(workload, raw: raw) }
    var lines: [String] = []
    if options.workloads.contains("P1") {
        let seconds = 5.0
        print("P1 save throughput, 4 writer processes, \(Int(seconds)) s each run…")
        var stowage: [Double] = [], plain: [Double] = [], historyLike: [Double] = [], listened: [Double] = []
        for _ in 0..<options.runs {
            stowage.append(try await PostgresLoad.throughput(server: server, seconds: seconds))
            plain.append(try await PostgresLoad.pgbench(server: server, seconds: seconds, withHistory: false))
            historyLike.append(try await PostgresLoad.pgbench(server: server, seconds: seconds, withHistory: true))
            listened.append(try await PostgresLoad.pgbench(server: server, seconds: seconds, withHistory: true, listeners: 4))
        }
        lines.append(String(
            format: "P1 saves per second, 4 processes (median of %d runs of %.0f s): Stowage %.0f (%.0f–%.0f); pgbench, insert + update %.0f (%.2f× Stowage's: Stowage is %.2f× it); pgbench, the same with Stowage's history (lock, 3 rows, NOTIFY after) %.0f (Stowage %.2f× it); and with 4 connections listening, as Stowage's writers do, %.0f (Stowage %.2f× it)",
            options.runs, seconds, median(stowage), stowage.min()!, stowage.max()!, median(plain), median(plain) / median(stowage),
            median(stowage) / median(plain), median(historyLike), median(stowage) / median(historyLike),
            median(listened), median(stowage) / median(listened)))
    }
    if options.workloads.contains("P2") {
        let changes = 200
        print("P2 change latency across processes, \(changes) changes per run…")
        var fromCommit: [Double] = [], fromCall: [Double] = []
        for _ in 0..<options.runs {
            let (commit, call) = try await PostgresLoad.latency(server: server, changes: changes)
            fromCommit += commit
            fromCall += call
        }
        lines.append(String(
            format: "P2 save in one process → ResultsObserver update in another (%d changes): from save() returning p50 %.2f ms, p99 %.2f ms, max %.2f ms; from save() called p50 %.2f ms, p99 %.2f ms",
            fromCommit.count, percentile(fromCommit, 0.5), percentile(fromCommit, 0.99), fromCommit.max()!,
            percentile(fromCall, 0.5), percentile(fromCall, 0.99)))
    }
    let table = results.table(columns: [("× raw postgres-nio", raw), ("× Fluent", "Fluent")])
    print("\n" + table)
    if !lines.isEmpty { print("\n" + lines.joined(separator: "\n")) }
    if let markdown = options.markdown {
        let report = """
            Run \(ISO8601DateFormatter().string(from: Date())) on \(describeMachine()), PostgreSQL on the same machine; \
            \(options.runs) runs per workload, scale \(options.scale) (\(rowCount) rows).

            \(table)

            \(lines.joined(separator: "\n\n"))

            """
        try report.write(toFile: markdown, atomically: true, encoding: .utf8)
        print("\nwrote \(markdown)")
    }
}
#endif
