import Foundation
import GRDB
import ReopenFixtures
import Stowage
import Testing

/// SwiftData's class inheritance (iOS 26), with the trips of Apple's "Adopting inheritance in SwiftData":
/// `Trip`, `BusinessTrip: Trip`, `PersonalTrip: Trip` and `InternationalTrip: BusinessTrip`
/// (`InheritanceFixtures`).
@Suite struct InheritanceTests {
    static let allTypes = ["Trip", "BusinessTrip", "PersonalTrip", "InternationalTrip", "BucketListItem", "Traveller"]

    private func filled() throws -> (ModelContainer, ModelContext) {
        let container = try ModelContainer(
            for: Trip.self, BusinessTrip.self, PersonalTrip.self, InternationalTrip.self,
            configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        try InheritanceFixtures.fill(container)
        let context = ModelContext(container)
        context.requiresSQLTranslation = true  // every predicate below must run in SQL
        return (container, context)
    }

    @Test func theSchemaDescribesTheHierarchy() throws {
        let schema = Schema([PersonalTrip.self, InternationalTrip.self])
        let trip = try #require(schema.entity(for: Trip.self), "a model's superclass is part of the schema")
        let business = try #require(schema.entity(for: BusinessTrip.self))
        let international = try #require(schema.entity(for: InternationalTrip.self))
        let personal = try #require(schema.entity(for: PersonalTrip.self))
        #expect(trip.superentity == nil)
        #expect(business.superentity === trip && business.superentityName == "Trip")
        #expect(international.superentity === business)
        #expect(trip.subentities == [business, personal])
        #expect(business.subentities == [international])
        #expect(business.inheritedProperties.map(\.name) == trip.properties.map(\.name))
        #expect(Set(business.inheritedPropertiesByName.keys) == Set(trip.storedPropertiesByName.keys))
        #expect(business.properties.map(\.name).suffix(2) == ["perdiem", "client"])
        #expect(international.properties.map(\.name).last == "country")
        #expect(personal.inheritedProperties.count == trip.properties.count)
        #expect(trip.inheritedProperties.isEmpty)
    }

    @Test func fetchingTheSuperclassReturnsEveryClassAndASubclassOnlyItsOwn() throws {
        let (_, context) = try filled()
        let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map { "\(type(of: $0))" } == ["InternationalTrip", "PersonalTrip", "BusinessTrip", "Trip"])
        let business = try context.fetch(FetchDescriptor<BusinessTrip>(sortBy: [SortDescriptor(\.perdiem)]))
        #expect(business.map(\.name) == ["Summit", "Expo"])
        #expect(business.last is InternationalTrip)
        #expect(try context.fetch(FetchDescriptor<PersonalTrip>()).map(\.reason) == [.reunion])
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 4)
        #expect(try context.fetchCount(FetchDescriptor<BusinessTrip>()) == 2)
        #expect(try context.fetchCount(FetchDescriptor<InternationalTrip>()) == 1)
        // One object per row, whichever class it was fetched through.
        #expect(business.first === trips.first { $0.name == "Summit" })
        // Identifiers name the row's own class, and find it again.
        let id = try #require(business.last).persistentModelID
        #expect(id.entityName == "InternationalTrip")
        #expect(ModelContext(context.container).model(for: id) is InternationalTrip)
        let identifiers = try context.fetchIdentifiers(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(identifiers == trips.map(\.persistentModelID))
        #expect(identifiers.map(\.entityName) == ["InternationalTrip", "PersonalTrip", "BusinessTrip", "Trip"])
    }

