import CStowageFaults
import Foundation
import GRDB
import Stowage

// "I/O errors": a child process installs the fault-injecting VFS (CStowageFaults, the process's
// default VFS, so Stowage and GRDB use it unchanged) and walks the failure points of four operations:
//
// - save: one representative save on a WAL store, through Stowage: inserts into two tables, updates,
//   a to-one relationship changed, deletes, and a folder deleted with its items (cascade);
// - close: dropping the container after that save, where the last connection checkpoints the WAL into
//   the database file and truncates it;
// - migration-wal: opening a WAL store (as Stowage leaves one) with changed models, which Stowage
//   migrates in one transaction on a connection of its own before its WAL pool opens the file;
// - migration-journal: the same migration of a store in rollback-journal mode (journal_mode=DELETE,
//   as written by an SQLite client that does not use WAL): the migration writes through a rollback
//   journal, then the pool converts the file to WAL.
//
// Stowage saves only in WAL mode: every store it creates is switched to WAL when first opened (GRDB's
// DatabasePool), and its pre-open checks only read. A rollback journal is used only by a migration
// (or the switch to WAL) of a store that is not in WAL mode yet: the migration-journal phase is the
// "journal mode" coverage the issue asks for.
//
// For each operation the child counts its reads, writes, syncs and truncates (those of the calling
// thread: the container's change watcher polls on a thread of its own and does not move the failure
// point), then for every N (a quick run strides), every kind set (any kind, then each kind alone) and
// each mode, on a fresh copy of the store: arms the fault, runs the operation, and checks.
//
// - once: the Nth operation fails, later ones succeed. The operation must succeed or throw a
//   `StowageError`; after a save threw, a fresh context must see the store as before, and the same
//   save (the context kept its changes), or the same open, must then succeed.
// - persistent: the Nth operation and every later one of those kinds fail, also while the container
//   closes (a disk that went bad), until the fault is disarmed once everything is closed.
//
// Then, through new connections without faults: `integrity_check` is ok and the contents are exactly
// the old ones or the new ones (the new ones when the operation succeeded or was retried).

@Model final class IOFaultFolder {
    @Attribute(.unique) var name: String
    var position: Int
    @Relationship(deleteRule: .cascade, inverse: \IOFaultItem.folder) var items: [IOFaultItem] = []

    init(name: String, position: Int) {
        self.name = name
        self.position = position
    }
}

@Model final class IOFaultItem {
    @Attribute(.unique) var key: Int
    var title: String
    var note: String?
    var amount: Double
    var payload: Data?
    var folder: IOFaultFolder?
    /// A to-one relationship without an inverse.
    var label: IOFaultLabel?

    init(key: Int, title: String, note: String?, amount: Double, payload: Data?) {
        self.key = key
        self.title = title
        self.note = note
        self.amount = amount
        self.payload = payload
    }
}

@Model final class IOFaultLabel {
    @Attribute(.unique) var name: String

    init(name: String) {
        self.name = name
    }
}

/// The migration phase's models: version 1, and version 2 (a unique title and a new attribute with a
/// default, which rebuilds the table).
enum IOFaultSchemaV1 {
    @Model final class IOFaultNote {
        var title: String
        var body: String
        var rank: Int

        init(title: String, body: String, rank: Int) {
            self.title = title
            self.body = body
            self.rank = rank
        }
    }
}

enum IOFaultSchemaV2 {
    @Model final class IOFaultNote {
        @Attribute(.unique) var title: String
        var body: String
        var rank: Int
        var stars: Int = 3

        init(title: String, body: String, rank: Int) {
            self.title = title
            self.body = body
            self.rank = rank
        }
    }
}

enum IOFaults {
    /// The fault kinds, as the VFS's bits.
    static let read = Int32(STOWAGE_FAULT_READ), write = Int32(STOWAGE_FAULT_WRITE)
    static let sync = Int32(STOWAGE_FAULT_SYNC), truncate = Int32(STOWAGE_FAULT_TRUNCATE)
    static let any = Int32(STOWAGE_FAULT_ANY)
    static let kindSets: [(name: String, kinds: Int32)] = [("any", any), ("read", read), ("write", write), ("sync", sync), ("truncate", truncate)]
    static let phases = ["save", "close", "migration-wal", "migration-journal"]
    static let modes = ["once", "persistent"]

