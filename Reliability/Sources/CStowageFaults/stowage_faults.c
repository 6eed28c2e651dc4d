// A fault-injecting SQLite VFS: see include/stowage_faults.h.
//
// Each file opened through the VFS is a `FaultFile`: SQLite's `sqlite3_file` header (whose methods
// are `faultIoMethods`), the file's role, and right after it the underlying VFS's own file object,
// which every method is forwarded to. The VFS's other methods forward to the underlying VFS as they are.

#include "stowage_faults.h"

#include <pthread.h>
#include <sqlite3.h>
#include <string.h>

typedef struct FaultFile {
    sqlite3_file base;
    /// The underlying VFS's file, allocated right after this structure (szOsFile covers both).
    sqlite3_file *real;
    int role;
} FaultFile;

static sqlite3_vfs *underlying = NULL;
static sqlite3_vfs faultVfs;
static int installed = 0;

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
/// counts[kind index][role]
static int64_t counts[4][STOWAGE_FILE_ROLE_COUNT];
static int armedKinds = 0;
static int64_t armedNth = 0;
static int armedPersistent = 0;
/// When set, only operations made on `armedThread` count towards `armedNth` (a persistent fault, once
/// triggered, fails the operations of every thread).
static int armedThreadOnly = 0;
static pthread_t armedThread;
static int armedTriggered = 0;
/// Operations of the armed kinds seen since arming (on the armed thread when thread-only), in all
/// and by kind, and failed.
static int64_t armedSeen = 0;
static int64_t armedSeenByKind[4];
static int64_t armedInjected = 0;
static int firstKind = -1;
static int firstRole = -1;

static int kindIndex(int kind) {
    switch (kind) {
    case STOWAGE_FAULT_READ: return 0;
    case STOWAGE_FAULT_WRITE: return 1;
    case STOWAGE_FAULT_SYNC: return 2;
    default: return 3;
    }
}

/// Counts an operation and says whether it must fail.
static int shouldFail(int kind, int role) {
    int fail = 0;
    pthread_mutex_lock(&mutex);
    counts[kindIndex(kind)][role] += 1;
    if (armedKinds & kind) {
        int counted = !armedThreadOnly || pthread_equal(pthread_self(), armedThread);
        if (counted) {
            armedSeen += 1;
            armedSeenByKind[kindIndex(kind)] += 1;
        }
        if ((counted && armedSeen == armedNth) || (armedPersistent && armedTriggered)) {
            fail = 1;
            armedTriggered = 1;
            if (armedInjected == 0) {
                firstKind = kind;
                firstRole = role;
            }
            armedInjected += 1;
        }
    }
    pthread_mutex_unlock(&mutex);
    return fail;
}

// MARK: - File methods

static int faultClose(sqlite3_file *file) {
    FaultFile *f = (FaultFile *)file;
    int rc = f->real->pMethods ? f->real->pMethods->xClose(f->real) : SQLITE_OK;
    f->base.pMethods = NULL;
    return rc;
}

static int faultRead(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    FaultFile *f = (FaultFile *)file;
    if (shouldFail(STOWAGE_FAULT_READ, f->role)) return SQLITE_IOERR_READ;
    return f->real->pMethods->xRead(f->real, buffer, amount, offset);
}

static int faultWrite(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    FaultFile *f = (FaultFile *)file;
    if (shouldFail(STOWAGE_FAULT_WRITE, f->role)) return SQLITE_IOERR_WRITE;
    return f->real->pMethods->xWrite(f->real, buffer, amount, offset);
}

static int faultTruncate(sqlite3_file *file, sqlite3_int64 size) {
    FaultFile *f = (FaultFile *)file;
    if (shouldFail(STOWAGE_FAULT_TRUNCATE, f->role)) return SQLITE_IOERR_TRUNCATE;
    return f->real->pMethods->xTruncate(f->real, size);
}

static int faultSync(sqlite3_file *file, int flags) {
    FaultFile *f = (FaultFile *)file;
    if (shouldFail(STOWAGE_FAULT_SYNC, f->role)) return SQLITE_IOERR_FSYNC;
    return f->real->pMethods->xSync(f->real, flags);
}

