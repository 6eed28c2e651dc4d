import Foundation
import Stowage
import PostgresNIO
@testable import StowagePostgres
import Testing

@Suite("PostgreSQL store", .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct PostgresStoreTests {
    @Test func everyAttributeTypeRoundTripsThroughAReopen() throws {
        let database = try TestDatabase()
        let token = UUID()
        let opened = Date(timeIntervalSinceReferenceDate: 812_345_678.987654321)
        do {
            let context = ModelContext(try database.container(allModels))
            let wallet = Wallet(
                handle: "ada", name: "Ada", balance: Decimal(string: "1234567890.123456789")!, visits: 42, rating: 4.75,
                isActive: false, opened: opened, token: token, avatar: Data([0, 255, 7]),
                address: Address(street: "2 Quai", city: "Nantes"), priority: .high)
            wallet.nickname = "countess"
            context.insert(wallet)
            try context.save()
            #expect(wallet.persistentModelID.primaryKey != nil)
        }
        // Another container, the models listed in another order.
        let context = ModelContext(try database.container([Badge.self, Payment.self, Wallet.self]))
        let wallet = try #require(try context.fetch(FetchDescriptor<Wallet>()).first)
        #expect(wallet.handle == "ada" && wallet.name == "Ada")
        #expect(wallet.balance == Decimal(string: "1234567890.123456789")!)
        #expect(wallet.visits == 42 && wallet.rating == 4.75 && wallet.isActive == false)
        #expect(wallet.opened == opened)
        #expect(wallet.token == token)
        #expect(wallet.avatar == Data([0, 255, 7]))
        #expect(wallet.address == Address(street: "2 Quai", city: "Nantes"))
        #expect(wallet.priority == .high)
        #expect(wallet.nickname == "countess" && wallet.closed == nil)
    }

    @Test func predicatesSortsLimitsAndCountsRunOnTheServer() throws {
        let database = try TestDatabase()
        let context = ModelContext(try database.container(allModels))
        let people = ["Émile", "Zoé", "bob", "Ada", "E\u{301}mile-bis", "carl"]
        for (index, name) in people.enumerated() {
            let wallet = Wallet(handle: "h\(index)", name: name, balance: Decimal(index) / 4, visits: index * 10, rating: Double(index), isActive: index % 2 == 0)
            if index == 3 { wallet.nickname = "first" }
            context.insert(wallet)
        }
        try context.save()
        let fresh = ModelContext(try database.container(allModels))
        func names(_ descriptor: FetchDescriptor<Wallet>) throws -> [String] { try fresh.fetch(descriptor).map(\.name) }
        #expect(try names(FetchDescriptor(predicate: #Predicate { $0.visits >= 30 }, sortBy: [SortDescriptor(\.visits)])) == ["Ada", "E\u{301}mile-bis", "carl"])
        #expect(try names(FetchDescriptor(predicate: #Predicate { $0.isActive }, sortBy: [SortDescriptor(\.visits)])) == ["Émile", "bob", "E\u{301}mile-bis"])
        #expect(try names(FetchDescriptor(predicate: #Predicate { !$0.isActive && $0.nickname == nil }, sortBy: [SortDescriptor(\.visits)])) == ["Zoé", "carl"])
        #expect(try names(FetchDescriptor(predicate: #Predicate { $0.balance > 0.5 }, sortBy: [SortDescriptor(\.balance, order: .reverse)])) == ["carl", "E\u{301}mile-bis", "Ada"])
        // Swift's `==` on strings: canonical equivalence, as in Swift and on SQLite.
        let composed = "Émile-bis"
        #expect(try names(FetchDescriptor(predicate: #Predicate { $0.name == composed })) == ["E\u{301}mile-bis"])
        #expect(try names(FetchDescriptor(predicate: #Predicate { $0.name.contains("mile") }, sortBy: [SortDescriptor(\.visits)])) == ["Émile", "E\u{301}mile-bis"])
        #expect(try names(FetchDescriptor(predicate: #Predicate { $0.name.starts(with: "É") }, sortBy: [SortDescriptor(\.visits)])) == ["Émile", "E\u{301}mile-bis"])
        #expect(try names(FetchDescriptor(predicate: #Predicate { $0.name.localizedStandardContains("EMILE") }, sortBy: [SortDescriptor(\.visits)])) == ["Émile", "E\u{301}mile-bis"])
        // Swift's `<` on strings: code point order of the NFC forms ("Z" before "b", "É" after "z").
        #expect(try names(FetchDescriptor(sortBy: [SortDescriptor(\.name, comparator: .lexical)])) == ["Ada", "Zoé", "bob", "carl", "Émile", "E\u{301}mile-bis"])
        var page = FetchDescriptor<Wallet>(sortBy: [SortDescriptor(\.visits)])
        page.fetchOffset = 2
        page.fetchLimit = 2
        #expect(try names(page) == ["bob", "Ada"])
        page.fetchLimit = nil
        #expect(try names(page).count == 4)
        #expect(try fresh.fetchCount(FetchDescriptor<Wallet>(predicate: #Predicate { $0.rating < 2.5 })) == 3)
        #expect(try fresh.fetchIdentifiers(FetchDescriptor<Wallet>(predicate: #Predicate { $0.handle == "h3" })).count == 1)
        var seen = 0
        try fresh.enumerate(FetchDescriptor<Wallet>(), batchSize: 2) { _ in seen += 1 }
        #expect(seen == 6)
    }

    @Test func relationshipsCascadesAndManyToMany() throws {
        let database = try TestDatabase()
        do {
            let context = ModelContext(try database.container(allModels))
            let ada = Wallet(handle: "ada", name: "Ada")
            let bob = Wallet(handle: "bob", name: "Bob")
            context.insert(ada)
            context.insert(bob)
            ada.payments = [Payment(memo: "rent", amount: -900), Payment(memo: "salary", amount: 3000), Payment(memo: "tea", amount: -4)]
            let work = Badge(title: "work")
            let home = Badge(title: "home")
            ada.badges = [work, home]
            bob.badges = [home]
            try context.save()
        }
        do {
            let context = ModelContext(try database.container(allModels))
            let ada = try #require(try context.fetch(FetchDescriptor<Wallet>(predicate: #Predicate { $0.handle == "ada" })).first)
            #expect(ada.payments.map(\.memo) == ["rent", "salary", "tea"])
            #expect(ada.badges.map(\.title) == ["work", "home"])
            let home = try #require(try context.fetch(FetchDescriptor<Badge>(predicate: #Predicate { $0.title == "home" })).first)
            #expect(Set(home.wallets.map(\.handle)) == ["ada", "bob"])
            // Predicates through relationships.
            let spenders = try context.fetch(FetchDescriptor<Wallet>(predicate: #Predicate { wallet in
                wallet.payments.contains { $0.amount < -500 }
            }))
            #expect(spenders.map(\.handle) == ["ada"])
            let payments = try context.fetch(FetchDescriptor<Payment>(predicate: #Predicate { $0.wallet?.handle == "ada" }, sortBy: [SortDescriptor(\.amount)]))
            #expect(payments.map(\.memo) == ["rent", "tea", "salary"])
            context.delete(ada)
            try context.save()
        }
        let context = ModelContext(try database.container(allModels))
        #expect(try context.fetchCount(FetchDescriptor<Payment>()) == 0)
        let home = try #require(try context.fetch(FetchDescriptor<Badge>(predicate: #Predicate { $0.title == "home" })).first)
        #expect(home.wallets.map(\.handle) == ["bob"])
    }

    @Test func aUniqueAttributeMakesAnInsertAnUpdate() throws {
        let database = try TestDatabase()
        let context = ModelContext(try database.container(allModels))
        context.insert(Wallet(handle: "ada", name: "Ada", visits: 1))
        try context.save()
        let other = ModelContext(try database.container(allModels))
        other.insert(Wallet(handle: "ada", name: "Ada Lovelace", visits: 2))
        try other.save()
        let wallets = try ModelContext(try database.container(allModels)).fetch(FetchDescriptor<Wallet>())
        #expect(wallets.count == 1)
        #expect(wallets.first?.name == "Ada Lovelace" && wallets.first?.visits == 2)
    }

    @Test func aSaveThatFailsWritesNothingAndKeepsTheChanges() throws {
        let database = try TestDatabase()
        let container = try database.container(allModels)
        let context = ModelContext(container)
        let ada = Wallet(handle: "ada", name: "Ada")
        context.insert(ada)
        try context.save()
        // Another context deletes the row this one changes: the save conflicts and writes nothing.
        let other = ModelContext(container)
        other.delete(try #require(try other.fetch(FetchDescriptor<Wallet>()).first))
        try other.save()
        ada.name = "Ada L."
        context.insert(Wallet(handle: "bob", name: "Bob"))
        #expect(throws: SwiftDataError.self) { try context.save() }
        #expect(context.hasChanges && ada.name == "Ada L.")
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Wallet>()) == 0)
    }

    @Test func twoContainersOnOneDatabaseSeeEachOthersSaves() throws {
        let database = try TestDatabase()
        let first = try database.container(allModels)
        let second = try database.container(allModels)
        #expect(first.storeIdentifier(forConfigurationNamed: "default") == second.storeIdentifier(forConfigurationNamed: "default"))
        let writer = ModelContext(first)
        writer.insert(Wallet(handle: "ada", name: "Ada"))
        try writer.save()
        let reader = ModelContext(second)
        let ada = try #require(try reader.fetch(FetchDescriptor<Wallet>()).first)
        // Identifiers mean the same model in both.
        #expect(writer.model(for: ada.persistentModelID).persistentModelID == ada.persistentModelID)
    }

    @Test func eraseEmptiesEveryTable() throws {
        let database = try TestDatabase()
        let container = try database.container(allModels)
        let context = ModelContext(container)
        let ada = Wallet(handle: "ada", name: "Ada")
        context.insert(ada)
        ada.payments = [Payment(memo: "x", amount: 1)]
        try context.save()
        try container.erase()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Wallet>()) == 0)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Payment>()) == 0)
    }

    @Test func aDatabaseMadeForOtherModelsIsRefusedUntouched() throws {
        let database = try TestDatabase()
        _ = try database.container([Memo.self])
        #expect(throws: SwiftDataError.loadIssueModelContainer) { try database.container(allModels) }
    }
}

