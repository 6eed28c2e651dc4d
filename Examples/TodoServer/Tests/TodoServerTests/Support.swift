import Foundation
import Hummingbird
import HummingbirdTesting
import PostgresTestSupport
import Stowage
import TodoServerKit

/// Sends a request to the API and gives back the status and body: through HummingbirdTesting's router
/// client, or its HTTP client connected to a `todo-server` process.
protocol APIClient: Sendable {
    func send(_ method: HTTPRequest.Method, _ uri: String, json: String?) async throws -> (HTTPResponse.Status, HTTPFields, Data)
}

struct RouterClient: APIClient {
    let client: any TestClientProtocol
    func send(_ method: HTTPRequest.Method, _ uri: String, json: String?) async throws -> (HTTPResponse.Status, HTTPFields, Data) {
        let response = try await client.execute(uri: uri, method: method, body: json.map { ByteBuffer(string: $0) })
        return (response.status, response.headers, Data(String(buffer: response.body).utf8))
    }
}

extension TestClient: APIClient {
    func send(_ method: HTTPRequest.Method, _ uri: String, json: String?) async throws -> (HTTPResponse.Status, HTTPFields, Data) {
        let response = try await execute(TestClient.Request(uri, method: method, headers: [.contentType: "application/json"], body: json.map { ByteBuffer(string: $0) }))
        return (response.status, response.headers, Data((response.body.map { String(buffer: $0) } ?? "").utf8))
    }
}

extension APIClient {
    /// Sends a request expecting `status`, and decodes the body as `T`.
    func call<T: Decodable>(_ method: HTTPRequest.Method, _ uri: String, _ json: String? = nil, expect status: HTTPResponse.Status = .ok, as: T.Type = T.self) async throws -> T {
        let (received, _, body) = try await send(method, uri, json: json)
        guard received == status else { throw UnexpectedResponse(status: received, body: String(decoding: body, as: UTF8.self), request: "\(method) \(uri)") }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(T.self, from: body)
    }

    /// Sends a request expecting `status`, and gives back the error message of the body, if any.
    @discardableResult
    func fail(_ method: HTTPRequest.Method, _ uri: String, _ json: String? = nil, expect status: HTTPResponse.Status) async throws -> String {
        let (received, _, body) = try await send(method, uri, json: json)
        guard received == status else { throw UnexpectedResponse(status: received, body: String(decoding: body, as: UTF8.self), request: "\(method) \(uri)") }
        return (try? JSONDecoder().decode(Failure.self, from: body))?.error.message ?? ""
    }
}

/// Hummingbird's error body: `{"error": {"message": "…"}}`.
private struct Failure: Decodable {
    struct Error: Decodable { var message: String }
    var error: Error
}

struct UnexpectedResponse: Error, CustomStringConvertible {
    var status: HTTPResponse.Status
    var body: String
    var request: String
    var description: String { "\(request) answered \(status): \(body)" }
}

/// Runs `body` with a router client of the API over `container`.
func withAPI<T: Sendable>(_ container: ModelContainer, _ body: @escaping @Sendable (any APIClient) async throws -> T) async throws -> T {
    try await TodoServer.application(container: container).test(.router) { client in
        try await body(RouterClient(client: client))
    }
}

/// A `todo-server` process (the executable built beside the tests), started with `arguments` and a free
/// port; stopped with SIGTERM and reaped when the test is done with it.
///
/// Started with `posix_spawn` and reaped with `waitpid`, not Foundation's `Process`, which was seen
/// waiting forever beside Swift Testing's own waiting for child processes.
final class ServerProcess: @unchecked Sendable {
    let pid: pid_t
    let port: Int
    private var stopped = false

    static let executable = executableBesideTests(named: "todo-server")

    init(_ arguments: [String]) throws {
        guard let executable = Self.executable else { throw ServerError("todo-server is not built beside the tests") }
        var output: [Int32] = [0, 0]
        guard pipe(&output) == 0 else { throw ServerError("no pipe") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        // Its log (stderr) goes to a file, shown when it does not start.
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("todo-server-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        posix_spawn_file_actions_addopen(&actions, 2, log.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addclose(&actions, output[0])
        posix_spawn_file_actions_addclose(&actions, output[1])
        let argv = [executable.path] + arguments + ["--port", "0"]
        var cArguments = argv.map { strdup($0) } + [nil]
        var cEnvironment = ProcessInfo.processInfo.environment.map { strdup("\($0)=\($1)") } + [nil]
        defer { (cArguments + cEnvironment).forEach { free($0) } }
        var child = pid_t()
        let status = posix_spawn(&child, executable.path, &actions, nil, &cArguments, &cEnvironment)
        close(output[1])
        guard status == 0 else { close(output[0]); throw ServerError("posix_spawn failed: \(status)") }
        pid = child
        // The first line says where it listens: "todo-server listening on http://127.0.0.1:PORT (…)".
        let reader = FileHandle(fileDescriptor: output[0], closeOnDealloc: true)
        var line = Data()
        while let byte = try reader.read(upToCount: 1), let first = byte.first, first != UInt8(ascii: "\n") { line.append(first) }
        let text = String(decoding: line, as: UTF8.self)
        let address = text.split(separator: " ").first { $0.hasPrefix("http://") }
        guard let address, let port = address.split(separator: ":").last.flatMap({ Int($0) }) else {
            port = 0
            stop()
            throw ServerError("todo-server did not start: \"\(text)\" \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        }
        self.port = port
    }

    /// A client connected to the server. Its requests wait up to a minute, not HummingbirdTesting's 15 s:
    /// the server is another process, and the full test suite runs beside it on a machine with two cores
    /// (a CI run once waited longer than 15 s for an answer).
    func withClient<T: Sendable>(_ body: @escaping @Sendable (TestClient) async throws -> T) async throws -> T {
        try await TestClient.withClient(host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(60)), operation: body)
    }

    /// Stops the server (SIGTERM: a graceful shutdown), and reaps it.
    /// - Returns: its exit status, or `nil` when it had to be killed.
    @discardableResult
    func stop() -> Int32? {
        guard !stopped else { return nil }
        stopped = true
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<100 {
            if waitpid(pid, &status, WNOHANG) == pid { return (status >> 8) & 0xff }
            usleep(100_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
        return nil
    }

    deinit { stop() }
}

struct ServerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The JSON of a list and of an item, as the tests read them.
struct List: Decodable, Sendable { var id: UUID; var name: String; var itemCount: Int; var openCount: Int }
struct Item: Decodable, Sendable, Equatable { var id: UUID; var listID: UUID?; var title: String; var isDone: Bool; var priority: Int; var dueDate: Date? }
