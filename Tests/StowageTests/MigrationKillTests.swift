import Foundation
import GRDB
import ReopenFixtures
import Stowage
@testable import StowageCore
import Testing

/// A migration is one transaction: a process killed with SIGKILL at any point of a 50,000-row migration
/// (a lightweight stage, then a custom stage that rewrites every row) leaves the store exactly at its
/// old version, byte for byte in its logical contents, and the next open migrates it.
///
/// The migration runs in `stowage-reopen-probe migrate` (models and plan in
/// Tests/ReopenFixtures/MigrationKillFixtures.swift), which prints its progress unbuffered: "opening"
/// before it creates the container, "willMigrate N" from the custom stage (inside the migration's
/// transaction, after the lightweight stage), "rewrote N" after each save of the custom stage, and
/// "migrated N" once the container is open. The test reads those lines as they come, to know where each
/// kill landed.
@Suite("Migration killed with SIGKILL", .serialized)
struct MigrationKillTests {
    static let rows = 50_000
    /// Rounds killed after delays spread over one migration's measured duration.
    static let spreadRounds = 20
    /// Rounds killed right after the launch (before or while the probe opens the store).
    static let earlyDelays: [Double] = [0, 0.003, 0.015, 0.04]

    @Test func aMigrationKilledAnywhereLeavesTheOldVersionAndTheNextOpenMigrates() throws {
        guard let probe = ReopenTests.probeURL else { throw ReopenTests.ProbeNotBuilt() }
        let started = Date()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }

        // A V1 store of 50,000 entries, made in a child process, its WAL folded into the file.
        let pristine = directory.file("pristine.store")
        let creation = try ProbeRun(probe, ["migrate-fixture-create", pristine.path, "\(Self.rows)"]).wait()
        try #require(creation.exitedNormally && creation.texts == ["created \(Self.rows)"], "\(creation)")
        try checkpoint(pristine)
        #expect(!FileManager.default.fileExists(atPath: pristine.path + "-wal"))
        let original = try logicalDump(pristine)
        #expect(try recordedVersion(pristine) == "1.0.0")
        #expect(try integrityCheck(pristine) == "ok")
        let keys = try storeRead(pristine) { db in
            Dictionary(uniqueKeysWithValues: try GRDB.Row.fetchAll(db, sql: "SELECT serial, _pk FROM Entry").map { ($0[0] as Int, $0[1] as Int64) })
        }
        try #require(keys.count == Self.rows)
        let createdAt = Date()

        // One full migration, timed, in a child.
        let work = directory.file("work.store")
        try copyStore(pristine, to: work)
        let measured = try ProbeRun(probe, ["migrate", work.path]).wait()
        try #require(measured.exitedNormally && measured.texts.last == "migrated \(Self.rows)", "\(measured)")
        let duration = try #require(measured.time(of: "migrated"))
        let transactionStart = try #require(measured.time(of: "willMigrate"))
        try verifyMigrated(work, keys: keys)
        print("kill test: created \(Self.rows) rows in \(seconds(createdAt.timeIntervalSince(started)));"
            + " a full migration takes \(seconds(duration)) (custom stage from \(seconds(transactionStart))): "
            + measured.lines.map { "\($0.text) @\(seconds($0.time))" }.joined(separator: ", "))

