import Foundation
import Stowage
@testable import StowagePostgres
import Testing

/// A PostgreSQL server of the test's own, which it can restart: `.ci/postgres.sh` run by a shell that
/// reads commands from a pipe (the server stops when the pipe closes and the shell exits).
///
/// The shell is started with `posix_spawn` and reaped with `waitpid`, not through Foundation's
/// `Process`: in a test process whose Swift Testing also waits for child processes (exit tests),
/// `Process.waitUntilExit()` was seen waiting forever for a shell that had exited.
final class OwnServer {
    private let pid: pid_t
    private let input: FileHandle
    private let output: FileHandle
    private var stopped = false
    let url: URL

    init(port: Int) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".ci/postgres.sh").path
        var toShell: [Int32] = [0, 0]
        var fromShell: [Int32] = [0, 0]
        guard pipe(&toShell) == 0, pipe(&fromShell) == 0 else { throw StowageError(.storeOpenFailed, "no pipe for the test's server") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toShell[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromShell[1], 1)
        for descriptor in toShell + fromShell { posix_spawn_file_actions_addclose(&actions, descriptor) }
        let environment = ProcessInfo.processInfo.environment.merging(["STOWAGE_POSTGRES_PORT": String(port)]) { $1 }.map { "\($0)=\($1)" }
        let arguments = ["/bin/bash", "-s"]
        var child = pid_t()
        let status = withCStrings(arguments) { argv in
            withCStrings(environment) { envp in posix_spawn(&child, "/bin/bash", &actions, nil, argv, envp) }
        }
        close(toShell[0])
        close(fromShell[1])
        guard status == 0 else { throw StowageError(.storeOpenFailed, "could not start a shell for the test's server (\(status))") }
        pid = child
        input = FileHandle(fileDescriptor: toShell[1], closeOnDealloc: true)
        output = FileHandle(fileDescriptor: fromShell[0], closeOnDealloc: true)
        try Self.send("source \(script) && start_postgres >/dev/null && echo \"READY $STOWAGE_TEST_POSTGRES_URL\" || echo FAILED", to: input)
        let line = try Self.readLine(from: output)
        guard line.hasPrefix("READY "), let url = URL(string: String(line.dropFirst(6))) else {
            url = URL(fileURLWithPath: "/")
            stop()
            throw StowageError(.storeOpenFailed, "the test's own PostgreSQL server did not start: \(line)")
        }
        self.url = url
    }

    private static func send(_ command: String, to input: FileHandle) throws {
        try input.write(contentsOf: Data((command + "\n").utf8))
    }

    private static func readLine(from output: FileHandle) throws -> String {
        var line = Data()
        while true {
            guard let byte = try output.read(upToCount: 1), let first = byte.first else { break }
            if first == UInt8(ascii: "\n") { break }
            line.append(first)
        }
        return String(decoding: line, as: UTF8.self)
    }

    /// Restarts the server (a fast shutdown: connections are cut) and waits until it accepts them again.
    func restart() throws {
        try Self.send("restart_postgres && echo RESTARTED || echo FAILED", to: input)
        let line = try Self.readLine(from: output)
        guard line == "RESTARTED" else { throw StowageError(.storeOpenFailed, "restarting the server failed: \(line)") }
    }

    /// Stops the server and its shell, and reaps the shell.
    func stop() {
        guard !stopped else { return }
        stopped = true
        try? Self.send("stop_postgres; exit", to: input)
        try? input.close()
        var status: Int32 = 0
        for _ in 0..<100 {
            if waitpid(pid, &status, WNOHANG) == pid { return }
            usleep(100_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }

    deinit { stop() }
}

/// Calls `body` with a NULL-terminated array of C strings.
private func withCStrings<Result>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result) -> Result {
    var pointers = strings.map { strdup($0) }
    pointers.append(nil)
    defer { for pointer in pointers { free(pointer) } }
    return body(pointers)
}

@Suite("PostgreSQL: failures", .enabled(if: TestServer.isAvailable, "STOWAGE_TEST_POSTGRES_URL is not set: without a server the failure tests skip too"))
struct PostgresFailureTests {
    /// The server restarts while a writer saves in a loop: saves in flight fail with a typed error and
    /// write nothing; the next ones reconnect by themselves; every save that returned is there.
    @Test func aServerRestartMidLoadLosesNoAcknowledgedSave() throws {
        let server = try OwnServer(port: 54_391)
        var configuration = try PostgresConfiguration(url: server.url)
        configuration.maximumConnections = 2
        configuration.connectTimeout = .seconds(5)
        let container = try ModelContainer(for: Wallet.self, configurations: configuration)
        let acknowledged = Locked([String]())
        let failures = Locked([StowageError]())
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let context = ModelContext(container)
            for round in 0..<300 {
                let handle = "w\(round)"
                context.insert(Wallet(handle: handle, name: "Round \(round)", visits: round))
                do {
                    try context.save()
                    acknowledged.withLock { $0.append(handle) }
                } catch let error as StowageError {
                    failures.withLock { $0.append(error) }
                    context.rollback()
                } catch {
                    context.rollback()
                }
                Thread.sleep(forTimeInterval: 0.002)
            }
            done.signal()
        }
        Thread.sleep(forTimeInterval: 0.2)
        try server.restart()
        done.wait()
        let saved = Set(try ModelContext(container).fetch(FetchDescriptor<Wallet>()).map(\.handle))
        let ack = acknowledged.withLock { $0 }
        #expect(Set(ack).isSubset(of: saved), "acknowledged saves missing: \(Set(ack).subtracting(saved).sorted())")
        #expect(saved.count == ack.count, "saves that failed were written anyway")
        let errors = failures.withLock { $0 }
        #expect(errors.allSatisfy { [.connectionLost, .connectionFailed, .saveFailed].contains($0.code) }, "\(errors.map(\.code))")
        #expect(ack.count > 200, "the writer reconnected after the restart (\(ack.count) saves, \(errors.count) failed)")
        print("server restart: \(ack.count) saves acknowledged, \(errors.count) failed with \(Set(errors.map(\.code.rawValue)).sorted())")
        server.stop()
    }
}

/// A value behind a lock, for the threads of a test.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
