import Foundation
import Stowage

// "Corrupt / foreign files": 100 files put where a container looks for its store — a real store
// truncated, zeroed, with header fields and page bytes changed, random bytes, text, another program's
// database, a Stowage store of other models, write-ahead logs of other databases beside a valid store
// (CorruptVariants.swift makes them). Each is opened twice, with `allowsSave: false` then (from the
// same bytes) `allowsSave: true`; when a container opens, every model is fetched and read. Every step
// either succeeds or throws a `StowageError` (anything else, a crash or a hang fails the run), a
// refused file keeps its bytes (the store and the files placed beside it are compared byte for byte
// with what was written: stronger than comparing hashes), a read-only open changes nothing, and a
// variant takes less than a second. A read-write open that succeeds may legitimately change the file
// (a store created in an empty file, a migration, a WAL checkpointed): those are listed, not failed.

enum CorruptFiles {
    /// A variant taking longer than this is a hang: the run stops with a message naming it.
    static let hangLimit: Double = 60

    static let scenario = Scenario("corrupt-files", "100 damaged or foreign store files (truncated, random, zeroed header, wrong app, foreign WAL…): typed errors in < 1 s, refused files unchanged") { options in
        var report = Report("corrupt-files")
        let seed = SeededGenerator.seed()
        var random = SeededGenerator(seed: seed)
        report.figure("seed", "\(seed)")
        let sources = try CorruptSources.make(in: options.directory.appendingPathComponent("sources"))
        let all = sources.variants(random: &random)
        let variants = select(all, count: options.size(quick: 30, full: 100))
        report.figure("base store", "\(sources.store.count) bytes, \(sources.store.count / sources.pageSize) pages of \(sources.pageSize) bytes")
        report.figure("variants", variants.count)
        report.figure("variants by family", families(variants))

        var tally = Tally()
        let watchdog = CorruptWatchdog(limit: hangLimit)
        defer { watchdog.stop() }
        for (index, variant) in variants.enumerated() {
            let directory = options.directory.appendingPathComponent(String(format: "variant-%03d", index))
            let start = now()
            var outcomes: [String] = []
            for allowsSave in [false, true] {
                try place(variant, in: directory)
                watchdog.watch("variant \(index) (\(variant.name)), allowsSave: \(allowsSave)")
                let attempt = attemptOpen(directory.appendingPathComponent("corrupt.store"), allowsSave: allowsSave)
                watchdog.watch(nil)
                let changes = CorruptFiles.changes(variant, in: directory)
                let extra = extraFiles(in: directory, variant)
                tally.record(attempt, changes: changes, extraFiles: extra, variant: variant, allowsSave: allowsSave, report: &report)
                outcomes.append("\(allowsSave ? "read-write" : "read-only"): \(attempt.summary)\(changes.isEmpty ? "" : " (changed: \(changes.joined(separator: ", ")))")")
            }
            let seconds = now() - start
            tally.times.append(seconds)
            if seconds > tally.slowest.seconds { tally.slowest = (seconds, variant.name) }
            if variant.kind != "page" && variant.kind != "truncated" && variant.kind != "random" && variant.kind != "header" {
                report.figure("outcome: \(variant.name)", outcomes.joined(separator: "; "))
            }
            try? FileManager.default.removeItem(at: directory)
        }

        report.figure("opens", tally.opens)
        report.figure("opened", tally.opened)
        report.figure("opened read-only", tally.openedReadOnly)
        report.figure("refused with a StowageError", tally.refused)
        report.figure("typed errors by code", tally.byCode.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        for (code, count) in tally.byCode { report.figure("error \(code)", count) }
        report.figure("fetches", tally.fetches)
        report.figure("fetch errors by code", tally.fetchErrors.isEmpty ? "none" : tally.fetchErrors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        report.figure("untyped errors", tally.untyped)
        report.figure("bytes changed by a refused open", tally.changedByRefusal.count)
        report.figure("bytes changed by a read-only open", tally.changedByReadOnly.count)
        report.figure("changed by a read-write open that succeeded", tally.changedByOpen.isEmpty ? "none" : "\(tally.changedByOpen.count): \(tally.changedByOpen.joined(separator: "; "))")
        report.figure("files left beside a refused store", tally.leftBehind.isEmpty ? "none" : tally.leftBehind.joined(separator: "; "))
        report.figure("files left beside a store opened and released", tally.leftBesideOpened.isEmpty ? "none" : "\(tally.leftBesideOpened.count) opens: "
            + Set(tally.leftBesideOpened.map(\.files)).sorted().joined(separator: "; "))
        report.figure("max time per variant", milliseconds(tally.slowest.seconds))
        report.figure("slowest variant", tally.slowest.name)
        report.figure("median time per variant", milliseconds(quantile(tally.times, 0.5)))
        report.check(tally.untyped == 0, "every open and fetch succeeds or throws a StowageError (\(tally.untyped) did not)")
        report.check(tally.changedByRefusal.isEmpty, "a refused file keeps its bytes: changed by \(tally.changedByRefusal.joined(separator: "; "))")
        report.check(tally.changedByReadOnly.isEmpty, "a read-only open changes nothing: changed by \(tally.changedByReadOnly.joined(separator: "; "))")
        if !options.quick {
            report.check(tally.slowest.seconds < 1, "every variant takes less than 1 s (\(tally.slowest.name) took \(milliseconds(tally.slowest.seconds)))")
        }
        return report
    }

    /// `count` variants: all of them when there are that many or fewer, else taken from each family in
    /// turn (the first of each family first), so that a quick run still has every family.
    static func select(_ variants: [CorruptVariant], count: Int) -> [CorruptVariant] {
        guard count < variants.count else { return variants }
        var families: [String: [CorruptVariant]] = [:]
        var order: [String] = []
        for variant in variants {
            if families[variant.kind] == nil { order.append(variant.kind) }
            families[variant.kind, default: []].append(variant)
        }
        var selected: [CorruptVariant] = []
        var round = 0
        while selected.count < count {
            for kind in order where selected.count < count {
                if let family = families[kind], round < family.count { selected.append(family[round]) }
            }
            round += 1
        }
        return selected
    }

    static func families(_ variants: [CorruptVariant]) -> String {
        var counts: [String: Int] = [:]
        var order: [String] = []
        for variant in variants {
            if counts[variant.kind] == nil { order.append(variant.kind) }
            counts[variant.kind, default: 0] += 1
        }
        return order.map { "\($0) \(counts[$0]!)" }.joined(separator: ", ")
    }

    /// Writes the variant's files into an empty `directory` (the store is `corrupt.store`).
    static func place(_ variant: CorruptVariant, in directory: URL) throws {
        let fileManager = FileManager.default
        try? fileManager.removeItem(at: directory)
        try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = directory.appendingPathComponent("corrupt.store")
        if variant.directory {
            try fileManager.createDirectory(at: store, withIntermediateDirectories: false)
        } else if let data = variant.store {
            try data.write(to: store)
        }
        for (suffix, data) in variant.companions {
            try data.write(to: URL(fileURLWithPath: store.path + suffix))
        }
    }

    /// What differs in `directory` from what ``place(_:in:)`` wrote: the store's or a placed file's
    /// bytes, a placed file removed. (Files SQLite creates beside the store are ``extraFiles(in:_:)``.)
    static func changes(_ variant: CorruptVariant, in directory: URL) -> [String] {
        let store = directory.appendingPathComponent("corrupt.store")
        var changes: [String] = []
        if variant.directory {
            var isDirectory: ObjCBool = false
            if !FileManager.default.fileExists(atPath: store.path, isDirectory: &isDirectory) || !isDirectory.boolValue
                || !((try? FileManager.default.contentsOfDirectory(atPath: store.path)) ?? []).isEmpty {
                changes.append("the directory")
            }
        } else if let data = variant.store {
            if (try? Data(contentsOf: store)) != data { changes.append("store") }
        }
        for (suffix, data) in variant.companions.sorted(by: { $0.key < $1.key }) where suffix != "-shm" {
            // The -shm is SQLite's shared memory, rebuilt by the first connection: not data.
            if (try? Data(contentsOf: URL(fileURLWithPath: store.path + suffix))) != data { changes.append(suffix) }
        }
        return changes
    }

    /// The files in `directory` that were not placed there.
    static func extraFiles(in directory: URL, _ variant: CorruptVariant) -> [String] {
        let placed = Set(["corrupt.store"] + variant.companions.keys.map { "corrupt.store\($0)" })
        let present = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return present.filter { !placed.contains($0) }.sorted()
    }

    /// One open of a variant and, when it opened, its fetches.
    struct Attempt {
        /// The code of the StowageError that refused the file; `nil` when it opened (or failed untyped).
        var refusal: String?
        var untyped: [String] = []
        var opened = false
        var fetches = 0
        var fetchErrors: [String] = []
        var seconds: Double = 0

        var summary: String {
            if let refusal { return refusal }
            if opened { return fetchErrors.isEmpty ? "opened" : "opened, fetches: \(fetchErrors.joined(separator: ", "))" }
            return "untyped: \(untyped.joined(separator: "; "))"
        }
    }

    /// Opens a container on `url` and, when it opens, fetches every model and reads every attribute.
    static func attemptOpen(_ url: URL, allowsSave: Bool) -> Attempt {
        let start = now()
        var attempt = Attempt()
        func step(_ body: () throws -> Void) {
            attempt.fetches += 1
            do {
                try body()
            } catch let error as StowageError {
                attempt.fetchErrors.append(error.code.rawValue)
            } catch {
                attempt.untyped.append("fetch: \(type(of: error)): \(error)")
            }
        }
        do {
            let container = try ModelContainer(
                for: Schema(CorruptSources.models), configurations: ModelConfiguration(url: url, allowsSave: allowsSave))
            attempt.opened = true
            let context = ModelContext(container)
            step {
                for note in try context.fetch(FetchDescriptor<CorruptNote>()) { _ = (note.title, note.body, note.score, note.created) }
            }
            step { _ = try context.fetchCount(FetchDescriptor<CorruptNote>()) }
            step { for tag in try context.fetch(FetchDescriptor<CorruptTag>()) { _ = tag.name } }
            step { for line in try context.fetch(FetchDescriptor<CorruptLog>(sortBy: [SortDescriptor(\.line)])) { _ = line.message } }
        } catch let error as StowageError {
            attempt.refusal = error.code.rawValue
        } catch {
            attempt.untyped.append("open: \(type(of: error)): \(error)")
        }
        attempt.seconds = now() - start
        return attempt
    }

    struct Tally {
        var opens = 0, opened = 0, openedReadOnly = 0, refused = 0, untyped = 0, fetches = 0
        var byCode: [String: Int] = [:]
        var fetchErrors: [String: Int] = [:]
        var changedByRefusal: [String] = []
        var changedByReadOnly: [String] = []
        var changedByOpen: [String] = []
        var leftBehind: [String] = []
        /// The files left beside a store that opened, after its container was released: by variant,
        /// and what was left by which kind of open.
        var leftBesideOpened: [(variant: String, files: String)] = []
        var times: [Double] = []
        var slowest: (seconds: Double, name: String) = (0, "")

        mutating func record(_ attempt: Attempt, changes: [String], extraFiles: [String], variant: CorruptVariant, allowsSave: Bool, report: inout Report) {
            let mode = allowsSave ? "read-write" : "read-only"
            opens += 1
            fetches += attempt.fetches
            for problem in attempt.untyped {
                untyped += 1
                report.fail("\(variant.name), \(mode): not a StowageError: \(problem)")
            }
            for code in attempt.fetchErrors { fetchErrors[code, default: 0] += 1 }
            if let code = attempt.refusal {
                refused += 1
                byCode[code, default: 0] += 1
                if !changes.isEmpty { changedByRefusal.append("\(variant.name) (\(mode), \(code): \(changes.joined(separator: ", ")))") }
                if !extraFiles.isEmpty { leftBehind.append("\(variant.name) (\(mode): \(extraFiles.joined(separator: ", ")))") }
            } else if attempt.opened {
                opened += 1
                if !allowsSave { openedReadOnly += 1 }
                if !extraFiles.isEmpty { leftBesideOpened.append((variant.name, "\(mode) opens: \(extraFiles.joined(separator: ", "))")) }
                if !changes.isEmpty {
                    if allowsSave {
                        changedByOpen.append("\(variant.name) (\(changes.joined(separator: ", ")))")
                    } else {
                        changedByReadOnly.append("\(variant.name) (\(changes.joined(separator: ", ")))")
                    }
                }
            }
        }
    }
}

/// Stops the process, naming what it was doing, when one step takes longer than `limit` seconds: a
/// hang fails the run instead of stalling it.
final class CorruptWatchdog: @unchecked Sendable {
    // @unchecked Sendable: `current` and `stopped` are guarded by `lock`.
    private let lock = NSLock()
    private var current: (what: String, since: Double)?
    private var stopped = false

    init(limit: Double) {
        Thread.detachNewThread { [self] in
            while true {
                usleep(100_000)
                let state = lock.withLock { (stopped, current) }
                if state.0 { return }
                if let current = state.1, now() - current.since > limit {
                    FileHandle.standardError.write(Data("hang: \(current.what) has not finished after \(Int(limit)) s\n".utf8))
                    abort()
                }
            }
        }
    }

    /// Starts timing `what`, or stops timing with `nil`.
    func watch(_ what: String?) {
        lock.withLock { current = what.map { ($0, now()) } }
    }

    func stop() {
        lock.withLock { stopped = true }
    }
}
