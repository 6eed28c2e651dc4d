import Foundation
import GRDB
import ReopenFixtures
import Stowage
import Testing

// Class inheritance and shared inverses at their edges: uniqueness, upserts across classes, other
// contexts' saves, history, migrations of subclasses, undo, partial fetches. Each test states what
// SwiftData (or a user) expects.

// MARK: - Models (prefixed Rv to stay clear of the module's other models)

/// A root with a `#Unique` group over two of its attributes, and a subclass.
@Model
class RvAccount {
    #Unique<RvAccount>([\.region, \.number])
    var region: String
    var number: Int
    var holder: String = ""
    init(region: String, number: Int, holder: String) {
        self.region = region
        self.number = number
        self.holder = holder
    }
}

@Model
final class RvSavings: RvAccount {
    var rate: Double = 0
    init(region: String, number: Int, holder: String, rate: Double) {
        self.rate = rate
        super.init(region: region, number: number, holder: holder)
    }
}

/// A root with a `.unique` attribute, and a subclass.
@Model
class RvBadge {
    @Attribute(.unique) var code: String
    var label: String
    init(code: String, label: String) {
        self.code = code
        self.label = label
    }
}

@Model
final class RvGoldBadge: RvBadge {
    var karat: Int = 0
    init(code: String, label: String, karat: Int) {
        self.karat = karat
        super.init(code: code, label: label)
    }
}

/// A subclass declaring a `.unique` attribute of its own.
@Model
class RvDevice {
    var name: String
    init(name: String) { self.name = name }
}

@Model
final class RvGadget: RvDevice {
    @Attribute(.unique) var serial: String
    init(name: String, serial: String) {
        self.serial = serial
        super.init(name: name)
    }
}

/// A to-one to the hierarchy's root, without inverse.
@Model
final class RvSticker {
    var text: String
    var trip: Trip?
    init(text: String) { self.text = text }
}

/// Shared to-one inverse on a hierarchy's root: two arrays of a garden, one garden per plant.
@Model
class RvGarden {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \RvPlant.garden)
    var leading: [RvPlant] = []
    @Relationship(deleteRule: .nullify, inverse: \RvPlant.garden)
    var trailing: [RvPlant] = []
    init(name: String) { self.name = name }
}

@Model
final class RvRoofGarden: RvGarden {
    var floor: Int = 0
    init(name: String, floor: Int) {
        self.floor = floor
        super.init(name: name)
    }
}

@Model
final class RvPlant {
    var name: String
    var garden: RvGarden?
    init(name: String) { self.name = name }
}

/// Relationships declared on a subclass: to-many with inverse (cascade), many-to-many.
@Model
class RvProject {
    var title: String
    init(title: String) { self.title = title }
}

@Model
final class RvFundedProject: RvProject {
    var budget: Double = 0
    @Relationship(deleteRule: .cascade, inverse: \RvInvoice.project)
    var invoices: [RvInvoice] = []
    @Relationship(inverse: \RvSponsor.projects)
    var sponsors: [RvSponsor] = []
    init(title: String, budget: Double) {
        self.budget = budget
        super.init(title: title)
    }
}

@Model
final class RvInvoice {
    var amount: Double
    var project: RvFundedProject?
    init(amount: Double) { self.amount = amount }
}

@Model
final class RvSponsor {
    var name: String
    var projects: [RvFundedProject] = []
    init(name: String) { self.name = name }
}

/// A subclass of a model declared in another file (InheritanceTests.swift's `Vehicle`).
@Model
final class RvBus: Vehicle {
    var seats: Int = 0
    @Transient var boarding = 0
    init(maker: String, seats: Int) {
        self.seats = seats
        super.init(maker: maker)
    }
}

/// Three levels, the middle one declaring no stored property.
@Model
class RvAnimal {
    var name: String
    init(name: String) { self.name = name }
}

@Model
class RvMammal: RvAnimal {
    override init(name: String) { super.init(name: name) }
}

@Model
final class RvDog: RvMammal {
    var breed: String
    init(name: String, breed: String) {
        self.breed = breed
        super.init(name: name)
    }
}

// MARK: - Versions for migrations

enum RvDocsV0: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [RvDoc.self] }

    @Model
    class RvDoc {
        var title: String
        init(title: String) { self.title = title }
    }
}

enum RvDocsV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [RvDoc.self, RvScan.self] }

    @Model
    class RvDoc {
        var title: String
        init(title: String) { self.title = title }
    }

    @Model
    final class RvScan: RvDoc {
        var pages: Int = 0
        init(title: String, pages: Int) {
            self.pages = pages
            super.init(title: title)
        }
    }
}

/// V1 plus an external-storage attribute on the subclass.
enum RvDocsV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [RvDoc.self, RvScan.self] }

    @Model
    class RvDoc {
        var title: String
        init(title: String) { self.title = title }
    }

    @Model
    final class RvScan: RvDoc {
        var pages: Int = 0
        @Attribute(.externalStorage) var image: Data?
        init(title: String, pages: Int) {
            self.pages = pages
            super.init(title: title)
        }
    }
}

/// V1 plus a new subclass attribute with a declared default value.
enum RvDocsV3: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(3, 0, 0) }
    static var models: [any PersistentModel.Type] { [RvDoc.self, RvScan.self] }

    @Model
    class RvDoc {
        var title: String
        init(title: String) { self.title = title }
    }

    @Model
    final class RvScan: RvDoc {
        var pages: Int = 0
        var dpi: Int = 300
        init(title: String, pages: Int) {
            self.pages = pages
            super.init(title: title)
        }
    }
}

/// V1 plus a new subclass attribute that is not optional and has no default.
enum RvDocsV4: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(4, 0, 0) }
    static var models: [any PersistentModel.Type] { [RvDoc.self, RvScan.self] }

    @Model
    class RvDoc {
        var title: String
        init(title: String) { self.title = title }
    }

    @Model
    final class RvScan: RvDoc {
        var pages: Int = 0
        var scanner: String
        init(title: String, pages: Int, scanner: String) {
            self.pages = pages
            self.scanner = scanner
            super.init(title: title)
        }
    }
}

/// V1 with the subclass's `pages` renamed `pageCount`.
enum RvDocsV5: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(5, 0, 0) }
    static var models: [any PersistentModel.Type] { [RvDoc.self, RvScan.self] }

    @Model
    class RvDoc {
        var title: String
        init(title: String) { self.title = title }
    }

    @Model
    final class RvScan: RvDoc {
        @Attribute(originalName: "pages") var pageCount: Int = 0
        init(title: String, pageCount: Int) {
            self.pageCount = pageCount
            super.init(title: title)
        }
    }
}

/// A model that stood alone (V0) and becomes a subclass of a new root (V1).
enum RvNotesV0: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [RvMemo.self] }

    @Model
    final class RvMemo {
        var text: String
        init(text: String) { self.text = text }
    }
}

enum RvNotesV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [RvEntry.self, RvMemo.self] }

    @Model
    class RvEntry {
        var text: String
        init(text: String) { self.text = text }
    }

    @Model
    final class RvMemo: RvEntry {
        var pinned: Bool = false
        override init(text: String) { super.init(text: text) }
    }
}

// MARK: - Helpers

