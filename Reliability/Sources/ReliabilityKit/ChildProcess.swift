import Foundation

/// A run of `stowage-reliability child …` whose output lines are collected as they come.
///
/// A child writes one line per event (`say`), unbuffered, so that its parent sees what it acknowledged
/// before killing it.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked Sendable: `lines` is guarded by `lock`; `process` is only started, signalled and waited on.

    /// How the child ended and what it printed.
    public struct Result: Sendable, CustomStringConvertible {
        public let signalled: Bool
        public let status: Int32
        public let lines: [String]
        public let errorOutput: String
        public var exitedNormally: Bool { !signalled && status == 0 }
        public var killed: Bool { signalled && status == SIGKILL }
        public var description: String {
            "\(signalled ? "signal" : "exit") \(status): \(lines.suffix(5).joined(separator: " | "))"
                + (errorOutput.isEmpty ? "" : " stderr: \(errorOutput.suffix(500))")
        }
    }

    private let process = Process()
    private let lock = NSLock()
    private var lines: [String] = []
    private var errorData = Data()
    private let finished = DispatchGroup()

    /// Starts `executable` with `arguments` (by default this suite's command, running `child` commands).
    public init(_ arguments: [String], executable: URL? = nil, environment: [String: String]? = nil) throws {
        guard let executable = executable ?? Self.commandURL else { throw NotBuilt() }
        process.executableURL = executable
        process.arguments = arguments
        if let environment {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outputHandle = output.fileHandleForReading
        let errorHandle = errors.fileHandleForReading
        finished.enter()
        finished.enter()
        Thread.detachNewThread { [self] in
            var buffer = Data()
            while true {
                let chunk = outputHandle.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: 10) {
                    let text = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...newline)
                    lock.withLock { lines.append(text) }
                }
            }
            if !buffer.isEmpty { lock.withLock { lines.append(String(decoding: buffer, as: UTF8.self)) } }
            finished.leave()
        }
        Thread.detachNewThread { [self] in
            let data = errorHandle.readDataToEndOfFile()
            lock.withLock { errorData = data }
            finished.leave()
        }
    }

    /// The child's process identifier.
    public var processIdentifier: Int32 { process.processIdentifier }

    /// The lines printed so far.
    public var output: [String] { lock.withLock { lines } }

    /// Waits until a line satisfies `condition`, the child ends, or `timeout` passes; returns the line.
    @discardableResult
    public func wait(timeout: Double = 30, for condition: (String) -> Bool) -> String? {
        let deadline = now() + timeout
        while now() < deadline {
            if let line = output.first(where: condition) { return line }
            if !process.isRunning { return output.first(where: condition) }
            usleep(1000)
        }
        return nil
    }

    /// Waits until the lines printed so far satisfy `condition`, the child ends, or `timeout` passes;
    /// returns whether they did.
    public func wait(timeout: Double = 30, until condition: ([String]) -> Bool) -> Bool {
        let deadline = now() + timeout
        while now() < deadline {
            if condition(output) { return true }
            if !process.isRunning { return condition(output) }
            usleep(200)
        }
        return false
    }

    /// Sends SIGKILL unless the child has already ended.
    public func kill() {
        if process.isRunning { _ = Foundation.kill(process.processIdentifier, SIGKILL) }
    }

    /// Waits for the child to end and for all its output.
    public func wait() -> Result {
        process.waitUntilExit()
        finished.wait()
        return lock.withLock {
            Result(
                signalled: process.terminationReason == .uncaughtSignal, status: process.terminationStatus,
                lines: lines, errorOutput: String(decoding: errorData, as: UTF8.self))
        }
    }

    /// Runs a child command to its end.
    public static func run(_ arguments: [String], environment: [String: String]? = nil) throws -> Result {
        try ChildProcess(arguments, environment: environment).wait()
    }

    /// `stowage-reliability`: this process when it is the command, else the command built beside the
    /// running test binary.
    public static let commandURL: URL? = {
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        if me.lastPathComponent == "stowage-reliability" { return me }
        var directory = me.deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = directory.appendingPathComponent("stowage-reliability")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()

    public struct NotBuilt: Error, CustomStringConvertible {
        public var description: String {
            "stowage-reliability was not found beside the test binary: build it with `swift build --build-tests`"
        }
    }
}

/// Writes a line to standard output at once: a parent may kill this process right after reading it.
public func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Runs `body` on a thread of its own, entering `group` until it returns: for work that never suspends,
/// which tasks would run on the cooperative pool's few threads.
public func onThread(_ group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
    group.enter()
    Thread.detachNewThread {
        body()
        group.leave()
    }
}
