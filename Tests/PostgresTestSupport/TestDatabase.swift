import Foundation
import Stowage
import StowageCore
import StowagePostgres
import Testing

// What the tests that need a PostgreSQL server share (StowagePostgresTests, TodoServerTests): the
// server, a database per test, and the executables they start.

/// The PostgreSQL server the tests run against: `STOWAGE_TEST_POSTGRES_URL` (which `.ci/run` sets after
/// starting a throwaway server with `.ci/postgres.sh`). Without it the tests are skipped, with the
/// reason printed; in CI (`CI` set) its absence fails the run.
public enum TestServer {
    /// The server's URL.
    public static let url: URL? = ProcessInfo.processInfo.environment["STOWAGE_TEST_POSTGRES_URL"].flatMap(URL.init(string:))
    /// Whether a server was given.
    public static let isAvailable = url != nil
    /// Why the tests that need a server are skipped.
    public static let skipReason: Comment = "STOWAGE_TEST_POSTGRES_URL is not set: start a server with `source .ci/postgres.sh && start_postgres`"

    /// How many sessions the server has on `database` (`pg_stat_activity`): a killed client's session
    /// lives on until the server has finished what that client had sent, a commit included.
    public static func sessions(on database: String) throws -> Int {
        guard let url else { return 0 }
        let driver = try PostgresDriver(try PostgresConfiguration(url: url))
        defer { driver.shutdown() }
        let rows = try driver.withConnection { try $0.rows("SELECT count(*) FROM pg_stat_activity WHERE datname = $1", [.text(database)]) }
        if case .integer(let count)? = rows.first?.first { return Int(count) }
        return 0
    }

    /// Runs administrative statements (creating and dropping databases) on the server's own database.
    public static func admin(_ sql: String) throws {
        guard let url else { return }
        let driver = try PostgresDriver(try PostgresConfiguration(url: url))
        defer { driver.shutdown() }
        try driver.withConnection { try $0.execute(sql) }
    }
}

/// A database of its own for one test, dropped when the test ends.
public final class TestDatabase {
    public let name = "stowage_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    public let url: URL

    /// Creates the database on ``TestServer``.
    public init() throws {
        guard let server = TestServer.url, var components = URLComponents(url: server, resolvingAgainstBaseURL: false) else {
            throw StowageError(.storeOpenFailed, "no test server")
        }
        try TestServer.admin("CREATE DATABASE \"\(name)\" ENCODING 'UTF8' TEMPLATE template0")
        components.path = "/" + name
        url = components.url!
    }

    /// A configuration of the database, with a pool of 4 connections.
    public func configuration(schema: Schema? = nil) throws -> PostgresConfiguration {
        var configuration = try PostgresConfiguration(schema: schema, url: url)
        configuration.maximumConnections = 4
        return configuration
    }

    /// A container of `types` on the database.
    public func container(_ types: [any PersistentModel.Type], migrationPlan: (any SchemaMigrationPlan.Type)? = nil) throws -> ModelContainer {
        try ModelContainer(for: Schema(types), migrationPlan: migrationPlan, configurations: [try configuration()])
    }

    deinit {
        try? TestServer.admin("DROP DATABASE IF EXISTS \"\(name)\" WITH (FORCE)")
    }
}

/// An executable of this package built beside the test bundle (`swift test` builds every product), or
/// `nil`.
public func executableBesideTests(named name: String) -> URL? {
    var directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    for _ in 0..<3 {
        let candidate = directory.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory = directory.deletingLastPathComponent()
    }
    return nil
}