@MainActor
private func eventually(_ condition: () -> Bool) async throws -> Bool {
    for _ in 0..<300 {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

private func tripsContainer() throws -> ModelContainer {
    let container = try ModelContainer(
        for: Trip.self, BusinessTrip.self, PersonalTrip.self, InternationalTrip.self, RvSticker.self,
        configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    try InheritanceFixtures.fill(container)
    return container
}

private func className(_ object: AnyObject?) -> String {
    object.map { "\(type(of: $0))" } ?? "nil"
}

// MARK: - Tests

@Suite struct InheritanceEdgeCaseTests {
    // MARK: Uniqueness and upserts

    /// `#Unique` on the root covers the hierarchy's table; inserting a subclass instance whose values
    /// collide with a stored row is an upsert (as for the root's own inserts), not a failed save.
    @Test func uniqueGroupOnTheRootUpsertsASubclassInsert() throws {
        let container = try ModelContainer(for: RvAccount.self, RvSavings.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        // The subclass's entity has the root's constraints (its rows are in the root's table).
        #expect(container.schema.entity(for: RvSavings.self)?.uniquenessConstraints
            == container.schema.entity(for: RvAccount.self)?.uniquenessConstraints)
        let context = ModelContext(container)
        context.insert(RvSavings(region: "eu", number: 1, holder: "Ada", rate: 1))
        try context.save()
        // Same key again, as a savings account: SwiftData updates the stored row.
        context.insert(RvSavings(region: "eu", number: 1, holder: "Ada Lovelace", rate: 2))
        #expect(throws: Never.self) { try context.save() }
        let fresh = ModelContext(container)
        #expect(try fresh.fetchCount(FetchDescriptor<RvAccount>()) == 1)
        #expect(try fresh.fetch(FetchDescriptor<RvSavings>()).map(\.holder) == ["Ada Lovelace"])
    }

    /// The root's plain upsert works through `#Unique` (control for the test above).
    @Test func uniqueGroupOnTheRootUpsertsARootInsert() throws {
        let container = try ModelContainer(for: RvAccount.self, RvSavings.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(RvAccount(region: "eu", number: 1, holder: "Ada"))
        try context.save()
        context.insert(RvAccount(region: "eu", number: 1, holder: "Ada Lovelace"))
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<RvAccount>()).map(\.holder) == ["Ada Lovelace"])
    }

    /// An upsert across classes of the hierarchy: a gold badge inserted with the code of a stored plain
    /// badge. An insert does not change a stored model's class: the save fails, writes nothing, and the
    /// row stays a plain badge here and in a fresh context.
    @Test func anUpsertAcrossClassesIsRefusedAndTheRowKeepsItsClass() throws {
        let container = try ModelContainer(for: RvBadge.self, RvGoldBadge.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let plain = RvBadge(code: "A", label: "plain")
        context.insert(plain)
        try context.save()
        context.insert(RvGoldBadge(code: "A", label: "gold", karat: 18))
        let error = #expect(throws: StowageError.self) { try context.save() }
        #expect(error?.code == .constraintViolation)
        context.rollback()
        let here = try context.fetch(FetchDescriptor<RvBadge>())
        let there = try ModelContext(container).fetch(FetchDescriptor<RvBadge>())
        #expect(here.map(\.label) == ["plain"] && there.map(\.label) == ["plain"])
        #expect(className(here.first) == "RvBadge" && className(there.first) == "RvBadge")
        #expect(try context.fetch(FetchDescriptor<RvGoldBadge>()).isEmpty)
        #expect(try context.fetchIdentifiers(FetchDescriptor<RvBadge>()).map(\.entityName) == ["RvBadge"])
        // A gold badge with its own code upserts onto gold badges as usual.
        context.insert(RvGoldBadge(code: "B", label: "gold", karat: 18))
        try context.save()
        context.insert(RvGoldBadge(code: "B", label: "gold again", karat: 22))
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<RvGoldBadge>()).map { "\($0.label) \($0.karat)" } == ["gold again 22"])
    }

    /// `@Attribute(.unique)` on a subclass's own attribute: either the schema refuses it, or inserting
    /// two instances with the same value upserts. A save failing with an SQL error is neither.
    @Test func uniqueAttributeOfASubclassIsEnforcedOrRefused() throws {
        let container: ModelContainer
        do {
            container = try ModelContainer(for: RvDevice.self, RvGadget.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        } catch {
            return  // refused when the container opens: acceptable
        }
        let context = ModelContext(container)
        context.insert(RvGadget(name: "first", serial: "S1"))
        #expect(throws: Never.self) { try context.save() }
        context.insert(RvGadget(name: "second", serial: "S1"))
        #expect(throws: Never.self) { try context.save() }
        #expect(try ModelContext(container).fetch(FetchDescriptor<RvGadget>()).map(\.name) == ["second"])
    }

    // MARK: Other contexts' saves

    /// Another context deletes a subclass instance that a to-one (destination: the root) of a model held
    /// here points to: the to-one reads nil here, as it does for a root instance.
    @Test func anotherContextsDeletionOfASubclassInstanceClearsAToOneHere() throws {
        let container = try tripsContainer()
        let context = ModelContext(container)
        let summit = try #require(try context.fetch(FetchDescriptor<BusinessTrip>(predicate: #Predicate { $0.name == "Summit" })).first)
        let weekend = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Weekend" })).first)
        let onSummit = RvSticker(text: "summit"), onWeekend = RvSticker(text: "weekend")
        context.insert(onSummit)
        context.insert(onWeekend)
        onSummit.trip = summit
        onWeekend.trip = weekend
        try context.save()

        let other = ModelContext(container)
        for name in ["Summit", "Weekend"] {
            let trip = try #require(try other.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == name })).first)
            other.delete(trip)
        }
        try other.save()
        _ = try context.fetchCount(FetchDescriptor<RvSticker>())  // takes in the other context's save
        #expect(onWeekend.trip == nil, "control: a root instance deleted elsewhere")
        #expect(onSummit.trip == nil, "the BusinessTrip deleted elsewhere is still the sticker's trip")
    }

    /// Another context moves a subclass instance to another traveller: the to-many loaded here (whose
    /// destination is the root) no longer holds it.
    @Test func anotherContextMovingASubclassInstanceRefreshesALoadedToManyHere() throws {
        let container = try tripsContainer()
        let context = ModelContext(container)
        let ada = try #require(try context.fetch(FetchDescriptor<Traveller>()).first)
        #expect(ada.trips.count == 4)

        let other = ModelContext(container)
        let summit = try #require(try other.fetch(FetchDescriptor<BusinessTrip>(predicate: #Predicate { $0.name == "Summit" })).first)
        let bob = Traveller(name: "Bob")
        other.insert(bob)
        summit.traveller = bob
        try other.save()
        _ = try context.fetchCount(FetchDescriptor<Traveller>())
        #expect(ada.trips.map(\.name).sorted() == ["Expo", "Reunion", "Weekend"])
    }

    /// An observer of a model whose predicate reads the root through a to-one sees another context's
    /// change of a subclass instance.
    @MainActor
    @Test func anObserverThroughAToOneToTheRootSeesASubclassChangedElsewhere() async throws {
        let container = try tripsContainer()
        let context = ModelContext(container)
        let observer = try ResultsObserver(
            fetchDescriptor: FetchDescriptor<BucketListItem>(predicate: #Predicate { $0.trip?.destination == "Bonn" }),
            modelContext: context)
        #expect(observer.results.isEmpty)
        let other = ModelContext(container)
        let summit = try #require(try other.fetch(FetchDescriptor<BusinessTrip>(predicate: #Predicate { $0.name == "Summit" })).first)
        summit.destination = "Bonn"
        try other.save()
        let seen = try await eventually { observer.results.map(\.title) == ["See Berlin"] }
        #expect(seen, "results: \(observer.results.map(\.title))")
    }

    /// Control: the same with a root instance.
    @MainActor
    @Test func anObserverThroughAToOneToTheRootSeesARootChangedElsewhere() async throws {
        let container = try tripsContainer()
        let context = ModelContext(container)
        let observer = try ResultsObserver(
            fetchDescriptor: FetchDescriptor<BucketListItem>(predicate: #Predicate { $0.trip?.destination == "Nice" }),
            modelContext: context)
        let other = ModelContext(container)
        let weekend = try #require(try other.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Weekend" })).first)
        weekend.destination = "Nice"
        try other.save()
        let seen = try await eventually { observer.results.map(\.title) == ["See Lyon"] }
        #expect(seen)
    }

    // MARK: History

    /// `HistoryObserver(observedModels: [Trip.self])` counts a save of a subclass instance: a
    /// BusinessTrip is a Trip, as fetches and ResultsObserver of Trip already say.
    @MainActor
    @Test func aHistoryObserverOfTheRootCountsASubclassSave() async throws {
        let container = try tripsContainer()
        let observer = try HistoryObserver(observedModels: [Trip.self], modelContainer: container)
        let control = try HistoryObserver(observedModels: [InternationalTrip.self], modelContainer: container)
        let context = ModelContext(container)
        context.insert(InternationalTrip(name: "Fair", destination: "Milan", perdiem: 90, country: "Italy"))
        try context.save()
        let controlCounted = try await eventually { control.eventCounter == 1 }
        #expect(controlCounted, "control: an observer of the saved class itself")
        let counted = try await eventually { observer.eventCounter == 1 }
        #expect(counted, "an observer of the root class")
    }

    /// History names each change's own class, and its attributes.
    @Test func historyNamesTheSubclassOfEachChange() throws {
        let container = try tripsContainer()
        let context = ModelContext(container)
        let summit = try #require(try context.fetch(FetchDescriptor<BusinessTrip>(predicate: #Predicate { $0.name == "Summit" })).first)
        summit.perdiem = 90
        summit.destination = "Bonn"
        try context.save()
        let transactions = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let last = try #require(transactions.last)
        let update = try #require(last.changes.first)
        #expect(update.changedPersistentIdentifier.entityName == "BusinessTrip")
        guard case .update(let change as DefaultHistoryUpdate<BusinessTrip>) = update else {
            Issue.record("not an update of a BusinessTrip: \(update)")
            return
        }
        #expect(Set(change.updatedAttributes.map { "\($0)" }).count == 2)
        let first = try #require(transactions.first)
        #expect(Set(first.changes.map(\.changedPersistentIdentifier.entityName)).isSuperset(of: ["Trip", "BusinessTrip", "PersonalTrip", "InternationalTrip"]))
    }

    // MARK: Shared inverses in a hierarchy

    /// Moving a plant from one array of a subclass instance to the other, as for the root's own
    /// instances (SharedInverseTests.aShrubStandsInOneArrayOfOneYard).
    @Test func aSharedInverseOnASubclassInstanceMovesBetweenItsArrays() throws {
        let container = try ModelContainer(for: RvGarden.self, RvRoofGarden.self, RvPlant.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let roof = RvRoofGarden(name: "Roof", floor: 7)
        let rose = RvPlant(name: "Rose")
        context.insert(roof)
        roof.leading.append(rose)
        roof.trailing.append(rose)
        #expect(roof.leading.isEmpty)
        #expect(roof.trailing.map(\.name) == ["Rose"])
        #expect(rose.garden === roof)
    }

    /// Control: the same on a root instance in a context.
    @Test func aSharedInverseOnARootInstanceMovesBetweenItsArrays() throws {
        let container = try ModelContainer(for: RvGarden.self, RvRoofGarden.self, RvPlant.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let home = RvGarden(name: "Home")
        let rose = RvPlant(name: "Rose")
        context.insert(home)
        home.leading.append(rose)
        home.trailing.append(rose)
        #expect(home.leading.isEmpty)
        #expect(home.trailing.map(\.name) == ["Rose"])
    }

    /// Shared inverse on a subclass instance, saved and read back, with each array's delete rule.
    @Test func aSharedInverseOnASubclassInstanceIsSavedAndKeepsItsDeleteRules() throws {
        let container = try ModelContainer(for: RvGarden.self, RvRoofGarden.self, RvPlant.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        do {
            let context = ModelContext(container)
            let roof = RvRoofGarden(name: "Roof", floor: 7)
            context.insert(roof)
            roof.leading = [RvPlant(name: "Rose")]
            roof.trailing = [RvPlant(name: "Fern"), RvPlant(name: "Ivy")]
            try context.save()
        }
        let context = ModelContext(container)
        let roof = try #require(try context.fetch(FetchDescriptor<RvGarden>()).first as? RvRoofGarden)
        #expect(roof.leading.map(\.name) == ["Rose"])
        #expect(roof.trailing.map(\.name) == ["Fern", "Ivy"])
        let plants = try context.fetch(FetchDescriptor<RvPlant>())
        #expect(plants.allSatisfy { $0.garden === roof })
        context.delete(roof)
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<RvPlant>(sortBy: [SortDescriptor(\.name)])).map { "\($0.name) \($0.garden == nil)" }
            == ["Fern true", "Ivy true"])
    }
}

extension InheritanceEdgeCaseTests {
    // MARK: Undo, redo, rollback

    @MainActor
    @Test func undoAndRedoOfSubclassInsertsChangesAndDeletes() throws {
        let container = try tripsContainer()
        let context = ModelContext(container)
        let undoManager = UndoManager()
        undoManager.groupsByEvent = false
        context.undoManager = undoManager
        func group(_ body: () -> Void) {
            undoManager.beginUndoGrouping()
            body()
            undoManager.endUndoGrouping()
        }
        let fair = InternationalTrip(name: "Fair", destination: "Milan", perdiem: 90, country: "Italy")
        group { context.insert(fair) }
        try context.save()
        group {
            fair.country = "Switzerland"
            fair.perdiem = 110
            fair.destination = "Basel"
        }
        undoManager.undo()
        #expect(fair.country == "Italy" && fair.perdiem == 90 && fair.destination == "Milan")
        undoManager.redo()
        #expect(fair.country == "Switzerland" && fair.perdiem == 110 && fair.destination == "Basel")
        try context.save()
        group { context.delete(fair) }
        try context.save()
        undoManager.undo()  // the deletion was saved: it comes back as a new model
        try context.save()
        let again = try ModelContext(container).fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Fair" }))
        #expect(again.map { "\(type(of: $0))" } == ["InternationalTrip"])
        #expect((again.first as? InternationalTrip)?.country == "Switzerland")
        #expect((again.first as? InternationalTrip)?.perdiem == 110)
    }

    @Test func rollbackOfSubclassChanges() throws {
        let container = try tripsContainer()
        let context = ModelContext(container)
        let expo = try #require(try context.fetch(FetchDescriptor<InternationalTrip>()).first)
        expo.country = "Korea"
        expo.perdiem = 1
        expo.name = "Changed"
        context.insert(PersonalTrip(name: "Spa", destination: "Merano", reason: .wellness))
        let summit = try #require(try context.fetch(FetchDescriptor<BusinessTrip>(predicate: #Predicate { $0.name == "Summit" })).first)
        context.delete(summit)
        context.rollback()
        #expect(expo.country == "Japan" && expo.perdiem == 120 && expo.name == "Expo")
        #expect(try context.fetchCount(FetchDescriptor<Trip>()) == 4)
        #expect(!summit.isDeleted)
    }

    // MARK: Fetch shapes

    @Test func partialFetchOfAHierarchyLoadsSubclassPropertiesLazily() throws {
        let container = try tripsContainer()
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])
        descriptor.propertiesToFetch = [\.name]
        let trips = try context.fetch(descriptor)
        #expect(trips.map { "\(type(of: $0))" } == ["InternationalTrip", "PersonalTrip", "BusinessTrip", "Trip"])
        let expo = try #require(trips.first as? InternationalTrip)
        #expect(expo.country == "Japan" && expo.perdiem == 120 && expo.destination == "Osaka")
        #expect((trips[1] as? PersonalTrip)?.reason == .reunion)
        #expect((trips[2] as? BusinessTrip)?.client == "Acme")
        // A partial fetch of a subclass.
        var business = FetchDescriptor<BusinessTrip>(sortBy: [SortDescriptor(\.perdiem)])
        business.propertiesToFetch = [\.perdiem]
        let fresh = ModelContext(container)
        let rows = try fresh.fetch(business)
        #expect(rows.map(\.name) == ["Summit", "Expo"])
        #expect((rows.last as? InternationalTrip)?.country == "Japan")
    }

    @Test func limitsOffsetsAndCountsThroughCasts() throws {
        let container = try tripsContainer()
        let context = ModelContext(container)
        context.requiresSQLTranslation = true
        let context2 = ModelContext(container)
        for index in 0..<6 {
            context2.insert(BusinessTrip(name: "B\(index)", destination: "D", perdiem: Double(index * 10)))
        }
        try context2.save()
        var descriptor = FetchDescriptor<Trip>(
            predicate: #Predicate { ($0 as? BusinessTrip)?.perdiem ?? -1 >= 20 },
            sortBy: [SortDescriptor(\.name)])
        #expect(try context.fetchCount(descriptor) == 6)  // B2...B5, Summit (80), Expo (120)
        descriptor.fetchOffset = 1
        descriptor.fetchLimit = 3
        #expect(try context.fetch(descriptor).map(\.name) == ["B3", "B4", "B5"])
        // Sorting a subclass fetch by a subclass-only property.
        var byPerdiem = FetchDescriptor<BusinessTrip>(sortBy: [SortDescriptor(\.perdiem, order: .reverse)])
        byPerdiem.fetchLimit = 2
        #expect(try context.fetch(byPerdiem).map(\.name) == ["Expo", "Summit"])
        #expect(try context.fetchCount(FetchDescriptor<InternationalTrip>(predicate: #Predicate { $0.perdiem > 100 })) == 1)
    }

    @Test func batchedFetchAndEnumerateOverAHierarchy() throws {
        let container = try tripsContainer()
        let context2 = ModelContext(container)
        for index in 0..<25 {
            let trip: Trip = switch index % 3 {
            case 0: BusinessTrip(name: String(format: "T%02d", index), destination: "D", perdiem: Double(index))
            case 1: PersonalTrip(name: String(format: "T%02d", index), destination: "D", reason: .family)
            default: InternationalTrip(name: String(format: "T%02d", index), destination: "D", perdiem: 1, country: "C\(index)")
            }
            context2.insert(trip)
        }
        try context2.save()
        let context = ModelContext(container)
        let expected = try ModelContext(container).fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map { "\(type(of: $0)) \($0.name)" }
        let batched = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]), batchSize: 4)
        #expect(batched.map { "\(type(of: $0)) \($0.name)" } == expected)
        var enumerated: [String] = []
        try context.enumerate(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]), batchSize: 4) { enumerated.append("\(type(of: $0)) \($0.name)") }
        #expect(enumerated == expected)
        var countries: [String] = []
        try context.enumerate(FetchDescriptor<BusinessTrip>(), batchSize: 3) { trip in
            if let international = trip as? InternationalTrip { countries.append(international.country) }
        }
        #expect(countries.count == 9)  // 8 from the loop, Expo
    }

    // MARK: Relationships declared on a subclass

    @Test func relationshipsDeclaredOnASubclassSaveReloadAndCascade() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        let types: [any PersistentModel.Type] = [RvProject.self, RvFundedProject.self, RvInvoice.self, RvSponsor.self]
        do {
            let context = ModelContext(try ModelContainer(for: Schema(types), configurations: ModelConfiguration(url: url)))
            let plain = RvProject(title: "Plain")
            let funded = RvFundedProject(title: "Funded", budget: 100)
            let acme = RvSponsor(name: "Acme")
            context.insert(plain)
            context.insert(funded)
            funded.invoices = [RvInvoice(amount: 1), RvInvoice(amount: 2)]
            funded.sponsors.append(acme)
            try context.save()
            #expect(acme.projects.map(\.title) == ["Funded"])
        }
        let container = try ModelContainer(for: Schema(types.reversed()), configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let projects = try context.fetch(FetchDescriptor<RvProject>(sortBy: [SortDescriptor(\.title)]))
        #expect(projects.map { "\(type(of: $0))" } == ["RvFundedProject", "RvProject"])
        let funded = try #require(projects.first as? RvFundedProject)
        #expect(funded.invoices.map(\.amount).sorted() == [1, 2])
        #expect(funded.sponsors.map(\.name) == ["Acme"])
        let invoice = try #require(try context.fetch(FetchDescriptor<RvInvoice>()).first)
        #expect(invoice.project === funded)
        let acme = try #require(try context.fetch(FetchDescriptor<RvSponsor>()).first)
        #expect(acme.projects.first === funded)
        // Predicates through the subclass's relationships.
        #expect(try context.fetch(FetchDescriptor<RvInvoice>(predicate: #Predicate { $0.project?.budget == 100 })).count == 2)
        #expect(try context.fetchCount(FetchDescriptor<RvFundedProject>(predicate: #Predicate { $0.invoices.count == 2 })) == 1)
        context.delete(funded)
        try context.save()
        let fresh = ModelContext(container)
        #expect(try fresh.fetchCount(FetchDescriptor<RvInvoice>()) == 0)
        #expect(try fresh.fetch(FetchDescriptor<RvSponsor>()).first?.projects.isEmpty == true)
        #expect(try fresh.fetch(FetchDescriptor<RvProject>()).map(\.title) == ["Plain"])
    }

    // MARK: External storage, preserved values

    @Test func externalStorageOnASubclassInAFreshStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        do {
            let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: RvDocsV2.self), configurations: ModelConfiguration(url: url)))
            let scan = RvDocsV2.RvScan(title: "Scan", pages: 2)
            scan.image = Data([1, 2, 3])
            context.insert(scan)
            context.insert(RvDocsV2.RvDoc(title: "Doc"))
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: RvDocsV2.self), configurations: ModelConfiguration(url: url)))
        let scan = try #require(try context.fetch(FetchDescriptor<RvDocsV2.RvDoc>(predicate: #Predicate { $0.title == "Scan" })).first as? RvDocsV2.RvScan)
        #expect(scan.image == Data([1, 2, 3]))
    }

    /// Lightweight migration: the subclass gains an `.externalStorage` attribute.
    @Test func aMigrationAddsAnExternalStorageAttributeToASubclass() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        do {
            let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: RvDocsV1.self), configurations: ModelConfiguration(url: url)))
            context.insert(RvDocsV1.RvScan(title: "Old", pages: 1))
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: RvDocsV2.self), configurations: ModelConfiguration(url: url)))
        let scan = RvDocsV2.RvScan(title: "New", pages: 2)
        scan.image = Data([9])
        context.insert(scan)
        do {
            try context.save()
        } catch {
            Issue.record("the save failed: \(error)")
            return  // reading the image would stop the process
        }
        let fresh = ModelContext(context.container)
        let scans = try fresh.fetch(FetchDescriptor<RvDocsV2.RvScan>(sortBy: [SortDescriptor(\.title)]))
        #expect(scans.map { $0.image } == [Data([9]), nil])
    }

    /// Lightweight migration: a store of the root alone gains a subclass with an `.externalStorage`
    /// attribute.
    @Test func aMigrationAddsASubclassWithAnExternalStorageAttribute() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        do {
            let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: RvDocsV0.self), configurations: ModelConfiguration(url: url)))
            context.insert(RvDocsV0.RvDoc(title: "Old"))
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: RvDocsV2.self), configurations: ModelConfiguration(url: url)))
        let scan = RvDocsV2.RvScan(title: "New", pages: 2)
        scan.image = Data([9])
        context.insert(scan)
        do {
            try context.save()
        } catch {
            Issue.record("the save failed: \(error)")
            return  // reading the image would stop the process
        }
        let fresh = ModelContext(context.container)
        #expect(try fresh.fetch(FetchDescriptor<RvDocsV2.RvScan>()).map(\.image) == [Data([9])])
    }

    // MARK: Migrations of subclass attributes

    /// A new subclass attribute with a declared default: the subclass's existing rows take the default,
    /// as a root attribute's do.
    @Test func aMigrationGivesExistingSubclassRowsTheDefaultOfANewAttribute() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        do {
            let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: RvDocsV1.self), configurations: ModelConfiguration(url: url)))
            context.insert(RvDocsV1.RvScan(title: "Old", pages: 1))
            context.insert(RvDocsV1.RvDoc(title: "Doc"))
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: RvDocsV3.self), configurations: ModelConfiguration(url: url)))
        let scans = try context.fetch(FetchDescriptor<RvDocsV3.RvScan>())
        #expect(scans.map(\.dpi) == [300])
        #expect(try context.fetchCount(FetchDescriptor<RvDocsV3.RvDoc>()) == 2)
    }

    /// A new subclass attribute, not optional, without a default, while subclass rows exist: refused
    /// when the container opens (as for a root attribute), not a store whose rows cannot be read.
    @Test func aMigrationAddingARequiredSubclassAttributeWithoutDefaultIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        do {
            let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: RvDocsV1.self), configurations: ModelConfiguration(url: url)))
            context.insert(RvDocsV1.RvScan(title: "Old", pages: 1))
            try context.save()
        }
        let container: ModelContainer
        do {
            container = try ModelContainer(for: Schema(versionedSchema: RvDocsV4.self), configurations: ModelConfiguration(url: url))
        } catch {
            return  // refused: expected
        }
        // Opened: then the existing row must at least be readable.
        #expect(throws: Never.self) { _ = try ModelContext(container).fetch(FetchDescriptor<RvDocsV4.RvDoc>()) }
    }

    @Test func aMigrationRenamesASubclassAttribute() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        do {
            let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: RvDocsV1.self), configurations: ModelConfiguration(url: url)))
            context.insert(RvDocsV1.RvScan(title: "Old", pages: 7))
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: RvDocsV5.self), configurations: ModelConfiguration(url: url)))
        #expect(try context.fetch(FetchDescriptor<RvDocsV5.RvScan>()).map(\.pageCount) == [7])
    }

    /// A model that stood alone becomes a subclass of a new root: its rows must not vanish silently
    /// (moved into the hierarchy's table, or the migration refused).
    @Test func aStandaloneModelBecomingASubclassKeepsItsRowsOrIsRefused() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        do {
            let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: RvNotesV0.self), configurations: ModelConfiguration(url: url)))
            context.insert(RvNotesV0.RvMemo(text: "remember"))
            try context.save()
        }
        let container: ModelContainer
        do {
            container = try ModelContainer(for: Schema(versionedSchema: RvNotesV1.self), configurations: ModelConfiguration(url: url))
        } catch {
            return  // refused: acceptable
        }
        let tables = try DatabaseQueue(path: url.path).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Rv%' ORDER BY name")
        }
        #expect(try ModelContext(container).fetch(FetchDescriptor<RvNotesV1.RvMemo>()).map(\.text) == ["remember"],
                "tables now: \(tables)")
    }

    @Test func reopeningWithTheSchemaInAnotherOrderAndOnlyTheLeaves() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        do {
            let context = ModelContext(try ModelContainer(for: RvAnimal.self, RvMammal.self, RvDog.self, configurations: ModelConfiguration(url: url)))
            context.insert(RvDog(name: "Rex", breed: "Collie"))
            context.insert(RvMammal(name: "Cat"))
            context.insert(RvAnimal(name: "Fish"))
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: RvDog.self, configurations: ModelConfiguration(url: url)))
        let animals = try context.fetch(FetchDescriptor<RvAnimal>(sortBy: [SortDescriptor(\.name)]))
        #expect(animals.map { "\(type(of: $0)) \($0.name)" } == ["RvMammal Cat", "RvAnimal Fish", "RvDog Rex"])
        #expect(try context.fetch(FetchDescriptor<RvMammal>()).count == 2)
        #expect((animals.last as? RvDog)?.breed == "Collie")
    }

    // MARK: Macros

    @Test func aSubclassInAnotherFileWithATransientProperty() throws {
        let container = try ModelContainer(for: Vehicle.self, Truck.self, RvBus.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let bus = RvBus(maker: "Irizar", seats: 50)
        bus.boarding = 3
        context.insert(bus)
        context.insert(Truck(maker: "Volvo", payload: 1))
        try context.save()
        let schema = container.schema
        #expect(schema.entity(for: RvBus.self)?.properties.map(\.name) == ["maker", "wheels", "seats"])
        let fresh = ModelContext(container)
        let vehicles = try fresh.fetch(FetchDescriptor<Vehicle>(sortBy: [SortDescriptor(\.maker)]))
        #expect(vehicles.map { "\(type(of: $0))" } == ["RvBus", "Truck"])
        #expect((vehicles.first as? RvBus)?.seats == 50)
        #expect((vehicles.first as? RvBus)?.boarding == 0)
    }
}