        // The kills. Each round migrates the store as the previous kill left it (with the WAL of the
        // transaction it did not commit): that is the next open after each kill. After a kill that landed
        // after the commit the next round starts again from a copy of the V1 store.
        try copyStore(pristine, to: work)
        // Delays spread over the measured duration, in an interleaved order so that the last round (whose
        // store the final open migrates) is killed mid-way; then, if too few kills landed inside the
        // migration (the machine got faster than when the duration was measured), extra rounds in the
        // first half of it.
        let spread = (0..<Self.spreadRounds).map { (Double(($0 * 7) % Self.spreadRounds) + 0.5) / Double(Self.spreadRounds) }
        var estimate = duration
        var outcomes: [Outcome] = []
        var recoveries = 0
        let count = { (kind: Outcome.Kind) in outcomes.filter { $0.kind == kind }.count }
        var round = 0
        while true {
            let delay: Double
            if round < Self.earlyDelays.count {
                delay = Self.earlyDelays[round]
            } else if round < Self.earlyDelays.count + spread.count {
                delay = spread[round - Self.earlyDelays.count] * estimate
            } else if (count(.midMigration) < 15 || outcomes.last?.kind != .midMigration) && round < Self.earlyDelays.count + spread.count + 10 {
                delay = (0.2 + 0.05 * Double(round % 8)) * estimate
            } else {
                break
            }
            defer { round += 1 }
            let run = try ProbeRun(probe, ["migrate", work.path])
            Thread.sleep(forTimeInterval: delay)
            run.sigkill()
            let result = run.wait()
            let label = "round \(round) (kill after \(seconds(delay)), output \(result.texts))"
            #expect(result.killed || result.exitedNormally, "\(label): \(result)")
            #expect(try integrityCheck(work) == "ok", "\(label)")
            let version = try recordedVersion(work)
            if version == "1.0.0" {
                let dump = try logicalDump(work)
                let identical = dump == original  // (not inside #expect, which would print both dumps)
                #expect(identical, "\(label): \(firstDifference(original, dump))")
                #expect(result.killed, "\(label): the probe ended without migrating")
                let kind: Outcome.Kind =
                    result.texts.contains(where: { $0.hasPrefix("willMigrate") }) ? .midMigration
                    : result.texts.contains("opening") ? .whileOpening : .beforeOpening
                outcomes.append(Outcome(kind: kind, delay: delay, lastLine: result.texts.last))
                // A round that reached the custom stage went through the lightweight stage over the store
                // the previous kill left.
                if let line = result.texts.first(where: { $0.hasPrefix("willMigrate") }) {
                    #expect(line == "willMigrate \(Self.rows)", "\(label)")
                }
                // Every fourth kill inside the migration, a copy of the killed store (WAL and all) is
                // migrated to the end, in a child, uninterrupted.
                if kind == .midMigration && count(.midMigration) % 4 == 0 {
                    let recovered = directory.file("recovered.store")
                    try copyStore(work, to: recovered)
                    let recovery = try ProbeRun(probe, ["migrate", recovered.path]).wait()
                    #expect(recovery.exitedNormally && recovery.texts.last == "migrated \(Self.rows)", "\(label): recovery \(recovery)")
                    try verifyMigrated(recovered, keys: keys)
                    recoveries += 1
                }
            } else if version == "3.0.0" {
                // Killed after the commit (or not killed at all): the store is fully migrated.
                try verifyMigrated(work, keys: keys)
                outcomes.append(Outcome(kind: .afterCommit, delay: delay, lastLine: result.texts.last))
                if let end = result.time(of: "didMigrate") { estimate = min(estimate, end) }
                try copyStore(pristine, to: work)
            } else {
                Issue.record("\(label): the store is at version \(version ?? "nil"), neither the old one nor the new one")
                try copyStore(pristine, to: work)
            }
        }
        print("kill test: \(outcomes.count) kills: \(count(.midMigration)) mid-migration (inside the transaction, in the custom stage),"
            + " \(count(.whileOpening)) while opening (before the custom stage), \(count(.beforeOpening)) before the probe opened the store,"
            + " \(count(.afterCommit)) after the commit; \(recoveries) killed stores migrated to the end in a child; "
            + outcomes.map { "\($0.kind)@\(seconds($0.delay)):\($0.lastLine ?? "-")" }.joined(separator: ", "))
        #expect(outcomes.count >= 20)
        #expect(count(.midMigration) >= 15, "too few kills landed inside the migration for the test to mean anything")

