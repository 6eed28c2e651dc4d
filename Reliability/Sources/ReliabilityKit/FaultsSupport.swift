import Foundation
import GRDB
import Stowage

// Plumbing shared by the "I/O errors" and "out of memory" scenarios: the parent's loop over a child
// that runs numbered cases (restarted after the case it crashed or hung in), the lines the child
// prints, and what is checked of a store file once everything is closed.

/// What a child running fault cases printed, gathered over its restarts.
struct FaultCaseRun {
    /// Every line printed by every child, in order.
    var lines: [String] = []
    /// One sentence per child that crashed (ended without `DONE`), naming the case it was running.
    var crashes: [String] = []
    /// Where each crash happened (``crashSignature(_:)``), in the order of `crashes`.
    var crashSignatures: [String] = []
    /// One sentence per child that printed nothing for the hang timeout, naming its case.
    var hangs: [String] = []

    /// The fields of every `CASE` line (`CASE index key=value…`), by case index; a case reported by
    /// two children (after a restart) keeps its first report.
    var cases: [Int: [String: String]] {
        var result: [Int: [String: String]] = [:]
        for line in lines where line.hasPrefix("CASE ") {
            let words = line.split(separator: " ").dropFirst()
            guard let index = words.first.flatMap({ Int($0) }), result[index] == nil else { continue }
            result[index] = FaultLine.fields(words.dropFirst())
        }
        return result
    }

    /// The fields of the first line starting with `tag` and a space.
    func first(_ tag: String) -> [String: String]? {
        lines.first { $0.hasPrefix(tag + " ") }.map { FaultLine.fields($0.split(separator: " ").dropFirst()) }
    }

    /// The free text of the lines starting with `DETAIL`, for failure messages.
    var details: [String] { lines.filter { $0.hasPrefix("DETAIL ") }.map { String($0.dropFirst(7)) } }

    /// Runs `stowage-reliability child NAME ARGUMENTS… FROM` until a child prints `DONE`: a child that
    /// crashes (ends without `DONE`) or prints nothing for `hangTimeout` seconds (then killed) is
    /// recorded, and a new one starts from the case after the one it was in (the last `START index`
    /// without its `CASE index`), at most `maximumRestarts` times. A child that fails outside a case
    /// is not restarted.
    static func run(_ name: String, _ arguments: [String], hangTimeout: Double, maximumRestarts: Int) throws -> FaultCaseRun {
        var run = FaultCaseRun()
        var from = 0
        for _ in 0...maximumRestarts {
            let child = try ChildProcess(["child", name] + arguments + ["\(from)"])
            var seen = 0
            var hung = false
            while true {
                let progressed = child.wait(timeout: hangTimeout, until: { $0.count > seen })
                let output = child.output
                if output.last == "DONE" { break }
                if !progressed {
                    child.kill()
                    hung = true
                    break
                }
                seen = output.count
            }
            let result = child.wait()
            run.lines += result.lines
            if result.lines.last == "DONE" && result.exitedNormally { return run }
            let started = result.lines.last { $0.hasPrefix("START ") }
            let startedIndex = started.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) }
            let finished = startedIndex.map { index in result.lines.contains { $0.hasPrefix("CASE \(index) ") } } ?? true
            let place = finished ? "outside a case" : "in case \(started.map { String($0.dropFirst(6)) } ?? "?")"
            if hung && result.killed {
                run.hangs.append("the child printed nothing for \(Int(hangTimeout)) s \(place) and was killed: \(result)")
            } else {
                let signature = crashSignature(result.errorOutput)
                run.crashes.append("the child ended (\(result.signalled ? "signal" : "exit") \(result.status)) \(place): \(signature)")
                run.crashSignatures.append(signature)
            }
            guard let startedIndex, !finished else { return run }
            from = startedIndex + 1
        }
        return run
    }
}