/// A to-many to the hierarchy's root, without inverse (a join table).
@Model
final class RvAlbum {
    var title: String
    var trips: [Trip] = []
    init(title: String) { self.title = title }
}

/// `.preserveValueOnDeletion` on a subclass's own attribute and on the root's.
@Model
class RvLedger {
    @Attribute(.preserveValueOnDeletion) var name: String
    init(name: String) { self.name = name }
}

@Model
final class RvSubLedger: RvLedger {
    @Attribute(.preserveValueOnDeletion) var code: String
    var note: String = ""
    init(name: String, code: String) {
        self.code = code
        super.init(name: name)
    }
}

/// A model actor working on subclass instances.
@ModelActor
actor RvTripDesk {
    func add(name: String, country: String) throws -> PersistentIdentifier {
        let trip = InternationalTrip(name: name, destination: "X", perdiem: 1, country: country)
        modelContext.insert(trip)
        try modelContext.save()
        return trip.persistentModelID
    }

    func country(of id: PersistentIdentifier) -> String? {
        self[id, as: InternationalTrip.self]?.country
    }

    func classOf(_ id: PersistentIdentifier) -> String {
        "\(type(of: modelContext.model(for: id)))"
    }

    func rename(_ id: PersistentIdentifier, country: String) throws {
        (modelContext.model(for: id) as? InternationalTrip)?.country = country
        try modelContext.save()
    }
}

