import Foundation
import GRDB
import GRDBSQLite

/// How every connection of a store waits while another connection or process holds the lock it needs:
/// the busy handler of the writer, the migration, the checks made at open, the read connections and the
/// change watcher.
///
/// SQLite's own handler (`sqlite3_busy_timeout`, GRDB's `.timeout`) sleeps 1, 2, 5, 10, 15, 20, 25, 25,
/// 25, 50, 50 ms and then 100 ms between tries, and counts the time it meant to sleep rather than the
/// time that passed. This one sleeps 50 µs, then twice as long after each try, up to 1 ms, and gives up
/// once `timeout` has passed on a monotonic clock since the lock was first found busy. A connection that
/// finds the lock free never calls it.
///
/// With four processes saving back to back to one file (the `many-writers` scenario of
/// `RELIABILITY.md`), SQLite's handler let a waiting save lose every try for seconds (up to 5.1 s, and
/// a few `.storeBusy` in 100,000 saves); these shorter sleeps brought the longest wait to a few hundred
/// milliseconds on an idle machine, but they are no queue either, and on a loaded machine the frequent
/// tries slowed everyone. Saves therefore take turns (``SQLiteWriteTurn``) before they ask SQLite for its
/// lock, and this handler is left to wait for writers that take no turn. A save's wait for its turn and
/// then for SQLite's lock is one wait, bounded by one `busyTimeout` (``beginWait(at:)``).
enum SQLiteBusyWait {
    /// The first sleep, in microseconds.
    static let firstSleep: UInt64 = 50
    /// The longest sleep, in microseconds.
    static let longestSleep: UInt64 = 1_000

    /// The busy mode of a GRDB connection waiting up to `timeout` seconds.
    static func mode(timeout: TimeInterval) -> Database.BusyMode {
        guard timeout > 0 else { return .immediateError }
        return .callback { tries in retry(tries: tries, timeout: timeout) }
    }

    /// Makes a connection opened with SQLite's C API wait up to `timeout` seconds for a lock.
    static func install(on connection: OpaquePointer, timeout: TimeInterval) {
        let microseconds = Int(nanoseconds(timeout) / 1_000)
        // The timeout travels as the handler's context pointer: nothing to allocate or free.
        guard microseconds > 0, let context = UnsafeMutableRawPointer(bitPattern: microseconds) else {
            sqlite3_busy_handler(connection, nil, nil)
            return
        }
        sqlite3_busy_handler(
            connection,
            { context, tries in
                let timeout = Double(Int(bitPattern: context)) / 1_000_000
                return SQLiteBusyWait.retry(tries: Int(tries), timeout: timeout) ? 1 : 0
            },
            context)
    }

    /// Makes the busy handler count every wait on this thread from `start` (``now()``) until
    /// ``endWait(restoring:)``, rather than from when each lock was found busy: a save that waited for
    /// its turn waits for SQLite's lock only for what is left of its timeout.
    /// - Returns: what ``endWait(restoring:)`` restores (a save of one store can run inside another's).
    static func beginWait(at start: UInt64) -> UnsafeRawPointer? {
        let previous = pthread_getspecific(waitStartKey)
        pthread_setspecific(waitStartKey, UnsafeRawPointer(bitPattern: UInt(start << 1 | 1)))
        return previous.map { UnsafeRawPointer($0) }
    }

    /// Ends the wait begun by ``beginWait(at:)``.
    static func endWait(restoring previous: UnsafeRawPointer?) {
        pthread_setspecific(waitStartKey, previous)
    }

    /// The busy handler: whether to try again, after sleeping. `tries` counts the calls made before this
    /// one for the same lock (0 when the lock was just found busy).
    static func retry(tries: Int, timeout: TimeInterval) -> Bool {
        let current = now()
        // SQLite calls the handler on the thread that waits, once per try: when the wait began is kept
        // in that thread's slot, shifted left, with the low bit set when `beginWait` set it.
        let slot = UInt(bitPattern: pthread_getspecific(waitStartKey))
        var start = UInt64(slot >> 1)
        if slot & 1 == 0 && (tries == 0 || start == 0) {
            start = current
            pthread_setspecific(waitStartKey, UnsafeRawPointer(bitPattern: UInt(current << 1)))
        }
        let elapsed = current &- start
        let limit = nanoseconds(timeout)
        guard elapsed < limit else { return false }
        let sleep = min(firstSleep << UInt64(min(tries, 16)), longestSleep, (limit - elapsed + 999) / 1_000)
        usleep(UInt32(sleep))
        return true
    }

    /// `timeout` seconds in nanoseconds, from none to a year.
    static func nanoseconds(_ timeout: TimeInterval) -> UInt64 {
        UInt64(min(max(timeout.isNaN ? 0 : timeout, 0), 365 * 86_400) * 1e9)
    }

    /// A monotonic clock, in nanoseconds.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// The thread-specific slot holding when the current wait began.
    private static let waitStartKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()
}
