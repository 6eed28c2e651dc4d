import Foundation
import Stowage

// "Many writers": several child processes (`stowage-reliability child many-writers-writer`, 4 by
// default, `STOWAGE_WRITERS=N` for another number) each save 5,000 times on one store file, started
// together. Each save inserts one row; every tenth save also changes the row its process inserted nine
// saves before. Nothing else uses the store.
//
// What it checks is that waiting for the write lock is fair: a process whose save finds another
// process writing waits (up to `ModelConfiguration.busyTimeout`, 5 s), and must get its turn long before
// that even though the other processes keep writing. No save may report `.storeBusy` (each busy save is
// counted, and tried again so that the row count stays exact), the store must end with every row and
// every change after reopening, and the report gives the longest wait and how the waits spread.
//
// A save's wall time is the figure: a save that waited for another process's lock takes as long as it
// waited, plus its own few hundred microseconds. A save that threw `.storeBusy` counts as a wait too.

@Model final class ManyWritersEntry {
    var writer: Int
    var sequence: Int
    var revision: Int

    init(writer: Int, sequence: Int) {
        self.writer = writer
        self.sequence = sequence
        self.revision = 0
    }
}

enum ManyWriters {
    /// The writer processes, `STOWAGE_WRITERS` or 4.
    static var processes: Int {
        ProcessInfo.processInfo.environment["STOWAGE_WRITERS"].flatMap { Int($0) }.map { max(1, $0) } ?? 4
    }

    /// The bounds of the wait distribution's buckets, in seconds, and their names.
    static let buckets: [(bound: Double, name: String)] = [
        (0.001, "< 1 ms"), (0.01, "1-10 ms"), (0.1, "10-100 ms"), (1, "100 ms-1 s"), (.infinity, ">= 1 s"),
    ]

