#ifndef STOWAGE_FAULTS_H
#define STOWAGE_FAULTS_H

// A fault-injecting SQLite VFS for the reliability suite (RELIABILITY.md, "I/O errors"), and the few
// SQLite memory controls of its "out of memory" scenario. Implemented in stowage_faults.c.
//
// The VFS ("stowage-faults") wraps SQLite's default VFS ("unix" on Linux) and, once installed, is the
// process's default VFS: every connection opened afterwards without naming a VFS (GRDB's, Stowage's
// own readers) goes through it, with no change to their code. It forwards every method, counts the
// xRead, xWrite, xSync and xTruncate calls on every file (database, -wal, rollback journal,
// temporary files), and can be armed to fail the Nth of those calls (counted over a chosen set of
// kinds from the moment it is armed) once, or that call and every later one of those kinds until it
// is disarmed, with SQLITE_IOERR_READ, _WRITE, _FSYNC or _TRUNCATE; a failed call does not reach the
// file. Its files report io-methods version 2 (no xFetch/xUnfetch), so SQLite never memory-maps a
// database through it and every page read is an xRead.
//
// Thread-safe: the counters and the armed fault are behind a mutex.
//
// This header deliberately does not include <sqlite3.h>, so that Swift code importing it does not see
// SQLite's declarations twice (GRDB's GRDBSQLite module declares them too).

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The kinds of file operations the VFS counts and can fail, as bits of a set.
enum {
    STOWAGE_FAULT_READ = 1,
    STOWAGE_FAULT_WRITE = 2,
    STOWAGE_FAULT_SYNC = 4,
    STOWAGE_FAULT_TRUNCATE = 8,
    STOWAGE_FAULT_ANY = 15,
};

/// The roles of the files the VFS opened, from SQLite's open flags.
enum {
    STOWAGE_FILE_MAIN_DB = 0,
    STOWAGE_FILE_WAL = 1,
    STOWAGE_FILE_MAIN_JOURNAL = 2,
    /// Temporary databases and journals, sub-journals, super-journals.
    STOWAGE_FILE_OTHER = 3,
    STOWAGE_FILE_ROLE_COUNT = 4,
};

/// Registers the VFS as the process's default. Idempotent. Returns SQLITE_OK (0) or SQLite's error.
int stowage_faults_install(void);

/// Whether `stowage_faults_install` has succeeded.
int stowage_faults_installed(void);

/// The number of operations of `kind` (one STOWAGE_FAULT_ bit) made on files of `role` (a
/// STOWAGE_FILE_ value, or -1 for every file) since installation or the last reset; failed ones count.
int64_t stowage_faults_count(int kind, int role);

/// The number of operations of the set `kinds` made on every file since installation or the last reset.
int64_t stowage_faults_total(int kinds);

/// Sets every operation counter to zero.
void stowage_faults_reset_counts(void);

/// Arms a fault: the `nth` operation (1-based) of the set `kinds` made from now on fails; when
/// `persistent` is non-zero, so does every later operation of those kinds, on any thread, until
/// `stowage_faults_disarm`. When `thisThreadOnly` is non-zero, only the calling thread's operations
/// count towards `nth` (other threads' background work, such as a change watcher's polling, does not
/// move the failure point). Replaces a fault already armed. Arming with a huge `nth` fails nothing and
/// counts the operations (`stowage_faults_seen`).
void stowage_faults_arm(int kinds, int64_t nth, int persistent, int thisThreadOnly);

/// The operations of the set `kinds` (among the armed kinds) counted towards the armed fault's `nth`
/// since it was armed.
int64_t stowage_faults_seen(int kinds);

/// Disarms the fault. Returns the number of operations it failed.
int64_t stowage_faults_disarm(void);

/// The number of operations the armed fault has failed so far.
int64_t stowage_faults_injected(void);

/// The kind (a STOWAGE_FAULT_ bit) and file role of the first operation the fault armed last failed,
/// or -1 when it failed none.
int stowage_faults_first_kind(void);
int stowage_faults_first_role(void);

/// SQLite's `sqlite3_hard_heap_limit64`: sets the hard heap limit (0 lifts it; a negative value only
/// reads it) and returns the previous limit.
int64_t stowage_sqlite_hard_heap_limit(int64_t limit);

/// SQLite's `sqlite3_memory_used`: the bytes SQLite has allocated and not freed.
int64_t stowage_sqlite_memory_used(void);

/// SQLite's `sqlite3_memory_highwater`: the most bytes allocated at once since the last reset.
int64_t stowage_sqlite_memory_highwater(int reset);

/// Turns on SQLite's memory statistics (`SQLITE_CONFIG_MEMSTATUS`), which the heap limit needs. Only
/// works before SQLite is initialised (before the first connection): returns SQLite's result code.
int stowage_sqlite_enable_memory_status(void);

/// The text of an SQLite result code (`sqlite3_errstr`).
const char *stowage_sqlite_errstr(int code);

#ifdef __cplusplus
}
#endif

#endif
