import CStowageFaults
import Foundation
import Stowage

// "Out of memory": a child process lowers SQLite's hard heap limit (`sqlite3_hard_heap_limit64`) step
// by step, from well above what the work needs down to a few kilobytes, and at each step, on a fresh
// copy of a store, under the limit: opens a container, fetches every model and reads them with their
// relationships, saves a change (inserts with optional strings and blobs, updates, deletes, a
// relationship), saves a second one, and counts. Each operation must succeed, with exact results, or
// throw a `StowageError`. Then the limit is lifted: a fresh context must see the store as it was
// before a save that threw, and the same save (the context kept its changes) must succeed. Everything
// is closed, and the store, opened again, must pass `integrity_check` and hold exactly the contents of
// the saves that succeeded.
//
// Only SQLite's allocations are limited; Swift's are not.

@Model final class OOMRecord {
    @Attribute(.unique) var key: Int
    var title: String
    var note: String?
    var blob: Data?
    var score: Double
    /// A to-one relationship without an inverse.
    var tag: OOMTag?

    init(key: Int, title: String, note: String?, blob: Data?, score: Double) {
        self.key = key
        self.title = title
        self.note = note
        self.blob = blob
        self.score = score
    }
}

@Model final class OOMTag {
    @Attribute(.unique) var name: String

    init(name: String) {
        self.name = name
    }
}

enum OutOfMemory {
    /// The operations of a step, in order.
    static let operations = ["open", "read", "change", "save", "change2", "save2", "count"]
    /// The contents a store can have: the template's, after the first save, after both.
    static let states = ["old", "A", "AB"]

    static let scenario = Scenario(
        "out-of-memory",
        "SQLite's hard heap limit stepped down while opening, reading and saving: typed errors, no crash, exact reads, integrity_check ok, all-old or all-new"
    ) { options in
        var report = Report("out-of-memory")
        let steps = options.size(quick: 40, full: 400)
        let run = try FaultCaseRun.run("out-of-memory", [options.directory.path, "\(steps)"], hangTimeout: 120, maximumRestarts: 100)
        for crash in run.crashes { report.fail("crash: \(crash)") }
        for hang in run.hangs { report.fail("hang: \(hang)") }
        guard let setup = run.first("SETUP"), let total = setup["steps"].flatMap({ Int($0) }) else {
            report.fail("the child did not set up: \(run.lines.suffix(5))")
            return report
        }
        let cases = run.cases
        report.figure("SQLite memory for the work without a limit", "\(setup["highwater"] ?? "?") bytes at most")
        report.figure("heap limits", "\(setup["from"] ?? "?") bytes down to \(setup["to"] ?? "?") bytes, \(total) steps")
        report.figure("steps", "\(cases.count)/\(total)")
        // A step that crashed or hung is reported as such; every other one must have reported.
        let unaccounted = total - cases.count - run.crashes.count - run.hangs.count
        report.check(unaccounted == 0, "every step ran (\(cases.count) of \(total) reported, \(run.crashes.count + run.hangs.count) crashed or hung)")

        var untyped = 0, integrityFailures = 0, partial = 0, wrongReads = 0, retryFailures = 0, visibleFailures = 0
        for (index, fields) in cases.sorted(by: { $0.key < $1.key }) {
            let name = "step \(index) (limit \(fields["limit"] ?? "?") bytes)"
            if let error = fields["setupError"] {
                report.fail("\(name): could not be set up: \(error)")
                continue
            }
            let labels = (operations + ["retry", "retry2"]).compactMap { fields[$0] }
            if labels.contains("untyped") {
                untyped += 1
                report.fail("\(name): an error that is not a StowageError: \(fields)")
            }
            if fields["integrity"] != "ok" {
                integrityFailures += 1
                report.fail("\(name): integrity_check failed: \(fields)")
            }
            if fields["state"] != fields["expected"] || !states.contains(fields["state"] ?? "?") {
                partial += 1
                report.fail("\(name): the store holds \(fields["state"] ?? "?") contents, expected \(fields["expected"] ?? "?"): \(fields)")
            }
            for key in ["readResult", "countResult"] where fields[key] != nil && fields[key] != "exact" {
                wrongReads += 1
                report.fail("\(name): a read under the limit returned without error and with wrong results (\(key)): \(fields)")
            }
            for key in ["retry", "retry2"] where fields[key] != nil && fields[key] != "ok" {
                retryFailures += 1
                report.fail("\(name): with the limit lifted, the same save failed again: \(fields)")
            }
            for key in ["visible", "visible2"] where fields[key] != nil && fields[key] != "before" {
                visibleFailures += 1
                report.fail("\(name): after a save threw, a fresh context saw \(fields[key]!) contents: \(fields)")
            }
        }
        for detail in run.details.prefix(20) { report.fail("detail: \(detail)") }

        let all = cases.sorted { $0.key < $1.key }.map(\.value)
        for operation in operations {
            report.figure(operation, faultTally(all.compactMap { $0[operation] }))
        }
        let failing = all.filter { fields in operations.contains { fields[$0] != nil && fields[$0] != "ok" } }
        report.figure("steps with a failed operation", failing.count)
        report.figure("steps where every operation succeeded", all.count - failing.count)
        if let first = failing.first?["limit"] { report.figure("highest limit with a failure", "\(first) bytes") }
        let errors = all.flatMap { fields in operations.compactMap { fields[$0] } }.filter { $0 != "ok" && $0 != "skipped" }
        report.figure("typed errors", faultTally(errors.filter { $0 != "untyped" }))
        report.figure("outOfMemory", errors.filter { $0 == "outOfMemory" }.count)
        // One example of each kind of error, by operation.
        var examples: [String: String] = [:]
        for line in run.lines where line.hasPrefix("NOTE ") {
            let words = line.split(separator: " ", maxSplits: 3)
            guard words.count == 4 else { continue }
            let key = "\(words[1]) \(words[2].dropLast())"
            if examples[key] == nil { examples[key] = String(words[3]) }
        }
        for (key, example) in examples.sorted(by: { $0.key < $1.key }) where !key.hasSuffix(" outOfMemory") {
            report.figure("example: \(key)", String(example.prefix(300)))
        }
        report.figure("retries with the limit lifted", faultTally(all.flatMap { [$0["retry"], $0["retry2"]].compactMap { $0 } }))
        report.figure("untyped errors", untyped)
        report.figure("crashes", run.crashes.count)
        if !run.crashSignatures.isEmpty { report.figure("crashed in", faultTally(run.crashSignatures)) }
        report.figure("hangs", run.hangs.count)
        report.figure("integrity failures", integrityFailures)
        report.figure("partial states", partial)
        report.figure("wrong reads without an error", wrongReads)
        report.figure("failed saves seen as written", visibleFailures)
        report.figure("retries that failed", retryFailures)
        return report
    }

