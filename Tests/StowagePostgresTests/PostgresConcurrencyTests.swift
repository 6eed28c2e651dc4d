import Foundation
import Stowage
@testable import StowagePostgres
import Testing

@Suite("PostgreSQL: actors, tasks and class hierarchies", .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct PostgresConcurrencyTests {
    /// 64 tasks, each with a context of its own, over a pool of 4 connections on this 2-core machine.
    @Test func sixtyFourTasksOverFourConnections() async throws {
        let database = try TestDatabase()
        let container = try database.container(allModels)  // maximumConnections = 4
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<64 {
                group.addTask {
                    let context = ModelContext(container)
                    for item in 0..<5 {
                        context.insert(Wallet(handle: "t\(task)-\(item)", name: "Task \(task)", visits: item))
                        try context.save()
                        _ = try context.fetchCount(FetchDescriptor<Wallet>(predicate: #Predicate { $0.visits >= 2 }))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Wallet>()) == 320)
    }

    @Test func aModelActorSavesThroughThePool() async throws {
        let database = try TestDatabase()
        let container = try database.container(allModels)
        let importer = WalletImporter(modelContainer: container)
        #expect(try await importer.importWallets(["ada", "bob", "cy"]) == 3)
        #expect(try ModelContext(container).fetch(FetchDescriptor<Wallet>(sortBy: [SortDescriptor(\.handle)])).map(\.name) == ["Ada", "Bob", "Cy"])
    }

    @Test func subclassesAndExternalStorageReopen() throws {
        let database = try TestDatabase()
        let big = Data((0..<100_000).map { UInt8($0 % 251) })
        do {
            let context = ModelContext(try database.container([Document.self, Invoice.self]))
            context.insert(Document(title: "notes", body: Data("hello".utf8)))
            context.insert(Invoice(title: "march", body: big, total: Decimal(string: "99.95")!))
            try context.save()
        }
        let context = ModelContext(try database.container([Invoice.self, Document.self]))
        let documents = try context.fetch(FetchDescriptor<Document>(sortBy: [SortDescriptor(\.title)]))
        #expect(documents.map(\.title) == ["march", "notes"])
        let invoice = try #require(documents.first as? Invoice)
        #expect(invoice.total == Decimal(string: "99.95")! && invoice.body == big)
        #expect(documents[1].body == Data("hello".utf8))
        #expect(try context.fetch(FetchDescriptor<Invoice>()).count == 1)
        #expect(try context.fetchCount(FetchDescriptor<Document>(predicate: #Predicate { $0 is Invoice })) == 1)
    }
}