/// A main-actor hierarchy.
@MainActor
@Model
class RvMainShape {
    var label: String
    init(label: String) { self.label = label }
}

@MainActor
@Model
final class RvMainCircle: RvMainShape {
    var radius: Double
    init(label: String, radius: Double) {
        self.radius = radius
        super.init(label: label)
    }
}

extension InheritanceEdgeCaseTests {
    /// Another context deletes a subclass instance that a loaded to-many (join table, destination: the
    /// root) holds here: it leaves the array, as a root instance does.
    @Test func anotherContextsDeletionOfASubclassInstanceLeavesALoadedToManyHere() throws {
        let container = try ModelContainer(
            for: Trip.self, BusinessTrip.self, PersonalTrip.self, InternationalTrip.self, RvAlbum.self,
            configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        try InheritanceFixtures.fill(container)
        let context = ModelContext(container)
        let album = RvAlbum(title: "All")
        context.insert(album)
        album.trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        try context.save()
        #expect(album.trips.count == 4)

        let other = ModelContext(container)
        let expo = try #require(try other.fetch(FetchDescriptor<InternationalTrip>()).first)
        other.delete(expo)
        try other.save()
        _ = try context.fetchCount(FetchDescriptor<RvAlbum>())
        #expect(album.trips.map(\.name) == ["Reunion", "Summit", "Weekend"], "still holds \(album.trips.map { "\($0.name) deleted=\($0.isDeleted)" })")
    }

    @Test func preservedValuesOfADeletedSubclassInstance() throws {
        let container = try ModelContainer(for: RvLedger.self, RvSubLedger.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let ledger = RvSubLedger(name: "Main", code: "M1")
        context.insert(ledger)
        try context.save()
        context.delete(ledger)
        try context.save()
        let transactions = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        let deletions = transactions.flatMap(\.changes).compactMap { change -> DefaultHistoryDelete<RvSubLedger>? in
            if case .delete(let deletion as DefaultHistoryDelete<RvSubLedger>) = change { return deletion }
            return nil
        }
        let deletion = try #require(deletions.first, "changes: \(transactions.flatMap(\.changes))")
        #expect(deletion.tombstone[\.name] as? String == "Main")
        #expect(deletion.tombstone[\.code] as? String == "M1")
        #expect(Array(deletion.tombstone).count == 2)
    }

    @Test func aModelActorWorksOnSubclassInstances() async throws {
        let container = try tripsContainer()
        let desk = RvTripDesk(modelContainer: container)
        let id = try await desk.add(name: "Fair", country: "Italy")
        #expect(id.entityName == "InternationalTrip")
        #expect(await desk.country(of: id) == "Italy")
        #expect(await desk.classOf(id) == "InternationalTrip")
        try await desk.rename(id, country: "Spain")
        let trip = ModelContext(container).model(for: id)
        #expect((trip as? InternationalTrip)?.country == "Spain")
    }

    @MainActor
    @Test func aMainActorHierarchy() throws {
        let container = try ModelContainer(for: RvMainCircle.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(RvMainCircle(label: "c", radius: 2))
        context.insert(RvMainShape(label: "s"))
        try context.save()
        let shapes = try ModelContext(container).fetch(FetchDescriptor<RvMainShape>()).sorted { $0.label < $1.label }
        #expect(shapes.map { "\(type(of: $0))" } == ["RvMainCircle", "RvMainShape"])
        #expect((shapes.first as? RvMainCircle)?.radius == 2)
    }

    /// `didSave` and `ModelContainer.changes` name the subclass of each saved model.
    @Test func saveNotificationsNameSubclasses() async throws {
        let container = try tripsContainer()
        let context = ModelContext(container)
        let changes = container.changes()
        context.insert(PersonalTrip(name: "Spa", destination: "Merano", reason: .wellness))
        try context.save()
        var iterator = changes.makeAsyncIterator()
        let change = try #require(await iterator.next())
        #expect(change.entityNames == ["PersonalTrip"])
    }
}

/// V1 plus relationships declared on the subclass.
enum RvDocsV6: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(6, 0, 0) }
    static var models: [any PersistentModel.Type] { [RvDoc.self, RvScan.self, RvReviewer.self, RvMark.self] }

    @Model
    class RvDoc {
        var title: String
        init(title: String) { self.title = title }
    }

    @Model
    final class RvScan: RvDoc {
        var pages: Int = 0
        var reviewer: RvReviewer?
        @Relationship(inverse: \RvMark.scans) var marks: [RvMark] = []
        init(title: String, pages: Int) {
            self.pages = pages
            super.init(title: title)
        }
    }

    @Model
    final class RvReviewer {
        var name: String
        @Relationship(inverse: \RvScan.reviewer) var scans: [RvScan] = []
        init(name: String) { self.name = name }
    }

    @Model
    final class RvMark {
        var name: String
        var scans: [RvScan] = []
        init(name: String) { self.name = name }
    }
}

extension InheritanceEdgeCaseTests {
    @Test func aMigrationAddsRelationshipsToASubclass() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        do {
            let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: RvDocsV1.self), configurations: ModelConfiguration(url: url)))
            context.insert(RvDocsV1.RvScan(title: "Old", pages: 1))
            context.insert(RvDocsV1.RvDoc(title: "Doc"))
            try context.save()
        }
        do {
            let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: RvDocsV6.self), configurations: ModelConfiguration(url: url)))
            let old = try #require(try context.fetch(FetchDescriptor<RvDocsV6.RvScan>()).first)
            #expect(old.reviewer == nil && old.marks.isEmpty && old.pages == 1)
            let ada = RvDocsV6.RvReviewer(name: "Ada")
            context.insert(ada)
            old.reviewer = ada
            old.marks = [RvDocsV6.RvMark(name: "m")]
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: RvDocsV6.self), configurations: ModelConfiguration(url: url)))
        let old = try #require(try context.fetch(FetchDescriptor<RvDocsV6.RvScan>()).first)
        #expect(old.reviewer?.name == "Ada")
        #expect(old.marks.map(\.name) == ["m"])
        #expect(try context.fetch(FetchDescriptor<RvDocsV6.RvMark>()).first?.scans.first === old)
        #expect(try context.fetchCount(FetchDescriptor<RvDocsV6.RvDoc>()) == 2)
    }

    /// Prefetching through a fetch of the root reaches the subclass instances.
    @Test func prefetchingOverAHierarchy() throws {
        let container = try tripsContainer()
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])
        descriptor.relationshipKeyPathsForPrefetching = [\.bucketList, \.traveller]
        let trips = try context.fetch(descriptor)
        #expect(trips.map { $0.bucketList.map(\.title) } == [["See Osaka"], ["See Porto"], ["See Berlin"], ["See Lyon"]])
        #expect(trips.allSatisfy { $0.traveller?.name == "Ada" })
    }
}