        // The next open, in this process, migrates the store the last kill left, and the result is right.
        #expect(outcomes.last?.kind == .midMigration)
        #expect(try recordedVersion(work) == "1.0.0")
        let container = try MigrationKillFixture.openMigrating(work)
        try verifyMigrated(work, keys: keys)
        try verifyThroughModels(container, keys: keys)
        print("kill test: total \(seconds(Date().timeIntervalSince(started)))")
    }

    struct Outcome {
        enum Kind { case beforeOpening, whileOpening, midMigration, afterCommit }
        let kind: Kind
        let delay: Double
        let lastLine: String?
    }

    /// Checks every row of a store migrated to V3 against the values its entry was created with: same
    /// primary key, `title` now `heading`, the custom stage's rewritten values, the drawer kept.
    private func verifyMigrated(_ url: URL, keys: [Int: Int64]) throws {
        #expect(try integrityCheck(url) == "ok")
        #expect(try recordedVersion(url) == "3.0.0")
        try storeRead(url) { db in
            let columns = try GRDB.Row.fetchAll(db, sql: "PRAGMA table_info(Entry)").map { $0["name"] as String }
            // In any order: columns added in place (ALTER TABLE ADD COLUMN) come last.
            #expect(columns.sorted() == ["_pk", "serial", "heading", "body", "pages", "weight", "rating", "summary", "slug", "drawer_pk", "drawer_position"].sorted(), "\(columns)")
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            #expect(tables == ["Drawer", "Entry", "_stowage_history", "_stowage_history_change", "_stowage_metadata", "sqlite_sequence"], "\(tables)")
            let indexes = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Entry' AND sql IS NOT NULL ORDER BY name")
            #expect(indexes == ["Entry_drawer_pk_index", "Entry_heading_index", "Entry_serial_unique"], "\(indexes)")
            let rows = try GRDB.Row.fetchCursor(db, sql: """
                SELECT e._pk, e.serial, e.heading, e.body, e.pages, e.weight, e.rating, e.summary, e.slug, d.name
                FROM Entry e LEFT JOIN Drawer d ON d._pk = e.drawer_pk ORDER BY e.serial
                """)
            var seen = 0
            var mismatches: [String] = []
            while let row = try rows.next() {
                seen += 1
                let serial: Int = row[1]
                let values = MigrationKillFixture.values(serial)
                let rewritten = MigrationKillFixture.rewritten(serial: serial, heading: values.title, pages: values.pages)
                let pk: Int64 = row[0], heading: String = row[2], body: String? = row[3], pages: Int = row[4]
                let weight: Double? = row[5], rating: Int = row[6], summary: String? = row[7], slug: String = row[8]
                let drawer: String? = row[9]
                var ok = serial == seen && pk == keys[serial]
                ok = ok && heading == values.title && body == values.body && pages == values.pages && weight == values.weight
                ok = ok && rating == rewritten.rating && summary == rewritten.summary && slug == rewritten.slug
                ok = ok && drawer == values.drawer.map(MigrationKillFixture.drawerName)
                if !ok && mismatches.count < 3 { mismatches.append("\(row)") }
            }
            #expect(seen == Self.rows)
            #expect(mismatches.isEmpty, "\(mismatches)")
        }
    }

    /// The migrated models, through Stowage: a sample of entries keeps its identifiers and values.
    private func verifyThroughModels(_ container: ModelContainer, keys: [Int: Int64]) throws {
        let context = ModelContext(container)
        #expect(try context.fetchCount(FetchDescriptor<MigrationKillV3.Entry>()) == Self.rows)
        for serial in [1, 7, 11, 4_999, 25_000, 49_999, Self.rows] {
            let entry = try #require(try context.fetch(FetchDescriptor<MigrationKillV3.Entry>(predicate: #Predicate { $0.serial == serial })).first)
            let values = MigrationKillFixture.values(serial)
            #expect(entry.persistentModelID.primaryKey == keys[serial])
            #expect(entry.heading == values.title && entry.body == values.body && entry.pages == values.pages && entry.weight == values.weight)
            #expect(entry.slug == MigrationKillFixture.rewritten(serial: serial, heading: values.title, pages: values.pages).slug)
            #expect(entry.drawer?.name == values.drawer.map(MigrationKillFixture.drawerName))
            #expect(context.model(for: entry.persistentModelID) === entry)
        }
        // New rows get new keys.
        context.insert(MigrationKillV3.Entry(serial: Self.rows + 1, heading: "new", pages: 1))
        try context.save()
        let new = try #require(try context.fetch(FetchDescriptor<MigrationKillV3.Entry>(predicate: #Predicate { $0.serial == 50_001 })).first)
        #expect((new.persistentModelID.primaryKey ?? 0) > (keys.values.max() ?? 0))
    }
}

