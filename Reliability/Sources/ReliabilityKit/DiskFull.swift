import Foundation
import GRDB
import Stowage

// "Disk full": a store on a 512 KB tmpfs, mounted in a mount namespace of its own (`unshare -rm`, which
// needs no privileges where user namespaces are allowed). A child fills it one save at a time until a
// save fails, then checks that the error is `.diskFull`, that the store still holds exactly what was
// saved before, and that the same save (the context kept its changes) succeeds once space is freed.

@Model final class FullNote {
    var index: Int
    var text: String
    init(index: Int, text: String) {
        self.index = index
        self.text = text
    }
}

enum DiskFull {
    static let notesPerSave = 10

    static let scenario = Scenario("disk-full", "a store on a full 512 KB tmpfs: typed .diskFull, data intact, the same save succeeds after space is freed") { options in
        var report = Report("disk-full")
        let mount = options.directory.appendingPathComponent("tmpfs")
        try FileManager.default.createDirectory(at: mount, withIntermediateDirectories: true)
        guard let command = ChildProcess.commandURL else { throw ChildProcess.NotBuilt() }
        let script = #"mount -t tmpfs -o size=512k,mode=0700 stowage-full "$1" && exec "$2" child disk-full "$1""#
        let result = try ChildProcess(
            ["-rm", "sh", "-c", script, "sh", mount.path, command.path],
            executable: URL(fileURLWithPath: "/usr/bin/unshare")
        ).wait()
        let lines = result.lines
        func field(_ prefix: String, _ index: Int) -> String? {
            lines.first { $0.hasPrefix(prefix + " ") }?.split(separator: " ").dropFirst(index).first.map(String.init)
        }
        report.check(result.exitedNormally, "the child failed (unshare -rm needs user and mount namespaces): \(result)")
        let committed = field("FULL", 2).flatMap { Int($0) }
        report.figure("tmpfs size", "512 KB")
        report.figure("error when full", field("FULL", 1) ?? "none")
        report.figure("notes saved before the disk was full", committed.map { "\($0)" } ?? "?")
        report.figure("notes in the store after the failed save", field("INTACT", 1) ?? "?")
        report.figure("the same save after freeing space", field("RETRIED", 1) ?? "not retried")
        report.figure("notes after reopening", field("REOPENED", 1) ?? "?")
        report.figure("integrity_check", field("REOPENED", 2) ?? "?")
        report.check(field("FULL", 1) == "diskFull", "the save on a full disk throws StowageError.diskFull")
        report.check(committed != nil && field("INTACT", 1) == committed.map { "\($0)" }, "the failed save wrote nothing")
        report.check(field("INTACT", 2) == "true", "the context keeps its changes after the failed save")
        report.check(field("RETRIED", 1) == "ok", "the same save succeeds once space is freed")
        report.check(field("REOPENED", 1) == committed.map { "\($0 + notesPerSave)" }, "the store holds every saved note after reopening")
        report.check(field("REOPENED", 2) == "ok", "integrity_check passes")
        return report
    }

    /// The child, in the namespace, with the tmpfs mounted at its argument.
    static let child = ChildCommand("disk-full") { arguments in
        guard let directory = arguments.first.map({ URL(fileURLWithPath: $0) }) else { throw ChildUsage("disk-full DIRECTORY") }
        // Space to give back later: 96 KB of ballast.
        let ballast = directory.appendingPathComponent("ballast")
        guard FileManager.default.createFile(atPath: ballast.path, contents: Data(repeating: 1, count: 96 * 1024)) else {
            throw ChildUsage("disk-full DIRECTORY (a writable directory)")
        }
        let store = directory.appendingPathComponent("full.store")
        var container: ModelContainer? = try ModelContainer(for: FullNote.self, configurations: ModelConfiguration(url: store))
        let context = ModelContext(container!)
        let text = String(repeating: "0123456789abcdef", count: 64)  // 1 KB
        var saved = 0
        var failure: StowageError?
        while failure == nil, saved < 10_000 {
            for index in 0..<notesPerSave { context.insert(FullNote(index: saved + index, text: text)) }
            do {
                try context.save()
                saved += notesPerSave
            } catch let error as StowageError {
                failure = error
            }
        }
        say("FULL \(failure?.code.rawValue ?? "none") \(saved)")
        if let failure { FileHandle.standardError.write(Data("\(failure)\n".utf8)) }
        let stored = try ModelContext(container!).fetchCount(FetchDescriptor<FullNote>())
        say("INTACT \(stored) \(context.hasChanges)")
        try FileManager.default.removeItem(at: ballast)
        do {
            try context.save()
            say("RETRIED ok")
        } catch {
            say("RETRIED \(error)")
        }
        container = nil
        let integrity = try DatabaseQueue(path: store.path).read { db in
            try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: ";")
        }
        let reopened = try ModelContext(ModelContainer(for: FullNote.self, configurations: ModelConfiguration(url: store)))
        say("REOPENED \(try reopened.fetchCount(FetchDescriptor<FullNote>())) \(integrity)")
    }
}
