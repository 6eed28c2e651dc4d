import Foundation
import Stowage

// "Two processes": two child processes (`stowage-reliability child two-processes-writer`) each save
// 1,000 times (one insert per save) on one store file, started together, while the parent reads: it
// counts the rows again and again (a count never goes down, each writer's rows a gap-free prefix) and
// follows them with a live `ResultsObserver`, which hears of the other processes' saves through the
// store's change watcher and must end with every row.
//
// A writer waits for the other's write lock (SQLite's busy handler, up to
// `ModelConfiguration.busyTimeout`); `.storeBusy` reaching a save is counted (and the save tried again,
// so the count stays exact) and fails the scenario.

@Model final class ProcessEntry {
    var writer: Int
    var sequence: Int
    var payload: String

    init(writer: Int, sequence: Int) {
        self.writer = writer
        self.sequence = sequence
        self.payload = ProcessEntry.payload(writer: writer, sequence: sequence)
    }

    static func payload(writer: Int, sequence: Int) -> String { "process \(writer) save \(sequence)" }
}

/// What the parent's reads saw.
struct ProcessReadResult: Sendable {
    var reads = 0
    var countDecreases = 0
    var gaps = 0
    var incomplete = 0
    var lastCount = 0
    var durations: [Double] = []
    var problems: [String] = []
}

