import Foundation
import Testing

/// What a run of a built program printed, and how it ended.
struct ToolRun {
    let status: Int32
    /// Whether the process ended by a signal (a crash) rather than exiting.
    let crashed: Bool
    let output: String
    let errorOutput: String
}

enum Tool {
    struct NotBuilt: Error, CustomStringConvertible {
        let name: String
        var description: String { "\(name) was not found beside the test bundle: build it with `swift build --build-tests`" }
    }

    /// A program of this package, built beside the test bundle (`stowage`, `spendsmart`, `recipes`).
    static func executable(_ name: String) throws -> URL {
        var directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        throw NotBuilt(name: name)
    }

    /// Runs `program` with `arguments` in `directory`, in a process of its own, without a terminal
    /// (no colour) and with `NO_COLOR` unset unless `environment` sets it.
    @discardableResult
    static func run(_ program: String = "stowage", _ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:]) throws -> ToolRun {
        let process = Process()
        process.executableURL = try executable(program)
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var variables = ProcessInfo.processInfo.environment
        variables["NO_COLOR"] = nil
        for (key, value) in environment { variables[key] = value }
        process.environment = variables
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Both pipes are drained while the process runs, so that neither fills and blocks it.
        let errorData = Locked(Data())
        let reader = Thread { errorData.set(errors.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errorData.isSet { Thread.sleep(forTimeInterval: 0.001) }
        return ToolRun(
            status: process.terminationStatus, crashed: process.terminationReason == .uncaughtSignal,
            output: String(decoding: data, as: UTF8.self), errorOutput: String(decoding: errorData.value, as: UTF8.self))
    }
}

/// A value set once from another thread.
final class Locked<Value>: @unchecked Sendable {  // @unchecked: every access holds the lock.
    private let lock = NSLock()
    private var stored: Value
    private var wasSet = false
    init(_ value: Value) { stored = value }
    func set(_ value: Value) { lock.withLock { stored = value; wasSet = true } }
    var value: Value { lock.withLock { stored } }
    var isSet: Bool { lock.withLock { wasSet } }
}

/// The bytes of every file in a directory, by name: what "the store was not changed" compares
/// (the store, its -wal and -shm, and the directory's listing).
func snapshot(of directory: URL) throws -> [String: Data] {
    var files: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
        files[name] = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path) ?? Data()
    }
    return files
}

/// The differences between two snapshots, one line each.
func differences(_ before: [String: Data], _ after: [String: Data]) -> [String] {
    var lines: [String] = []
    for name in Set(before.keys).union(after.keys).sorted() {
        switch (before[name], after[name]) {
        case (nil, _?): lines.append("\(name) appeared")
        case (_?, nil): lines.append("\(name) disappeared")
        case (let a?, let b?) where a != b: lines.append("\(name) changed (\(a.count) → \(b.count) bytes)")
        default: break
        }
    }
    return lines
}
