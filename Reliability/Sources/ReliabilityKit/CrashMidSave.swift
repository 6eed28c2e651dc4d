import Foundation
import GRDB
import Stowage

// "Crash mid-save": a child process saves in a loop, printing "ACK n" once save n returned; the parent
// kills it with SIGKILL at a random moment (after a random number of acknowledgements, plus a random
// few hundred microseconds, which lands inside a save most of the time), then opens the store and
// checks it: SQLite's integrity check passes, every acknowledged save is there, no save is there in
// part, and the next child carries on from where the last one stopped.
//
// Each save n inserts a `CrashSave` with `n % 7 + 1` rows (to-many relationship), deletes the rows of
// save n - 5 and marks it pruned, and updates the one `CrashLedger` row: inserts, deletes and updates
// in three tables, which are all there or none.

@Model final class CrashSave {
    @Attribute(.unique) var number: Int
    var rowCount: Int
    var pruned: Bool = false
    @Relationship(deleteRule: .cascade, inverse: \CrashRow.save) var rows: [CrashRow] = []

    init(number: Int, rowCount: Int) {
        self.number = number
        self.rowCount = rowCount
    }
}

@Model final class CrashRow {
    var index: Int
    var payload: String
    var save: CrashSave?

    init(index: Int, payload: String) {
        self.index = index
        self.payload = payload
    }
}

@Model final class CrashLedger {
    var lastSave: Int
    init(lastSave: Int) { self.lastSave = lastSave }
}

enum CrashMidSave {
    static var models: [any PersistentModel.Type] { [CrashSave.self, CrashRow.self, CrashLedger.self] }

    static let scenario = Scenario("crash-mid-save", "SIGKILL a process that is saving, 200 rounds: every store opens, integrity_check ok, no acknowledged save lost, no partial save") { options in
        var report = Report("crash-mid-save")
        let rounds = options.size(quick: 20, full: 200)
        let seed = SeededGenerator.seed()
        var random = SeededGenerator(seed: seed)
        report.figure("seed", "\(seed)")
        let store = options.directory.appendingPathComponent("crash.store")
        var opened = 0, integrityOK = 0, lost = 0, partial = 0, killedInSave = 0, exitedEarly = 0
        var acknowledged = 0
        for round in 1...rounds {
            let child = try ChildProcess(["child", "crash-saver", store.path])
            let target = Int.random(in: 1...20, using: &random)
            guard child.wait(timeout: 60, until: { lines in lines.count { $0.hasPrefix("ACK ") } >= target }) else {
                child.kill()
                report.fail("round \(round): the child acknowledged fewer than \(target) saves: \(child.wait())")
                continue
            }
            usleep(UInt32.random(in: 0...800, using: &random))
            child.kill()
            let result = child.wait()
            if !result.killed { exitedEarly += 1; report.fail("round \(round): the child was not killed: \(result)") }
            let acked = result.lines.compactMap { $0.hasPrefix("ACK ") ? Int($0.dropFirst(4)) : nil }.max() ?? 0
            acknowledged = max(acknowledged, acked)
            switch verify(store) {
            case .failure(let failure):
                report.fail("round \(round): \(failure.message)")
            case .success(let state):
                opened += 1
                if state.integrity == "ok" { integrityOK += 1 } else { report.fail("round \(round): integrity_check: \(state.integrity)") }
                if state.lastSave < acknowledged { lost += 1; report.fail("round \(round): saves \(state.lastSave + 1)...\(acknowledged) were acknowledged and are missing") }
                if state.lastSave > acknowledged { killedInSave += 1 }
                if state.lastSave > acknowledged + 1 { report.fail("round \(round): \(state.lastSave) saves stored, only \(acknowledged) acknowledged and one in flight") }
                for problem in state.problems { partial += 1; report.fail("round \(round): \(problem)") }
                acknowledged = state.lastSave  // the next child starts after what is stored
            }
        }
        report.figure("rounds", rounds)
        report.figure("stores opened", "\(opened)/\(rounds)")
        report.figure("integrity_check ok", "\(integrityOK)/\(rounds)")
        report.figure("acknowledged saves", acknowledged)
        report.figure("acknowledged saves lost", lost)
        report.figure("partial saves", partial)
        report.figure("killed after the commit, before the ACK", killedInSave)
        report.check(opened == rounds && integrityOK == rounds, "every store opens and passes integrity_check")
        return report
    }

