import Foundation
import Stowage
import Testing

// Models of the custom-store tests: a bookcase of books, with a subclass.
@Model final class Bookcase {
    var label: String
    @Relationship(deleteRule: .cascade, inverse: \Volume.bookcase) var volumes: [Volume] = []
    init(label: String) { self.label = label }
}

@Model class Volume {
    var title: String
    var pages: Int
    var price: Decimal
    var added: Date
    var bookcase: Bookcase?
    init(title: String, pages: Int, price: Decimal = 0, added: Date = Date(timeIntervalSinceReferenceDate: 0)) {
        self.title = title
        self.pages = pages
        self.price = price
        self.added = added
    }
}

@Model class Atlas: Volume {
    var region: String
    init(title: String, pages: Int, region: String) {
        self.region = region
        super.init(title: title, pages: pages)
    }
}

/// A store that keeps snapshots in memory, shared by every store opened with the same name (a stand-in
/// for a file or a service), filters and sorts nothing, and records what it was asked.
final class MemoryStoreConfiguration: DataStoreConfiguration {
    typealias Store = MemoryStore
    let name: String
    var schema: Schema?
    /// Whether the next save throws.
    var failsNextSave = false
    init(name: String = UUID().uuidString, schema: Schema? = nil) {
        self.name = name
        self.schema = schema
    }
    static func == (lhs: MemoryStoreConfiguration, rhs: MemoryStoreConfiguration) -> Bool { lhs.name == rhs.name }
    func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

struct MemoryToken: Comparable, Hashable, Identifiable, Sendable {
    var id: Int
    static func < (lhs: MemoryToken, rhs: MemoryToken) -> Bool { lhs.id < rhs.id }
}

struct MemoryTransaction: HistoryTransaction {
    var id: Int { transactionIdentifier }
    var timestamp: Date
    var changes: [HistoryChange] { [] }
    var token: MemoryToken { MemoryToken(id: transactionIdentifier) }
    var transactionIdentifier: Int
    var storeIdentifier: String
    var author: String?
    var inserted: Int
}

final class MemoryStore: DataStore, HistoryProviding {
    typealias Snapshot = DefaultSnapshot
    nonisolated(unsafe) static var files: [String: [PersistentIdentifier: DefaultSnapshot]] = [:]
    nonisolated(unsafe) static var histories: [String: [MemoryTransaction]] = [:]
    let configuration: MemoryStoreConfiguration
    let schema: Schema
    var identifier: String { "memory-" + configuration.name }
    private(set) var fetches = 0

    init(_ configuration: MemoryStoreConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.configuration = configuration
        self.schema = configuration.schema!
    }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        if request.descriptor.predicate != nil { throw DataStoreError.preferInMemoryFilter }
        if !request.descriptor.sortBy.isEmpty { throw DataStoreError.preferInMemorySort }
        fetches += 1
        // Every model the store holds, of every entity: the context keeps the ones asked for.
        let all = Self.files[configuration.name] ?? [:]
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: Array(all.values))
    }

    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        if configuration.failsNextSave {
            configuration.failsNextSave = false
            throw CocoaError(.fileWriteNoPermission)
        }
        var file = Self.files[configuration.name] ?? [:]
        var remapped: [PersistentIdentifier: PersistentIdentifier] = [:]
        for snapshot in request.inserted {
            let key = (Self.histories[configuration.name]?.count ?? 0) * 1_000 + remapped.count + 1
            let permanent = try PersistentIdentifier.identifier(for: identifier, entityName: snapshot.persistentIdentifier.entityName, primaryKey: key)
            remapped[snapshot.persistentIdentifier] = permanent
            file[permanent] = snapshot.copy(persistentIdentifier: permanent)
        }
        for snapshot in request.updated { file[snapshot.persistentIdentifier] = snapshot }
        for snapshot in request.deleted { file[snapshot.persistentIdentifier] = nil }
        Self.files[configuration.name] = file.mapValues { $0.copy(persistentIdentifier: $0.persistentIdentifier, remappedIdentifiers: remapped) }
        let number = (Self.histories[configuration.name]?.count ?? 0) + 1
        Self.histories[configuration.name, default: []].append(MemoryTransaction(
            timestamp: Date(), transactionIdentifier: number, storeIdentifier: identifier,
            author: request.editingState.author, inserted: request.inserted.count))
        return DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: remapped)
    }

    func erase() throws { Self.files[configuration.name] = [:] }

    func fetchHistory(_ descriptor: HistoryDescriptor<MemoryTransaction>) throws -> [MemoryTransaction] {
        let all = Self.histories[configuration.name] ?? []
        guard let predicate = descriptor.predicate else { return all }
        return try all.filter { try predicate.evaluate($0) }
    }

    func deleteHistory(_ descriptor: HistoryDescriptor<MemoryTransaction>) throws {
        let doomed = Set(try fetchHistory(descriptor).map(\.transactionIdentifier))
        Self.histories[configuration.name]?.removeAll { doomed.contains($0.transactionIdentifier) }
    }
}

