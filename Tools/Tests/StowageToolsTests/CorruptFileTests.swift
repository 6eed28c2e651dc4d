import ExampleTestSupport
import Foundation
import GRDB
import Testing

@testable import ReliabilityKit

/// "A file that is not a Stowage store, or is damaged, gives a one-line reason and a non-zero exit
/// code, never a crash": `stowage` run, each command in a process of its own, on the reliability
/// suite's corrupt and foreign files (Reliability/Sources/ReliabilityKit/CorruptVariants.swift), and
/// on a missing file, a directory, an empty file, a text file and another program's SQLite database.
@Suite("A file that is not a Stowage store, or is damaged: a one-line reason, never a crash")
struct CorruptFileTests {
    /// The seed of the random variants (random bytes, bytes changed in random pages): fixed, so that
    /// every run tries the same files.
    static let seed: UInt64 = 20_261_207

    /// The reading commands run on every file; `STORE` stands for the store's path.
    static let readingCommands: [[String]] = [
        ["inspect", "STORE"],
        ["rows", "STORE", "CorruptNote", "--limit", "5"],
        ["doctor", "STORE"],
        ["export", "STORE"],
    ]

    /// What is wrong with a run of `stowage arguments`, `nil` when nothing is: it must exit with 0, or
    /// with another status and exactly one line on standard error, starting with `stowage: `, and it
    /// must not crash. `doctor` exits with 1 when it finds problems, which it reports on standard
    /// output, as its help says: that report is accepted too.
    static func problem(with run: ToolRun, _ arguments: [String]) -> String? {
        let command = "stowage " + arguments.joined(separator: " ")
        if run.crashed {
            return "\(command) crashed (signal \(run.status)); standard error: \(run.errorOutput.debugDescription)"
        }
        if run.status == 0 { return nil }
        if arguments.first == "doctor", run.status == 1, run.errorOutput.isEmpty,
           run.output.hasSuffix(" problem found.\n") || run.output.hasSuffix(" problems found.\n") {
            return nil
        }
        let lines = run.errorOutput.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count == 2, lines[1].isEmpty, lines[0].hasPrefix("stowage: "), lines[0].count > "stowage: ".count else {
            return "\(command) exited with \(run.status) without exactly one line starting with \"stowage: \" on standard error: \(run.errorOutput.debugDescription)"
        }
        return nil
    }

    /// One variant's runs: the problems found, and how each command ended.
    struct Outcome {
        var problems: [String] = []
        /// By command: "ok", or the exit status.
        var results: [String: String] = [:]
        var slowest: (seconds: Double, command: String) = (0, "")
    }

    /// Runs the reading commands on the store in `directory`, checking each run and that the
    /// directory's bytes are unchanged after it.
    static func check(_ directory: URL, store: String = "corrupt.store", label: String) -> Outcome {
        var outcome = Outcome()
        do {
            let before = try snapshot(of: directory)
            for command in readingCommands {
                let arguments = command.map { $0 == "STORE" ? store : $0 }
                let start = Date()
                let run = try Tool.run("stowage", arguments, in: directory)
                let seconds = Date().timeIntervalSince(start)
                if seconds > outcome.slowest.seconds { outcome.slowest = (seconds, arguments[0]) }
                outcome.results[command[0]] = run.status == 0 ? "ok" : run.crashed ? "crashed" : "exit \(run.status)"
                if let problem = problem(with: run, arguments) { outcome.problems.append("\(label): \(problem)") }
                let changed = differences(before, try snapshot(of: directory))
                if !changed.isEmpty {
                    outcome.problems.append("\(label): stowage \(arguments.joined(separator: " ")) changed the directory: \(changed.joined(separator: "; "))")
                }
            }
        } catch {
            outcome.problems.append("\(label): \(error)")
        }
        return outcome
    }

    /// The outcomes of the variants, set from the threads that run them.
    final class Outcomes: @unchecked Sendable {  // @unchecked: every access holds the lock.
        private let lock = NSLock()
        private var outcomes: [Outcome?]
        init(count: Int) { outcomes = Array(repeating: nil, count: count) }
        func set(_ index: Int, _ outcome: Outcome) { lock.withLock { outcomes[index] = outcome } }
        var all: [Outcome] { lock.withLock { outcomes.compactMap { $0 } } }
    }

    @Test("every corrupt or foreign file of the reliability suite: success, or one line and a non-zero exit; bytes unchanged")
    func reliabilityCorruptFiles() throws {
        let temporary = try TemporaryDirectory(prefix: "stowage-corrupt")
        defer { temporary.remove() }
        let sources = try CorruptSources.make(in: temporary.url.appendingPathComponent("sources"))
        var random = SeededGenerator(seed: Self.seed)
        let variants = sources.variants(random: &random)
        #expect(variants.count >= 30)
        #expect(
            Set(variants.map(\.kind)) == ["foreign", "wal", "text", "truncated", "random", "zeroed", "header", "page"],
            "families: \(CorruptFiles.families(variants))")