@ModelActor
actor ProcessReader {
    private var observer: ResultsObserver<ProcessEntry, Never>?

    /// Reads every row until `stop`, then once more.
    func run(stop: ConcurrencyShared<Bool>) async -> ProcessReadResult {
        var result = ProcessReadResult()
        while true {
            let last = stop.current
            do {
                let start = now()
                let rows = try modelContext.fetch(FetchDescriptor<ProcessEntry>())
                result.durations.append(now() - start)
                result.reads += 1
                if rows.count < result.lastCount {
                    result.countDecreases += 1
                    if result.problems.count < 5 { result.problems.append("the count went down from \(result.lastCount) to \(rows.count)") }
                }
                result.lastCount = rows.count
                var perWriter: [Int: (count: Int, maximum: Int)] = [:]
                for row in rows {
                    if row.payload != ProcessEntry.payload(writer: row.writer, sequence: row.sequence) { result.incomplete += 1 }
                    let seen = perWriter[row.writer] ?? (0, -1)
                    perWriter[row.writer] = (seen.count + 1, max(seen.maximum, row.sequence))
                }
                for (writer, seen) in perWriter where seen.count != seen.maximum + 1 {
                    result.gaps += 1
                    if result.problems.count < 5 { result.problems.append("process \(writer): \(seen.count) rows up to save \(seen.maximum), not a prefix") }
                }
            } catch {
                if result.problems.count < 5 { result.problems.append("a fetch failed: \(error)") }
            }
            if last { return result }
            // Other processes' saves are what is read: leave them the processor now and then.
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Follows every row with a live observer, recording the count of each snapshot.
    func follow(_ counts: ConcurrencyShared<[Int]>) async throws {
        let observer = try ResultsObserver<ProcessEntry, Never>(modelContext: modelContext)
        self.observer = observer
        defer { self.observer = nil }
        for await snapshot in observer.updates() {
            let count = snapshot.results.count
            counts.update { $0.append(count) }
        }
    }
}

enum TwoProcesses {
    static let scenario = Scenario(
        "two-processes",
        "2 processes × 1,000 saves (one insert each) on one file while the parent reads and observes: exact counts, no SQLITE_BUSY"
    ) { options in
        var report = Report("two-processes")
        let processes = 2
        let saves = options.size(quick: 200, full: 1_000)
        let store = options.directory.appendingPathComponent("processes.store")
        let go = options.directory.appendingPathComponent("go")
        // The parent creates the store; the children open it.
        let container = try ModelContainer(for: ProcessEntry.self, configurations: ModelConfiguration(url: store))
        guard let children = try WriterProcesses.start("two-processes-writer", count: processes, store: store, saves: saves, go: go, report: &report) else {
            return report
        }

        let stop = ConcurrencyShared(false)
        let counts = ConcurrencyShared<[Int]>([])
        let reader = ProcessReader(modelContainer: container)
        let observerHost = ProcessReader(modelContainer: container)
        var read = ProcessReadResult()
        var results: [ChildProcess.Result] = []
        var elapsed = 0.0
        var observerConverged = false
        await withThrowingTaskGroup(of: Void.self) { observing in
            observing.addTask { try await observerHost.follow(counts) }
            _ = await concurrencyEventually(timeout: 120) { !counts.current.isEmpty }
            let reading = Task { await reader.run(stop: stop) }
            let start = now()
            _ = FileManager.default.createFile(atPath: go.path, contents: Data())
            results = await WriterProcesses.results(of: children)
            elapsed = now() - start
            stop.update { $0 = true }
            read = await reading.value
            observerConverged = await concurrencyEventually(timeout: 120) { counts.current.last == processes * saves }
            observing.cancelAll()
        }

        var busy = 0, errors = 0, done = 0
        var latencies: [Double] = []
        for (index, result) in results.enumerated() {
            guard let fields = WriterProcesses.done(result) else {
                report.fail("process \(index) did not finish: \(result)")
                continue
            }
            done += Int(fields["saves"] ?? 0)
            busy += Int(fields["busy"] ?? 0)
            errors += Int(fields["errors"] ?? 0)
            latencies += WriterProcesses.values("LATENCY", in: result)
            report.check(result.exitedNormally, "process \(index) ended with \(result)")
        }
        let rows = try ModelContext(container).fetchCount(FetchDescriptor<ProcessEntry>())
        let reopened = try ModelContainer(for: ProcessEntry.self, configurations: ModelConfiguration(url: store))
        let rowsReopened = try ModelContext(reopened).fetchCount(FetchDescriptor<ProcessEntry>())
        let observed = counts.current
        let expected = processes * saves

        report.figure("processes", "\(processes) × \(saves) saves, one insert each")
        report.figure("saves acknowledged", done)
        report.figure("rows", rows)
        report.figure("rows after reopening", rowsReopened)
        report.figure("busy errors", busy)
        report.figure("other save errors", errors)
        report.figure("saves per second", String(format: "%.0f", Double(done) / max(elapsed, 1e-9)))
        concurrencyLatencyFigures(latencies, into: &report)
        report.figure("parent reads", read.reads)
        report.figure("parent read (one fetch of every row): p50", milliseconds(quantile(read.durations, 0.5)))
        report.figure("parent read: max", milliseconds(read.durations.max() ?? 0))
        report.figure("parent count decreases", read.countDecreases)
        report.figure("gaps in a process's rows", read.gaps)
        report.figure("incomplete rows read", read.incomplete)
        report.figure("observer updates", observed.count)
        report.figure("observer's last count", observed.last ?? 0)

        report.check(done == expected, "\(done) saves acknowledged, \(expected) expected")
        report.check(rows == expected, "\(expected) rows expected, \(rows) stored")
        report.check(rowsReopened == expected, "\(expected) rows expected after reopening, \(rowsReopened) found")
        report.check(busy == 0, "\(busy) saves reported SQLITE_BUSY to the caller")
        report.check(errors == 0, "\(errors) saves failed")
        report.check(read.problems.isEmpty, "the parent's reads: \(read.problems.joined(separator: "; "))")
        report.check(read.lastCount == expected, "the parent's read after the processes ended found \(read.lastCount) rows")
        report.check(zip(observed, observed.dropFirst()).allSatisfy { $0 <= $1 }, "the observer's count went down")
        report.check(observerConverged, "the observer ends with \(observed.last ?? 0) rows, not \(expected)")
        return report
    }

    /// The child: opens the store, prints READY, waits for the go file, saves one insert at a time and
    /// prints `LATENCY seconds` per save and `DONE saves=… busy=… errors=… seconds=…` at the end.
    static let writer = ChildCommand("two-processes-writer") { arguments in
        guard arguments.count == 4, let writer = Int(arguments[1]), let saves = Int(arguments[2]) else {
            throw ChildUsage("two-processes-writer STORE WRITER SAVES GOFILE")
        }
        let container = try ModelContainer(for: ProcessEntry.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: arguments[0])))
        let context = ModelContext(container)
        say("READY")
        // The parent starts the writers once its observer has its first snapshot.
        try WriterProcesses.waitForGo(arguments[3], command: "two-processes-writer")
        var busy = 0, errors = 0, done = 0
        var latencies: [Double] = []
        latencies.reserveCapacity(saves)
        let start = now()
        for sequence in 0..<saves {
            context.insert(ProcessEntry(writer: writer, sequence: sequence))
            for attempt in 1...5 {
                let begin = now()
                do {
                    try context.save()
                    latencies.append(now() - begin)
                    done += 1
                    break
                } catch {
                    if concurrencyIsBusy(error) { busy += 1 } else { errors += 1 }
                    say("ERROR save \(sequence) attempt \(attempt): \(error)")
                    if attempt == 5 { context.rollback() }
                }
            }
        }
        let seconds = now() - start
        // The latencies go out after the saves, so that printing does not slow them.
        var text = ""
        for latency in latencies { text += "LATENCY \(latency)\n" }
        FileHandle.standardOutput.write(Data(text.utf8))
        say("DONE saves=\(done) busy=\(busy) errors=\(errors) seconds=\(seconds)")
    }
}
