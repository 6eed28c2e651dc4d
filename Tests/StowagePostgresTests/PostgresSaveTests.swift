import Foundation
import Stowage
@testable import StowageCore
@testable import StowagePostgres
import Testing

@Suite("PostgreSQL: how saves reach the server", .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct PostgresSaveTests {
    /// A small save is one statement; when one of its updates finds its row gone (another host deleted
    /// it), the save fails with `.saveConflict` naming the model, and nothing of it is written: not the
    /// insert beside it, not its history.
    @Test func aSaveWhoseRowAnotherHostDeletedConflictsAndWritesNothing() throws {
        let database = try TestDatabase()
        let mine = ModelContext(try database.container([Memo.self]))
        let theirs = ModelContext(try database.container([Memo.self]))
        let memo = Memo(text: "shared")
        mine.insert(memo)
        try mine.save()
        let token = try #require(try mine.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token)

        let copy = try #require(try theirs.fetch(FetchDescriptor<Memo>()).first)
        theirs.delete(copy)
        try theirs.save()

        memo.text = "changed"
        mine.insert(Memo(text: "beside it"))
        let error = try #require(throws: StowageError.self) { try mine.save() }
        #expect(error.code == .saveConflict && error.entityName == "Memo")
        #expect(mine.hasChanges, "the context keeps its changes")

        let reader = ModelContext(try database.container([Memo.self]))
        #expect(try reader.fetch(FetchDescriptor<Memo>()).isEmpty, "the insert beside the conflict was not written")
        let after = try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > token }))
        #expect(after.count == 1, "only the other host's deletion is in the history")
    }

    /// The rows of a small save get their keys before the statement that writes them: the keys the
    /// history records are the rows', as a reader in another container finds them.
    @Test func aSmallSavesHistoryNamesTheRowsItWrote() throws {
        let database = try TestDatabase()
        let writer = ModelContext(try database.container([Memo.self]))
        let memos = (0..<3).map { Memo(text: "memo \($0)") }
        for memo in memos { writer.insert(memo) }
        try writer.save()
        memos[1].text = "changed"
        try writer.save()

        let reader = ModelContext(try database.container([Memo.self]))
        let history = try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.count == 2)
        let inserted = history.first?.changes.compactMap { change -> PersistentIdentifier? in
            if case .insert(let insert) = change { return insert.changedPersistentIdentifier }
            return nil
        } ?? []
        #expect(Set(inserted) == Set(memos.map(\.persistentModelID)))
        let updated = history.last?.changes.compactMap { change -> PersistentIdentifier? in
            if case .update(let update) = change { return update.changedPersistentIdentifier }
            return nil
        }
        #expect(updated == [memos[1].persistentModelID])
        let stored = try reader.fetch(FetchDescriptor<Memo>(sortBy: [SortDescriptor(\.text)])).map(\.text)
        #expect(stored == ["changed", "memo 0", "memo 2"])
    }

    @Test func placeholdersAreNumberedOutsideQuotes() {
        #expect(PostgresNIOConnection.numberingPlaceholders(#"SELECT '?', "a?", ? FROM "é?" WHERE x = ? AND y = 'é?'"#)
            == #"SELECT '?', "a?", $1 FROM "é?" WHERE x = $2 AND y = 'é?'"#)
    }

    /// A save's follow-up (its notification) goes only after a save that succeeded: a failed save
    /// notifies no one.
    @Test func aFailedSaveSendsNoFollowUp() async throws {
        let database = try TestDatabase()
        _ = try database.container([Memo.self])
        let driver = try PostgresDriver(try database.configuration())
        defer { driver.shutdown() }
        let received = Locked<[String]>([])
        let listener = try driver.listen(on: "stowage_test_follow_up") { payload in
            if let payload { received.withLock { $0.append(payload) } }
        }
        defer { listener.stop() }
        try driver.withConnection { connection in
            #expect(throws: PostgreSQLServerError.self) {
                try connection.finish("SELECT 1 / 0", [], endingTransaction: false, then: "SELECT pg_notify('stowage_test_follow_up', 'failed')")
            }
            try connection.execute("BEGIN")
            #expect(throws: PostgreSQLServerError.self) {
                try connection.finish("SELECT 1 / 0", [], endingTransaction: true, then: "SELECT pg_notify('stowage_test_follow_up', 'rolled back')")
            }
            _ = try connection.finish("SELECT 1", [], endingTransaction: false, then: "SELECT pg_notify('stowage_test_follow_up', 'saved')")
        }
        for _ in 0..<500 where received.withLock({ $0 }).isEmpty {
            try await Task.sleep(for: .milliseconds(10))
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(received.withLock { $0 } == ["saved"])
    }
}
