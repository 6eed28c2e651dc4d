import Foundation
import Stowage
@testable import StowageCore
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

    /// Saves of several containers commit side by side and take their history numbers after they
    /// commit; a reader that reads the history bit by bit, after the last token it saw, while they save
    /// must still read each save once, in the order of the numbers.
    @Test func concurrentSavesReachAnIncrementalReaderOnceEach() throws {
        let database = try TestDatabase()
        let types: [any PersistentModel.Type] = [Memo.self, Wallet.self]
        let writers = try (0..<4).map { _ in try ModelContainer(for: Schema(types), configurations: [try database.configuration()]) }
        let reader = ModelContext(try ModelContainer(for: Schema(types), configurations: [try database.configuration()]))
        let savesEach = 40
        let done = Locked(0)
        for (index, container) in writers.enumerated() {
            Thread.detachNewThread {
                let context = ModelContext(container)
                for n in 0..<savesEach {
                    // Memos go the one-statement way; wallets, with a uniqueness constraint, the general one.
                    if n.isMultiple(of: 2) {
                        context.insert(Memo(text: "\(index)-\(n)"))
                    } else {
                        context.insert(Wallet(handle: "\(index)-\(n)", name: "W"))
                    }
                    try? context.save()
                }
                done.withLock { $0 += 1 }
            }
        }
        var token: DefaultHistoryToken?
        var seen: [String] = []
        var numbers: [DefaultHistoryToken] = []
        func readMore() throws {
            var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
            if let token { descriptor.predicate = #Predicate { $0.token > token } }
            for transaction in try reader.fetchHistory(descriptor) {
                numbers.append(transaction.token)
                token = transaction.token
                for change in transaction.changes {
                    if case .insert(let insert as DefaultHistoryInsert<Memo>) = change, let memo = reader.model(for: insert.changedPersistentIdentifier) as? Memo {
                        seen.append(memo.text)
                    } else if case .insert(let insert as DefaultHistoryInsert<Wallet>) = change, let wallet = reader.model(for: insert.changedPersistentIdentifier) as? Wallet {
                        seen.append(wallet.handle)
                    }
                }
            }
        }
        let deadline = Date.now.addingTimeInterval(60)
        while done.withLock({ $0 }) < writers.count, Date.now < deadline {
            try readMore()
        }
        try readMore()
        #expect(seen.count == writers.count * savesEach)
        #expect(Set(seen).count == seen.count)
        #expect(zip(numbers, numbers.dropFirst()).allSatisfy { $0 < $1 })
    }

    /// History numbers are taken before saves commit. A reader that sees a number while a smaller one's
    /// save is still in flight waits for that save: it never returns the larger alone (it would then
    /// skip the smaller one for good). A number whose save rolled back stops no one.
    // Threads and semaphores, not tasks: the test blocks while the save is in flight, and a blocked
    // task could hold the threads the reader's task would need.
    @Test(arguments: [true, false]) func aReaderWaitsForASaveInFlightBelowWhatItSees(commits: Bool) throws {
        let database = try TestDatabase()
        let writer = ModelContext(try database.container([Memo.self]))
        writer.insert(Memo(text: "first"))
        try writer.save()
        let first = try #require(try writer.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token)
        // A save in flight, as a save holds it: its lock, then its number.
        let driver = try PostgresDriver(try database.configuration())
        defer { driver.shutdown() }
        let opened = DispatchSemaphore(value: 0), end = DispatchSemaphore(value: 0), ended = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? driver.withConnection { connection in
                try connection.execute("BEGIN")
                try connection.execute("SELECT pg_advisory_xact_lock_shared(\(PostgreSQLSchema.saveLockKey))")
                try connection.execute(#"INSERT INTO "_stowage_history" ("timestamp", "bundle", "process", "origin") VALUES (0, 'in flight', 'in flight', 1)"#)
                opened.signal()
                _ = end.wait(timeout: .now() + 30)
                try connection.execute(commits ? "COMMIT" : "ROLLBACK")
            }
            ended.signal()
        }
        #expect(opened.wait(timeout: .now() + 30) == .success)
        writer.insert(Memo(text: "after"))
        try writer.save()
        let readerContainer = try database.container([Memo.self])
        let read = Locked<Result<[String], any Error>?>(nil)
        let returned = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let result = Result {
                try ModelContext(readerContainer).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > first })).map(\.bundleIdentifier)
            }
            read.withLock { $0 = result }
            returned.signal()
        }
        #expect(returned.wait(timeout: .now() + 0.3) == .timedOut, "the reader returned while a save below what it saw was in flight")
        end.signal()
        #expect(returned.wait(timeout: .now() + 30) == .success)
        _ = ended.wait(timeout: .now() + 30)
        let bundles = try #require(try read.withLock { $0 }?.get())
        let saver = try #require(bundles.last)
        #expect(bundles == (commits ? ["in flight", saver] : [saver]))
        #expect(saver != "in flight")
    }

    /// A save's notification carries its changes, and listeners hand them over without reading the
    /// database. A save whose notification never came (its process ended between its commit and its
    /// notification) still arrives: the next notification shows its number missing, and the listener
    /// reads the history.
    @Test func aSaveWhoseNotificationNeverCameStillArrives() async throws {
        let database = try TestDatabase()
        let reader = try database.container([Memo.self])
        let stream = reader.changes()
        let received = Task { () -> [String?] in
            var authors: [String?] = []
            for await change in stream where change.isRemote {
                authors.append(change.author)
                if authors.count == 2 { break }
            }
            return authors
        }
        // What such a save leaves: its row and its history, committed, and no notification.
        let driver = try PostgresDriver(try database.configuration())
        defer { driver.shutdown() }
        try driver.withConnection { connection in
            let key = try #require(try connection.rows(#"INSERT INTO "Memo" ("text") VALUES ('silent') RETURNING "_pk""#).first?.first)
            guard case .integer(let memo) = key else { throw StowageError(.fetchFailed, "no key") }
            let id = try connection.rows(
                #"INSERT INTO "_stowage_history" ("timestamp", "author", "bundle", "process", "origin") VALUES (0, 'silent', 'b', 'p', 1) RETURNING "id""#
            ).first?.first
            try connection.execute(
                #"INSERT INTO "_stowage_history_change" VALUES (?, 0, 'Memo', 0, NULL, ?, NULL)"#,
                [id ?? .null, .blob(SQLiteHistory.encode(keys: [memo]))])
        }
        let writer = ModelContext(try database.container([Memo.self]))
        writer.author = "loud"
        writer.insert(Memo(text: "loud"))
        try writer.save()
        let timeout = Task {
            try await Task.sleep(for: .seconds(10))
            received.cancel()
        }
        let authors = await received.value
        timeout.cancel()
        #expect(authors == ["silent", "loud"])
    }
}
