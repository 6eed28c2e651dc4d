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

/// Saves of other processes reach this one's contexts, notifications and change stream.
@Suite("Seeing other processes' saves")
struct RemoteChangesTests {
    /// Collects the remote changes a container hears of, with the time each arrived.
    private final class Listener: @unchecked Sendable {
        private let lock = NSLock()
        private var received: [(changes: ModelChanges, at: Date)] = []
        private var notes: [(userInfo: [AnyHashable: Any], at: Date)] = []
        private var task: Task<Void, Never>?
        private var observer: (any NSObjectProtocol)?

        init(_ container: ModelContainer) {
            let stream = container.changes()
            task = Task { [self] in
                for await changes in stream where changes.isRemote {
                    lock.withLock { received.append((changes, Date())) }
                }
            }
            // Observers run on the watcher's thread as it posts: the time each arrives is exact.
            observer = NotificationCenter.default.addObserver(forName: ModelContainer.storeRemoteChange, object: container, queue: nil) { [self] note in
                let now = Date()
                lock.withLock { notes.append((note.userInfo ?? [:], now)) }
            }
        }

        var changes: [(changes: ModelChanges, at: Date)] { lock.withLock { received } }
        var notifications: [[AnyHashable: Any]] { lock.withLock { notes.map(\.userInfo) } }
        var notificationTimes: [Date] { lock.withLock { notes.map(\.at) } }

        /// Waits (polling, without holding a thread: the stream is read by a task) until `condition`
        /// holds, for at most 10 s.
        func wait(until condition: (Listener) -> Bool) async throws {
            let deadline = Date().addingTimeInterval(10)
            while !condition(self), Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        }

        deinit {
            task?.cancel()
            if let observer { NotificationCenter.default.removeObserver(observer) }
        }
    }

    @Test func anotherProcesssSavesArriveWithTheirModels() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        let container = try ReopenFixtures.open(url, types: ["Lamp"])
        let listener = Listener(container)
        let count = 100
        let writer = try ProbeRun(["save-lamps", url.path, String(count)])
        // Waited for without blocking a thread (the stream's task needs one), then the process.
        try await listener.wait { $0.changes.flatMap(\.changes.inserted).count >= count }
        let result = writer.wait()
        #expect(result.exitedNormally, "\(result)")

        let remote = listener.changes
        let inserted = remote.flatMap(\.changes.inserted)
        let stored = try ModelContext(container).fetch(FetchDescriptor<Lamp>()).map(\.persistentModelID)
        #expect(inserted == stored, "each lamp the other process saved, in order")
        #expect(remote.allSatisfy { $0.changes.historyToken != nil })
        let notified = listener.notifications.flatMap { $0[ModelContext.NotificationKey.insertedIdentifiers.rawValue] as? [PersistentIdentifier] ?? [] }
        #expect(notified == stored, "the notifications name the same lamps")

        // The figures the closing note quotes, from the other process's commit (its history timestamp,
        // taken just before the commit) to the notification here; no threshold in a test.
        let committed = Dictionary(uniqueKeysWithValues: try ModelContext(container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
            .compactMap { transaction in transaction.changes.first.map { ($0.changedPersistentIdentifier, transaction.timestamp) } })
        let latencies = zip(listener.notifications, listener.notificationTimes).flatMap { note, time in
            (note[ModelContext.NotificationKey.insertedIdentifiers.rawValue] as? [PersistentIdentifier] ?? []).compactMap { id in
                committed[id].map { time.timeIntervalSince($0) * 1000 }
            }
        }.sorted()
        #expect(latencies.count == count)
        guard !latencies.isEmpty else { return }
        let seconds = (result.lines.last?.time ?? 1)
        print("remote changes: \(count) saves in \(String(format: "%.2f", seconds)) s by the other process; commit to notification ms: median \(String(format: "%.1f", latencies[latencies.count / 2])), max \(String(format: "%.1f", latencies.last ?? 0))")
    }

    @Test func heldModelsRefreshKeepingUnsavedChanges() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        let container = try ReopenFixtures.open(url, types: ["Lamp"])
        let context = ModelContext(container)
        let (kept, edited) = (Lamp(watts: 1), Lamp(watts: 2))
        context.insert(kept)
        context.insert(edited)
        try context.save()
        edited.color = "red"  // unsaved

        for history in ["1", "0"] {
            let listener = Listener(container)
            let watts = history == "1" ? 60.0 : 75.0
            let writer = try ProbeRun(["set-watts", url.path, String(watts), history])
            try await listener.wait { !$0.notifications.isEmpty }
            #expect(writer.wait().exitedNormally)
            let note = try #require(listener.notifications.first)
            if history == "1" {
                #expect((note[ModelContext.NotificationKey.updatedIdentifiers.rawValue] as? [PersistentIdentifier])?.count == 2)
            } else {
                // A writer that records no history cannot say what it changed.
                #expect(note[ModelContext.NotificationKey.invalidatedAllIdentifiers.rawValue] as? Bool == true)
            }
            _ = try context.fetchCount(FetchDescriptor<Lamp>())  // the context's next operation applies what arrived
            #expect(kept.watts == watts, "the unchanged model shows the other process's value")
            #expect(edited.color == "red" && edited.watts == watts, "a model keeps its unsaved changes; its other properties refresh")
        }
    }

    @Test func anotherContainerOnTheSameFileCountsAsRemote() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        let mine = try ReopenFixtures.open(url, types: ["Lamp"])
        let theirs = try ReopenFixtures.open(url, types: ["Lamp"])
        let listener = Listener(mine)
        let context = ModelContext(theirs)
        context.author = "them"
        let lamp = Lamp(watts: 5)
        context.insert(lamp)
        try context.save()
        context.delete(lamp)
        try context.save()
        try await listener.wait { $0.changes.count >= 2 }
        let changes = listener.changes.map(\.changes)
        #expect(changes.map(\.inserted) == [[lamp.persistentModelID], []])
        #expect(changes.map(\.deleted) == [[], [lamp.persistentModelID]])
        #expect(changes.allSatisfy { $0.author == "them" })
        // Its own saves are not remote.
        let own = ModelContext(mine)
        own.insert(Lamp(watts: 6))
        try own.save()
        try await Task.sleep(for: .milliseconds(100))
        #expect(listener.changes.count == 2)
    }

    /// A save that records no history, followed at once by one of this container's own: the change
    /// still arrives (as "anything may have changed"), and this container's own history deletions and
    /// erasures are not taken for another's changes.
    @Test func unrecordedSavesArriveAndOwnDeletionsDoNot() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        let mine = try ReopenFixtures.open(url, types: ["Lamp"])
        var configuration = ModelConfiguration(url: url)
        configuration.recordsHistory = false
        let theirs = try ModelContainer(for: Lamp.self, configurations: configuration)
        let own = ModelContext(mine)
        own.insert(Lamp(watts: 1))
        try own.save()
        try await Task.sleep(for: .milliseconds(60))
        let listener = Listener(mine)

        let other = ModelContext(theirs)
        other.insert(Lamp(watts: 2))
        try other.save()
        own.insert(Lamp(watts: 3))  // within the same 20 ms
        try own.save()
        try await listener.wait { !$0.notifications.isEmpty }
        #expect(listener.notifications.first?[ModelContext.NotificationKey.invalidatedAllIdentifiers.rawValue] as? Bool == true)

        try await Task.sleep(for: .milliseconds(60))
        let before = listener.notifications.count
        try own.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        try mine.erase()
        try await Task.sleep(for: .milliseconds(100))
        #expect(listener.notifications.count == before, "this container's own deletions are not remote changes")
    }
}
