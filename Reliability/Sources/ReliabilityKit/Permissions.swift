import Foundation
import Stowage

// "Permissions": a store its process may read but not write, as an unprivileged user (root ignores file
// permissions, so a root parent runs the child through `setpriv` as nobody). Three cases: the store
// file is read-only; the directory holding it is read-only (SQLite cannot create the `-wal` and `-shm`
// files there); and a read-only file opened with `allowsSave: false`. In each, reading works and a save
// throws `.readOnlyStore`, writing nothing.
//
// As root, the child is a copy of this command installed under a directory of its own in /tmp that
// nobody cannot read, as a daemon installed where its user cannot look. So the scenario runs wherever
// the repository is cloned (a clone in a 0700 directory included), and it checks that Stowage never
// needs to read its executable's surroundings (Foundation traps building `Bundle.main` in a process
// that cannot search the directory above its executable's).

@Model final class PermissionNote {
    var text: String
    init(text: String) { self.text = text }
}

enum Permissions {
    static let cases = ["read-only-file", "read-only-directory", "read-only-file-allowsSave-false"]

    static let scenario = Scenario("permissions", "a read-only store file or directory, as an unprivileged user: reading works, a save throws .readOnlyStore") { options in
        var report = Report("permissions")
        guard let command = ChildProcess.commandURL else { throw ChildProcess.NotBuilt() }
        let result: ChildProcess.Result
        if geteuid() == 0 {
            // nobody must reach and own the stores' directory, and run the command from a directory it
            // cannot read. Both live under /tmp, whatever the clone's or TMPDIR's permissions.
            let base = try privateTemporaryDirectory()
            defer { try? FileManager.default.removeItem(atPath: base) }
            _ = chmod(base, 0o755)
            let directory = URL(fileURLWithPath: base).appendingPathComponent("stores")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
            _ = chown(directory.path, 65534, 65534)
            let installation = URL(fileURLWithPath: base).appendingPathComponent("opt")
            let bin = installation.appendingPathComponent("bin")
            try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
            let child = bin.appendingPathComponent(command.lastPathComponent)
            try FileManager.default.copyItem(at: command, to: child)
            _ = chmod(child.path, 0o755)
            _ = chmod(bin.path, 0o755)
            _ = chmod(installation.path, 0o700)
            func run() throws -> ChildProcess.Result {
                // The copy just written can be busy for a moment (ETXTBSY): a process that another test
                // forked meanwhile holds it open for writing until that process execs.
                var attempt = 1
                while true {
                    let result = try ChildProcess(
                        ["--reuid=65534", "--regid=65534", "--clear-groups", child.path, "child", "permissions", directory.path],
                        executable: URL(fileURLWithPath: "/usr/bin/setpriv")
                    ).wait()
                    guard result.status == 126, result.errorOutput.contains("Text file busy"), attempt < 20 else { return result }
                    attempt += 1
                    usleep(50_000)
                }
            }
            // First under a directory nobody may neither read nor search (`opt`, 0700; some kernels,
            // gVisor's among them, still let it run a program there by its full path, and Foundation
            // traps building `Bundle.main` there); where the kernel refuses (setpriv exits 126), under
            // one it may search but not read (0711), as a daemon's installation directory.
            var first = try run()
            if !first.signalled && first.status == 126 {
                _ = chmod(installation.path, 0o711)
                first = try run()
                report.figure("user", "nobody (setpriv, from root), its executable under a directory it may search, not read")
            } else {
                report.figure("user", "nobody (setpriv, from root), its executable under a directory it may neither read nor search")
            }
            result = first
        } else {
            let directory = options.directory.appendingPathComponent("permissions")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            report.figure("user", "uid \(getuid())")
            result = try ChildProcess(["child", "permissions", directory.path]).wait()
        }
        report.check(result.exitedNormally, "the child failed: \(result)")
        for name in cases {
            guard let line = result.lines.first(where: { $0.hasPrefix("CASE \(name) ") }) else {
                report.fail("\(name): not run")
                continue
            }
            let fields = Dictionary(uniqueKeysWithValues: line.split(separator: " ").dropFirst(2).compactMap { field -> (String, String)? in
                let parts = field.split(separator: "=", maxSplits: 1)
                return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
            })
            report.figure(name, "open \(fields["open"] ?? "?"), read \(fields["read"] ?? "?") notes, save \(fields["save"] ?? "?"), after: \(fields["after"] ?? "?") notes")
            report.check(fields["open"] == "ok", "\(name): the store opens (\(line))")
            report.check(fields["read"] == "3", "\(name): reading works (\(line))")
            report.check(fields["save"] == "readOnlyStore", "\(name): a save throws .readOnlyStore (\(line))")
            report.check(fields["after"] == "3", "\(name): the failed save wrote nothing (\(line))")
        }
        return report
    }

    /// The child, as a user who owns `DIRECTORY` (and nothing else of the suite's).
    static let child = ChildCommand("permissions") { arguments in
        guard let root = arguments.first.map({ URL(fileURLWithPath: $0) }) else { throw ChildUsage("permissions DIRECTORY") }
        for name in cases {
            let directory = root.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let store = directory.appendingPathComponent("notes.store")
            do {
                let context = ModelContext(try ModelContainer(for: PermissionNote.self, configurations: ModelConfiguration(url: store)))
                for index in 0..<3 { context.insert(PermissionNote(text: "note \(index)")) }
                try context.save()
            }  // the container closes: its WAL is checkpointed and removed
            switch name {
            case "read-only-directory": _ = chmod(directory.path, 0o500)
            default: _ = chmod(store.path, 0o400)
            }
            defer {
                _ = chmod(directory.path, 0o700)
                _ = chmod(store.path, 0o600)
            }
            var fields = ["open=?", "read=?", "save=?", "after=?"]
            func code(_ error: any Error) -> String { (error as? StowageError)?.code.rawValue ?? "untyped:\(error)".replacingOccurrences(of: " ", with: "_") }
            do {
                let configuration = ModelConfiguration(url: store, allowsSave: name != "read-only-file-allowsSave-false")
                let container = try ModelContainer(for: PermissionNote.self, configurations: configuration)
                fields[0] = "open=ok"
                let context = ModelContext(container)
                do { fields[1] = "read=\(try context.fetchCount(FetchDescriptor<PermissionNote>()))" } catch { fields[1] = "read=\(code(error))" }
                context.insert(PermissionNote(text: "one more"))
                do {
                    try context.save()
                    fields[2] = "save=ok"
                } catch {
                    fields[2] = "save=\(code(error))"
                    FileHandle.standardError.write(Data("\(name): \(error)\n".utf8))
                }
                do { fields[3] = "after=\(try ModelContext(container).fetchCount(FetchDescriptor<PermissionNote>()))" } catch { fields[3] = "after=\(code(error))" }
            } catch {
                fields[0] = "open=\(code(error))"
                FileHandle.standardError.write(Data("\(name): \(error)\n".utf8))
            }
            say((["CASE", name] + fields).joined(separator: " "))
        }
    }

    /// A new directory under /tmp, mode 0700, whose path is returned.
    private static func privateTemporaryDirectory() throws -> String {
        var template = Array("/tmp/stowage-permissions-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "mkdtemp in /tmp failed: errno \(errno)"])
        }
        return String(cString: created)
    }
}
