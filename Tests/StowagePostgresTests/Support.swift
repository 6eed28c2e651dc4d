import Foundation
// TestServer and TestDatabase, for every file of these tests.
@_exported import PostgresTestSupport
import Stowage
@testable import StowagePostgres
import Testing

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