/// A custom store that wraps Stowage's own store (`DefaultStore`), through the protocol.
final class WrappingConfiguration: DataStoreConfiguration {
    typealias Store = WrappingStore
    let name = "wrapping"
    var schema: Schema?
    let url: URL
    init(url: URL) { self.url = url }
    static func == (lhs: WrappingConfiguration, rhs: WrappingConfiguration) -> Bool { lhs.url == rhs.url }
    func hash(into hasher: inout Hasher) { hasher.combine(url) }
}

final class WrappingStore: DataStore {
    typealias Snapshot = DefaultSnapshot
    let configuration: WrappingConfiguration
    let inner: DefaultStore
    var schema: Schema { inner.schema }
    var identifier: String { inner.identifier }
    init(_ configuration: WrappingConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.configuration = configuration
        inner = try DefaultStore(ModelConfiguration(schema: configuration.schema!, url: configuration.url))
    }
    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> { try inner.fetch(request) }
    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> { try inner.save(request) }
    func erase() throws { try inner.erase() }
}

@Suite("Custom data stores")
struct CustomDataStoreTests {
    private func container(_ configuration: MemoryStoreConfiguration, _ types: [any PersistentModel.Type] = [Bookcase.self, Volume.self, Atlas.self]) throws -> ModelContainer {
        try ModelContainer(for: Schema(types), configurations: [configuration])
    }

    private func filled(_ configuration: MemoryStoreConfiguration) throws {
        let context = ModelContext(try container(configuration))
        let bookcase = Bookcase(label: "Travel")
        context.insert(bookcase)
        bookcase.volumes.append(Volume(title: "Lyon", pages: 120, price: Decimal(string: "12.34")!))
        bookcase.volumes.append(Atlas(title: "Alps", pages: 300, region: "Europe"))
        bookcase.volumes.append(Volume(title: "Oslo", pages: 80))
        context.insert(Volume(title: "Loose", pages: 10))
        try context.save()
    }

    @Test func predicatesSortsLimitsAndSubclassesOverAStoreThatReturnsEverything() throws {
        let configuration = MemoryStoreConfiguration()
        try filled(configuration)
        // Another container, the models listed in another order.
        let context = ModelContext(try container(configuration, [Atlas.self, Volume.self, Bookcase.self]))
        var descriptor = FetchDescriptor<Volume>(predicate: #Predicate { $0.pages >= 80 }, sortBy: [SortDescriptor(\.title)])
        #expect(try context.fetch(descriptor).map(\.title) == ["Alps", "Lyon", "Oslo"])
        descriptor.fetchOffset = 1
        descriptor.fetchLimit = 1
        #expect(try context.fetch(descriptor).map(\.title) == ["Lyon"])
        #expect(try context.fetch(FetchDescriptor<Atlas>()).map(\.region) == ["Europe"])
        #expect(try context.fetch(FetchDescriptor<Volume>(predicate: #Predicate { $0.title == "Alps" })).first is Atlas)
        #expect(try context.fetchCount(FetchDescriptor<Volume>()) == 4)
        #expect(try context.fetchCount(FetchDescriptor<Bookcase>()) == 1)
        #expect(try context.fetchIdentifiers(FetchDescriptor<Volume>(predicate: #Predicate { $0.bookcase == nil })).count == 1)
        let lyon = try #require(try context.fetch(FetchDescriptor<Volume>(predicate: #Predicate { $0.title == "Lyon" })).first)
        #expect(lyon.price == Decimal(string: "12.34")!)
        #expect(lyon.bookcase?.label == "Travel")
        #expect(lyon.bookcase?.volumes.map(\.title) == ["Lyon", "Alps", "Oslo"])
    }

    @Test func enumerationAndBatchedFetchesPageThroughTheStore() throws {
        let configuration = MemoryStoreConfiguration()
        try filled(configuration)
        let context = ModelContext(try container(configuration))
        var titles: [String] = []
        try context.enumerate(FetchDescriptor<Volume>(sortBy: [SortDescriptor(\.pages)]), batchSize: 2) { titles.append($0.title) }
        #expect(titles == ["Loose", "Oslo", "Lyon", "Alps"])
        let batched = try context.fetch(FetchDescriptor<Volume>(sortBy: [SortDescriptor(\.title, order: .reverse)]), batchSize: 3)
        #expect(batched.map(\.title) == ["Oslo", "Lyon", "Loose", "Alps"])
    }

    @Test func aFailedSaveWritesNothingAndKeepsTheChanges() throws {
        let configuration = MemoryStoreConfiguration()
        try filled(configuration)
        let context = ModelContext(try container(configuration))
        let oslo = try #require(try context.fetch(FetchDescriptor<Volume>(predicate: #Predicate { $0.title == "Oslo" })).first)
        oslo.pages = 81
        context.insert(Bookcase(label: "New"))
        configuration.failsNextSave = true
        #expect(throws: CocoaError.self) { try context.save() }
        #expect(context.hasChanges && oslo.pages == 81)
        #expect(try ModelContext(try container(configuration)).fetchCount(FetchDescriptor<Bookcase>()) == 1)
        try context.save()
        let reread = ModelContext(try container(configuration))
        #expect(try reread.fetchCount(FetchDescriptor<Bookcase>()) == 2)
        #expect(try reread.fetch(FetchDescriptor<Volume>(predicate: #Predicate { $0.title == "Oslo" })).first?.pages == 81)
    }

    @Test func identifiersFromTheStoresKeys() throws {
        let one = try PersistentIdentifier.identifier(for: "store", entityName: "Volume", primaryKey: 7)
        #expect(one == (try PersistentIdentifier.identifier(for: "store", entityName: "Volume", primaryKey: 7)))
        #expect(one != (try PersistentIdentifier.identifier(for: "store", entityName: "Volume", primaryKey: 8)))
        #expect(one != (try PersistentIdentifier.identifier(for: "store", entityName: "Volume", primaryKey: "7")))
        #expect(one != (try PersistentIdentifier.identifier(for: "other", entityName: "Volume", primaryKey: 7)))
        #expect(one.primaryKey == nil && !one.isTemporary && one.description == "Volume/7")
        let decoded = try JSONDecoder().decode(PersistentIdentifier.self, from: JSONEncoder().encode(one))
        #expect(decoded == one && decoded.hashValue == one.hashValue)
        #expect(!String(decoding: try JSONEncoder().encode(one), as: UTF8.self).contains("-9223372036854775"))
    }

    @Test func historyComesFromAStoreThatProvidesIt() throws {
        let configuration = MemoryStoreConfiguration()
        try filled(configuration)
        let context = ModelContext(try container(configuration))
        context.author = "importer"
        context.insert(Bookcase(label: "Poetry"))
        try context.save()
        let history = try context.fetchHistory(HistoryDescriptor<MemoryTransaction>())
        #expect(history.map(\.inserted) == [5, 1])
        #expect(history.last?.author == "importer")
        try context.deleteHistory(HistoryDescriptor<MemoryTransaction>(predicate: #Predicate { $0.transactionIdentifier == 1 }))
        #expect(try context.fetchHistory(HistoryDescriptor<MemoryTransaction>()).count == 1)
        #expect(throws: SwiftDataError.invalidTransactionFetchRequest) {
            try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        }
    }

    @Test func eraseEmptiesTheStore() throws {
        let configuration = MemoryStoreConfiguration()
        try filled(configuration)
        let container = try container(configuration)
        try container.erase()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Volume>()) == 0)
    }