    static func kindName(_ kind: Int32) -> String {
        switch kind {
        case read: "read"
        case write: "write"
        case sync: "sync"
        case truncate: "truncate"
        default: "none"
        }
    }

    static func roleName(_ role: Int32) -> String {
        switch role {
        case Int32(STOWAGE_FILE_MAIN_DB): "db"
        case Int32(STOWAGE_FILE_WAL): "wal"
        case Int32(STOWAGE_FILE_MAIN_JOURNAL): "journal"
        case Int32(STOWAGE_FILE_OTHER): "temp"
        default: "none"
        }
    }

    // MARK: - The scenario (parent)

    static let scenario = Scenario(
        "io-errors",
        "a fault-injecting VFS fails the Nth read/write/sync/truncate of a save, a close and a migration, once and persistently: typed error or success, integrity_check ok, all-old or all-new"
    ) { options in
        var report = Report("io-errors")
        // A quick run tries every 3rd failure point of each kind set, a full run every one (`--rounds N`:
        // every Nth).
        let stride = options.rounds ?? (options.quick ? 3 : 1)
        let run = try FaultCaseRun.run(
            "io-faults", [options.directory.path, "\(stride)"], hangTimeout: 120, maximumRestarts: 100)
        for crash in run.crashes { report.fail("crash: \(crash)") }
        for hang in run.hangs { report.fail("hang: \(hang)") }
        guard let total = run.first("TOTAL").flatMap({ $0["cases"] }).flatMap({ Int($0) }) else {
            report.fail("the child did not list its cases: \(run.lines.suffix(5))")
            return report
        }
        let cases = run.cases
        report.figure("VFS", "stowage-faults over unix, default VFS of the child process, mmap off (io-methods v2)")
        report.figure("coverage", "WAL: a save, the close, a migration at open; rollback journal (DELETE): a migration at open, then the switch to WAL (Stowage saves only in WAL)")
        report.figure("stride", stride == 1 ? "every failure point" : "every \(stride)\(stride == 2 ? "nd" : stride == 3 ? "rd" : "th") failure point")
        for phase in phases {
            if let counts = run.first("COUNTS-\(phase)") {
                let text = kindSets.dropFirst().map { "\(counts[$0.name] ?? "?") \($0.name)s" }.joined(separator: ", ")
                report.figure("operations of the \(phase)", text)
                report.figure("rollback-journal operations of the \(phase)", counts["journal"] ?? "?")
            }
        }
        report.figure("cases", "\(cases.count)/\(total)")
        // A case that crashed or hung is reported as such; every other one must have reported.
        let unaccounted = total - cases.count - run.crashes.count - run.hangs.count
        report.check(unaccounted == 0, "every case ran (\(cases.count) of \(total) reported, \(run.crashes.count + run.hangs.count) crashed or hung)")

        var untyped = 0, integrityFailures = 0, partial = 0, lost = 0, retryFailures = 0, committedSaves = 0, committedOpens = 0
        var committedAfterFailedSync = 0
        for (index, fields) in cases.sorted(by: { $0.key < $1.key }) {
            let phase = fields["phase"] ?? "?"
            let name = "case \(index) (\(phase) \(fields["mode"] ?? "?") \(fields["kinds"] ?? "?") N=\(fields["n"] ?? "?"))"
            if let error = fields["setupError"] {
                report.fail("\(name): could not be set up: \(error)")
                continue
            }
            let outcome = fields["outcome"] ?? "?"
            let state = fields["state"] ?? "?"
            if outcome == "untyped" || fields["retry"] == "untyped" {
                untyped += 1
                report.fail("\(name): an error that is not a StowageError: \(fields)")
            }
            if fields["integrity"] != "ok" {
                integrityFailures += 1
                report.fail("\(name): integrity_check failed: \(fields)")
            }
            if state != "old" && state != "new" {
                partial += 1
                report.fail("\(name): the store is neither all-old nor all-new: \(fields)")
            }
            if (outcome == "ok" || fields["retry"] == "ok") && state == "old" {
                lost += 1
                report.fail("\(name): the operation succeeded and its changes are missing: \(fields)")
            }
            if let retry = fields["retry"], retry != "ok" {
                retryFailures += 1
                report.fail("\(name): after a transient fault, the same operation failed again: \(fields)")
            }
            if let visible = fields["visible"], visible != "old" {
                // A save that threw must have written nothing: retrying it would apply it twice.
                if visible == "new" { committedSaves += 1 }
                report.fail("\(name): after the save threw, a fresh context saw \(visible) contents, not the old ones: \(fields)")
            }
            if outcome != "ok" && fields["retry"] == nil && state == "new" {
                // Persistent faults only (once-mode failures are retried). After an open, a migration
                // that committed before a later step of the open failed. After a save, SQLite's own
                // behaviour when the flush of the log fails after the commit record was written: the
                // error says the change may be stored (SQLITE_IOERR_FSYNC); any other is a bug.
                if phase != "save" {
                    committedOpens += 1
                } else if fields["sqlite"] == "1034" {  // SQLITE_IOERR_FSYNC
                    committedAfterFailedSync += 1
                } else {
                    committedSaves += 1
                    report.fail("\(name): the save threw, wrote its change, and its error did not say it may have: \(fields)")
                }
            }
        }
        for detail in run.details.prefix(20) { report.fail("detail: \(detail)") }

        let all = Array(cases.values)
        func injected(_ fields: [String: String]) -> Bool { Int(fields["injected"] ?? "0") ?? 0 > 0 }
        for phase in phases {
            for mode in modes {
                let ofMode = all.filter { $0["phase"] == phase && $0["mode"] == mode }
                report.figure("\(phase), \(mode): failure points", ofMode.count)
                report.figure("\(phase), \(mode): faults injected", ofMode.filter(injected).count)
                report.figure("\(phase), \(mode): outcomes", faultTally(ofMode.map { $0["outcome"] ?? "?" }))
                report.figure("\(phase), \(mode): contents after", faultTally(ofMode.map { $0["state"] ?? "?" }))
            }
        }
        let faulted = all.filter(injected)
        let saves = all.filter { $0["phase"] == "save" }
        report.figure("failure points", all.count)
        report.figure("faults injected", faulted.count)
        report.figure("first failed operation", faultTally(faulted.map { $0["fault"] ?? "?" }))
        report.figure("saves that succeeded", saves.filter { $0["outcome"] == "ok" }.count)
        report.figure("saves that threw", saves.filter { $0["outcome"] != "ok" }.count)
        report.figure("saves that threw, by code", faultTally(saves.compactMap { $0["outcome"] == "ok" ? nil : $0["outcome"] }))
        report.figure("opens that threw", faultTally(all.compactMap { $0["phase"]?.hasPrefix("migration") == true && $0["outcome"] != "ok" ? $0["outcome"] : nil }))
        report.figure("ioError", all.filter { $0["outcome"] == "ioError" }.count)
        report.figure("retries after a transient fault", faultTally(all.compactMap { $0["retry"] }))
        report.figure("untyped errors", untyped)
        report.figure("crashes", run.crashes.count)
        if !run.crashSignatures.isEmpty { report.figure("crashed in", faultTally(run.crashSignatures)) }
        report.figure("hangs", run.hangs.count)
        report.figure("integrity failures", integrityFailures)
        report.figure("partial states", partial)
        report.figure("succeeded but lost", lost)
        report.figure("retries that failed", retryFailures)
        report.figure("saves that threw yet were committed", committedSaves)
        report.figure("saves whose commit flush failed, found stored (reported as maybe stored)", committedAfterFailedSync)
        report.figure("opens that threw after the migration committed", committedOpens)
        // After a transient fault (the close itself not faulted), releasing the container closes the
        // store: the last connection checkpoints and deletes the WAL.
        let leftOpen = all.filter { $0["mode"] == "once" && $0["phase"] != "close" && $0["walLeft"] == "true" }
        report.figure("stores left open once released (after a transient fault)", leftOpen.count)
        report.check(leftOpen.isEmpty, "releasing a container closes its store, also after a failed save or open: \(leftOpen.prefix(3))")
        return report
    }