/// Where a child crashed, from the backtrace Swift printed on its standard error: the fatal error
/// message, if any, and the innermost frame in Stowage or GRDB (else the first frame with a source
/// location).
func crashSignature(_ errorOutput: String) -> String {
    let lines = errorOutput.split(separator: "\n").map(String.init)
    let fatal = lines.first { $0.contains("Fatal error:") }.map { $0.trimmingCharacters(in: .whitespaces) }
    let frames = lines.filter { $0.contains(" in stowage-reliability at /") && !$0.contains(" fatalError<") }
    let frame = frames.first { $0.contains("/Sources/StowageCore/") || $0.contains("/GRDB/") } ?? frames.first
    let function = frame.flatMap { line -> String? in
        guard let start = line.range(of: #"0x[0-9a-f]+ "#, options: .regularExpression)?.upperBound,
              let end = line.range(of: " in stowage-reliability at ")
        else { return nil }
        let name = line[start..<end.lowerBound].replacingOccurrences(of: #" \+ \d+$"#, with: "", options: .regularExpression)
        let location = line[end.upperBound...].split(separator: "/").suffix(2).joined(separator: "/")
        return "\(name) (\(location))"
    }
    let parts = [fatal, function].compactMap { $0 }
    return parts.isEmpty ? "no backtrace: \(errorOutput.suffix(300))" : parts.joined(separator: " ← ")
}

/// The `key=value` lines a fault child prints: values hold no spaces (codes, numbers, words).
enum FaultLine {
    static func fields(_ words: some Sequence<Substring>) -> [String: String] {
        var fields: [String: String] = [:]
        for word in words {
            guard let equals = word.firstIndex(of: "=") else { continue }
            fields[String(word[..<equals])] = String(word[word.index(after: equals)...])
        }
        return fields
    }
}

/// What an operation that may fail did: returned, threw a `StowageError`, or threw something else.
enum FaultOutcome<Value> {
    case value(Value)
    case typed(StowageError)
    case untyped(any Error)

    init(_ body: () throws -> Value) {
        do {
            self = .value(try body())
        } catch let error as StowageError {
            self = .typed(error)
        } catch {
            self = .untyped(error)
        }
    }

    /// `ok`, the error's code, or `untyped`.
    var label: String {
        switch self {
        case .value: "ok"
        case .typed(let error): error.code.rawValue
        case .untyped: "untyped"
        }
    }

    var value: Value? {
        if case .value(let value) = self { return value }
        return nil
    }

    var failed: Bool { value == nil }

    /// The error, described, when there is one.
    var errorDescription: String? {
        switch self {
        case .value: nil
        case .typed(let error): "\(error)"
        case .untyped(let error): "\(type(of: error)): \(error)"
        }
    }
}

/// Store files on disk: copying, removing, and checking them through a plain connection.
enum FaultStore {
    static let suffixes = ["", "-wal", "-shm", "-journal"]

    /// Removes the store file and its companions.
    static func remove(_ url: URL) {
        for suffix in suffixes { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    }

    /// Replaces `destination` (and its companions) with a copy of `source` and its companions.
    static func copy(_ source: URL, to destination: URL) throws {
        remove(destination)
        for suffix in suffixes where FileManager.default.fileExists(atPath: source.path + suffix) {
            try FileManager.default.copyItem(atPath: source.path + suffix, toPath: destination.path + suffix)
        }
    }

    /// Copies the contents of `source` into a new single file at `destination`, with no companion
    /// files, as if every connection to `source` had closed: checkpoints the whole WAL into the database
    /// file through a plain connection (`wal_checkpoint(TRUNCATE)`), then copies that file alone.
    /// For a store whose container cannot be released (see IOFaults' change).
    /// A checkpoint that a reader still open in the filling container keeps busy (a container's
    /// connections close on its own threads, which Thread Sanitizer slows) is tried again for up to a
    /// few seconds.
    static func seal(_ source: URL, into destination: URL) throws {
        let queue = try connection(source)
        var result: Row?
        for attempt in 0..<200 {
            if attempt > 0 { Thread.sleep(forTimeInterval: 0.02) }
            result = try queue.writeWithoutTransaction { db in try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            if result?[0] as Int? == 0 { break }
        }
        try queue.close()
        guard let result, result[0] as Int? == 0, result[1] as Int? == result[2] as Int? else {
            throw StowageError(.saveFailed, "The WAL of \(source.path) could not be checkpointed: \(result.map { "\($0)" } ?? "no result")")
        }
        remove(destination)
        try FileManager.default.copyItem(atPath: source.path, toPath: destination.path)
    }

    /// Makes the single-file store `url` by filling a store beside it with `fill` and sealing that
    /// (``seal(_:into:)``): whether a container's connections have closed once it goes out of scope
    /// depends on its threads' timing, which Thread Sanitizer slows.
    static func makeSealed(_ url: URL, fill: (URL) throws -> Void) throws {
        let building = url.deletingLastPathComponent().appendingPathComponent("building-" + url.lastPathComponent)
        try fill(building)
        try seal(building, into: url)
    }

    /// Whether a companion file (`-wal`, `-journal`) is beside the store.
    static func exists(_ url: URL, _ suffix: String) -> Bool {
        FileManager.default.fileExists(atPath: url.path + suffix)
    }

    /// A plain read-write connection with Stowage's SQL functions (the indexes of `String` keys use
    /// them, and `integrity_check` evaluates them).
    static func connection(_ url: URL) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            if let connection = db.sqliteConnection { StowageSQLFunctions.register(on: connection) }
        }
        return try DatabaseQueue(path: url.path, configuration: configuration)
    }

    /// `PRAGMA integrity_check` through a plain read-write connection (which recovers a WAL and rolls
    /// back a hot journal first), and one line per table: its name and row count.
    static func integrityAndCounts(_ url: URL) throws -> (integrity: String, tables: [String]) {
        let queue = try connection(url)
        defer { try? queue.close() }
        return try queue.read { db in
            let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ")
            let names = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            let tables = try names.map { name in
                "table \(name) \(try Int.fetchOne(db, sql: "SELECT count(*) FROM \(name.quotedDatabaseIdentifier)") ?? -1)"
            }
            return (integrity, tables)
        }
    }

    /// Every table's definition and rows (as text, sorted), and every index's definition, through a
    /// plain read-write connection: the logical contents, independent of page layout.
    static func sqlDump(_ url: URL) throws -> (integrity: String, lines: [String]) {
        let queue = try connection(url)
        defer { try? queue.close() }
        return try queue.read { db in
            let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ")
            var lines: [String] = []
            for row in try Row.fetchAll(db, sql: "SELECT type, name, sql FROM sqlite_master ORDER BY type, name") {
                let type: String = row["type"], name: String = row["name"]
                lines.append("\(type) \(name): \(row["sql"] as String? ?? "")")
                guard type == "table" else { continue }
                let rows = try Row.fetchAll(db, sql: "SELECT * FROM \(name.quotedDatabaseIdentifier)").map { row in
                    row.databaseValues.map { "\($0)" }.joined(separator: "|")
                }
                lines += rows.sorted().map { "  \($0)" }
            }
            return (integrity, lines)
        }
    }

    /// `old`, `new` or `other`: which of two expected contents `lines` is.
    static func classify(_ lines: [String], old: [String], new: [String]) -> String {
        lines == new ? "new" : lines == old ? "old" : "other"
    }

    /// The first line where `lines` differs from `expected`, for a failure message.
    static func difference(_ lines: [String], from expected: [String]) -> String {
        for (offset, (line, wanted)) in zip(lines, expected).enumerated() where line != wanted {
            return "line \(offset): \(line) (expected \(wanted))"
        }
        return lines.count == expected.count ? "none" : "\(lines.count) lines, expected \(expected.count)"
    }
}

/// FNV-1a of some bytes, to show a blob in a dump.
func faultChecksum(_ data: Data) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in data {
        hash ^= UInt64(byte)
        hash &*= 0x100_0000_01b3
    }
    return String(hash, radix: 16)
}

/// Counts of labels (error codes, outcomes) as `label × count, …`, sorted by label.
func faultTally(_ labels: [String]) -> String {
    let counts = Dictionary(labels.map { ($0, 1) }, uniquingKeysWith: +)
    return counts.isEmpty ? "none" : counts.sorted { $0.key < $1.key }.map { "\($0.key) × \($0.value)" }.joined(separator: ", ")
}
