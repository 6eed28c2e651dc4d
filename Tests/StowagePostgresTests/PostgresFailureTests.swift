import Foundation
import Stowage
@testable import StowagePostgres
import Testing

/// A PostgreSQL server of the test's own, which it can restart: `.ci/postgres.sh` run by a shell that
/// reads commands from a pipe (the server stops when the pipe closes and the shell exits).
final class OwnServer {
    private let shell = Process()
    private let input = Pipe()
    private let output = Pipe()
    let url: URL

    init(port: Int) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".ci/postgres.sh").path
        shell.executableURL = URL(fileURLWithPath: "/bin/bash")
        shell.arguments = ["-s"]
        shell.environment = ProcessInfo.processInfo.environment.merging(["STOWAGE_POSTGRES_PORT": String(port)]) { $1 }
        shell.standardInput = input
        shell.standardOutput = output
        try shell.run()
        try Self.send("source \(script) && start_postgres >/dev/null && echo \"READY $STOWAGE_TEST_POSTGRES_URL\" || echo FAILED", to: input)
        let line = try Self.readLine(from: output)
        guard line.hasPrefix("READY "), let url = URL(string: String(line.dropFirst(6))) else {
            throw StowageError(.storeOpenFailed, "the test's own PostgreSQL server did not start: \(line)")
        }
        self.url = url
    }

    private static func send(_ command: String, to input: Pipe) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((command + "\n").utf8))
    }

    private static func readLine(from output: Pipe) throws -> String {
        var line = Data()
        while true {
            guard let byte = try output.fileHandleForReading.read(upToCount: 1), let first = byte.first else { break }
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

    /// Stops the server and its shell (within ten seconds, or the shell is terminated).
    func stop() {
        guard shell.isRunning else { return }
        try? Self.send("stop_postgres; exit", to: input)
        try? input.fileHandleForWriting.close()
        for _ in 0..<100 where shell.isRunning { Thread.sleep(forTimeInterval: 0.1) }
        if shell.isRunning { shell.terminate() }
    }

    deinit { stop() }
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