    @Test func isAndAsRunInSQL() throws {
        let (_, context) = try filled()
        func names(_ predicate: Predicate<Trip>) throws -> [String] {
            try context.fetch(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.name)])).map(\.name)
        }
        #expect(try names(#Predicate { $0 is BusinessTrip }) == ["Expo", "Summit"])
        #expect(try names(#Predicate { $0 is InternationalTrip }) == ["Expo"])
        #expect(try names(#Predicate { !($0 is BusinessTrip) }) == ["Reunion", "Weekend"])
        #expect(try names(#Predicate { ($0 as? BusinessTrip)?.perdiem ?? 0 > 100 }) == ["Expo"])
        #expect(try names(#Predicate { trip in
            if let business = trip as? BusinessTrip { return business.perdiem < 100 } else { return false }
        }) == ["Summit"])
        // A superclass property through a cast is nil for the other classes.
        #expect(try names(#Predicate { ($0 as? PersonalTrip)?.destination == "Porto" }) == ["Reunion"])
        #expect(try names(#Predicate { ($0 as? PersonalTrip)?.destination == "Berlin" }) == [])
        let reunion = PersonalTrip.Reason.reunion
        #expect(try names(#Predicate { ($0 as? PersonalTrip)?.reason == reunion }) == ["Reunion"])
        // Through a to-one relationship whose destination is the superclass.
        let items = try context.fetch(FetchDescriptor<BucketListItem>(
            predicate: #Predicate { $0.trip is BusinessTrip }, sortBy: [SortDescriptor(\.title)]))
        #expect(items.map(\.title) == ["See Berlin", "See Osaka"])
        // Predicates of a subclass fetch name inherited and own properties.
        let business = try context.fetch(FetchDescriptor<BusinessTrip>(predicate: #Predicate { $0.destination == "Osaka" && $0.perdiem > 100 }))
        #expect(business.map(\.name) == ["Expo"])
    }

    @Test func sortingOnASuperclassPropertyMixesTheClasses() throws {
        let (_, context) = try filled()
        var descriptor = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.destination, order: .reverse)])
        descriptor.fetchLimit = 3
        #expect(try context.fetch(descriptor).map(\.destination) == ["Porto", "Osaka", "Lyon"])
        // An unsaved subclass model joins the results in its place.
        context.insert(PersonalTrip(name: "Spa", destination: "Merano", reason: .wellness))
        let all = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.destination)]))
        #expect(all.map(\.destination) == ["Berlin", "Lyon", "Merano", "Osaka", "Porto"])
        #expect(try context.fetch(FetchDescriptor<PersonalTrip>()).count == 2)
        #expect(try context.fetch(FetchDescriptor<BusinessTrip>()).count == 2)
    }

    @Test func relationshipsToTheSuperclassHoldSubclassInstances() throws {
        let (container, _) = try filled()
        let context = ModelContext(container)
        let ada = try #require(try context.fetch(FetchDescriptor<Traveller>()).first)
        #expect(ada.trips.map { "\(type(of: $0))" } == ["Trip", "BusinessTrip", "PersonalTrip", "InternationalTrip"])
        let osaka = try #require(try context.fetch(FetchDescriptor<BucketListItem>(predicate: #Predicate { $0.title == "See Osaka" })).first)
        let expo = try #require(osaka.trip as? InternationalTrip)
        #expect(expo.country == "Japan" && expo.perdiem == 120)
        #expect(expo.traveller === ada)
        // Moving a subclass instance between owners keeps both sides in step and saves.
        let bob = Traveller(name: "Bob")
        context.insert(bob)
        bob.trips.append(expo)
        #expect(!ada.trips.contains { $0 === expo })
        expo.bucketList.append(BucketListItem(title: "Visit Kyoto"))
        try context.save()
        let fresh = ModelContext(container)
        let bobAgain = try #require(try fresh.fetch(FetchDescriptor<Traveller>(predicate: #Predicate { $0.name == "Bob" })).first)
        let trip = try #require(bobAgain.trips.first as? InternationalTrip)
        #expect(trip.bucketList.map(\.title).sorted() == ["See Osaka", "Visit Kyoto"])
        // Cascade from a subclass instance through an inherited relationship.
        fresh.delete(trip)
        try fresh.save()
        #expect(try fresh.fetchCount(FetchDescriptor<BucketListItem>()) == 3)
    }

    @Test func deleteWithOrWithoutSubclasses() throws {
        let (_, context) = try filled()
        try context.delete(model: BusinessTrip.self, includeSubclasses: false)
        try context.save()
        #expect(try context.fetch(FetchDescriptor<BusinessTrip>()).map(\.name) == ["Expo"])
        try context.delete(model: Trip.self, where: #Predicate { $0.destination != "Lyon" })
        try context.save()
        #expect(try context.fetch(FetchDescriptor<Trip>()).map { "\(type(of: $0)) \($0.name)" } == ["Trip Weekend"])
    }

    @Test func changesToInheritedAndOwnPropertiesAreSaved() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        try InheritanceFixtures.fill(InheritanceFixtures.open(url, types: Self.allTypes))
        do {
            let context = ModelContext(try InheritanceFixtures.open(url, types: Self.allTypes))
            let summit = try #require(try context.fetch(FetchDescriptor<BusinessTrip>(predicate: #Predicate { $0.name == "Summit" })).first)
            summit.destination = "Hamburg"
            summit.perdiem = 95
            summit.client = nil
            try context.save()
        }
        let context = ModelContext(try InheritanceFixtures.open(url, types: Self.allTypes.reversed()))
        let trip = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Summit" })).first as? BusinessTrip)
        #expect(trip.destination == "Hamburg" && trip.perdiem == 95 && trip.client == nil)
    }

    @Test func theRowsAreReadableInTheSQLiteShell() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        try InheritanceFixtures.fill(InheritanceFixtures.open(url, types: Self.allTypes))
        let rows = try DatabaseQueue(path: url.path).read { db in
            try GRDB.Row.fetchAll(db, sql: "SELECT _entity, name, perdiem, country, reason FROM Trip ORDER BY _pk")
        }
        #expect(rows.map { $0[0] as String } == ["Trip", "BusinessTrip", "PersonalTrip", "InternationalTrip"])
        #expect(rows.map { $0[2] as Double? } == [nil, 80, nil, 120])
        #expect(rows.map { $0[4] as String? } == [nil, nil, "reunion", nil])
        // One table for the hierarchy: the subclasses have none of their own.
        let tables = try DatabaseQueue(path: url.path).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%Trip%' ORDER BY name")
        }
        #expect(tables == ["Trip", "Trip_bucketList"] || tables == ["Trip"])
    }

    @Test func reopensInFreshProcessesWithTheModelsInAnotherOrder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        let reopen = ReopenTests()
        let created = try reopen.probe("trips-create", url, Self.allTypes)
        #expect(created.status == 0)
        #expect(created.output.contains("InternationalTrip Expo Osaka perdiem=120.0 client=- country=Japan items=See Osaka traveller=Ada"))
        for order in [Self.allTypes.reversed(), ["PersonalTrip", "InternationalTrip", "Traveller"], ["BucketListItem", "InternationalTrip", "PersonalTrip"]] {
            #expect(try reopen.probe("trips-read", url, Array(order)) == created, "order \(order)")
        }
        // And this process reads what the others wrote.
        #expect(try InheritanceFixtures.summary(InheritanceFixtures.open(url, types: ["PersonalTrip", "InternationalTrip", "Traveller"])) == created.output)
    }

    @Test func aMigrationAddsSubclassesToAStoreOfTheSuperclass() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        do {
            // Before the subclasses existed: a store of trips.
            let container = try ModelContainer(for: Trip.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(Trip(name: "Weekend", destination: "Lyon"))
            try context.save()
        }
        do {
            let container = try InheritanceFixtures.open(url, types: Self.allTypes)
            let context = ModelContext(container)
            #expect(try context.fetch(FetchDescriptor<Trip>()).map { "\(type(of: $0)) \($0.name)" } == ["Trip Weekend"])
            context.insert(BusinessTrip(name: "Summit", destination: "Berlin", perdiem: 80))
            try context.save()
        }
        let context = ModelContext(try InheritanceFixtures.open(url, types: ["PersonalTrip", "InternationalTrip"]))
        #expect(try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map { "\(type(of: $0)) \($0.name)" }
            == ["BusinessTrip Summit", "Trip Weekend"])
    }

    @Test func aSchemaWithoutTheSubclassesOfStoredRowsIsRefusedAndTheStoreKept() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        try InheritanceFixtures.fill(InheritanceFixtures.open(url, types: Self.allTypes))
        let before = try DatabaseQueue(path: url.path).read { try GRDB.Row.fetchAll($0, sql: "SELECT * FROM Trip ORDER BY _pk") }
        let error = #expect(throws: StowageError.self) {
            _ = try ModelContainer(for: Trip.self, Traveller.self, configurations: ModelConfiguration(url: url))
        }
        #expect(error?.code == .schemaMismatch)
        #expect(error?.message.contains("which the schema does not list") == true)
        let after = try DatabaseQueue(path: url.path).read { try GRDB.Row.fetchAll($0, sql: "SELECT * FROM Trip ORDER BY _pk") }
        #expect(after == before)
    }

    @Test func anObserverOfTheSuperclassSeesASubclassSavedElsewhere() async throws {
        let (container, context) = try filled()
        let observer = try ResultsObserver(
            fetchDescriptor: FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]), modelContext: context)
        #expect(observer.results.count == 4)
        let other = ModelContext(container)
        other.insert(InternationalTrip(name: "Fair", destination: "Milan", perdiem: 90, country: "Italy"))
        try other.save()
        var seen = false
        for _ in 0..<500 where !seen {
            seen = observer.results.map(\.name).contains("Fair")
            if !seen { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(seen)
        #expect(observer.results.first { $0.name == "Fair" } is InternationalTrip)
    }

    /// The WWDC25 session's path: trips flagged as business trips become instances of a new subclass, by
    /// a custom stage of a migration plan.
    @Test func aMigrationPlanTurnsFlaggedRowsIntoSubclassInstances() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        do {
            let container = try ModelContainer(for: Schema(versionedSchema: TripsV1.self), configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(TripsV1.Trip(name: "Summit", isBusinessTrip: true))
            context.insert(TripsV1.Trip(name: "Weekend", isBusinessTrip: false))
            try context.save()
        }
        let container = try ModelContainer(
            for: Schema(versionedSchema: TripsV2.self), migrationPlan: TripsPlan.self, configurations: ModelConfiguration(url: url))
        let trips = try ModelContext(container).fetch(FetchDescriptor<TripsV2.Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(trips.map { "\(type(of: $0)) \($0.name)" } == ["BusinessTrip Summit", "Trip Weekend"])
        #expect((trips.first as? TripsV2.BusinessTrip)?.perdiem == 50)
    }
}

extension InheritanceTests {
    @Test func anotherContextsSaveOfASubclassRefreshesItsModelsHere() throws {
        let (container, context) = try filled()
        let summit = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Summit" })).first as? BusinessTrip)
        let other = ModelContext(container)
        let same = try #require(try other.fetch(FetchDescriptor<BusinessTrip>(predicate: #Predicate { $0.name == "Summit" })).first)
        same.perdiem = 99
        same.destination = "Bonn"
        try other.save()
        _ = try context.fetchCount(FetchDescriptor<Trip>())  // takes in the other context's save
        #expect(summit.perdiem == 99 && summit.destination == "Bonn")
        other.delete(same)
        try other.save()
        #expect(try context.fetch(FetchDescriptor<BusinessTrip>()).map(\.name) == ["Expo"])
        container.deleteAllData()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Trip>()) == 0)
    }
}