    // MARK: - The child

    /// The contents a step compares: table row counts, and one line per model.
    struct Contents: Equatable {
        var integrity: String
        var tables: [String]
        var models: [String]
        var lines: [String] { tables + models }
    }

    /// `stowage-reliability child out-of-memory DIRECTORY STEPS FROM`
    static let child = ChildCommand("out-of-memory") { arguments in
        guard arguments.count == 3, let steps = Int(arguments[1]), steps > 1, let from = Int(arguments[2]) else {
            throw ChildUsage("out-of-memory DIRECTORY STEPS FROM")
        }
        // Before SQLite initialises: the heap limit needs its memory statistics (on by default; this
        // makes sure).
        _ = stowage_sqlite_enable_memory_status()
        let directory = URL(fileURLWithPath: arguments[0]).appendingPathComponent("out-of-memory")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let template = directory.appendingPathComponent("template.store")
        let store = directory.appendingPathComponent("step.store")
        try makeTemplate(template)
        guard !FaultStore.exists(template, "-wal") else { throw ChildUsage("out-of-memory: the template is still open (its -wal is there)") }

        // The three possible contents, and the most SQLite allocates during a step, without a limit.
        var expected: [String: Contents] = [:]
        try FaultStore.copy(template, to: store)
        expected["old"] = try contents(store)
        _ = stowage_sqlite_memory_highwater(1)
        let reference = step(limit: 0, store: store, template: template, expected: nil)
        let highwater = stowage_sqlite_memory_highwater(0)
        guard reference["save"] == "ok", reference["save2"] == "ok" else { throw ChildUsage("out-of-memory: the step fails without a limit: \(reference)") }
        try FaultStore.copy(template, to: store)
        do {
            let container = try ModelContainer(for: schema, configurations: ModelConfiguration(url: store))
            let context = ModelContext(container)
            try changeA(context)
            try context.save()
            expected["A"] = try contents(store)
            try changeB(context)
            try context.save()
        }
        expected["AB"] = try contents(store)
        guard Set(expected.values.map(\.lines)).count == 3, expected.values.allSatisfy({ $0.integrity == "ok" }) else {
            throw ChildUsage("out-of-memory: the saves change nothing, or a store is damaged without a limit")
        }

        // From twice the most the work needs down to 8 KB, geometrically.
        let first = Double(max(highwater * 2, 64 * 1024)), last = 8.0 * 1024
        let limits = (0..<steps).map { Int64(first * pow(last / first, Double($0) / Double(steps - 1))) }
        say("SETUP steps=\(steps) highwater=\(highwater) from=\(limits.first!) to=\(limits.last!)")
        for (index, limit) in limits.enumerated() where index >= from {
            say("START \(index) \(limit)")
            let fields = step(limit: limit, store: store, template: template, expected: expected)
            say("CASE \(index) " + fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
        }
        say("DONE")
    }

    /// Runs one step on a fresh copy of `template`, under `limit` bytes (0: no limit), and checks it
    /// against `expected` (when given); returns its fields.
    static func step(limit: Int64, store: URL, template: URL, expected: [String: Contents]?) -> [String: String] {
        var fields = ["limit": "\(limit)"]
        func detail(_ text: String) { say("DETAIL limit \(limit): \(text)") }
        func record<Value>(_ key: String, _ outcome: FaultOutcome<Value>) {
            fields[key] = outcome.label
            if case .untyped = outcome { detail("\(key): \(outcome.errorDescription ?? "")") }
            if case .typed(let error) = outcome { say("NOTE \(key) \(error.code): \(error)") }
        }
        func classify(_ lines: [String]) -> String {
            guard let expected else { return "?" }
            return states.first { expected[$0]?.lines == lines } ?? "other"
        }
        do {
            try FaultStore.copy(template, to: store)
            // What the store holds once the step is over: the template's contents, unless a save ends
            // up succeeding (under the limit or when retried without it).
            var state = "old"
            do {
                _ = stowage_sqlite_hard_heap_limit(limit)
                defer { _ = stowage_sqlite_hard_heap_limit(0) }
                let opened = FaultOutcome { try ModelContainer(for: schema, configurations: ModelConfiguration(url: store)) }
                record("open", opened)
                guard let container = opened.value else { throw Skip() }
                let context = ModelContext(container)
                // Every model with its relationship, under the limit: exact or an error.
                let read = FaultOutcome { try modelDump(context) }
                record("read", read)
                if let lines = read.value, let expected { fields["readResult"] = lines == expected["old"]?.models ? "exact" : "wrong" }
                guard read.value != nil else { throw Skip() }
                var saves: [(key: String, change: (ModelContext) throws -> Void, after: String)] = [("save", changeA, "A"), ("save2", changeB, "AB")]
                var failedSave: (key: String, after: String)?
                // What the context sees: the store with its unsaved changes.
                var contextState = state
                while !saves.isEmpty {
                    let save = saves.removeFirst()
                    // The changes fetch the models they change, under the limit too (nothing is changed
                    // when that fetch fails).
                    let changed = FaultOutcome { try save.change(context) }
                    record(save.key == "save" ? "change" : "change2", changed)
                    guard changed.value != nil else { break }
                    contextState = save.after
                    let saved = FaultOutcome { try context.save() }
                    record(save.key, saved)
                    if saved.value != nil {
                        state = save.after
                    } else {
                        failedSave = (save.key, save.after)
                        break
                    }
                }
                let count = FaultOutcome { try context.fetchCount(FetchDescriptor<OOMRecord>()) }
                record("count", count)
                if let value = count.value, let expected {
                    fields["countResult"] = value == expected[contextState]?.models.filter({ $0.hasPrefix("record ") }).count ? "exact" : "wrong"
                }
                // The limit lifted: the store is as before the failed save, and the same save succeeds.
                _ = stowage_sqlite_hard_heap_limit(0)
                if let failedSave {
                    let suffix = failedSave.key == "save" ? "" : "2"
                    let visible = FaultOutcome { try modelDump(ModelContext(container)) }
                    fields["visible" + suffix] = visible.value.map { lines in
                        expected?[state]?.models == lines ? "before" : states.first { expected?[$0]?.models == lines } ?? "other"
                    } ?? "fetch-\(visible.label)"
                    let retry = FaultOutcome { try context.save() }
                    record("retry" + suffix, retry)
                    if retry.value != nil { state = failedSave.after }
                }
            } catch is Skip {}
            fields["expected"] = state
            // Everything is closed; opened again without a limit.
            let found = try contents(store)
            fields["integrity"] = found.integrity == "ok" ? "ok" : "failed"
            if found.integrity != "ok" { detail("integrity_check: \(found.integrity)") }
            fields["state"] = classify(found.lines)
            if let expected, let wanted = expected[state], found.lines != wanted.lines {
                detail("contents differ from the expected (\(state)) at \(FaultStore.difference(found.lines, from: wanted.lines))")
            }
        } catch {
            _ = stowage_sqlite_hard_heap_limit(0)
            fields["setupError"] = "\(error)".split(whereSeparator: \.isWhitespace).joined(separator: "_")
        }
        return fields
    }

    /// A step's remaining operations are skipped (the previous one failed).
    struct Skip: Error {}

    // MARK: - Stores, changes and contents

    static var schema: Schema { Schema([OOMRecord.self, OOMTag.self]) }

    static func blob(_ seed: Int, _ count: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ seed) })
    }

    /// 60 records (notes on every other, blobs on every third, a tag on three in four), three tags, in
    /// one file (``FaultStore/makeSealed(_:fill:)``).
    static func makeTemplate(_ url: URL) throws {
        try FaultStore.makeSealed(url, fill: fill)
    }

    private static func fill(_ url: URL) throws {
        FaultStore.remove(url)
        let container = try ModelContainer(for: schema, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let tags = ["one", "two", "three"].map { OOMTag(name: $0) }
        for tag in tags { context.insert(tag) }
        for key in 1...60 {
            let record = OOMRecord(
                key: key, title: "record \(key) " + String(repeating: "xyz", count: 30), note: key.isMultiple(of: 2) ? "note \(key)" : nil,
                blob: key.isMultiple(of: 3) ? blob(key, 400) : nil, score: Double(key) / 4)
            context.insert(record)
            record.tag = key.isMultiple(of: 4) ? nil : tags[key % 4 - 1]
        }
        try context.save()
    }

    /// The first save: a new tag, four new records (optional strings and blobs set), three updated, two
    /// deleted, two retagged.
    static func changeA(_ context: ModelContext) throws {
        let records = try context.fetch(FetchDescriptor<OOMRecord>(sortBy: [SortDescriptor(\.key)]))
        let byKey = Dictionary(uniqueKeysWithValues: records.map { ($0.key, $0) })
        let tag = OOMTag(name: "four")
        context.insert(tag)
        for key in 1001...1004 {
            let record = OOMRecord(key: key, title: "inserted \(key)", note: "a note for \(key)", blob: blob(key, 700), score: -Double(key))
            context.insert(record)
            record.tag = tag
        }
        for key in [3, 7, 11] {
            guard let record = byKey[key] else { continue }
            record.title += " (updated)"
            record.note = "updated \(key)"
            record.blob = blob(key + 100, 300)
            record.score += 100
        }
        byKey[13]?.tag = tag
        byKey[14]?.tag = nil
        for key in [5, 6] { if let record = byKey[key] { context.delete(record) } }
    }

    /// The second save: one record deleted, one updated (note removed), one inserted.
    static func changeB(_ context: ModelContext) throws {
        let records = try context.fetch(FetchDescriptor<OOMRecord>(sortBy: [SortDescriptor(\.key)]))
        let byKey = Dictionary(uniqueKeysWithValues: records.map { ($0.key, $0) })
        if let record = byKey[9] { context.delete(record) }
        byKey[1001]?.note = nil
        context.insert(OOMRecord(key: 1005, title: "inserted 1005", note: "the last", blob: blob(1005, 50), score: 0))
    }

    /// The tags and records, one line each, in a fixed order.
    static func modelDump(_ context: ModelContext) throws -> [String] {
        let tags = try context.fetch(FetchDescriptor<OOMTag>(sortBy: [SortDescriptor(\.name)]))
        let records = try context.fetch(FetchDescriptor<OOMRecord>(sortBy: [SortDescriptor(\.key)]))
        return tags.map { "tag \($0.name)" }
            + records.map { record in
                "record \(record.key) \(record.title) \(record.note ?? "nil") \(record.blob.map(faultChecksum) ?? "nil") \(record.score) \(record.tag?.name ?? "nil")"
            }
    }

    /// The store's contents through new connections, without a limit.
    static func contents(_ store: URL) throws -> Contents {
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