    static let scenario = Scenario(
        "many-writers",
        "4 processes × 5,000 saves (an insert each, an update every tenth) on one file: fair waits for the write lock, no SQLITE_BUSY, exact counts"
    ) { options in
        var report = Report("many-writers")
        let processes = Self.processes
        let saves = options.size(quick: 300, full: 5_000)
        let store = options.directory.appendingPathComponent("writers.store")
        let go = options.directory.appendingPathComponent("go")
        // The parent creates the store and closes it; the children open it.
        do {
            let container = try ModelContainer(for: ManyWritersEntry.self, configurations: ModelConfiguration(url: store))
            _ = try ModelContext(container).fetchCount(FetchDescriptor<ManyWritersEntry>())
        }
        guard let children = try WriterProcesses.start("many-writers-writer", count: processes, store: store, saves: saves, go: go, report: &report) else {
            return report
        }
        let start = now()
        _ = FileManager.default.createFile(atPath: go.path, contents: Data())
        let results = await WriterProcesses.results(of: children)
        let elapsed = now() - start

        var busy = 0, errors = 0, done = 0
        var latencies: [Double] = []
        var busyWaits: [Double] = []
        var errorLines: [String] = []
        var longestPerProcess: [String] = []
        var ratePerProcess: [String] = []
        for (index, result) in results.enumerated() {
            guard let fields = WriterProcesses.done(result) else {
                report.fail("process \(index) did not finish: \(result)")
                continue
            }
            done += Int(fields["saves"] ?? 0)
            busy += Int(fields["busy"] ?? 0)
            errors += Int(fields["errors"] ?? 0)
            let own = WriterProcesses.values("LATENCY", in: result)
            let ownBusy = WriterProcesses.values("BUSY", in: result)
            latencies += own
            busyWaits += ownBusy
            longestPerProcess.append(milliseconds((own + ownBusy).max() ?? 0))
            ratePerProcess.append(String(format: "%.0f", (fields["saves"] ?? 0) / max(fields["seconds"] ?? 0, 1e-9)))
            errorLines += result.lines.filter { $0.hasPrefix("ERROR") }.map { "process \(index): \($0)" }
            report.check(result.exitedNormally, "process \(index) ended with \(result)")
        }
        let reopened = try ModelContainer(for: ManyWritersEntry.self, configurations: ModelConfiguration(url: store))
        let context = ModelContext(reopened)
        let rows = try context.fetchCount(FetchDescriptor<ManyWritersEntry>())
        let revised = try context.fetchCount(FetchDescriptor<ManyWritersEntry>(predicate: #Predicate { $0.revision == 1 }))
        let overRevised = try context.fetchCount(FetchDescriptor<ManyWritersEntry>(predicate: #Predicate { $0.revision > 1 }))
        let expected = processes * saves
        let expectedRevised = processes * (saves / 10)
        let waits = latencies + busyWaits

        report.figure("processes", "\(processes) × \(saves) saves, one insert each, an update every tenth")
        report.figure("saves acknowledged", done)
        report.figure("rows after reopening", rows)
        report.figure("updated rows after reopening", revised)
        report.figure("busy errors", busy)
        report.figure("other save errors", errors)
        report.figure("saves per second", String(format: "%.0f", Double(done) / max(elapsed, 1e-9)))
        report.figure("saves per second, each process", ratePerProcess.joined(separator: ", "))
        concurrencyLatencyFigures(latencies, into: &report)
        report.figure("longest wait", milliseconds(waits.max() ?? 0))
        report.figure("longest wait, each process", longestPerProcess.joined(separator: ", "))
        var lower = 0.0
        let spread = buckets.map { bucket -> String in
            defer { lower = bucket.bound }
            return "\(bucket.name) \(waits.count(where: { $0 >= lower && $0 < bucket.bound }))"
        }
        report.figure("saves by wall time", spread.joined(separator: ", "))
        if !busyWaits.isEmpty {
            report.figure("busy errors after waiting", busyWaits.map { milliseconds($0) }.joined(separator: ", "))
        }

        report.check(done == expected, "\(done) saves acknowledged, \(expected) expected")
        report.check(rows == expected, "\(expected) rows expected after reopening, \(rows) found")
        report.check(revised == expectedRevised && overRevised == 0, "\(expectedRevised) updated rows expected, \(revised) found (\(overRevised) updated more than once)")
        report.check(busy == 0, "\(busy) saves reported SQLITE_BUSY to the caller")
        report.check(errors == 0, "\(errors) saves failed: \(errorLines.prefix(3).joined(separator: "; "))")
        return report
    }

    /// The child: opens the store, prints READY, waits for the go file, then saves: one insert per save,
    /// and every tenth save a change to the row inserted nine saves before. Prints `LATENCY seconds` per
    /// save, `BUSY seconds` per save that threw `.storeBusy` (tried again), and
    /// `DONE saves=… busy=… errors=… seconds=…` at the end.
    static let writer = ChildCommand("many-writers-writer") { arguments in
        guard arguments.count == 4, let writer = Int(arguments[1]), let saves = Int(arguments[2]) else {
            throw ChildUsage("many-writers-writer STORE WRITER SAVES GOFILE")
        }
        let container = try ModelContainer(for: ManyWritersEntry.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: arguments[0])))
        let context = ModelContext(container)
        say("READY")
        try WriterProcesses.waitForGo(arguments[3], command: "many-writers-writer")
        var busy = 0, errors = 0, done = 0
        var latencies: [Double] = []
        var busyWaits: [Double] = []
        latencies.reserveCapacity(saves)
        // The rows of the current ten saves: the tenth changes the first.
        var recent: [ManyWritersEntry] = []
        let start = now()
        for sequence in 0..<saves {
            let entry = ManyWritersEntry(writer: writer, sequence: sequence)
            context.insert(entry)
            recent.append(entry)
            if recent.count == 10 {
                recent[0].revision += 1
                recent.removeAll(keepingCapacity: true)
            }
            for attempt in 1...5 {
                let begin = now()
                do {
                    try context.save()
                    latencies.append(now() - begin)
                    done += 1
                    break
                } catch {
                    if concurrencyIsBusy(error) {
                        busy += 1
                        busyWaits.append(now() - begin)
                    } else {
                        errors += 1
                    }
                    say("ERROR save \(sequence) attempt \(attempt): \(error)")
                    // The context keeps its changes after a failed save: the same save is tried again.
                    if attempt == 5 { context.rollback() }
                }
            }
        }
        let seconds = now() - start
        // The figures go out after the saves, so that printing does not slow them.
        var text = ""
        for latency in latencies { text += "LATENCY \(latency)\n" }
        for wait in busyWaits { text += "BUSY \(wait)\n" }
        FileHandle.standardOutput.write(Data(text.utf8))
        say("DONE saves=\(done) busy=\(busy) errors=\(errors) seconds=\(seconds)")
    }
}