/// A hierarchy written with SwiftData's untyped spellings.
@Model
class Vehicle {
    var maker = ""
    var wheels = 4
    init(maker: String) { self.maker = maker }
}

@Model
final class Truck: Vehicle {
    var payload = 0.0
    var tags = Set<String>()
    init(maker: String, payload: Double) {
        self.payload = payload
        super.init(maker: maker)
    }
}

extension InheritanceTests {
    @Test func untypedPropertiesOfASubclassAreStored() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        do {
            let context = ModelContext(try ModelContainer(for: Vehicle.self, Truck.self, configurations: ModelConfiguration(url: url)))
            let truck = Truck(maker: "Volvo", payload: 12.5)
            truck.tags = ["heavy"]
            context.insert(truck)
            context.insert(Vehicle(maker: "Fiat"))
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Truck.self, configurations: ModelConfiguration(url: url)))
        let vehicles = try context.fetch(FetchDescriptor<Vehicle>(sortBy: [SortDescriptor(\.maker)]))
        #expect(vehicles.map { "\(type(of: $0)) \($0.maker) \($0.wheels)" } == ["Vehicle Fiat 4", "Truck Volvo 4"])
        let truck = try #require(vehicles.last as? Truck)
        #expect(truck.payload == 12.5 && truck.tags == ["heavy"])
    }
}