@Suite("PostgreSQL connections", .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct PostgresConnectionTests {
    @Test func aMissingDatabaseSaysSo() throws {
        var components = URLComponents(url: try #require(TestServer.url), resolvingAgainstBaseURL: false)!
        components.path = "/no_such_database_here"
        let error = try #require(throws: StowageError.self) {
            try ModelContainer(for: Wallet.self, configurations: PostgresConfiguration(url: components.url!))
        }
        #expect(error.code == .storeNotFound && error.message.contains("createdb"))
    }

    @Test func anUnknownUserSaysWhatToCheck() throws {
        var components = URLComponents(url: try #require(TestServer.url), resolvingAgainstBaseURL: false)!
        components.user = "nobody_at_all"
        let error = try #require(throws: StowageError.self) {
            try ModelContainer(for: Wallet.self, configurations: PostgresConfiguration(url: components.url!))
        }
        #expect(error.code == .connectionFailed && error.message.contains("nobody_at_all"))
    }

    @Test func aServerThatIsDownFailsWithinTheTimeout() throws {
        var configuration = try PostgresConfiguration(url: URL(string: "postgres://stowage@127.0.0.1:1/postgres")!)
        configuration.connectTimeout = .seconds(2)
        let start = Date()
        let error = try #require(throws: StowageError.self) { try ModelContainer(for: Wallet.self, configurations: configuration) }
        #expect(error.code == .connectionFailed)
        #expect(Date().timeIntervalSince(start) < 10)
    }

    @Test func aContextOnAnEventLoopFailsRatherThanHangs() throws {
        let database = try TestDatabase()
        let container = try database.container(allModels)
        let result = try MultiThreadedEventLoopGroup.singleton.next().submit { () -> StowageError? in
            do {
                _ = try ModelContext(container).fetchCount(FetchDescriptor<Wallet>())
                return nil
            } catch let error as StowageError {
                return error
            } catch {
                return nil
            }
        }.wait()
        #expect(result?.code == .blocksEventLoop)
    }

    @Test func urlForms() throws {
        let tcp = try PostgresConfiguration(url: URL(string: "postgresql://app:s%40cret@db.internal:6543/trips?pool_max_conns=3")!)
        #expect(tcp.endpoint == .tcp(host: "db.internal", port: 6543))
        #expect(tcp.username == "app" && tcp.password == "s@cret" && tcp.database == "trips" && tcp.maximumConnections == 3)
        let socket = try PostgresConfiguration(url: URL(string: "postgres://app@/trips?host=/run/postgresql")!)
        #expect(socket.endpoint == .unixSocket(path: "/run/postgresql/.s.PGSQL.5432"))
        #expect(throws: StowageError.self) { try PostgresConfiguration(url: URL(string: "mysql://app@db/trips")!) }
        #expect(throws: StowageError.self) { try PostgresConfiguration(url: URL(string: "postgres://app@db")!) }
    }
}