extension InheritanceEdgeCaseTests {
    @Test func castsThroughRelationshipsRunInSQL() throws {
        let container = try tripsContainer()
        let context = ModelContext(container)
        context.requiresSQLTranslation = true
        let items = try context.fetch(FetchDescriptor<BucketListItem>(
            predicate: #Predicate { ($0.trip as? InternationalTrip)?.country == "Japan" }))
        #expect(items.map(\.title) == ["See Osaka"])
        let cheap = try context.fetch(FetchDescriptor<BucketListItem>(
            predicate: #Predicate { ($0.trip as? BusinessTrip)?.perdiem ?? 1000 < 100 }, sortBy: [SortDescriptor(\.title)]))
        #expect(cheap.map(\.title) == ["See Berlin"])
        let notBusiness = try context.fetch(FetchDescriptor<BucketListItem>(
            predicate: #Predicate { !($0.trip is BusinessTrip) }, sortBy: [SortDescriptor(\.title)]))
        #expect(notBusiness.map(\.title) == ["See Lyon", "See Porto"])
        let travellers = try context.fetch(FetchDescriptor<Traveller>(
            predicate: #Predicate { $0.trips.contains { $0 is InternationalTrip } }))
        #expect(travellers.map(\.name) == ["Ada"])
        let none = try context.fetch(FetchDescriptor<Traveller>(
            predicate: #Predicate { $0.trips.contains { ($0 as? InternationalTrip)?.country == "France" } }))
        #expect(none.isEmpty)
        // Sorting through a to-one to the hierarchy.
        let sorted = try context.fetch(FetchDescriptor<BucketListItem>(sortBy: [SortDescriptor(\.trip?.name)]))
        #expect(sorted.map(\.title) == ["See Osaka", "See Porto", "See Berlin", "See Lyon"])
    }

    /// Pending (unsaved) subclass instances join fetches that need Swift evaluation.
    @Test func pendingSubclassInstancesInFetchesAndCounts() throws {
        let container = try tripsContainer()
        let context = ModelContext(container)
        context.insert(InternationalTrip(name: "Fair", destination: "Milan", perdiem: 200, country: "Italy"))
        context.insert(PersonalTrip(name: "Spa", destination: "Merano", reason: .wellness))
        let rich = #Predicate<Trip> { ($0 as? BusinessTrip)?.perdiem ?? 0 > 100 }
        #expect(try context.fetch(FetchDescriptor(predicate: rich, sortBy: [SortDescriptor(\.name)])).map(\.name) == ["Expo", "Fair"])
        #expect(try context.fetchCount(FetchDescriptor(predicate: rich)) == 2)
        #expect(try context.fetchCount(FetchDescriptor<BusinessTrip>()) == 3)
        #expect(try context.fetchCount(FetchDescriptor<PersonalTrip>()) == 2)
        var limited = FetchDescriptor<BusinessTrip>(sortBy: [SortDescriptor(\.perdiem, order: .reverse)])
        limited.fetchLimit = 1
        #expect(try context.fetch(limited).map(\.name) == ["Fair"])
        let ids = try context.fetchIdentifiers(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
        #expect(ids.count == 6)
        #expect(Set(ids.map(\.entityName)) == ["Trip", "BusinessTrip", "PersonalTrip", "InternationalTrip"])
    }
}

extension InheritanceEdgeCaseTests {
    /// Two configurations, one naming the root, the other (no schema) taking the rest: the subclass
    /// lands in the other store. A fetch of the root must still see the subclass's rows (one table per
    /// hierarchy), or the container must refuse to split the hierarchy.
    @Test func aHierarchySplitAcrossConfigurationsIsRefusedOrFetchedWhole() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let container: ModelContainer
        do {
            container = try ModelContainer(
                for: Vehicle.self, Truck.self,
                configurations: ModelConfiguration("vehicles", schema: Schema([Vehicle.self]), url: directory.file("a.store")),
                ModelConfiguration("rest", url: directory.file("b.store")))
        } catch {
            return  // refused: acceptable
        }
        let context = ModelContext(container)
        context.insert(Vehicle(maker: "Fiat"))
        context.insert(Truck(maker: "Volvo", payload: 1))
        try context.save()
        let vehicles = try ModelContext(container).fetch(FetchDescriptor<Vehicle>(sortBy: [SortDescriptor(\.maker)]))
        #expect(vehicles.map { "\(type(of: $0)) \($0.maker)" } == ["Vehicle Fiat", "Truck Volvo"])
    }
}

import Observation

extension InheritanceEdgeCaseTests {
    @Test func observationOfOwnAndInheritedPropertiesOfASubclassInstance() throws {
        let expo = InternationalTrip(name: "Expo", destination: "Osaka", perdiem: 1, country: "Japan")
        final class Flag: @unchecked Sendable { var value = 0 }
        let flag = Flag()
        withObservationTracking { _ = expo.country } onChange: { flag.value += 1 }
        expo.country = "Korea"
        withObservationTracking { _ = expo.perdiem } onChange: { flag.value += 10 }
        expo.perdiem = 2
        withObservationTracking { _ = expo.destination } onChange: { flag.value += 100 }
        expo.destination = "Seoul"
        #expect(flag.value == 111)
        // Fetched instances too.
        let container = try tripsContainer()
        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<InternationalTrip>()).first)
        withObservationTracking { _ = fetched.country } onChange: { flag.value += 1000 }
        fetched.country = "Chile"
        #expect(flag.value == 1111)
    }
}

/// A subclass attribute that is optional (V1) and becomes required with a default (V2).
enum RvCardsV1: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(1, 0, 0) }
    static var models: [any PersistentModel.Type] { [RvCard.self, RvPhotoCard.self] }

    @Model
    class RvCard {
        var title: String
        init(title: String) { self.title = title }
    }

    @Model
    final class RvPhotoCard: RvCard {
        var caption: String?
        init(title: String, caption: String?) {
            self.caption = caption
            super.init(title: title)
        }
    }
}

enum RvCardsV2: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(2, 0, 0) }
    static var models: [any PersistentModel.Type] { [RvCard.self, RvPhotoCard.self] }

    @Model
    class RvCard {
        var title: String
        init(title: String) { self.title = title }
    }

    @Model
    final class RvPhotoCard: RvCard {
        var caption: String = "none"
        init(title: String, caption: String) {
            self.caption = caption
            super.init(title: title)
        }
    }
}

extension InheritanceEdgeCaseTests {
    /// A subclass attribute that was optional becomes required with a declared default: its nil values
    /// take the default, as a root attribute's do (the rebuild's COALESCE), or the change is refused.
    @Test func aSubclassAttributeBecomingRequiredTakesItsDefault() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        do {
            let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: RvCardsV1.self), configurations: ModelConfiguration(url: url)))
            context.insert(RvCardsV1.RvPhotoCard(title: "Beach", caption: nil))
            try context.save()
        }
        let container: ModelContainer
        do {
            container = try ModelContainer(for: Schema(versionedSchema: RvCardsV2.self), configurations: ModelConfiguration(url: url))
        } catch {
            return  // refused: acceptable
        }
        let cards = try ModelContext(container).fetch(FetchDescriptor<RvCardsV2.RvPhotoCard>())
        #expect(cards.map(\.caption) == ["none"])
    }
}

