// snippet.hide
// A custom data store: Stowage's models kept in a JSON file, as in Apple's WWDC24 sample "Create a
// custom data store with SwiftData".
// snippet.show
// snippet.models
import Foundation
import Stowage

@Model
class Trip {
    var name: String
    var destination: String
    var startDate: Date

    init(name: String, destination: String, startDate: Date) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
    }
}
// snippet.end

// snippet.store
/// What a container is created with: where the file is.
final class JSONStoreConfiguration: DataStoreConfiguration {
    typealias Store = JSONStore

    var name: String
    var schema: Schema?
    var fileURL: URL

    init(name: String, schema: Schema? = nil, fileURL: URL) {
        self.name = name
        self.schema = schema
        self.fileURL = fileURL
    }

    static func == (lhs: JSONStoreConfiguration, rhs: JSONStoreConfiguration) -> Bool { lhs.name == rhs.name }
    func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// The store: every model's snapshot in one JSON array.
final class JSONStore: DataStore {
    typealias Snapshot = DefaultSnapshot

    let configuration: JSONStoreConfiguration
    let schema: Schema
    let identifier: String

    init(_ configuration: JSONStoreConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws {
        self.configuration = configuration
        self.schema = configuration.schema!  // the container gives its schema to a configuration without one
        self.identifier = configuration.fileURL.lastPathComponent
    }

    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        // Leave the predicate and the sort to the context.
        if request.descriptor.predicate != nil { throw DataStoreError.preferInMemoryFilter }
        if !request.descriptor.sortBy.isEmpty { throw DataStoreError.preferInMemorySort }
        let all = try read()
        let entityName = Schema.entityName(for: T.self)
        let fetched = all.values.filter { $0.persistentIdentifier.entityName == entityName }
        return DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: fetched, relatedSnapshots: all)
    }

    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        var snapshots = try read()
        var remapped: [PersistentIdentifier: PersistentIdentifier] = [:]
        for snapshot in request.inserted {
            // A permanent identifier from the store's own key.
            let permanent = try PersistentIdentifier.identifier(
                for: identifier, entityName: snapshot.persistentIdentifier.entityName, primaryKey: UUID())
            remapped[snapshot.persistentIdentifier] = permanent
            snapshots[permanent] = snapshot.copy(persistentIdentifier: permanent)
        }
        for snapshot in request.updated { snapshots[snapshot.persistentIdentifier] = snapshot }
        for snapshot in request.deleted { snapshots[snapshot.persistentIdentifier] = nil }
        // References to models inserted in this save get their permanent identifiers too.
        snapshots = snapshots.mapValues { $0.copy(persistentIdentifier: $0.persistentIdentifier, remappedIdentifiers: remapped) }
        try write(snapshots)
        return DataStoreSaveChangesResult(for: identifier, remappedIdentifiers: remapped)
    }

    func erase() throws {
        try write([:])
    }

    private func read() throws -> [PersistentIdentifier: DefaultSnapshot] {
        guard let data = try? Data(contentsOf: configuration.fileURL) else { return [:] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let snapshots = try decoder.decode([DefaultSnapshot].self, from: data)
        return Dictionary(snapshots.map { ($0.persistentIdentifier, $0) }, uniquingKeysWith: { $1 })
    }

    private func write(_ snapshots: [PersistentIdentifier: DefaultSnapshot]) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(Array(snapshots.values)).write(to: configuration.fileURL, options: .atomic)
    }
}
// snippet.end

// snippet.hide
let fileURL = FileManager.default.temporaryDirectory.appendingPathComponent("trips-\(UUID().uuidString).json")
defer { try? FileManager.default.removeItem(at: fileURL) }
// snippet.show
// snippet.usage
let configuration = JSONStoreConfiguration(name: "Trips", fileURL: fileURL)
let container = try ModelContainer(for: Trip.self, configurations: configuration)
let context = ModelContext(container)
context.insert(Trip(name: "Camping", destination: "Yosemite", startDate: Date(timeIntervalSince1970: 1_719_446_400)))
context.insert(Trip(name: "Summit", destination: "Berlin", startDate: Date(timeIntervalSince1970: 1_720_000_000)))
try context.save()

// Another container reads the file; the predicate and the sort run in Swift.
let reopened = ModelContext(try ModelContainer(for: Trip.self, configurations: configuration))
let yosemite = try reopened.fetch(FetchDescriptor<Trip>(
    predicate: #Predicate { $0.destination == "Yosemite" }, sortBy: [SortDescriptor(\.startDate)]))
// snippet.end
// snippet.hide
precondition(yosemite.map(\.name) == ["Camping"])
let count = try reopened.fetchCount(FetchDescriptor<Trip>())
precondition(count == 2)
