import Foundation

/// M1 (and W7's memory): peak memory, measured in a child process so that each measurement starts
/// from a fresh heap.
enum MemoryProbe {
    /// Runs in the child: opens the store, records the resident set, runs the workload, and prints
    /// `rss-before-kB peak-kB rows`.
    static func runChild(_ arguments: [String], contenders: [any Contender]) throws {
        let (contenderName, mode, path) = (arguments[0], arguments[1], arguments[2])
        guard let rows = Int(arguments[3]) else { throw BenchError(description: "bad --child arguments \(arguments)") }
        var before = 0
        var seen = rows
        if mode == "migrate" {
            // W7: the first argument names a variant of a migration contender.
            guard let (contender, variant) = migrationVariant(contenderName, in: contenders) else {
                throw BenchError(description: "bad --child arguments \(arguments)")
            }
            before = memoryStatus().rss
            seen = try contender.migrate(variant, path: path).rows
            print("\(before) \(memoryStatus().hwm) \(seen)")
            return
        }
        guard let contender = contenders.first(where: { slug($0.name) == contenderName }) else {
            throw BenchError(description: "bad --child arguments \(arguments)")
        }
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
        try measure(slug(contender.name), mode: mode, path: path, rows: rows)
    }

    /// Runs the child for the contender (or, with `mode` "migrate", the W7 variant) `name`.
    static func measure(_ name: String, mode: String, path: String, rows: Int) throws -> (growthMB: Double, rows: Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--child", name, mode, path, String(rows)]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let fields = output.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard process.terminationStatus == 0, fields.count == 3 else {
            throw BenchError(description: "the memory child for \(name) \(mode) failed: \(output)")
        }
        return (Double(fields[1] - fields[0]) / 1024, fields[2])
    }
}

/// The migration contender with a W7 variant whose slug is `name`, and that variant.
func migrationVariant(_ name: String, in contenders: [any Contender]) -> (any MigrationContender, String)? {
    for case let contender as any MigrationContender in contenders {
        if let variant = contender.migrationMemoryVariants.first(where: { slug($0) == name }) { return (contender, variant) }
    }
    return nil
}

/// A contender's name as a file-name and command-line token.
func slug(_ name: String) -> String {
    String(name.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" })
}