enum TripsV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model
    final class Trip {
        var name: String
        var isBusinessTrip: Bool = false

        init(name: String, isBusinessTrip: Bool) {
            self.name = name
            self.isBusinessTrip = isBusinessTrip
        }
    }
}

enum TripsV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [Trip.self, BusinessTrip.self] }

    @Model
    class Trip {
        var name: String

        init(name: String) { self.name = name }
    }

    @Model
    final class BusinessTrip: Trip {
        var perdiem: Double = 0

        init(name: String, perdiem: Double) {
            self.perdiem = perdiem
            super.init(name: name)
        }
    }
}

enum TripsPlan: SchemaMigrationPlan {
    /// The names of the business trips, read before the flag goes away.
    nonisolated(unsafe) static var businessTrips: Set<String> = []

    static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self] }
    static var stages: [MigrationStage] {
        [.custom(
            fromVersion: TripsV1.self, toVersion: TripsV2.self,
            willMigrate: { context in
                businessTrips = Set(try context.fetch(FetchDescriptor<TripsV1.Trip>(predicate: #Predicate { $0.isBusinessTrip })).map(\.name))
            },
            didMigrate: { context in
                for trip in try context.fetch(FetchDescriptor<TripsV2.Trip>()) where businessTrips.contains(trip.name) {
                    context.insert(TripsV2.BusinessTrip(name: trip.name, perdiem: 50))
                    context.delete(trip)
                }
                try context.save()
            })]
    }
}