static int faultFileSize(sqlite3_file *file, sqlite3_int64 *size) {
    FaultFile *f = (FaultFile *)file;
    return f->real->pMethods->xFileSize(f->real, size);
}

static int faultLock(sqlite3_file *file, int level) {
    FaultFile *f = (FaultFile *)file;
    return f->real->pMethods->xLock(f->real, level);
}

static int faultUnlock(sqlite3_file *file, int level) {
    FaultFile *f = (FaultFile *)file;
    return f->real->pMethods->xUnlock(f->real, level);
}

static int faultCheckReservedLock(sqlite3_file *file, int *result) {
    FaultFile *f = (FaultFile *)file;
    return f->real->pMethods->xCheckReservedLock(f->real, result);
}

static int faultFileControl(sqlite3_file *file, int op, void *argument) {
    FaultFile *f = (FaultFile *)file;
    return f->real->pMethods->xFileControl(f->real, op, argument);
}

static int faultSectorSize(sqlite3_file *file) {
    FaultFile *f = (FaultFile *)file;
    return f->real->pMethods->xSectorSize(f->real);
}

static int faultDeviceCharacteristics(sqlite3_file *file) {
    FaultFile *f = (FaultFile *)file;
    return f->real->pMethods->xDeviceCharacteristics(f->real);
}

// The shared-memory methods (the WAL index) exist from io-methods version 2; the unix VFS has them.

static int faultShmMap(sqlite3_file *file, int page, int pageSize, int extend, void volatile **pointer) {
    FaultFile *f = (FaultFile *)file;
    if (f->real->pMethods->iVersion < 2 || !f->real->pMethods->xShmMap) return SQLITE_IOERR_SHMMAP;
    return f->real->pMethods->xShmMap(f->real, page, pageSize, extend, pointer);
}

static int faultShmLock(sqlite3_file *file, int offset, int n, int flags) {
    FaultFile *f = (FaultFile *)file;
    if (f->real->pMethods->iVersion < 2 || !f->real->pMethods->xShmLock) return SQLITE_IOERR_SHMLOCK;
    return f->real->pMethods->xShmLock(f->real, offset, n, flags);
}

static void faultShmBarrier(sqlite3_file *file) {
    FaultFile *f = (FaultFile *)file;
    if (f->real->pMethods->iVersion >= 2 && f->real->pMethods->xShmBarrier) f->real->pMethods->xShmBarrier(f->real);
}

static int faultShmUnmap(sqlite3_file *file, int deleteFlag) {
    FaultFile *f = (FaultFile *)file;
    if (f->real->pMethods->iVersion < 2 || !f->real->pMethods->xShmUnmap) return SQLITE_OK;
    return f->real->pMethods->xShmUnmap(f->real, deleteFlag);
}

/// Version 2: no xFetch/xUnfetch, so SQLite reads every page with xRead (no memory-mapped I/O, whose
/// reads could be neither counted nor failed).
static const sqlite3_io_methods faultIoMethods = {
    2,
    faultClose,
    faultRead,
    faultWrite,
    faultTruncate,
    faultSync,
    faultFileSize,
    faultLock,
    faultUnlock,
    faultCheckReservedLock,
    faultFileControl,
    faultSectorSize,
    faultDeviceCharacteristics,
    faultShmMap,
    faultShmLock,
    faultShmBarrier,
    faultShmUnmap,
    NULL,
    NULL,
};

// MARK: - VFS methods

static int roleOf(int flags) {
    if (flags & SQLITE_OPEN_MAIN_DB) return STOWAGE_FILE_MAIN_DB;
    if (flags & SQLITE_OPEN_WAL) return STOWAGE_FILE_WAL;
    if (flags & SQLITE_OPEN_MAIN_JOURNAL) return STOWAGE_FILE_MAIN_JOURNAL;
    return STOWAGE_FILE_OTHER;
}

