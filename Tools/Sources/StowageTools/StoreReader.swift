import Foundation
import GRDB
import StowageCore

/// A problem the `stowage` tools report in one line: what is wrong and what to do. Never a crash.
package struct ToolError: Error, CustomStringConvertible, Sendable {
    package let message: String
    /// The process's exit status for it.
    package let exitCode: Int32
    /// Whether the problem can be a moment's state of the files: SQLite could not open the store, or
    /// found its `-wal` without its `-shm`, as happens while the app's last connection opens or closes.
    var isTransient = false

    /// The exit status of a problem that goes away when the command is run again: the store changed
    /// under it (`EX_TEMPFAIL`).
    package static let tryAgainExitCode: Int32 = 75

    package init(_ message: String, exitCode: Int32 = 1) {
        self.message = message
        self.exitCode = exitCode
    }

    package var description: String { message }
}

/// A Stowage store opened without its app's models: its metadata, the description of its models
/// (``StoreDescription``) and a connection with Stowage's SQL functions and collations.
///
/// Opened for reading (the default), it changes nothing on disk: not the store, not its `-wal` or
/// `-shm`, not the directory. Without a `-wal` beside the file, SQLite reads it as an immutable file;
/// with one, it reads the WAL through a `-shm` it opens read-only, so that a save another process
/// committed but has not checkpointed yet is seen.
package final class StoreReader: @unchecked Sendable {  // @unchecked: immutable after init; the queue serializes.
    package let path: String
    package let metadata: [String: String]
    package let description: StoreDescription
    /// Whether the description was rebuilt from the store's layout because the store has none (made by
    /// an earlier version of Stowage): Swift types are then only the column types' closest ones.
    package let descriptionIsFromLayout: Bool
    package let isWritable: Bool
    let queue: DatabaseQueue

    /// Opens the store at `path`.
    /// - Parameter writable: opens it for writing (`sql --write`, `import`); it must exist.
    /// - Throws: ``ToolError`` for a missing file, a file that is not an SQLite database or not a
    ///   Stowage store, or a damaged one.
    package init(path: String, writable: Bool = false) throws {
        self.path = path
        isWritable = writable
        let (queue, metadata, tables) = try Self.openAndReadMetadata(path: path, writable: writable)
        self.queue = queue
        guard tables.contains(StoreToolSupport.metadataTable) else {
            throw ToolError(tables.isEmpty
                ? "\(path) is an SQLite database without tables, not a Stowage store: open it with your app first"
                : "\(path) is an SQLite database but not a Stowage store (it has no \(StoreToolSupport.metadataTable) table)")
        }
        self.metadata = metadata
        if let json = metadata[StoreDescription.metadataKey] {
            do {
                description = try StoreDescription(json: json)
            } catch {
                throw ToolError("\(path): the description of its models cannot be read (\(error))")
            }
            descriptionIsFromLayout = false
        } else if let layout = metadata["schema_layout"] {
            do {
                description = try StoreDescription(layout: layout, version: metadata["schema_version"] ?? "?")
            } catch {
                throw ToolError("\(path): the layout it recorded cannot be read (\(error))")
            }
            descriptionIsFromLayout = true
        } else {
            throw ToolError("\(path) was made by an early version of Stowage that recorded neither its layout nor its models: open it once with your app")
        }
    }

    /// Runs `body` on the connection, turning SQLite's errors into one-line reasons.
    package func read<T>(_ body: (Database) throws -> T) throws -> T {
        try Self.guarded(path) { try queue.read(body) }
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction, committed when it returns (store opened
    /// writable).
    ///
    /// The transaction first checks that the store still has the models it was opened with: values
    /// checked against an old ``description`` must not be written after the app migrated the store.
    /// - Throws: ``ToolError`` when the store was opened read-only, or when its models changed since it
    ///   was opened (nothing is written: open it again).
    package func write<T>(_ body: (Database) throws -> T) throws -> T {
        guard isWritable else { throw ToolError("\(path) was opened read-only") }
        return try Self.guarded(path) {
            try queue.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.immediate) {
                    try checkModelsUnchanged(db)
                    result = try body(db)
                    return .commit
                }
                return result!
            }
        }
    }

    /// The metadata entries that say which models a store holds: when one of them changes, the store
    /// was migrated or its models' description rewritten.
    static let modelMetadataKeys = ["schema_version", "schema_layout", StoreDescription.metadataKey]

    /// Throws when the store's models are no longer those it was opened with.
    private func checkModelsUnchanged(_ db: Database) throws {
        let now = try Self.metadataEntries(db, keys: Self.modelMetadataKeys)
        for key in Self.modelMetadataKeys where now[key] != metadata[key] {
            throw ToolError(
                "\(path) was migrated since it was opened (its models changed); nothing was written: try again",
                exitCode: ToolError.tryAgainExitCode)
        }
    }

    /// Runs `body` on the connection outside any transaction (`sql --write`).
    package func withConnection<T>(_ body: (Database) throws -> T) throws -> T {
        try Self.guarded(path) { try queue.writeWithoutTransaction(body) }
    }

    /// Stops the statement running on the connection, from any thread: it fails with `SQLITE_INTERRUPT`.
    package func interrupt() {
        queue.interrupt()
    }

    /// The entity named `name`, or a one-line error listing the store's entities.
    package func entity(named name: String) throws -> StoreDescription.Entity {
        if let entity = description.entity(named: name) { return entity }
        if let entity = description.entities.first(where: { $0.name.lowercased() == name.lowercased() }) { return entity }
        throw ToolError("\(path) has no entity \(name); its entities are \(description.entities.map(\.name).joined(separator: ", "))", exitCode: 64)
    }

    // MARK: Opening

    /// Opens the store and reads its tables' names and its metadata.
    ///
    /// SQLite creates a store's `-wal` and `-shm` one after the other when the app's first connection
    /// opens, and removes them one after the other when its last one closes: a reader that meets them
    /// halfway cannot open the store yet. Reading, it tries again for a quarter of a second (the app's
    /// open or close takes milliseconds), then reports what it found.
    static func openAndReadMetadata(path: String, writable: Bool) throws -> (DatabaseQueue, [String: String], [String]) {
        let deadline = Date().addingTimeInterval(0.25)
        var pause = 0.001
        while true {
            do {
                let queue = try open(path: path, writable: writable)
                let (metadata, tables) = try guarded(path) {
                    try queue.read { db -> ([String: String], [String]) in
                        let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
                        guard tables.contains(StoreToolSupport.metadataTable) else { return ([:], tables) }
                        return (try metadataEntries(db), tables)
                    }
                }
                return (queue, metadata, tables)
            } catch let error as ToolError where error.isTransient && !writable && Date() < deadline {
                Thread.sleep(forTimeInterval: pause)
                pause = min(pause * 2, 0.02)
            }
        }
    }

    /// The store's metadata entries (only `keys` when given), by key.
    static func metadataEntries(_ db: Database, keys: [String]? = nil) throws -> [String: String] {
        var sql = "SELECT \"key\", \"value\" FROM \(quote(StoreToolSupport.metadataTable))"
        if let keys { sql += " WHERE \"key\" IN (\(keys.map { _ in "?" }.joined(separator: ", ")))" }
        let pairs = try Row.fetchAll(db, sql: sql, arguments: StatementArguments(keys ?? [])).compactMap { row -> (String, String)? in
            guard let key = String.fromDatabaseValue(row["key"]), let value = String.fromDatabaseValue(row["value"]) else { return nil }
            return (key, value)
        }
        return Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }

    static func open(path: String, writable: Bool) throws -> DatabaseQueue {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ToolError("no file at \(path)")
        }
        guard !isDirectory.boolValue else { throw ToolError("\(path) is a directory, not a store file") }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ToolError("\(path) cannot be read by this user (\(String(cString: strerror(errno))))")
        }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        try? handle.close()
        guard !header.isEmpty else { throw ToolError("\(path) is an empty file, not a Stowage store") }
        guard header == Data("SQLite format 3\0".utf8) else {
            throw ToolError("\(path) is not an SQLite database, so not a Stowage store")
        }
        var configuration = Configuration()
        configuration.label = "stowage"
        configuration.readonly = !writable
        configuration.busyMode = .timeout(5)
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            if let connection = db.sqliteConnection { StowageSQLFunctions.register(on: connection) }
        }
        return try guarded(path) { try DatabaseQueue(path: writable ? path : readingURI(path), configuration: configuration) }
    }

    /// The URI a reading connection opens (see ``StoreToolSupport/untouchedReadingURI(_:)``).
    static func readingURI(_ path: String) throws -> String {
        do {
            return try StoreToolSupport.untouchedReadingURI(path)
        } catch let error as StowageError {
            var failure = ToolError(error.message)
            failure.isTransient = true  // a -wal without its -shm
            throw failure
        }
    }

    /// `body`, with SQLite's errors as one-line reasons.
    static func guarded<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as ToolError {
            throw error
        } catch let error as DatabaseError {
            switch error.resultCode {
            case .SQLITE_NOTADB: throw ToolError("\(path) is not an SQLite database, so not a Stowage store")
            case .SQLITE_CORRUPT: throw ToolError("\(path) is damaged (\(error.message ?? "database disk image is malformed")): restore it from a backup; `stowage doctor` names the damage")
            case .SQLITE_BUSY, .SQLITE_LOCKED: throw ToolError("\(path) is busy: another process holds a lock on it (\(error.message ?? ""))")
            case .SQLITE_CANTOPEN:
                var failure = ToolError("\(path) cannot be opened (\(error.message ?? "unable to open database file"))")
                failure.isTransient = true
                throw failure
            case .SQLITE_READONLY: throw ToolError("\(path) cannot be written: \(error.message ?? "read-only")")
            default: throw ToolError("\(path): \(error.message ?? "\(error)")")
            }
        }
    }
}

/// An SQL identifier, quoted.
func quote(_ identifier: String) -> String { StoreToolSupport.quote(identifier) }