extension InheritanceEdgeCaseTests {
    @Test func aSharedInverseAcrossClassesMovesClearsAndDeletes() throws {
        let container = try ModelContainer(for: RvGarden.self, RvRoofGarden.self, RvPlant.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        do {
            let context = ModelContext(container)
            let home = RvGarden(name: "Home"), roof = RvRoofGarden(name: "Roof", floor: 3)
            context.insert(home)
            context.insert(roof)
            home.trailing = [RvPlant(name: "Fern"), RvPlant(name: "Ivy"), RvPlant(name: "Moss")]
            try context.save()
        }
        do {
            let context = ModelContext(container)
            let gardens = try context.fetch(FetchDescriptor<RvGarden>(sortBy: [SortDescriptor(\.name)]))
            let home = gardens[0], roof = try #require(gardens[1] as? RvRoofGarden)
            let fern = home.trailing[0], ivy = home.trailing[1], moss = home.trailing[2]
            roof.trailing.append(fern)  // moves from Home to Roof
            ivy.garden = roof  // the to-one: joins Roof's first array
            #expect(home.trailing.map(\.name) == ["Moss"])
            #expect(roof.trailing.map(\.name) == ["Fern"])
            #expect(roof.leading.map(\.name) == ["Ivy"])
            roof.leading.append(fern)  // from trailing to leading of the same (subclass) garden
            #expect(roof.trailing.isEmpty && roof.leading.map(\.name) == ["Ivy", "Fern"])
            context.delete(moss)
            try context.save()
        }
        let context = ModelContext(container)
        let roof = try #require(try context.fetch(FetchDescriptor<RvRoofGarden>()).first)
        #expect(roof.leading.map(\.name) == ["Ivy", "Fern"])
        #expect(roof.trailing.isEmpty)
        let home = try #require(try context.fetch(FetchDescriptor<RvGarden>(predicate: #Predicate { $0.name == "Home" })).first)
        #expect(home.trailing.isEmpty && home.leading.isEmpty)
        #expect(try context.fetchCount(FetchDescriptor<RvRoofGarden>(predicate: #Predicate { $0.leading.contains { $0.name == "Fern" } })) == 1)
        #expect(try context.fetchCount(FetchDescriptor<RvPlant>(predicate: #Predicate { $0.garden?.name == "Roof" })) == 2)
        context.delete(roof)  // leading cascades
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<RvPlant>()) == 0)
    }
}

