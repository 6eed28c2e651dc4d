// The relationship spellings of these apps that need Stowage to accept what SwiftData accepts:
//
// - Backyard Birds: two relationships with the same inverse, `@Relationship(inverse: \Plant.backyard)`
//   on both `Backyard.leadingPlants` and `Backyard.trailingPlants` (with Plant, PlantSpecies and
//   BackyardVisitorEvent, which all reach Backyard).
// - Animals: a relationship property without a type annotation, `var animals = [Animal]()`, in
//   Apple's AnimalCategory and in SchemaV2's (with SchemaV2, the migration plan and Apple's Animal).
// - iTour (Hacking with Swift): `@Relationship(deleteRule: .cascade) var sights = [Sight]()`.
#if !canImport(Darwin)
import Foundation
import SwiftData
import Testing

// MARK: - Backyard Birds

@Model public class Backyard {
    @Attribute(.unique) public var id: String
    public var name: String
    public var waterRefillDate: Date
    public var foodRefillDate: Date
    public var creationDate: Date
    public var presentingVisitor: Bool
    public var isFavorite: Bool
    public var timeIntervalOffset: TimeInterval
    public var birdFood: BirdFood?
    public var visitorEvents: [BackyardVisitorEvent] = []

    @Relationship(inverse: \Plant.backyard)
    public var leadingPlants: [Plant] = []

    @Relationship(inverse: \Plant.backyard)
    public var trailingPlants: [Plant] = []

    public var floorVariant: Int
    public var fountainVariant: Int

    public var currentVisitorEvent: BackyardVisitorEvent? {
        guard let event = visitorEvents.first(where: { $0.dateRange.contains(.now) }) else {
            return nil
        }
        return event
    }

    public var hasVisitor: Bool {
        currentVisitorEvent != nil
    }

    public var historicalEvents: [BackyardVisitorEvent] {
        visitorEvents
            .filter { $0.endDate < .now }
            .sorted(using: KeyPathComparator(\.endDate, order: .reverse))
    }

    public init(name: String?) {
        self.id = UUID().uuidString
        self.name = name ?? "Backyard"
        self.creationDate = .now
        self.waterRefillDate = .now
        self.foodRefillDate = .now
        self.presentingVisitor = false
        self.isFavorite = false
        self.timeIntervalOffset = TimeInterval(hours: 12)
        self.floorVariant = 0
        self.fountainVariant = 0
    }
}

@Model public class Plant {
    @Attribute(.unique) public var id: String
    public var creationDate: Date
    public var species: PlantSpecies?
    public var backyard: Backyard?
    public var variant: Int

    public init(id: UUID = UUID(), variant: Int) {
        self.id = id.uuidString
        self.creationDate = .now
        self.variant = variant
    }
}

public enum PlantPart: String, Codable {
    case leaves, flowers, seeds
}

@Model public class PlantSpecies {
    @Attribute(.unique) public var id: String
    public var parts: [PlantPart]

    @Relationship(deleteRule: .cascade, inverse: \Plant.species)
    public var plants: [Plant] = []

    public init(id: String, parts: [PlantPart]) {
        self.id = id
        self.parts = parts
    }
}

@Model public class BackyardVisitorEvent {
    @Attribute(.unique) public var id: String
    public var backyard: Backyard?
    public var bird: Bird?
    public var startDate: Date
    public var endDate: Date
    public var duration: TimeInterval

    public var dateRange: Range<Date> {
        startDate ..< endDate
    }

    public init(id: UUID = UUID(), startDate: Date, duration: TimeInterval) {
        self.id = id.uuidString
        self.startDate = startDate
        self.duration = duration
        self.endDate = startDate.addingTimeInterval(duration)
    }
}

@Suite("Backyard Birds: backyards")
struct PendingBackyardTests {
    @Test func backyardsPlantsAndVisitors() throws {
        let schema = Schema([Backyard.self, Plant.self, PlantSpecies.self, BackyardVisitorEvent.self, Bird.self, BirdSpecies.self, BirdFood.self, Account.self])
        let modelContext = ModelContext(try ModelContainer(for: schema, configurations: [ModelConfiguration(schema: schema, isStoredInMemoryOnly: true)]))
        let species = PlantSpecies(id: "lavender", parts: [.leaves, .flowers])
        modelContext.insert(species)
        for name in ["seed mix 10", "Seed Mix 9", "Alder"] {
            let backyard = Backyard(name: name)
            modelContext.insert(backyard)
            let leading = Plant(variant: 0), trailing = Plant(variant: 1)
            modelContext.insert(leading)
            modelContext.insert(trailing)
            leading.species = species
            trailing.species = species
            backyard.leadingPlants.append(leading)
            backyard.trailingPlants.append(trailing)
            let event = BackyardVisitorEvent(startDate: .now.addingTimeInterval(-600), duration: 300)
            modelContext.insert(event)
            event.backyard = backyard
        }
        try modelContext.save()
        let backyards = try modelContext.fetch(FetchDescriptor<Backyard>(sortBy: [SortDescriptor(\.name, comparator: .localizedStandard)]))
        #expect(backyards.map(\.name) == ["Alder", "Seed Mix 9", "seed mix 10"])
        #expect(backyards.allSatisfy { $0.leadingPlants.count == 1 && $0.trailingPlants.count == 1 })
        #expect(backyards.allSatisfy { $0.historicalEvents.count == 1 })
        #expect(try modelContext.fetch(FetchDescriptor<Backyard>(predicate: #Predicate { $0.isFavorite == true })).isEmpty)
        modelContext.delete(species)
        try modelContext.save()
        #expect(try modelContext.fetchCount(FetchDescriptor<Plant>()) == 0)
    }
}