    // MARK: - The child

    /// One case: a phase, a mode (`once`, `persistent`, or `measure`, which fails nothing and counts
    /// the operation's operations), a kind set and a failure point.
    struct Case {
        let phase: String
        let mode: String
        let kindsName: String
        let kinds: Int32
        let n: Int64
    }

    /// What is compared after each case: table row counts and model dump (save and close phases), or an
    /// SQL dump (migration phase).
    struct Contents: Equatable {
        var integrity: String
        var tables: [String]
        var models: [String]
        var lines: [String] { tables + models }
    }

    /// `stowage-reliability child io-faults DIRECTORY STRIDE FROM`
    static let child = ChildCommand("io-faults") { arguments in
        guard arguments.count == 3, let stride = Int(arguments[1]), stride > 0, let from = Int(arguments[2]) else {
            throw ChildUsage("io-faults DIRECTORY STRIDE FROM")
        }
        let directory = URL(fileURLWithPath: arguments[0]).appendingPathComponent("io-faults")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let installed = stowage_faults_install()
        guard installed == 0 else { throw ChildUsage("io-faults: the VFS did not install (SQLite code \(installed))") }
        let store = directory.appendingPathComponent("case.store")

        // The templates, and each phase's contents before and after, and its operations, measured
        // without faults.
        let walTemplate = directory.appendingPathComponent("wal-template.store")
        try makeWALTemplate(walTemplate)
        let migrationTemplate = directory.appendingPathComponent("migration-template.store")
        try makeMigrationTemplate(migrationTemplate, journal: false)
        let journalTemplate = directory.appendingPathComponent("journal-template.store")
        try makeMigrationTemplate(journalTemplate, journal: true)
        for template in [walTemplate, migrationTemplate, journalTemplate] where FaultStore.exists(template, "-wal") {
            throw ChildUsage("io-faults: the template \(template.lastPathComponent) is still open (its -wal is there)")
        }
        func template(_ phase: String) -> URL {
            switch phase {
            case "migration-wal": migrationTemplate
            case "migration-journal": journalTemplate
            default: walTemplate
            }
        }
        var before: [String: Contents] = [:]
        var after: [String: Contents] = [:]
        var counts: [String: [String: Int64]] = [:]
        for phase in phases {
            try FaultStore.copy(template(phase), to: store)
            let old = try contents(phase, store)
            let measure = Case(phase: phase, mode: "measure", kindsName: "any", kinds: any, n: Int64.max)
            var measured: [String: Int64] = [:]
            let fields = run(measure, store: store, template: template(phase), old: old, new: old) { name, value in measured[name] = value }
            guard fields["outcome"] == "ok" else { throw ChildUsage("io-faults: the \(phase) fails without faults: \(fields)") }
            let new = try contents(phase, store)
            guard old.integrity == "ok", new.integrity == "ok", old.lines != new.lines else {
                throw ChildUsage("io-faults: the \(phase) changed nothing, or a store is damaged without faults")
            }
            before[phase] = old
            after[phase] = new
            // A phase's operations include the change watcher's polls and the retries of a busy wait,
            // whose number depends on timing: on a loaded machine one measurement counted an operation
            // that a later run of the same phase never reached, and its last failure point went
            // uninjected. The points come from the fewest operations of three measurements.
            for _ in 0..<2 {
                var again: [String: Int64] = [:]
                let fields = run(measure, store: store, template: template(phase), old: old, new: old) { name, value in again[name] = value }
                guard fields["outcome"] == "ok" else { throw ChildUsage("io-faults: the \(phase) fails without faults: \(fields)") }
                measured.merge(again) { min($0, $1) }
            }
            counts[phase] = measured
            say("COUNTS-\(phase) " + measured.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
        }

        var cases: [Case] = []
        for phase in phases {
            for (name, kinds) in kindSets {
                let points = counts[phase]?[name] ?? 0
                guard points > 0 else { continue }
                for n in Swift.stride(from: Int64(1), through: points, by: stride) {
                    for mode in modes { cases.append(Case(phase: phase, mode: mode, kindsName: name, kinds: kinds, n: n)) }
                }
            }
        }
        say("TOTAL cases=\(cases.count)")
        for (index, faultCase) in cases.enumerated() where index >= from {
            say("START \(index) \(faultCase.phase) \(faultCase.mode) \(faultCase.kindsName) \(faultCase.n)")
            var fields = run(faultCase, store: store, template: template(faultCase.phase), old: before[faultCase.phase]!, new: after[faultCase.phase]!) { _, _ in }
            // The fewest operations of three measurements can still be one more than a run reaches
            // (the change watcher's polls and busy retries depend on timing; Thread Sanitizer's
            // slowdown showed it): such a case is run again, so that every point gets its fault.
            for _ in 0..<2 where Int(fields["injected"] ?? "0") ?? 0 == 0 {
                fields = run(faultCase, store: store, template: template(faultCase.phase), old: before[faultCase.phase]!, new: after[faultCase.phase]!) { _, _ in }
            }
            say("CASE \(index) " + fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
        }
        say("DONE")
    }

    /// Runs one case on a fresh copy of `template` at `store` and returns its fields; `measured` gets
    /// the counts of a `measure` case.
    static func run(
        _ faultCase: Case, store: URL, template: URL, old: Contents, new: Contents,
        measured: (String, Int64) -> Void
    ) -> [String: String] {
        var fields = ["phase": faultCase.phase, "mode": faultCase.mode, "kinds": faultCase.kindsName, "n": "\(faultCase.n)"]
        func arm() {
            stowage_faults_reset_counts()
            stowage_faults_arm(faultCase.kinds, faultCase.n, faultCase.mode == "persistent" ? 1 : 0, 1)
        }
        /// Right after the operation: a transient fault is over, a persistent one lasts until closed.
        func operationEnded() {
            fields["injected"] = "\(stowage_faults_injected())"
            if faultCase.mode == "measure" {
                for (name, kinds) in kindSets { measured(name, stowage_faults_seen(kinds)) }
                var journal: Int64 = 0
                for (_, kind) in kindSets.dropFirst() { journal += stowage_faults_count(kind, Int32(STOWAGE_FILE_MAIN_JOURNAL)) }
                measured("journal", journal)
            }
            if faultCase.mode != "persistent" { _ = stowage_faults_disarm() }
        }
        func detail(_ text: String) {
            say("DETAIL \(faultCase.phase) \(faultCase.mode) \(faultCase.kindsName) N=\(faultCase.n): \(text)")
        }
        do {
            try FaultStore.copy(template, to: store)
            switch faultCase.phase {
            case "save", "close":
                var container: ModelContainer? = try ModelContainer(for: schema, configurations: ModelConfiguration(url: store))
                var context: ModelContext? = ModelContext(container!)
                try change(context!)
                if faultCase.phase == "save" {
                    arm()
                    let outcome = FaultOutcome { try context!.save() }
                    operationEnded()
                    fields["outcome"] = outcome.label
                    if case .typed(let error) = outcome, let code = error.sqliteCode { fields["sqlite"] = "\(code)" }
                    if case .untyped = outcome { detail(outcome.errorDescription ?? "") }
                    if faultCase.mode == "once", outcome.failed {
                        // The store as a fresh context sees it, then the same save again.
                        let visible = FaultOutcome { try modelDump(ModelContext(container!)) }
                        fields["visible"] = visible.value.map { FaultStore.classify($0, old: old.models, new: new.models) } ?? "fetch-\(visible.label)"
                        let retry = FaultOutcome { try context!.save() }
                        fields["retry"] = retry.label
                        if let error = retry.errorDescription { detail("retry: \(error)") }
                    }
                } else {
                    let saved = FaultOutcome { try context!.save() }
                    guard saved.value != nil else { throw ChildUsage("io-faults: the save before the close failed: \(saved.errorDescription ?? "")") }
                    arm()
                    context = nil
                    container = nil
                    operationEnded()
                    fields["outcome"] = "ok"
                }
                context = nil
                container = nil
            case "migration-wal", "migration-journal":
                arm()
                var container: ModelContainer?
                let outcome = FaultOutcome { container = try ModelContainer(for: migratedSchema, configurations: ModelConfiguration(url: store)) }
                operationEnded()
                fields["outcome"] = outcome.label
                if case .untyped = outcome { detail(outcome.errorDescription ?? "") }
                if faultCase.mode == "once", outcome.failed {
                    let retry = FaultOutcome { container = try ModelContainer(for: migratedSchema, configurations: ModelConfiguration(url: store)) }
                    fields["retry"] = retry.label
                    if let error = retry.errorDescription { detail("retry: \(error)") }
                }
                fields["opened"] = "\(container != nil)"
                container = nil
            default:
                fatalError("unknown phase \(faultCase.phase)")
            }
            let injected = stowage_faults_disarm()
            if faultCase.mode == "persistent" { fields["injected"] = "\(injected)" }
            let kind = stowage_faults_first_kind(), role = stowage_faults_first_role()
            if kind >= 0 { fields["fault"] = "\(kindName(kind))@\(roleName(role))" }
            // After a transient fault, the store closes when the container's last reference goes, which
            // can be the change watcher's handler running on its queue at that moment: it is allowed a
            // moment to finish. (A persistent fault or a faulted close leaves the WAL on purpose.)
            let released = Date()
            while faultCase.mode == "once", faultCase.phase != "close", FaultStore.exists(store, "-wal"),
                  Date().timeIntervalSince(released) < 2 {
                usleep(10_000)
            }
            fields["walLeft"] = "\(FaultStore.exists(store, "-wal"))"
            fields["journalLeft"] = "\(FaultStore.exists(store, "-journal"))"
            // The caller reads a measured run's contents: they are the new ones.
            if faultCase.mode == "measure" { return fields }
            let found = try contents(faultCase.phase, store)
            fields["integrity"] = found.integrity == "ok" ? "ok" : "failed"
            fields["state"] = FaultStore.classify(found.lines, old: old.lines, new: new.lines)
            if found.integrity != "ok" { detail("integrity_check: \(found.integrity)") }
            if fields["state"] == "other" {
                let models = found.models == new.models ? "the new ones" : found.models == old.models ? "the old ones" : "neither"
                detail("contents differ from the old ones at \(FaultStore.difference(found.lines, from: old.lines)) and from the new ones at \(FaultStore.difference(found.lines, from: new.lines)); the models are \(models)")
            }
        } catch {
            _ = stowage_faults_disarm()
            fields["setupError"] = "\(error)".split(whereSeparator: \.isWhitespace).joined(separator: "_")
        }
        return fields
    }

    // MARK: - Stores, changes and contents

    static var schema: Schema { Schema([IOFaultFolder.self, IOFaultItem.self, IOFaultLabel.self]) }
    static var migratedSchema: Schema { Schema([IOFaultSchemaV2.IOFaultNote.self]) }

    static func payload(_ seed: Int, _ count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed) })
    }

    /// A WAL store of four folders (three of 20 items, one of 2), three labels and 62 items, about 40 KB,
    /// closed (one file). Built beside `url` and sealed into it: the container that builds it links
    /// items to folders (an inverse relationship), which keeps it alive (see ``change(_:)``).
    static func makeWALTemplate(_ url: URL) throws {
        try FaultStore.makeSealed(url, fill: fill)
    }

    private static func fill(_ url: URL) throws {
        FaultStore.remove(url)
        let container = try ModelContainer(for: schema, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let folders = ["alpha", "beta", "gamma", "omega"].enumerated().map { IOFaultFolder(name: $0.element, position: $0.offset) }
        for folder in folders { context.insert(folder) }
        let labels = ["red", "green", "blue"].map { IOFaultLabel(name: $0) }
        for label in labels { context.insert(label) }
        for key in 1...62 {
            let item = IOFaultItem(
                key: key, title: "item \(key) " + String(repeating: "abcdefghij", count: 10),
                note: key.isMultiple(of: 2) ? "note \(key)" : nil, amount: Double(key) * 1.5,
                payload: key.isMultiple(of: 3) ? payload(key, 300) : nil)
            context.insert(item)
            item.folder = key > 60 ? folders[3] : folders[key % 3]
            item.label = key.isMultiple(of: 4) ? nil : labels[key % 4 - 1]
        }
        try context.save()
    }

    /// A store of version 1 of the migration phases' models, 80 notes (about 24 KB): in WAL mode, as
    /// Stowage leaves a store, or (`journal`) in rollback-journal mode (`journal_mode=DELETE`), as a
    /// store written by an SQLite client that does not use WAL.
    static func makeMigrationTemplate(_ url: URL, journal: Bool) throws {
        FaultStore.remove(url)
        do {
            let container = try ModelContainer(for: Schema([IOFaultSchemaV1.IOFaultNote.self]), configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            for index in 1...80 {
                context.insert(IOFaultSchemaV1.IOFaultNote(title: "note \(index)", body: String(repeating: "body \(index) ", count: 20), rank: index % 7))
            }
            try context.save()
        }
        let queue = try DatabaseQueue(path: url.path)
        let mode = try queue.writeWithoutTransaction { db in
            try String.fetchOne(db, sql: journal ? "PRAGMA journal_mode = DELETE" : "PRAGMA journal_mode")
        }
        try queue.close()
        guard mode == (journal ? "delete" : "wal"), !FaultStore.exists(url, "-wal") else {
            throw ChildUsage("io-faults: the migration template is not in the journal mode expected (\(mode ?? "?"))")
        }
    }

    /// The representative save's changes: a new label and six new items (in four tables with their
    /// history), five items updated, three relabelled (a to-one relationship), four deleted, and a folder
    /// deleted with its two items (cascade).
    ///
    /// The relationship changed is one without an inverse: saving a change to a relationship that has
    /// one (`item.folder = folder`) leaves the models, their context and the container alive once
    /// everything is released (a reference cycle: an engine issue, reported), and the close phase
    /// needs the container to close.
    static func change(_ context: ModelContext) throws {
        let folders = try context.fetch(FetchDescriptor<IOFaultFolder>(sortBy: [SortDescriptor(\.name)]))
        let labels = try context.fetch(FetchDescriptor<IOFaultLabel>(sortBy: [SortDescriptor(\.name)]))
        let items = try context.fetch(FetchDescriptor<IOFaultItem>(sortBy: [SortDescriptor(\.key)]))
        let byKey = Dictionary(uniqueKeysWithValues: items.map { ($0.key, $0) })
        let violet = IOFaultLabel(name: "violet")
        context.insert(violet)
        for key in 1001...1006 {
            let item = IOFaultItem(key: key, title: "new \(key)", note: "inserted", amount: -Double(key), payload: payload(key, 500))
            context.insert(item)
            item.label = key <= 1003 ? violet : labels.first
        }
        for key in [4, 16, 28, 40, 9] {
            guard let item = byKey[key] else { continue }
            item.title += " (edited)"
            item.amount += 1000
            item.note = item.note == nil ? "now noted" : nil
        }
        byKey[5]?.label = violet
        byKey[9]?.label = violet
        byKey[10]?.label = nil
        for key in [12, 24, 36, 47] { if let item = byKey[key] { context.delete(item) } }
        if let omega = folders.first(where: { $0.name == "omega" }) { context.delete(omega) }
    }

    /// The models, one line each, in a fixed order.
    static func modelDump(_ context: ModelContext) throws -> [String] {
        let folders = try context.fetch(FetchDescriptor<IOFaultFolder>(sortBy: [SortDescriptor(\.name)]))
        let items = try context.fetch(FetchDescriptor<IOFaultItem>(sortBy: [SortDescriptor(\.key)]))
        let labels = try context.fetch(FetchDescriptor<IOFaultLabel>(sortBy: [SortDescriptor(\.name)]))
        // Each folder lists its items; items do not name their folder: loading both sides of an inverse
        // relationship on live models makes a reference cycle that keeps the container open.
        return folders.map { "folder \($0.name) \($0.position) \($0.items.map(\.key).sorted())" }
            + labels.map { "label \($0.name)" }
            + items.map { item in
                "item \(item.key) \(item.title) \(item.note ?? "nil") \(item.amount) \(item.payload.map(faultChecksum) ?? "nil") \(item.label?.name ?? "nil")"
            }
    }

    /// The store's contents, read without faults through new connections: for the save and close phases,
    /// `integrity_check`, each table's row count and the models through a new container; for the
    /// migration phase, an SQL dump (opening it with Stowage would migrate it).
    static func contents(_ phase: String, _ store: URL) throws -> Contents {
        if phase.hasPrefix("migration") {
            let dump = try FaultStore.sqlDump(store)
            return Contents(integrity: dump.integrity, tables: dump.lines, models: [])
        }
        let checked = try FaultStore.integrityAndCounts(store)
        let models: [String]
        do {
            let container = try ModelContainer(for: schema, configurations: ModelConfiguration(url: store))
            models = try modelDump(ModelContext(container))
        } catch {
            models = ["the store does not open: \(error)"]
        }
        return Contents(integrity: checked.integrity, tables: checked.tables, models: models)
    }
}
