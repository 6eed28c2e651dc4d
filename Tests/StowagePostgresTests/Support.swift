import Foundation
import Stowage
@testable import StowagePostgres
import Testing

/// The PostgreSQL server the tests run against: `STOWAGE_TEST_POSTGRES_URL` (which `.ci/run` sets after
/// starting a throwaway server with `.ci/postgres.sh`). Without it the tests are skipped, with the
/// reason printed; in CI (`CI` set) its absence fails the run.
enum TestServer {
    static let url: URL? = ProcessInfo.processInfo.environment["STOWAGE_TEST_POSTGRES_URL"].flatMap(URL.init(string:))
    static let isAvailable = url != nil
    static let skipReason: Comment = "STOWAGE_TEST_POSTGRES_URL is not set: start a server with `source .ci/postgres.sh && start_postgres`"

    /// Runs administrative statements (creating and dropping databases) on the server's own database.
    static func admin(_ sql: String) throws {
        guard let url else { return }
        let driver = try PostgresDriver(try PostgresConfiguration(url: url))
        defer { driver.shutdown() }
        try driver.withConnection { try $0.execute(sql) }
    }
}

/// A database of its own for one test, dropped when the test ends.
final class TestDatabase {
    let name = "stowage_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    let url: URL

    init() throws {
        guard let server = TestServer.url, var components = URLComponents(url: server, resolvingAgainstBaseURL: false) else {
            throw StowageError(.storeOpenFailed, "no test server")
        }
        try TestServer.admin("CREATE DATABASE \"\(name)\" ENCODING 'UTF8' TEMPLATE template0")
        components.path = "/" + name
        url = components.url!
    }

    func configuration(schema: Schema? = nil) throws -> PostgresConfiguration {
        var configuration = try PostgresConfiguration(schema: schema, url: url)
        configuration.maximumConnections = 4
        return configuration
    }

    func container(_ types: [any PersistentModel.Type], migrationPlan: (any SchemaMigrationPlan.Type)? = nil) throws -> ModelContainer {
        try ModelContainer(for: Schema(types), migrationPlan: migrationPlan, configurations: [try configuration()])
    }

    deinit {
        try? TestServer.admin("DROP DATABASE IF EXISTS \"\(name)\" WITH (FORCE)")
    }
}

@Suite("PostgreSQL test server")
struct TestServerTests {
    @Test func aServerIsGivenInCI() {
        if ProcessInfo.processInfo.environment["CI"] != nil {
            #expect(TestServer.isAvailable, "CI runs the PostgreSQL tests: .ci/run starts a server and sets STOWAGE_TEST_POSTGRES_URL")
        } else if !TestServer.isAvailable {
            print("PostgreSQL tests skipped: \(TestServer.skipReason)")
        }
    }
}
