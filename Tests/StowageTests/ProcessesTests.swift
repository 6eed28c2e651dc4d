import Foundation
import ReopenFixtures
import Stowage
import Testing

@Suite("Several processes on one store")
struct ProcessesTests {
    @Test func aSaveWaitsForAnotherProcesssWriteLockThenSucceeds() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        let container = try ReopenFixtures.open(url, types: ["Lamp"])
        let holder = try ProbeRun(["hold-lock", url.path, "0.5"])
        holder.wait(forLine: "locked")
        let context = ModelContext(container)
        context.insert(Lamp(watts: 40))
        let start = Date()
        try context.save()  // waits for the other process's commit instead of failing with SQLITE_BUSY
        #expect(Date().timeIntervalSince(start) > 0.2, "the save waited for the lock")
        #expect(holder.wait().status == 0)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Lamp>()) == 1)
    }

    @Test func aSaveThatWaitsLongerThanTheBusyTimeoutFailsWithATypedErrorAndWritesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        var configuration = ModelConfiguration(url: url)
        configuration.busyTimeout = 0.2
        let container = try ModelContainer(for: Lamp.self, configurations: configuration)
        let holder = try ProbeRun(["hold-lock", url.path, "2"])
        holder.wait(forLine: "locked")
        let context = ModelContext(container)
        context.insert(Lamp(watts: 40))
        let error = try #require(throws: StowageError.self) { try context.save() }
        #expect(error.code == .storeBusy, "\(error)")
        #expect(context.hasChanges, "the context keeps its changes")
        #expect(holder.wait().status == 0)
        try context.save()  // the lock is gone: the same save succeeds
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Lamp>()) == 1)
    }

    @Test func processesOpeningAndSavingTogetherLoseNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        // Both processes create the store at once (both set up WAL mode), then save one lamp at a time.
        let probes = try (0..<2).map { _ in try ProbeRun(["save-lamps", url.path, "200"]) }
        let container = try ReopenFixtures.open(url, types: ["Lamp"])
        let context = ModelContext(container)
        for index in 0..<200 {
            context.insert(Lamp(watts: Double(index)))
            try context.save()
        }
        for probe in probes {
            let result = probe.wait()
            #expect(result.status == 0, "\(result.texts)")
            #expect(result.texts.last == "saved 200", "\(result.texts)")
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Lamp>()) == 600)
    }
}
