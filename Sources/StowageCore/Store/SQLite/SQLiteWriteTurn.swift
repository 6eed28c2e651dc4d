import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Makes the processes (and containers) that save to one store file take turns at SQLite's write lock,
/// instead of racing for it.
///
/// SQLite's write lock is not a queue: when it is released, whichever connection asks next gets it. A
/// process that saves again right after its own commit asks within microseconds, while a process that
/// found the lock taken sleeps in its busy handler and asks again later, so with several processes
/// saving one after another, a waiting one can lose for seconds, up to `busyTimeout` and `.storeBusy`
/// (the `many-writers` scenario of `RELIABILITY.md` measured waits of up to 5.1 s, and busy errors,
/// with four processes). Polling more often does not cure it: the waiters still lose to whoever is
/// running.
///
/// The turn is two advisory locks in a side file, `<store>-lock`, taken before `BEGIN IMMEDIATE` and
/// released after the commit or rollback. Byte 1 is the turn itself; byte 0 is the queue's door. A save
/// that finds both free takes the turn at once (one `fcntl`; releasing the door and then the turn are two
/// more). A save that finds either taken waits at the door, then, once through, for the turn: only the
/// one process through the door waits for the turn, and it keeps the door shut until it has the turn,
/// so a process that has just had its turn and saves again waits at the door behind it rather than
/// taking the turn back. The waits are the kernel's (`F_OFD_SETLKW`): a waiter is woken when the lock is
/// released, not when its next poll comes round. Several waiters at the door go through in the order
/// the kernel wakes them, not strictly in the order they came, but each goes through at the first or
/// one of the next few releases: no one can be passed over again and again.
///
/// The locks are open file description locks (Linux): they belong to this store object's file, so two
/// containers of one process take turns like two processes, and the kernel drops them when the process
/// ends, however it ends. SQLite's own locks are untouched and still guard the data: a writer that takes
/// no turn (another program, a migration, an older Stowage) is waited for by SQLite's busy handler as
/// before. A turn is never held while waiting for anything but SQLite's write lock, and nothing that
/// holds SQLite's write lock waits for a turn, so the two cannot deadlock.
///
/// A kernel lock wait cannot time out, so a save does not wait in the kernel itself: a helper thread
/// of the store waits, and the save waits for the helper until its deadline (`busyTimeout`). A save
/// that gives up leaves the helper waiting; when the helper gets the turn with no save wanting it, it
/// releases it at once (or hands it to the next save of this store, if one is waiting by then).
///
/// The side file is created by the first save (a store that is only read, or that fails to open,
/// creates none), with the store file's permissions, and removed when the last store object using it
/// closes. Where it cannot be created (a read-only directory) or the platform has no such locks, saves
/// take no turn and rely on SQLite's busy handler alone.
final class SQLiteWriteTurn: @unchecked Sendable {
    // @unchecked Sendable: every mutable property is read and written with `condition` locked (the
    // helper thread copies `descriptor` before waiting in the kernel without the lock).

    /// The side file.
    let path: String
    /// The store file, whose permissions the side file takes.
    private let storePath: String
    private let condition = NSCondition()
    private var state = State.closed
    private var descriptor: Int32 = -1
    /// Whether the helper thread is running.
    private var helperRunning = false
    /// What the helper should do or has done.
    private var request = Request.none
    /// Whether the store is closing: the helper ends, closing the file, once it has nothing to do.
    private var closing = false

    private enum State {
        /// The file is not open yet.
        case closed
        /// The file is open with a shared lock on the presence byte.
        case open
        /// No turns: the file could not be opened, or a lock failed.
        case unavailable
    }

    private enum Request {
        case none
        /// The helper is waiting for the turn; `wanted` is false once the save that asked gave up.
        case waiting(wanted: Bool)
        /// The helper got the turn for the save waiting for it.
        case granted
    }

    /// Bytes of the side file: the queue's door, the turn, and a byte every user holds shared while it
    /// has the file open (whoever can lock it exclusively is the last, and removes the file).
    private static let door: Int64 = 0
    private static let turn: Int64 = 1
    private static let presence: Int64 = 2

    init(storePath: String) {
        self.storePath = storePath
        self.path = storePath + "-lock"
    }

    /// Takes the turn, waiting until `deadline` (``SQLiteBusyWait/now()``); returns whether it got it.
    /// Returns `true` without a turn where turns are unavailable.
    func acquire(deadline: UInt64) -> Bool {
        #if os(Linux)
        condition.lock()
        defer { condition.unlock() }
        if state == .closed { open() }
        guard state == .open else { return true }
        switch request {
        case .none:
            // Both free: the turn at once, the door opened again behind.
            if Self.lock(descriptor, Self.door, length: 2, F_WRLCK, wait: false) {
                _ = Self.lock(descriptor, Self.door, F_UNLCK, wait: false)
                return true
            }
            request = .waiting(wanted: true)
            startHelper()
            condition.broadcast()
        case .waiting:
            // An earlier save gave up while the helper waited: this one takes its place in the queue.
            request = .waiting(wanted: true)
        case .granted:
            preconditionFailure("Stowage internal error: a write turn was granted with no save waiting")
        }
        while true {
            if case .granted = request {
                request = .none
                return true
            }
            if state != .open { return true }
            let now = SQLiteBusyWait.now()
            guard now < deadline, condition.wait(until: Date(timeIntervalSinceNow: Double(deadline - now) / 1e9)) || isGranted else {
                request = .waiting(wanted: false)
                return false
            }
        }
        #else
        return true
        #endif
    }