static int faultOpen(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *file, int flags, int *outFlags) {
    (void)vfs;
    FaultFile *f = (FaultFile *)file;
    memset(f, 0, sizeof(FaultFile));
    f->real = (sqlite3_file *)(f + 1);
    f->role = roleOf(flags);
    int rc = underlying->xOpen(underlying, name, f->real, flags, outFlags);
    // SQLite calls xClose when pMethods is set, even after a failed open: mirror the underlying file.
    f->base.pMethods = f->real->pMethods ? &faultIoMethods : NULL;
    return rc;
}

static int faultDelete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
    (void)vfs;
    return underlying->xDelete(underlying, name, syncDirectory);
}

static int faultAccess(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    return underlying->xAccess(underlying, name, flags, result);
}

static int faultFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *output) {
    (void)vfs;
    return underlying->xFullPathname(underlying, name, size, output);
}

static void *faultDlOpen(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return underlying->xDlOpen(underlying, name);
}

static void faultDlError(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    underlying->xDlError(underlying, size, message);
}

static void (*faultDlSym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return underlying->xDlSym(underlying, handle, symbol);
}

static void faultDlClose(sqlite3_vfs *vfs, void *handle) {
    (void)vfs;
    underlying->xDlClose(underlying, handle);
}

static int faultRandomness(sqlite3_vfs *vfs, int size, char *output) {
    (void)vfs;
    return underlying->xRandomness(underlying, size, output);
}

static int faultSleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return underlying->xSleep(underlying, microseconds);
}

static int faultCurrentTime(sqlite3_vfs *vfs, double *time) {
    (void)vfs;
    return underlying->xCurrentTime(underlying, time);
}

static int faultGetLastError(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    return underlying->xGetLastError ? underlying->xGetLastError(underlying, size, message) : 0;
}

static int faultCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *time) {
    (void)vfs;
    if (underlying->iVersion >= 2 && underlying->xCurrentTimeInt64) return underlying->xCurrentTimeInt64(underlying, time);
    double days = 0;
    int rc = underlying->xCurrentTime(underlying, &days);
    *time = (sqlite3_int64)(days * 86400000.0);
    return rc;
}

static int faultSetSystemCall(sqlite3_vfs *vfs, const char *name, sqlite3_syscall_ptr call) {
    (void)vfs;
    if (underlying->iVersion < 3 || !underlying->xSetSystemCall) return SQLITE_NOTFOUND;
    return underlying->xSetSystemCall(underlying, name, call);
}

static sqlite3_syscall_ptr faultGetSystemCall(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    if (underlying->iVersion < 3 || !underlying->xGetSystemCall) return NULL;
    return underlying->xGetSystemCall(underlying, name);
}

static const char *faultNextSystemCall(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    if (underlying->iVersion < 3 || !underlying->xNextSystemCall) return NULL;
    return underlying->xNextSystemCall(underlying, name);
}

// MARK: - Public functions

int stowage_faults_install(void) {
    pthread_mutex_lock(&mutex);
    int rc = SQLITE_OK;
    if (!installed) {
        rc = sqlite3_initialize();
        sqlite3_vfs *base = rc == SQLITE_OK ? sqlite3_vfs_find(NULL) : NULL;
        if (rc == SQLITE_OK && !base) rc = SQLITE_ERROR;
        if (rc == SQLITE_OK) {
            underlying = base;
            memset(&faultVfs, 0, sizeof faultVfs);
            faultVfs.iVersion = 3;
            faultVfs.szOsFile = (int)sizeof(FaultFile) + base->szOsFile;
            faultVfs.mxPathname = base->mxPathname;
            faultVfs.zName = "stowage-faults";
            faultVfs.xOpen = faultOpen;
            faultVfs.xDelete = faultDelete;
            faultVfs.xAccess = faultAccess;
            faultVfs.xFullPathname = faultFullPathname;
            faultVfs.xDlOpen = faultDlOpen;
            faultVfs.xDlError = faultDlError;
            faultVfs.xDlSym = faultDlSym;
            faultVfs.xDlClose = faultDlClose;
            faultVfs.xRandomness = faultRandomness;
            faultVfs.xSleep = faultSleep;
            faultVfs.xCurrentTime = faultCurrentTime;
            faultVfs.xGetLastError = faultGetLastError;
            faultVfs.xCurrentTimeInt64 = faultCurrentTimeInt64;
            faultVfs.xSetSystemCall = faultSetSystemCall;
            faultVfs.xGetSystemCall = faultGetSystemCall;
            faultVfs.xNextSystemCall = faultNextSystemCall;
            rc = sqlite3_vfs_register(&faultVfs, 1);
            if (rc == SQLITE_OK) installed = 1;
        }
    }
    pthread_mutex_unlock(&mutex);
    return rc;
}

