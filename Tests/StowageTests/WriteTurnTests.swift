import Foundation
import Stowage
@testable import StowageCore
import Testing

#if os(Linux)
/// Saves of several processes (or containers) to one file take turns at SQLite's write lock
/// (`SQLiteWriteTurn`): first come, first served, within `busyTimeout`, through a `-lock` file beside
/// the store that goes with its last user. The reliability suite's `many-writers` scenario measures the
/// waits; these tests pin the rules.
@Suite("Write turns")
struct WriteTurnTests {
    /// A moment `seconds` from now on the turn's clock.
    private func deadline(in seconds: Double) -> UInt64 {
        SQLiteBusyWait.now() + UInt64(seconds * 1e9)
    }

    /// Whether another open file description holds a lock on `byte` of the file at `path`.
    private func isLocked(_ path: String, byte: Int) -> Bool {
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(byte)
        lock.l_len = 1
        let getLock: Int32 = 36  // F_OFD_GETLK
        return fcntl(descriptor, getLock, &lock) == 0 && lock.l_type != Int16(F_UNLCK)
    }

    @Test func aTurnAskedForAgainRightAfterItsReleaseComesAfterTheOneWaiting() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.file().path
        #expect(FileManager.default.createFile(atPath: store, contents: nil, attributes: [.posixPermissions: 0o600]))
        let first = SQLiteWriteTurn(storePath: store)
        let second = SQLiteWriteTurn(storePath: store)
        defer {
            first.close()
            second.close()
        }
        let order = Locked<[String]>([])
        #expect(first.acquire(deadline: deadline(in: 30)))
        let secondDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            if second.acquire(deadline: SQLiteBusyWait.now() + 30_000_000_000) {
                order.withLock { $0.append("second") }
                usleep(20_000)
                second.release()
            }
            secondDone.signal()
        }
        // The second waits at the door (byte 0) for the turn the first holds.
        let waitingSince = Date()
        while !isLocked(second.path, byte: 0) && Date().timeIntervalSince(waitingSince) < 30 { usleep(1_000) }
        #expect(isLocked(second.path, byte: 0), "the second turn never queued")
        first.release()
        // Asked for at once, before the waiting turn's thread has even run: it queues behind it.
        #expect(first.acquire(deadline: deadline(in: 30)))
        order.withLock { $0.append("first") }
        first.release()
        secondDone.wait()
        #expect(order.withLock { $0 } == ["second", "first"])
    }

    @Test func aSaveWhoseTurnDoesNotComeWithinTheBusyTimeoutThrowsStoreBusyAndWritesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        var configuration = ModelConfiguration(url: url)
        configuration.busyTimeout = 0.3
        let container = try ModelContainer(for: Item.self, configurations: configuration)
        // Another process's turn, held for as long as the test needs.
        let other = SQLiteWriteTurn(storePath: url.path)
        defer { other.close() }
        #expect(other.acquire(deadline: deadline(in: 30)))
        let context = ModelContext(container)
        context.insert(Item(name: "a", value: 1))
        let start = Date()
        let error = try #require(throws: StowageError.self) { try context.save() }
        #expect(error.code == .storeBusy, "\(error)")
        #expect(Date().timeIntervalSince(start) >= 0.29, "the save waited its timeout")
        #expect(context.hasChanges, "the context keeps its changes")
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Item>()) == 0)
        other.release()
        // The turn is free again: the same save succeeds (the helper thread that waited in vain
        // hands the turn on, or has released it).
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Item>()) == 1)
    }

    @Test func theLockFileComesWithTheFirstSaveAndGoesWithTheLastContainer() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        let lock = url.path + "-lock"
        do {
            let first = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: url))
            #expect(!FileManager.default.fileExists(atPath: lock), "opening creates no -lock file")
            do {
                let second = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: url))
                for container in [first, second] {
                    let context = ModelContext(container)
                    context.insert(Item(name: "a", value: 1))
                    try context.save()
                }
                let mode = (try FileManager.default.attributesOfItem(atPath: lock)[.posixPermissions] as? NSNumber)?.intValue
                #expect(mode == 0o600, "the -lock file has the store's mode")
            }
            #expect(FileManager.default.fileExists(atPath: lock), "the first container still uses it")
            #expect(try ModelContext(first).fetchCount(FetchDescriptor<Item>()) == 2)
        }
        // A turn's helper thread that is still running closes the file when it ends (the store does
        // not wait for it): give it a moment, as TSan's slowdown showed it may need.
        let deadline = Date().addingTimeInterval(5)
        while FileManager.default.fileExists(atPath: lock), Date() < deadline { usleep(10_000) }
        #expect(!FileManager.default.fileExists(atPath: lock))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["store.sqlite"])
    }
}
#endif
