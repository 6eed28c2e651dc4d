import Foundation
import Stowage
@testable import StowagePostgres
import Testing

/// Two containers on one database stand for two processes (each container's store has its own origin,
/// its own connections and its own listener).
@Suite("PostgreSQL: history and other processes' saves", .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct PostgresLiveTests {
    @Test func historyRecordsEverySaveInItsTransaction() throws {
        let database = try TestDatabase()
        let container = try database.container(allModels)
        let context = ModelContext(container)
        context.author = "importer"
        let ada = Wallet(handle: "ada", name: "Ada")
        context.insert(ada)
        try context.save()
        let start = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token)
        ada.visits = 3
        try context.save()
        let second = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token)
        context.delete(ada)
        try context.save()
        let history = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.count == 3)
        #expect(history.first?.author == "importer")
        let kinds = history.map { transaction in transaction.changes.map { change -> String in
            switch change {
            case .insert: "insert"
            case .update(let update as DefaultHistoryUpdate<Wallet>): "update \(update.updatedAttributes.count)"
            case .update: "update"
            case .delete: "delete"
            @unknown default: "?"
            }
        } }
        #expect(kinds == [["insert"], ["update 1"], ["delete"]])
        let after = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > start }))
        #expect(after.count == 2)
        // Deleting history a token has not read yet expires it.
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= second }))
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).count == 1)
        #expect(throws: SwiftDataError.historyTokenExpired) {
            try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > start }))
        }
    }

    @Test func anObserverFollowsAnotherContainersSaves() async throws {
        let database = try TestDatabase()
        let reader = try database.container(allModels)
        let writer = try database.container(allModels)
        let observer = try ResultsObserver(
            fetchDescriptor: FetchDescriptor<Wallet>(predicate: #Predicate { $0.visits > 0 }, sortBy: [SortDescriptor(\.handle)]),
            modelContext: ModelContext(reader))
        #expect(observer.results.isEmpty)
        let context = ModelContext(writer)
        context.insert(Wallet(handle: "ada", name: "Ada", visits: 1))
        context.insert(Wallet(handle: "bob", name: "Bob", visits: 0))
        try context.save()
        var handles: [String] = []
        for _ in 0..<500 {
            handles = observer.results.map(\.handle)
            if handles == ["ada"] { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(handles == ["ada"])
        let bob = try #require(try context.fetch(FetchDescriptor<Wallet>(predicate: #Predicate { $0.handle == "bob" })).first)
        bob.visits = 5
        try context.save()
        for _ in 0..<500 {
            handles = observer.results.map(\.handle)
            if handles == ["ada", "bob"] { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(handles == ["ada", "bob"])
    }

    @Test func aContextRefreshesWhatAnotherContainerChanged() async throws {
        let database = try TestDatabase()
        let reader = try database.container(allModels)
        let writer = try database.container(allModels)
        let mine = ModelContext(reader)
        let writerContext = ModelContext(writer)
        writerContext.insert(Wallet(handle: "ada", name: "Ada"))
        try writerContext.save()
        let ada = try #require(try mine.fetch(FetchDescriptor<Wallet>()).first)
        #expect(ada.name == "Ada")
        // Reads the container's change stream until the update arrives (bounded: a missed change fails
        // the test rather than hanging it).
        let stream = reader.changes()
        let received = Task { () -> ModelChanges? in
            for await change in stream where !change.updated.isEmpty { return change }
            return nil
        }
        let theirs = try #require(try writerContext.fetch(FetchDescriptor<Wallet>()).first)
        theirs.name = "Ada Lovelace"
        try writerContext.save()
        let timeout = Task {
            try await Task.sleep(for: .seconds(10))
            received.cancel()
        }
        let change = await received.value
        timeout.cancel()
        #expect(change?.isRemote == true && change?.updated.count == 1)
        _ = try mine.fetchCount(FetchDescriptor<Wallet>())  // the context takes in what arrived
        #expect(ada.name == "Ada Lovelace")
    }
}