// MARK: - Animals: version 2, the migration plan, Apple's models

enum SchemaV2: VersionedSchema {
    static var versionIdentifier = Schema.Version(2, 0, 0)

    static var models: [any PersistentModel.Type] {
        [Animal.self, AnimalCategory.self]
    }
}

extension SchemaV2 {
    @Model
    final class Animal {
        var name: String
        var diet: Diet
        var category: AnimalCategory?
        var extinct: Bool? = false

        init(name: String, diet: Diet, extinct: Bool = false) {
            self.name = name
            self.diet = diet
            self.extinct = extinct
        }

        enum Diet: String, CaseIterable, Codable {
            case herbivorous = "Herbivore"
            case carnivorous = "Carnivore"
            case omnivorous = "Omnivore"
        }
    }

    @Model
    final class AnimalCategory {
        @Attribute(.unique) var name: String
        // `.cascade` tells SwiftData to delete all animals contained in the
        // category when deleting it.
        @Relationship(deleteRule: .cascade, inverse: \Animal.category)
        var animals = [Animal]()

        init(name: String) {
            self.name = name
        }
    }
}

enum MigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] {
        [SchemaV1.self, SchemaV2.self]
    }

    static var stages: [MigrationStage] {
        [migrateV1toV2]
    }

    static let migrateV1toV2 = MigrationStage.custom(
        fromVersion: SchemaV1.self,
        toVersion: SchemaV2.self,
        willMigrate: { context in
        },
        didMigrate: { context in
            let animals = try context.fetch(FetchDescriptor<SchemaV2.Animal>())
            // default all animals to not extinct
            for animal in animals {
                animal.extinct = false
            }
            try context.save()
        }
    )
}

/// Apple's sample itself (without versioned schemas).
@Model
final class Animal {
    var name: String
    var diet: Diet
    var category: AnimalCategory?

    init(name: String, diet: Diet) {
        self.name = name
        self.diet = diet
    }
}

extension Animal {
    enum Diet: String, CaseIterable, Codable {
        case herbivorous = "Herbivore"
        case carnivorous = "Carnivore"
        case omnivorous = "Omnivore"
    }
}

@Model
final class AnimalCategory {
    @Attribute(.unique) var name: String
    // `.cascade` tells SwiftData to delete all animals contained in the
    // category when deleting it.
    @Relationship(deleteRule: .cascade, inverse: \Animal.category)
    var animals = [Animal]()

    init(name: String) {
        self.name = name
    }
}

@Suite("Animals: migration")
struct PendingAnimalsTests {
    @Test func migratesV1ToV2() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("animals-v2-\(UUID().uuidString).store")
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            let context = ModelContext(try setupModelContainer(for: SchemaV1.self, url: url))
            try loadSampleDataSchemaV1(context: context)
        }
        let schema = Schema(versionedSchema: SchemaV2.self)
        let container = try ModelContainer(for: schema, migrationPlan: MigrationPlan.self, configurations: [ModelConfiguration(schema: schema, url: url)])
        let animals = try ModelContext(container).fetch(FetchDescriptor<SchemaV2.Animal>())
        #expect(animals.count == 6)
        #expect(animals.allSatisfy { $0.extinct == false })
    }

    @Test func applesSample() throws {
        let modelContext = ModelContext(try ModelContainer(for: AnimalCategory.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let mammal = AnimalCategory(name: "Mammal")
        modelContext.insert(mammal)
        let dog = Animal(name: "Dog", diet: .carnivorous)
        modelContext.insert(dog)
        dog.category = mammal
        try modelContext.save()
        #expect(mammal.animals.map(\.name) == ["Dog"])
        try modelContext.delete(model: AnimalCategory.self)
        try modelContext.save()
        #expect(try modelContext.fetchCount(FetchDescriptor<Animal>()) == 0)
    }
}

// MARK: - iTour, with sights

@Model
class Destination {
    var name: String
    var details: String
    var date: Date
    var priority: Int
    @Relationship(deleteRule: .cascade) var sights = [Sight]()

    init(name: String = "", details: String = "", date: Date = .now, priority: Int = 2) {
        self.name = name
        self.details = details
        self.date = date
        self.priority = priority
    }
}

@Model
class Sight {
    var name: String

    init(name: String) {
        self.name = name
    }
}

@Suite("iTour: sights")
struct PendingITourTests {
    @Test func sightsCascade() throws {
        let modelContext = ModelContext(try ModelContainer(for: Destination.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let rome = Destination(name: "Rome")
        modelContext.insert(rome)
        rome.sights.append(Sight(name: "Colosseum"))
        try modelContext.save()
        #expect(try modelContext.fetchCount(FetchDescriptor<Sight>()) == 1)
        modelContext.delete(rome)
        try modelContext.save()
        #expect(try modelContext.fetchCount(FetchDescriptor<Sight>()) == 0)
    }
}
#endif