    /// Releases the turn taken by ``acquire(deadline:)``.
    func release() {
        #if os(Linux)
        // `descriptor` changes only under the lock, and never while a save holds the turn.
        condition.lock()
        let descriptor = state == .open ? self.descriptor : -1
        condition.unlock()
        if descriptor >= 0 { _ = Self.lock(descriptor, Self.turn, F_UNLCK, wait: false) }
        #endif
    }

    /// Closes the side file (the store is closing), removing it when no other store object has it open.
    func close() {
        #if os(Linux)
        condition.lock()
        defer { condition.unlock() }
        guard state == .open else { return }
        closing = true
        if helperRunning {
            // The helper closes the file when its wait ends.
            condition.broadcast()
            return
        }
        closeFile()
        #endif
    }

    private var isGranted: Bool {
        if case .granted = request { return true }
        return false
    }

    private var isWaiting: Bool {
        if case .waiting = request { return true }
        return false
    }

    #if os(Linux)
    /// Opens (creating) the side file and takes the shared presence lock; call with `condition` locked.
    private func open() {
        var storeStatus = stat()
        let mode = stat(storePath, &storeStatus) == 0 ? mode_t(storeStatus.st_mode & 0o666) : 0o600
        // A file being removed by its last user (which holds the presence byte exclusively) is
        // opened again once it is gone.
        for _ in 0..<100 {
            let descriptor = Glibc.open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, mode)
            guard descriptor >= 0 else { break }
            var status = stat()
            if fstat(descriptor, &status) == 0 && status.st_uid == geteuid() && status.st_mode & 0o777 != mode {
                fchmod(descriptor, mode)
            }
            if Self.lock(descriptor, Self.presence, F_RDLCK, wait: false) {
                var named = stat()
                if stat(path, &named) == 0 && named.st_dev == status.st_dev && named.st_ino == status.st_ino {
                    self.descriptor = descriptor
                    state = .open
                    return
                }
            }
            Glibc.close(descriptor)
            usleep(100)
        }
        state = .unavailable
    }

    /// Releases the file, removing it when this is its last user; call with `condition` locked.
    private func closeFile() {
        if Self.lock(descriptor, Self.presence, F_WRLCK, wait: false) { unlink(path) }
        Glibc.close(descriptor)
        descriptor = -1
        state = .unavailable
    }

    /// Starts the helper thread unless it runs; call with `condition` locked.
    private func startHelper() {
        guard !helperRunning else { return }
        helperRunning = true
        let thread = Thread { [self] in helper() }
        thread.name = "Stowage write turn"
        thread.stackSize = 256 * 1024
        thread.start()
    }

    /// The helper thread: waits in the kernel for the turn whenever a save asks, until the store closes.
    private func helper() {
        condition.lock()
        defer { condition.unlock() }
        while true {
            // Idle until a save asks (or while the save it granted has not taken the turn yet).
            while !closing && !isWaiting { condition.wait() }
            guard isWaiting else {
                // Closing, with nothing to wait for.
                helperRunning = false
                closeFile()
                return
            }
            let descriptor = self.descriptor
            condition.unlock()
            // Through the door (behind whoever waits for the turn), then the turn, then the door opens.
            let got = Self.lock(descriptor, Self.door, F_WRLCK, wait: true) && Self.lock(descriptor, Self.turn, F_WRLCK, wait: true)
            _ = Self.lock(descriptor, Self.door, F_UNLCK, wait: false)
            condition.lock()
            if !got {
                // A lock that fails rather than waits: no more turns for this store, SQLite decides.
                state = .unavailable
                request = .none
            } else if case .waiting(wanted: true) = request {
                request = .granted
            } else {
                _ = Self.lock(descriptor, Self.turn, F_UNLCK, wait: false)
                request = .none
            }
            condition.broadcast()
            if state == .unavailable {
                helperRunning = false
                Glibc.close(descriptor)
                self.descriptor = -1
                return
            }
        }
    }

    /// `F_OFD_SETLK` (or `F_OFD_SETLKW` when `wait`) of `length` bytes from `start`; whether it succeeded.
    private static func lock(_ descriptor: Int32, _ start: Int64, length: Int64 = 1, _ type: Int32, wait: Bool) -> Bool {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(start)
        lock.l_len = off_t(length)
        lock.l_pid = 0  // required by open file description locks
        while true {
            if fcntl(descriptor, wait ? F_OFD_SETLKW : F_OFD_SETLK, &lock) == 0 { return true }
            if errno != EINTR { return false }
        }
    }

    // <fcntl.h> declares these only with _GNU_SOURCE.
    private static let F_OFD_SETLK: Int32 = 37
    private static let F_OFD_SETLKW: Int32 = 38
    #endif
}
