import Foundation

/// What the scenarios whose child processes save to one store share (`two-processes`, `many-writers`).
/// Each child runs `child COMMAND STORE INDEX SAVES GOFILE`: it opens the store, prints `READY`, waits
/// for the go file so that all start together, saves, and prints a `LATENCY seconds` line per save
/// (and whatever else its scenario reads) and a last `DONE key=value …` line.
enum WriterProcesses {
    /// Starts `count` children running `command` and waits for each to print `READY`. Returns `nil`,
    /// having killed them and recorded the failure in `report`, when one does not start.
    static func start(_ command: String, count: Int, store: URL, saves: Int, go: URL, report: inout Report) throws -> [ChildProcess]? {
        let children = try (0..<count).map { try ChildProcess(["child", command, store.path, "\($0)", "\(saves)", go.path]) }
        var started = true
        for child in children where child.wait(timeout: 60, for: { $0 == "READY" || $0.hasPrefix("error") }) != "READY" {
            started = false
            report.fail("a child did not start: \(child.output)")
        }
        guard started else {
            for child in children { child.kill() }
            return nil
        }
        return children
    }

    /// Waits for every child, in their order. Each is waited for on a thread of its own: a blocking wait
    /// on one of the (two) threads of Swift's cooperative pool would stall the parent's own tasks.
    static func results(of children: [ChildProcess]) async -> [ChildProcess.Result] {
        await withTaskGroup(of: (Int, ChildProcess.Result).self) { group in
            for (index, child) in children.enumerated() {
                group.addTask {
                    await withCheckedContinuation { continuation in
                        Thread.detachNewThread { continuation.resume(returning: (index, child.wait())) }
                    }
                }
            }
            var results: [(Int, ChildProcess.Result)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// The numbers of a child's last `DONE key=value …` line, `nil` when it printed none.
    static func done(_ result: ChildProcess.Result) -> [String: Double]? {
        guard let line = result.lines.last(where: { $0.hasPrefix("DONE") }) else { return nil }
        return Dictionary(uniqueKeysWithValues: line.split(separator: " ").dropFirst().compactMap { field -> (String, Double)? in
            let parts = field.split(separator: "=")
            guard parts.count == 2, let value = Double(parts[1]) else { return nil }
            return (String(parts[0]), value)
        })
    }

    /// The numbers of a child's lines `PREFIX number`, in order.
    static func values(_ prefix: String, in result: ChildProcess.Result) -> [Double] {
        let start = prefix + " "
        return result.lines.compactMap { $0.hasPrefix(start) ? Double($0.dropFirst(start.count)) : nil }
    }

    /// In a child: waits for the parent's go file. The parent may start the writers late when the
    /// machine is busy (the whole test suite runs beside it), so the wait is long: 600 s.
    static func waitForGo(_ path: String, command: String) throws {
        let deadline = now() + 600
        while !FileManager.default.fileExists(atPath: path) {
            guard now() < deadline else { throw ChildUsage("\(command): no go file after 600 s") }
            usleep(500)
        }
    }
}