    @Test func aCustomStoreBesideAnotherConfigurationIsRefused() throws {
        let custom = MemoryStoreConfiguration(schema: Schema([Bookcase.self, Volume.self]))
        let other = ModelConfiguration(isStoredInMemoryOnly: true)
        #expect(throws: SwiftDataError.duplicateConfiguration) {
            try ModelContainer(for: Schema([Bookcase.self, Volume.self]), configurations: [custom, other])
        }
    }

    @Test func stowagesOwnStoreThroughTheProtocol() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        do {
            let context = ModelContext(try ModelContainer(for: Bookcase.self, Volume.self, Atlas.self, configurations: WrappingConfiguration(url: url)))
            let bookcase = Bookcase(label: "Maps")
            context.insert(bookcase)
            bookcase.volumes = [Atlas(title: "Andes", pages: 200, region: "South America"), Volume(title: "Quito", pages: 90)]
            try context.save()
            bookcase.label = "Atlases"
            try context.save()
        }
        // The SQLite file, read as Stowage reads it, with the models in another order.
        let context = ModelContext(try ModelContainer(for: Atlas.self, Volume.self, Bookcase.self, configurations: ModelConfiguration(url: url)))
        let bookcase = try #require(try context.fetch(FetchDescriptor<Bookcase>()).first)
        #expect(bookcase.label == "Atlases")
        #expect(bookcase.volumes.map(\.title) == ["Andes", "Quito"])
        #expect((bookcase.volumes.first as? Atlas)?.region == "South America")
        #expect(bookcase.volumes.allSatisfy { $0.bookcase === bookcase })
    }

    @Test func liveResultsFollowSavesThroughTheStore() async throws {
        let configuration = MemoryStoreConfiguration()
        try filled(configuration)
        let container = try container(configuration)
        let observer = try ResultsObserver(
            fetchDescriptor: FetchDescriptor<Volume>(predicate: #Predicate { $0.pages > 50 }, sortBy: [SortDescriptor(\.title)]),
            modelContext: ModelContext(container))
        #expect(observer.results.map(\.title) == ["Alps", "Lyon", "Oslo"])
        let other = ModelContext(container)
        other.insert(Volume(title: "Bergen", pages: 60))
        try other.save()
        var titles: [String] = []
        for _ in 0..<500 {
            titles = observer.results.map(\.title)
            if titles.contains("Bergen") { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(titles == ["Alps", "Bergen", "Lyon", "Oslo"])
    }
}