        // Each variant in a directory of its own, placed before the runs start (the variants are not
        // Sendable: the runs share only their directories), then the runs on both cores.
        var directories: [(URL, String)] = []
        for (index, variant) in variants.enumerated() {
            let directory = temporary.url.appendingPathComponent(String(format: "variant-%03d", index))
            try CorruptFiles.place(variant, in: directory)
            directories.append((directory, "variant \(index) (\(variant.kind): \(variant.name))"))
        }
        let start = Date()
        let outcomes = Outcomes(count: directories.count)
        let jobs = directories
        DispatchQueue.concurrentPerform(iterations: jobs.count) { index in
            outcomes.set(index, Self.check(jobs[index].0, label: jobs[index].1))
        }
        let seconds = Date().timeIntervalSince(start)

        let all = outcomes.all
        #expect(all.count == variants.count)
        for problem in all.flatMap(\.problems) { Issue.record(Comment(rawValue: problem)) }
        var tally: [String: [String: Int]] = [:]
        for outcome in all {
            for (command, result) in outcome.results { tally[command, default: [:]][result, default: 0] += 1 }
        }
        let slowest = all.enumerated().max { $0.element.slowest.seconds < $1.element.slowest.seconds }
        print("""
            stowage on \(variants.count) corrupt variants (\(CorruptFiles.families(variants))), seed \(Self.seed): \
            \(Self.readingCommands.count * variants.count) runs in \(String(format: "%.1f", seconds)) s; \
            \(Self.readingCommands.map { command in "\(command[0]): " + (tally[command[0]] ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") }.joined(separator: "; ")); \
            slowest run \(String(format: "%.2f", slowest?.element.slowest.seconds ?? 0)) s (\(slowest?.element.slowest.command ?? "") of \(slowest.map { jobs[$0.offset].1 } ?? ""))
            """)
    }

    // MARK: Files that are not stores

    /// A file that is not a Stowage store, made in a directory.
    enum NotAStore: String, CaseIterable, CustomStringConvertible, Sendable {
        case missing, directory, empty, text, foreignSQLite

        var description: String { rawValue }

        /// The name the store argument gives.
        var fileName: String {
            switch self {
            case .missing: "missing.store"
            case .directory: "folder.store"
            case .empty: "empty.store"
            case .text: "notes.txt"
            case .foreignSQLite: "other-app.sqlite"
            }
        }

        /// What the one line says (one of these).
        var reasons: [String] {
            switch self {
            case .missing: ["no file at", "no store at"]
            case .directory: ["is a directory"]
            case .empty: ["is an empty file"]
            case .text: ["is not an SQLite database"]
            case .foreignSQLite: ["is an SQLite database but not a Stowage store"]
            }
        }

        func make(in directory: URL) throws {
            let url = directory.appendingPathComponent(fileName)
            switch self {
            case .missing: break
            case .directory: try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
            case .empty: try Data().write(to: url)
            case .text: try Data("Shopping list:\nmilk\nbread\n".utf8).write(to: url)
            case .foreignSQLite:
                let queue = try DatabaseQueue(path: url.path)
                try queue.write { db in
                    try db.execute(sql: "CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
                    try db.execute(sql: "INSERT INTO person (name) VALUES ('Ada'), ('Grace')")
                }
                try queue.close()
            }
        }
    }

    @Test("a missing file, a directory, an empty file, a text file, another program's SQLite database: one line, exit 1", arguments: NotAStore.allCases)
    func notAStore(_ file: NotAStore) throws {
        let directory = try TemporaryDirectory(prefix: "stowage-not-a-store")
        defer { directory.remove() }
        try file.make(in: directory.url)
        // An export for `import` to read (the store is refused before it is read).
        let export = directory.url.appendingPathComponent("export.jsonl")
        try Data(#"{"stowage":"export","format":1,"version":"1.0.0","entities":[]}"#.utf8 + [0x0A]).write(to: export)
        let before = try snapshot(of: directory.url)

        let store = file.fileName
        let commands: [[String]] = Self.readingCommands.map { $0.map { $0 == "STORE" ? store : $0 } } + [
            ["schema", store], ["schema", store, "--format", "mermaid"], ["history", store], ["sql", store, "SELECT 1"],
            ["migrate", "status", store], ["inspect", store, "--format", "json"], ["import", store, export.path],
        ]
        for arguments in commands {
            let run = try Tool.run("stowage", arguments, in: directory.url)
            let command = "stowage " + arguments.joined(separator: " ")
            #expect(!run.crashed, "\(command) crashed")
            #expect(run.status == 1, "\(command) exited with \(run.status): \(run.errorOutput)")
            #expect(run.output.isEmpty, "\(command) printed \(run.output.debugDescription)")
            #expect(run.errorOutput == "stowage: \(run.errorOutput.dropFirst("stowage: ".count).prefix { $0 != "\n" })\n", "\(command): \(run.errorOutput.debugDescription)")
            #expect(run.errorOutput.contains(store) && file.reasons.contains { run.errorOutput.contains($0) }, "\(command): \(run.errorOutput.debugDescription)")
            #expect(differences(before, try snapshot(of: directory.url)) == [], "\(command) changed the directory")
        }
    }

    // MARK: What `stowage doctor` says of a damaged store (known bugs)

    /// A SpendSmart store (two budgets, a transaction) made by the built app in `directory`, copied to
    /// `name` with `damage` applied to its bytes.
    static func damagedSpendSmartStore(in directory: URL, _ name: String, _ damage: (inout Data) -> Void) throws -> URL {
        for command in [["add", "Groceries", "500"], ["add", "Summer Trip", "2000"], ["spend", "Groceries", "4.50", "Milk"]] {
            let run = try Tool.run("spendsmart", command, in: directory)
            #expect(run.status == 0, "spendsmart \(command): \(run.errorOutput)")
        }
        var data = try Data(contentsOf: directory.appendingPathComponent("spendsmart.store"))
        damage(&data)
        let url = directory.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    @Test("doctor on a store too damaged to open: one line, but it sends the user to `stowage doctor` itself")
    func doctorOnAStoreTooDamagedToOpen() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-doctor-damaged")
        defer { directory.remove() }
        // The second page zeroed: SQLite reports "database disk image is malformed" when the store's
        // metadata is read, before any of doctor's checks.
        _ = try Self.damagedSpendSmartStore(in: directory.url, "damaged.store") { data in
            data.replaceSubrange(4096..<8192, with: Data(count: 4096))
        }
        let before = try snapshot(of: directory.url)
        let run = try Tool.run("stowage", ["doctor", "damaged.store"], in: directory.url)
        #expect(!run.crashed)
        #expect(run.status == 1)
        #expect(Self.problem(with: run, ["doctor", "damaged.store"]) == nil)
        #expect(differences(before, try snapshot(of: directory.url)) == [])
        // Doctor reports the damage it can see, instead of refusing the store as the reading commands do.
        #expect(run.errorOutput.isEmpty, "\(run.errorOutput)")
        #expect(run.output.contains("integrity: "), "\(run.output)")
    }

    @Test("doctor's integrity problem shows at most 3 of SQLite's messages, on its line")
    func doctorIntegrityProblemIsShort() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-doctor-integrity")
        defer { directory.remove() }
        // The header's "reserved space per page" byte inverted: the store opens, and SQLite's
        // integrity check finds a dozen pages damaged.
        _ = try Self.damagedSpendSmartStore(in: directory.url, "damaged.store") { data in data[20] ^= 0xFF }
        let run = try Tool.run("stowage", ["doctor", "damaged.store"], in: directory.url)
        #expect(!run.crashed)
        #expect(run.status == 1)
        #expect(run.errorOutput.isEmpty)
        let lines = run.output.split(separator: "\n").map(String.init)
        let integrity = try #require(lines.firstIndex { $0.hasPrefix("integrity: SQLite found damage: ") }, "\(run.output)")
        // At most 3 of SQLite's messages, on the problem's line, then what to do.
        #expect(integrity + 1 < lines.count && lines[integrity + 1].hasPrefix("    → "), "\(run.output)")
    }

    @Test("doctor on a store whose non-optional attribute holds NULL, which the app cannot read")
    func doctorOnNullInANonOptionalAttribute() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-doctor-null")
        defer { directory.remove() }
        _ = try Self.damagedSpendSmartStore(in: directory.url, "tampered.store") { _ in }
        // Another program drops the NOT NULL of Transaction.amount (a Double), then stores NULL in it.
        for sql in [
            #"PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, '"amount" REAL NOT NULL', '"amount" REAL') WHERE name = 'Transaction'"#,
            #"UPDATE "Transaction" SET amount = NULL"#,
        ] {
            let run = try Tool.run("stowage", ["sql", "tampered.store", "--write", sql], in: directory.url)
            #expect(run.status == 0, "\(run.errorOutput)")
        }
        // The app cannot read the store, and the rows exported cannot be imported back.
        let list = try Tool.run("spendsmart", ["--store", "tampered.store", "list"], in: directory.url)
        #expect(list.status == 1 && list.errorOutput.contains("cannot be read as Double"), "\(list.errorOutput)")
        let export = try Tool.run("stowage", ["export", "tampered.store", "--output", "tampered.jsonl"], in: directory.url)
        #expect(export.status == 0, "\(export.errorOutput)")
        let fresh = directory.url.appendingPathComponent("fresh")
        try FileManager.default.createDirectory(at: fresh, withIntermediateDirectories: false)
        #expect(try Tool.run("spendsmart", ["list"], in: fresh).status == 0)
        let reimport = try Tool.run("stowage", ["import", "spendsmart.store", directory.url.appendingPathComponent("tampered.jsonl").path], in: fresh)
        #expect(reimport.status == 65 && reimport.errorOutput.contains("amount is a Double, which cannot be nil"), "\(reimport.errorOutput)")

        let doctor = try Tool.run("stowage", ["doctor", "tampered.store"], in: directory.url)
        #expect(!doctor.crashed)
        #expect(doctor.status == 1 && doctor.output.contains("have no amount"), "\(doctor.output)")
    }
}
