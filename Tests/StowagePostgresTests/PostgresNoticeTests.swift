import Foundation
@testable import StowageCore
import Testing

/// The notifications saves send (no server needed).
@Suite("PostgreSQL notices")
struct PostgresNoticeTests {
    @Test(arguments: [nil, "", "-", "Ada Lovelace", "päivä 🌍 %20;:,", String(repeating: "a", count: 50)])
    func aSavesChangesSurviveTheirNotice(author: String?) throws {
        let records = [
            SQLiteHistory.Record(position: 0, entity: "Trip", kind: .insert, properties: nil, keys: [1, 2, 900_000_000_000], values: nil),
            SQLiteHistory.Record(position: 3, entity: "Städte", kind: .update, properties: ["name", "größe"], keys: [-4], values: nil),
            SQLiteHistory.Record(position: 4, entity: "Trip", kind: .delete, properties: ["name"], keys: [7], values: [[.text("kept")]]),
        ]
        let timestamp = 786_543_210.123_456_7
        let body = try #require(PostgreSQLNotice.body(timestamp: timestamp, author: author, records: records))
        let notice = try #require(PostgreSQLNotice("42 7310 " + body))
        #expect(notice.number == 42 && notice.origin == 7310)
        let (header, runs) = try #require(notice.transaction)
        #expect(header.id == 42 && header.origin == 7310 && header.author == author)
        #expect(header.timestamp.timeIntervalSinceReferenceDate == timestamp)
        #expect(header.bundleIdentifier == SQLiteHistory.bundleIdentifier && header.processIdentifier == SQLiteHistory.processIdentifier)
        #expect(runs.map(\.entity) == ["Trip", "Städte", "Trip"])
        #expect(runs.map(\.kind) == [.insert, .update, .delete])
        #expect(runs.map(\.properties) == [[], ["name", "größe"], ["name"]])
        #expect(runs.map(\.keys) == [[1, 2, 900_000_000_000], [-4], [7]])
        #expect(runs.map(\.position) == [0, 3, 4])
    }

    @Test func aNoticeWithoutChangesOrFromAnotherVersion() {
        let bare = PostgreSQLNotice("42 7310")
        #expect(bare?.number == 42 && bare?.origin == 7310 && bare?.transaction == nil)
        #expect(PostgreSQLNotice("") == nil)
        #expect(PostgreSQLNotice("x 1") == nil)
        #expect(PostgreSQLNotice("1 2 zz - b p 0:Trip::1") == nil)
    }

    @Test func aSaveTooLargeForANoticeSendsNone() {
        let keys = Array(Int64(1_000_000)...Int64(1_002_000))
        let records = [SQLiteHistory.Record(position: 0, entity: "Trip", kind: .insert, properties: nil, keys: keys, values: nil)]
        #expect(PostgreSQLNotice.body(timestamp: 0, author: nil, records: records) == nil)
    }
}