    /// The child: saves forever (until killed), acknowledging each save once it returned.
    static let saver = ChildCommand("crash-saver") { arguments in
        guard let path = arguments.first else { throw ChildUsage("crash-saver STORE") }
        let container = try ModelContainer(for: Schema(models), configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
        let context = ModelContext(container)
        let ledger: CrashLedger
        if let existing = try context.fetch(FetchDescriptor<CrashLedger>()).first {
            ledger = existing
        } else {
            ledger = CrashLedger(lastSave: 0)
            context.insert(ledger)
        }
        var number = ledger.lastSave
        while number < 1_000_000 {
            number += 1
            let save = CrashSave(number: number, rowCount: number % 7 + 1)
            context.insert(save)
            for index in 0..<save.rowCount {
                let row = CrashRow(index: index, payload: String(repeating: "\(number)-\(index) ", count: 20))
                context.insert(row)
                row.save = save
            }
            let old = number - 5
            if let pruned = try context.fetch(FetchDescriptor<CrashSave>(predicate: #Predicate { $0.number == old })).first {
                for row in pruned.rows { context.delete(row) }
                pruned.pruned = true
            }
            ledger.lastSave = number
            try context.save()
            say("ACK \(number)")
        }
    }

    struct State {
        var integrity: String
        var lastSave: Int
        var problems: [String]
    }

    /// Opens the store after a kill: SQLite's integrity check first (through a plain connection, which
    /// recovers the WAL), then through Stowage, checking every save's rows.
    static func verify(_ store: URL) -> Result<State, Failure> {
        guard FileManager.default.fileExists(atPath: store.path) else { return .success(State(integrity: "ok", lastSave: 0, problems: [])) }
        do {
            let integrity = try DatabaseQueue(path: store.path).read { db in
                try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ")
            }
            let container = try ModelContainer(for: Schema(models), configurations: ModelConfiguration(url: store))
            let context = ModelContext(container)
            let saves = try context.fetch(FetchDescriptor<CrashSave>(sortBy: [SortDescriptor(\.number)]))
            let ledger = try context.fetch(FetchDescriptor<CrashLedger>())
            var problems: [String] = []
            if saves.map(\.number) != (0..<saves.count).map({ $0 + 1 }) {
                problems.append("saves are not 1...\(saves.count): \(saves.map(\.number).prefix(20))…")
            }
            let lastSave = saves.last?.number ?? 0
            if (ledger.first?.lastSave ?? 0) != lastSave || ledger.count > 1 {
                problems.append("the ledger says \(ledger.map(\.lastSave)), the last save stored is \(lastSave)")
            }
            for save in saves {
                let expected = save.number <= lastSave - 5 ? 0 : save.rowCount
                if save.pruned != (save.number <= lastSave - 5) || save.rows.count != expected {
                    problems.append("save \(save.number) has \(save.rows.count) rows (pruned: \(save.pruned)), expected \(expected)")
                }
            }
            let rowCount = try context.fetchCount(FetchDescriptor<CrashRow>())
            let expectedRows = saves.reduce(0) { $0 + ($1.number <= lastSave - 5 ? 0 : $1.rowCount) }
            if rowCount != expectedRows { problems.append("\(rowCount) rows stored, the saves account for \(expectedRows)") }
            return .success(State(integrity: integrity, lastSave: lastSave, problems: problems))
        } catch {
            return .failure(Failure(message: "the store does not open after the kill: \(error)"))
        }
    }

    struct Failure: Error { let message: String }
}

/// A child command was given the wrong arguments.
public struct ChildUsage: Error, CustomStringConvertible {
    public let usage: String
    public init(_ usage: String) { self.usage = usage }
    public var description: String { "usage: stowage-reliability child \(usage)" }
}