extension InheritanceEdgeCaseTests {
    @MainActor
    @Test func aSharedInverseMoveRollsBackAndUndoes() throws {
        let container = try ModelContainer(for: RvGarden.self, RvRoofGarden.self, RvPlant.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let roof = RvRoofGarden(name: "Roof", floor: 3)
        context.insert(roof)
        roof.leading = [RvPlant(name: "Rose")]
        try context.save()
        let rose = roof.leading[0]
        roof.trailing.append(rose)
        #expect(roof.leading.isEmpty)
        context.rollback()
        #expect(roof.leading.map(\.name) == ["Rose"] && roof.trailing.isEmpty && rose.garden === roof)

        let undoManager = UndoManager()
        undoManager.groupsByEvent = false
        context.undoManager = undoManager
        undoManager.beginUndoGrouping()
        roof.trailing.append(rose)
        undoManager.endUndoGrouping()
        #expect(roof.leading.isEmpty && roof.trailing.map(\.name) == ["Rose"])
        undoManager.undo()
        #expect(roof.leading.map(\.name) == ["Rose"] && roof.trailing.isEmpty && rose.garden === roof)
        try context.save()
        let fresh = try #require(try ModelContext(container).fetch(FetchDescriptor<RvRoofGarden>()).first)
        #expect(fresh.leading.map(\.name) == ["Rose"] && fresh.trailing.isEmpty)
    }
}

/// A root model that inherits from a plain (non-model) class.
class RvBase {
    var scratch = 0
    init() {}
}

@Model
class RvFromBase: RvBase {
    var title: String
    init(title: String) {
        self.title = title
        super.init()
    }
}

@Model
final class RvFromBaseChild: RvFromBase {
    var extra: Int = 0
    init(title: String, extra: Int) {
        self.extra = extra
        super.init(title: title)
    }
}

extension InheritanceEdgeCaseTests {
    @Test func aRootInheritingFromAPlainClass() throws {
        let container = try ModelContainer(for: RvFromBaseChild.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(container.schema.entity(for: RvFromBase.self)?.superentity == nil)
        let context = ModelContext(container)
        context.insert(RvFromBaseChild(title: "child", extra: 2))
        context.insert(RvFromBase(title: "base"))
        try context.save()
        let all = try ModelContext(container).fetch(FetchDescriptor<RvFromBase>(sortBy: [SortDescriptor(\.title)]))
        #expect(all.map { "\(type(of: $0)) \($0.title)" } == ["RvFromBase base", "RvFromBaseChild child"])
        #expect((all.last as? RvFromBaseChild)?.extra == 2)
    }
}

/// V2 (external image on the subclass) plus a relationship on the root, which rebuilds its table.
enum RvDocsV9: VersionedSchema {
    static var versionIdentifier: Schema.Version { Schema.Version(9, 0, 0) }
    static var models: [any PersistentModel.Type] { [RvDoc.self, RvScan.self, RvFolder.self] }

