#if !canImport(Darwin)
import Foundation
import SwiftData
import Testing

/// Apple's JSON store sample, used as the sample's app uses it: a container over a JSON file.
@Suite("SampleTrips: a custom JSON data store")
struct SampleTripsTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sampletrips-\(UUID().uuidString)")
    var fileURL: URL { directory.appendingPathComponent("trips_data") }
    /// The file stores dates as ISO 8601, to the second.
    let june27 = Date(timeIntervalSince1970: 1_719_446_400)

    init() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    private func container(_ types: [any PersistentModel.Type] = [Trip.self]) throws -> ModelContainer {
        let configuration = JSONStoreConfiguration(name: "trips_v1", schema: Schema(types), fileURL: fileURL)
        return try ModelContainer(for: Schema(types), configurations: [configuration])
    }

    private func savedTrips() throws {
        let modelContainer = try ModelContainer(
            for: Trip.self, configurations: JSONStoreConfiguration(name: "trips_v1", schema: Schema([Trip.self]), fileURL: fileURL))
        let context = ModelContext(modelContainer)
        let camping = Trip(name: "Camping!", destination: "Yosemite", startDate: june27, endDate: june27.addingTimeInterval(4 * 86_400))
        let falls = Trip(name: "Bridalveil Falls", destination: "Yosemite", startDate: june27.addingTimeInterval(86_400), endDate: june27.addingTimeInterval(86_400))
        let tokyo = Trip(name: "Tokyo", destination: "Japan", startDate: june27.addingTimeInterval(30 * 86_400), endDate: june27.addingTimeInterval(40 * 86_400))
        context.insert(camping)
        context.insert(falls)
        context.insert(tokyo)
        let halfDome = BucketListItem(title: "See Half Dome", details: "try to climb Half Dome", hasReservation: true, isInPlan: false)
        let picture = BucketListItem(title: "Picture at the falls", details: "get a lot of them!", hasReservation: true, isInPlan: false)
        camping.bucketList.append(halfDome)
        camping.bucketList.append(picture)
        camping.livingAccommodation = LivingAccommodation(address: "Yosemite National Park, CA 95389", name: "Yosemite", isConfirmed: true)
        try context.save()
        #expect(!camping.persistentModelID.isTemporary && camping.persistentModelID.storeIdentifier == "trips_data")
        #expect(halfDome.trip === camping)
    }

    @Test func savesEveryModelInTheJSONFile() throws {
        try savedTrips()
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: fileURL)) as! [[String: Any]]
        #expect(json.count == 6)
        let trips = json.filter { ($0["name"] as? String) == "Camping!" }
        #expect(trips.count == 1)
        // Dates go through the encoder's date strategy, here ISO 8601.
        #expect((trips[0]["startDate"] as? [String: String])?["date"] == "2024-06-27T00:00:00Z")
        #expect((trips[0]["bucketList"] as? [String: [Any]])?["references"]?.count == 2)
    }

    @Test func reopensWithRelationshipsFiltersAndSorts() throws {
        try savedTrips()
        // A new container, with the models listed in another order.
        let container = try container([LivingAccommodation.self, BucketListItem.self, Trip.self])
        let context = ModelContext(container)
        // The store prefers in-memory filtering and sorting: the context does both.
        let yosemite = try context.fetch(FetchDescriptor<Trip>(
            predicate: #Predicate { $0.destination == "Yosemite" }, sortBy: [SortDescriptor(\.startDate, order: .reverse)]))
        #expect(yosemite.map(\.name) == ["Bridalveil Falls", "Camping!"])
        let camping = yosemite[1]
        #expect(camping.startDate == june27)
        #expect(Set(camping.bucketList.map(\.title)) == ["See Half Dome", "Picture at the falls"])
        #expect(camping.livingAccommodation?.name == "Yosemite")
        #expect(camping.bucketList.allSatisfy { $0.trip === camping })
        #expect(try context.fetchCount(FetchDescriptor<BucketListItem>()) == 2)
        var firstTwo = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])
        firstTwo.fetchLimit = 2
        #expect(try context.fetch(firstTwo).map(\.name) == ["Bridalveil Falls", "Camping!"])
        // Identifiers survive encoding and lead back to the same model.
        let encoded = try JSONEncoder().encode(camping.persistentModelID)
        let decoded = try JSONDecoder().decode(PersistentIdentifier.self, from: encoded)
        #expect(decoded == camping.persistentModelID)
        #expect(context.model(for: decoded) === camping)
        #expect(ModelContext(container).model(for: decoded).persistentModelID == decoded)
    }

    @Test func updatesAndCascadingDeletesReachTheFile() throws {
        try savedTrips()
        do {
            let context = ModelContext(try container())
            let camping = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Camping!" })).first)
            camping.destination = "Yosemite Valley"
            try context.save()
            let tokyo = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Tokyo" })).first)
            tokyo.bucketList.append(BucketListItem(title: "Sushi", details: "Tsukiji", hasReservation: false, isInPlan: true))
            try context.save()
        }
        do {
            let context = ModelContext(try container())
            let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
            #expect(trips.map(\.destination) == ["Yosemite", "Yosemite Valley", "Japan"])
            #expect(trips[2].bucketList.map(\.title) == ["Sushi"])
            context.delete(trips[1])  // Camping! cascades to its items and its accommodation
            try context.save()
        }
        let context = ModelContext(try container())
        #expect(try context.fetch(FetchDescriptor<Trip>()).count == 2)
        #expect(try context.fetch(FetchDescriptor<BucketListItem>()).map(\.title) == ["Sushi"])
        #expect(try context.fetchCount(FetchDescriptor<LivingAccommodation>()) == 0)
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: fileURL)) as! [[String: Any]]
        #expect(json.count == 3)
    }

    @Test func unsavedChangesTakePartInFetches() throws {
        try savedTrips()
        let context = ModelContext(try container())
        context.insert(Trip(name: "Oslo", destination: "Norway", startDate: june27, endDate: june27))
        let falls = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Bridalveil Falls" })).first)
        context.delete(falls)
        let names = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map(\.name)
        #expect(names == ["Camping!", "Oslo", "Tokyo"])
        context.rollback()
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 3)
    }

    @Test func aStoreThatGivesNoPermanentIdentifierFailsTheSave() throws {
        let container = try ModelContainer(for: Trip.self, configurations: ForgetfulConfiguration())
        let context = ModelContext(container)
        let trip = Trip(name: "Nowhere", destination: "?")
        context.insert(trip)
        #expect(throws: SwiftDataError.self) { try context.save() }
        #expect(trip.persistentModelID.isTemporary)
        #expect(context.hasChanges)
    }
}

/// A store whose save forgets to remap inserted identifiers.
final class ForgetfulConfiguration: DataStoreConfiguration {
    typealias Store = ForgetfulStore
    var name = "forgetful"
    var schema: Schema?
    static func == (lhs: ForgetfulConfiguration, rhs: ForgetfulConfiguration) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}

final class ForgetfulStore: DataStore {
    typealias Snapshot = DefaultSnapshot
    let configuration: ForgetfulConfiguration
    var identifier: String { "forgetful" }
    var schema: Schema { configuration.schema! }
    init(_ configuration: ForgetfulConfiguration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws { self.configuration = configuration }
    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, DefaultSnapshot> {
        DataStoreFetchResult(descriptor: request.descriptor, fetchedSnapshots: [])
    }
    func save(_ request: DataStoreSaveChangesRequest<DefaultSnapshot>) throws -> DataStoreSaveChangesResult<DefaultSnapshot> {
        DataStoreSaveChangesResult(for: identifier)
    }
}
#endif
