import Foundation

/// M1: peak memory, measured in a child process so that each measurement starts from a fresh heap.
enum MemoryProbe {
    /// Runs in the child: opens the store, records the resident set, runs the workload, and prints
    /// `rss-before-kB peak-kB rows`.
    static func runChild(_ arguments: [String], contenders: [any Contender]) throws {
        let (contenderName, mode, path) = (arguments[0], arguments[1], arguments[2])
        guard let rows = Int(arguments[3]), let contender = contenders.first(where: { slug($0.name) == contenderName }) else {
            throw BenchError(description: "bad --child arguments \(arguments)")
        }
        var before = 0
        var seen = rows
        switch mode {
        case "iterate":
            before = memoryStatus().rss
            seen = try contender.memoryIterate(path: path)
        case "insert":
            before = memoryStatus().rss
            try contender.memoryInsert(path: path, rows: rows, saveEvery: 10_000)
        default:
            throw BenchError(description: "unknown child mode \(mode)")
        }
        print("\(before) \(memoryStatus().hwm) \(seen)")
    }

    /// Runs the child for one contender and returns the growth of its peak resident set, in MB.
    static func measure(_ contender: any Contender, mode: String, path: String, rows: Int) throws -> (growthMB: Double, rows: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--child", slug(contender.name), mode, path, String(rows)]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let fields = output.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard process.terminationStatus == 0, fields.count == 3 else {
            throw BenchError(description: "the M1 child for \(contender.name) \(mode) failed: \(output)")
        }
        return (Double(fields[1] - fields[0]) / 1024, fields[2])
    }
}

/// A contender's name as a file-name and command-line token.
func slug(_ name: String) -> String {
    String(name.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" })
}