private func seconds(_ interval: Double) -> String { String(format: "%.3fs", interval) }

/// A run of `stowage-reopen-probe` whose output lines are collected as they come, each with the time
/// since the launch.
final class ProbeRun: @unchecked Sendable, CustomStringConvertible {
    struct Line {
        let time: Double
        let text: String
    }

    struct Result: CustomStringConvertible {
        let reason: Process.TerminationReason
        let status: Int32
        let lines: [Line]
        var texts: [String] { lines.map(\.text) }
        var exitedNormally: Bool { reason == .exit && status == 0 }
        var killed: Bool { reason == .uncaughtSignal && status == SIGKILL }
        func time(of prefix: String) -> Double? { lines.first { $0.text.hasPrefix(prefix) }?.time }
        var description: String {
            "\(reason == .exit ? "exit" : "signal") \(status): " + lines.map { "\($0.text) @\(seconds($0.time))" }.joined(separator: ", ")
        }
    }

    private let process = Process()
    private let lock = NSLock()
    private var lines: [Line] = []
    private let finished = DispatchSemaphore(value: 0)
    private let launch: UInt64

    init(_ executable: URL, _ arguments: [String]) throws {
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        launch = DispatchTime.now().uptimeNanoseconds
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            var buffer = Data()
            while true {
                let chunk = handle.availableData
                let time = Double(DispatchTime.now().uptimeNanoseconds - launch) / 1e9
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: 10) {
                    let text = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...newline)
                    lock.withLock { lines.append(Line(time: time, text: text)) }
                }
            }
            if !buffer.isEmpty {
                let time = Double(DispatchTime.now().uptimeNanoseconds - launch) / 1e9
                lock.withLock { lines.append(Line(time: time, text: String(decoding: buffer, as: UTF8.self))) }
            }
            finished.signal()
        }
    }

    /// A run of the probe built with the tests.
    convenience init(_ arguments: [String]) throws {
        guard let executable = ReopenTests.probeURL else { throw ReopenTests.ProbeNotBuilt() }
        try self.init(executable, arguments)
    }

    /// The lines printed so far.
    var output: [String] { lock.withLock { lines.map(\.text) } }

    /// Waits (up to 30 s) until the process prints `line`; records an issue when it ends or times out first.
    func wait(forLine line: String) {
        for _ in 0..<3000 {
            if output.contains(line) { return }
            if !process.isRunning { break }
            Thread.sleep(forTimeInterval: 0.01)
        }
        if !output.contains(line) { Issue.record("the probe did not print \(line): \(output)") }
    }

    /// Sends SIGKILL, unless the process has already ended.
    func sigkill() {
        if process.isRunning { _ = kill(process.processIdentifier, SIGKILL) }
    }

    /// Waits for the process to end and for its output.
    func wait() -> Result {
        process.waitUntilExit()
        finished.wait()
        return Result(reason: process.terminationReason, status: process.terminationStatus, lines: lock.withLock { lines })
    }

    var description: String { "probe \(process.arguments ?? [])" }
}
