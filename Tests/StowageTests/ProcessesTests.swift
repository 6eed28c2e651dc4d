import Foundation
import ReopenFixtures
import Stowage
import Testing

/// A probe process whose output lines can be awaited while it runs.
private final class RunningProbe: @unchecked Sendable {
    // @unchecked Sendable: `lines` is behind `lock`; the pipe's handler appends, the test reads.
    let process = Process()
    private let lock = NSLock()
    private var lines: [String] = []
    private var partial = ""

    init(_ arguments: [String]) throws {
        guard let executable = ReopenTests.probeURL else { throw ReopenTests.ProbeNotBuilt() }
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            guard let self else { return }
            let text = String(decoding: handle.availableData, as: UTF8.self)
            self.lock.withLock {
                self.partial += text
                while let newline = self.partial.firstIndex(of: "\n") {
                    self.lines.append(String(self.partial[..<newline]))
                    self.partial = String(self.partial[self.partial.index(after: newline)...])
                }
            }
        }
        try process.run()
    }

    var output: [String] { lock.withLock { lines } }

    /// Waits (up to 30 s) for a line.
    func wait(for line: String) throws {
        for _ in 0..<3000 {
            if output.contains(line) { return }
            if !process.isRunning && !output.contains(line) { break }
            Thread.sleep(forTimeInterval: 0.01)
        }
        if !output.contains(line) { Issue.record("the probe did not print \(line): \(output)") }
    }

    func finish() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }
}

@Suite("Several processes on one store")
struct ProcessesTests {
    @Test func aSaveWaitsForAnotherProcesssWriteLockThenSucceeds() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        let container = try ReopenFixtures.open(url, types: ["Lamp"])
        let holder = try RunningProbe(["hold-lock", url.path, "0.5"])
        try holder.wait(for: "locked")
        let context = ModelContext(container)
        context.insert(Lamp(watts: 40))
        let start = Date()
        try context.save()  // waits for the other process's commit instead of failing with SQLITE_BUSY
        #expect(Date().timeIntervalSince(start) > 0.2, "the save waited for the lock")
        #expect(holder.finish() == 0)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Lamp>()) == 1)
    }

    @Test func aSaveThatWaitsLongerThanTheBusyTimeoutFailsWithATypedErrorAndWritesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        var configuration = ModelConfiguration(url: url)
        configuration.busyTimeout = 0.2
        let container = try ModelContainer(for: Lamp.self, configurations: configuration)
        let holder = try RunningProbe(["hold-lock", url.path, "2"])
        try holder.wait(for: "locked")
        let context = ModelContext(container)
        context.insert(Lamp(watts: 40))
        let error = try #require(throws: StowageError.self) { try context.save() }
        #expect(error.code == .storeBusy, "\(error)")
        #expect(context.hasChanges, "the context keeps its changes")
        #expect(holder.finish() == 0)
        try context.save()  // the lock is gone: the same save succeeds
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Lamp>()) == 1)
    }

    @Test func processesOpeningAndSavingTogetherLoseNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        // Both processes create the store at once (both set up WAL mode), then save one lamp at a time.
        let probes = try (0..<2).map { _ in try RunningProbe(["save-lamps", url.path, "200"]) }
        let container = try ReopenFixtures.open(url, types: ["Lamp"])
        let context = ModelContext(container)
        for index in 0..<200 {
            context.insert(Lamp(watts: Double(index)))
            try context.save()
        }
        for probe in probes {
            #expect(probe.finish() == 0, "\(probe.output)")
            #expect(probe.output.last == "saved 200", "\(probe.output)")
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Lamp>()) == 600)
    }
}