int stowage_faults_installed(void) {
    pthread_mutex_lock(&mutex);
    int result = installed;
    pthread_mutex_unlock(&mutex);
    return result;
}

int64_t stowage_faults_count(int kind, int role) {
    int64_t total = 0;
    pthread_mutex_lock(&mutex);
    for (int r = 0; r < STOWAGE_FILE_ROLE_COUNT; r++) {
        if (role < 0 || role == r) total += counts[kindIndex(kind)][r];
    }
    pthread_mutex_unlock(&mutex);
    return total;
}

int64_t stowage_faults_total(int kinds) {
    int64_t total = 0;
    int all[4] = {STOWAGE_FAULT_READ, STOWAGE_FAULT_WRITE, STOWAGE_FAULT_SYNC, STOWAGE_FAULT_TRUNCATE};
    for (int k = 0; k < 4; k++) {
        if (kinds & all[k]) total += stowage_faults_count(all[k], -1);
    }
    return total;
}

void stowage_faults_reset_counts(void) {
    pthread_mutex_lock(&mutex);
    memset(counts, 0, sizeof counts);
    pthread_mutex_unlock(&mutex);
}

void stowage_faults_arm(int kinds, int64_t nth, int persistent, int thisThreadOnly) {
    pthread_mutex_lock(&mutex);
    armedKinds = kinds & STOWAGE_FAULT_ANY;
    armedNth = nth;
    armedPersistent = persistent != 0;
    armedThreadOnly = thisThreadOnly != 0;
    armedThread = pthread_self();
    armedTriggered = 0;
    armedSeen = 0;
    memset(armedSeenByKind, 0, sizeof armedSeenByKind);
    armedInjected = 0;
    firstKind = -1;
    firstRole = -1;
    pthread_mutex_unlock(&mutex);
}

int64_t stowage_faults_disarm(void) {
    pthread_mutex_lock(&mutex);
    armedKinds = 0;
    int64_t injected = armedInjected;
    pthread_mutex_unlock(&mutex);
    return injected;
}

int64_t stowage_faults_injected(void) {
    pthread_mutex_lock(&mutex);
    int64_t injected = armedInjected;
    pthread_mutex_unlock(&mutex);
    return injected;
}

int64_t stowage_faults_seen(int kinds) {
    int64_t total = 0;
    int all[4] = {STOWAGE_FAULT_READ, STOWAGE_FAULT_WRITE, STOWAGE_FAULT_SYNC, STOWAGE_FAULT_TRUNCATE};
    pthread_mutex_lock(&mutex);
    for (int k = 0; k < 4; k++) {
        if (kinds & all[k]) total += armedSeenByKind[k];
    }
    pthread_mutex_unlock(&mutex);
    return total;
}

int stowage_faults_first_kind(void) {
    pthread_mutex_lock(&mutex);
    int kind = firstKind;
    pthread_mutex_unlock(&mutex);
    return kind;
}

int stowage_faults_first_role(void) {
    pthread_mutex_lock(&mutex);
    int role = firstRole;
    pthread_mutex_unlock(&mutex);
    return role;
}

int64_t stowage_sqlite_hard_heap_limit(int64_t limit) {
    return sqlite3_hard_heap_limit64(limit);
}

int64_t stowage_sqlite_memory_used(void) {
    return sqlite3_memory_used();
}

int64_t stowage_sqlite_memory_highwater(int reset) {
    return sqlite3_memory_highwater(reset);
}

int stowage_sqlite_enable_memory_status(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 1);
}

const char *stowage_sqlite_errstr(int code) {
    return sqlite3_errstr(code);
}