    @Model
    class RvDoc {
        var title: String
        var folder: RvFolder?
        init(title: String) { self.title = title }
    }

    @Model
    final class RvScan: RvDoc {
        var pages: Int = 0
        @Attribute(.externalStorage) var image: Data?
        init(title: String, pages: Int) {
            self.pages = pages
            super.init(title: title)
        }
    }

    @Model
    final class RvFolder {
        var name: String
        @Relationship(inverse: \RvDoc.folder) var docs: [RvDoc] = []
        init(name: String) { self.name = name }
    }
}

extension InheritanceEdgeCaseTests {
    /// A migration that rebuilds the hierarchy's table keeps the subclass's externally stored values.
    @Test func aRebuildOfTheHierarchysTableKeepsSubclassExternalValues() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        do {
            let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: RvDocsV2.self), configurations: ModelConfiguration(url: url)))
            let scan = RvDocsV2.RvScan(title: "Scan", pages: 1)
            scan.image = Data([7, 7])
            context.insert(scan)
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: RvDocsV9.self), configurations: ModelConfiguration(url: url)))
        let scan = try #require(try context.fetch(FetchDescriptor<RvDocsV9.RvScan>()).first)
        #expect(scan.image == Data([7, 7]))
        #expect(scan.folder == nil)
    }
}

extension InheritanceEdgeCaseTests {
    /// Another context adds a new subclass instance to a traveller whose trips this context loaded: the
    /// loaded to-many (destination: the root) shows it, as it does for a new root instance.
    @Test func anotherContextsNewSubclassInstanceJoinsALoadedToManyHere() throws {
        let container = try tripsContainer()
        let context = ModelContext(container)
        let ada = try #require(try context.fetch(FetchDescriptor<Traveller>()).first)
        #expect(ada.trips.count == 4)

        let other = ModelContext(container)
        let adaThere = try #require(try other.fetch(FetchDescriptor<Traveller>()).first)
        let fair = InternationalTrip(name: "Fair", destination: "Milan", perdiem: 90, country: "Italy")
        other.insert(fair)
        fair.traveller = adaThere
        try other.save()
        _ = try context.fetchCount(FetchDescriptor<Traveller>())
        #expect(ada.trips.map(\.name).sorted() == ["Expo", "Fair", "Reunion", "Summit", "Weekend"])
    }

    /// Control: the same with a new root instance.
    @Test func anotherContextsNewRootInstanceJoinsALoadedToManyHere() throws {
        let container = try tripsContainer()
        let context = ModelContext(container)
        let ada = try #require(try context.fetch(FetchDescriptor<Traveller>()).first)
        #expect(ada.trips.count == 4)
        let other = ModelContext(container)
        let adaThere = try #require(try other.fetch(FetchDescriptor<Traveller>()).first)
        let fair = Trip(name: "Fair", destination: "Milan")
        other.insert(fair)
        fair.traveller = adaThere
        try other.save()
        _ = try context.fetchCount(FetchDescriptor<Traveller>())
        #expect(ada.trips.map(\.name).sorted() == ["Expo", "Fair", "Reunion", "Summit", "Weekend"])
    }

    /// Another context moves a subclass instance between two stored travellers (no insert of a
    /// traveller in the same save).
    @Test func anotherContextMovingASubclassInstanceBetweenStoredTravellers() throws {
        let container = try tripsContainer()
        do {
            let setup = ModelContext(container)
            setup.insert(Traveller(name: "Bob"))
            try setup.save()
        }
        let context = ModelContext(container)
        let travellers = try context.fetch(FetchDescriptor<Traveller>(sortBy: [SortDescriptor(\.name)]))
        let ada = travellers[0], bob = travellers[1]
        #expect(ada.trips.count == 4 && bob.trips.isEmpty)

        let other = ModelContext(container)
        let summit = try #require(try other.fetch(FetchDescriptor<BusinessTrip>(predicate: #Predicate { $0.name == "Summit" })).first)
        let bobThere = try #require(try other.fetch(FetchDescriptor<Traveller>(predicate: #Predicate { $0.name == "Bob" })).first)
        summit.traveller = bobThere
        try other.save()
        _ = try context.fetchCount(FetchDescriptor<Traveller>())
        #expect(ada.trips.map(\.name).sorted() == ["Expo", "Reunion", "Weekend"])
        #expect(bob.trips.map(\.name) == ["Summit"])
    }
}

extension InheritanceEdgeCaseTests {
    /// Deleting every model of the root type applies each instance's own class's delete rules.
    @Test func deletingTheRootTypeCascadesThroughSubclassRelationships() throws {
        let container = try ModelContainer(for: RvProject.self, RvFundedProject.self, RvInvoice.self, RvSponsor.self,
                                           configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        do {
            let context = ModelContext(container)
            let funded = RvFundedProject(title: "Funded", budget: 1)
            context.insert(funded)
            context.insert(RvProject(title: "Plain"))
            funded.invoices = [RvInvoice(amount: 1)]
            funded.sponsors = [RvSponsor(name: "Acme")]
            try context.save()
        }
        let context = ModelContext(container)
        try context.delete(model: RvProject.self)
        try context.save()
        let fresh = ModelContext(container)
        #expect(try fresh.fetchCount(FetchDescriptor<RvProject>()) == 0)
        #expect(try fresh.fetchCount(FetchDescriptor<RvInvoice>()) == 0)
        #expect(try fresh.fetch(FetchDescriptor<RvSponsor>()).map { $0.projects.count } == [0])
    }
}
