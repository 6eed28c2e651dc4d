#if !canImport(Darwin)
// The model layer of Apple's "Backyard Birds" sample (BackyardBirdsData), with the same declarations:
// `@Model public class`, `@Attribute(.unique) public var id: String`, Codable structs and arrays stored
// as attributes, a to-many relationship without inverse, `TimeInterval` properties. Backyard, Plant,
// PlantSpecies and BackyardVisitorEvent are in RelationshipSpellings.swift, with Backyard's two
// relationships with the same inverse (`@Relationship(inverse: \Plant.backyard)` on leadingPlants and
// trailingPlants); the others reach Backyard.
import Foundation
import Observation
import SwiftData

extension TimeInterval {
    public init(minutes: Double) { self = minutes * 60 }
    public init(hours: Double) { self = hours * 60 * 60 }
}

// MARK: - Bird

@Model public class Bird {
    @Attribute(.unique) public var id: String
    public var creationDate: Date

    public var species: BirdSpecies?
    public var favoriteFood: BirdFood?
    public var dislikedFoods: [BirdFood] = []
    public var colors: BirdPalette
    public var tag: String?
    public var lastKnownVisit: Date?

    /// The preferred time of day, when shown in the UI.
    public var backgroundTimeInterval: Double

    public var speciesName: String { species?.info.name ?? "- Species name is missing. -" }

    public var visitStatus: BirdVisitStatus {
        if let lastKnownVisit {
            .recently(lastKnownVisit)
        } else {
            .never
        }
    }

    public init(creationDate: Date = .now, colors: BirdPalette, tag: BirdTag? = nil, backgroundTimeInterval: TimeInterval = TimeInterval(hours: 10)) {
        self.id = UUID().uuidString
        self.creationDate = creationDate
        self.colors = colors
        self.tag = tag?.rawValue
        self.backgroundTimeInterval = backgroundTimeInterval
    }

    public func updateVisitStatus(visitedOn date: Date) {
        guard date <= .now else { return }
        if let lastKnownVisit, lastKnownVisit > date {
            return
        }
        lastKnownVisit = date
    }
}

public enum BirdTag: String, Hashable, Codable {
    case classicGreenHummingbird
    case premiumGoldenHummingbird
}

public enum BirdVisitStatus: Equatable {
    case never
    case recently(Date)
}

/// The bird's colors (the sample stores a struct of its own color values; this one has the same shape).
public struct BirdPalette: Codable, Hashable {
    public var primary: BirdColor
    public var secondary: BirdColor
    public var accent: BirdColor?

    public struct BirdColor: Codable, Hashable {
        public var red: Double
        public var green: Double
        public var blue: Double
    }
}

// MARK: - Bird species

@Model public class BirdSpecies {
    @Attribute(.unique) public var id: String
    public var naturalScale: Double
    public var isEarlyAccess: Bool

    public var info: BirdSpeciesInfo { BirdSpeciesInfo(rawValue: id) }

    public init(info: BirdSpeciesInfo, naturalScale: Double = 1, isEarlyAccess: Bool = false) {
        self.id = info.rawValue
        self.naturalScale = naturalScale
        self.isEarlyAccess = isEarlyAccess
    }
}

public struct BirdSpeciesInfo: RawRepresentable, Hashable {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var name: String { rawValue.replacingOccurrences(of: "-", with: " ").capitalized }

    public static let hummingbird = BirdSpeciesInfo(rawValue: "hummingbird")
    public static let dove = BirdSpeciesInfo(rawValue: "dove")
    public static let scrubJay = BirdSpeciesInfo(rawValue: "california-scrub-jay")
}

// MARK: - Bird food

@Model public class BirdFood {
    @Attribute(.unique) public var id: String
    public var name: String
    public var summary: String
    public var priority: Int

    /// The corresponding in-app purchase products if this is a premium food item.
    public var products: [Product]
    /// The owned quantity if this is a premium food item.
    public var ownedQuantity: Int

    public var isPremium: Bool {
        !products.isEmpty
    }

    public var orderedProducts: [Product] {
        products.sorted { lhs, rhs in
            lhs.quantity < rhs.quantity
        }
    }

    public init(
        id: String,
        name: String,
        summary: String,
        products: [Product] = [],
        priority: Int? = nil
    ) {
        self.id = id
        self.name = name
        self.summary = summary
        self.products = products
        self.ownedQuantity = 0
        self.priority = priority ?? (products.isEmpty ? 0 : 1)
    }

    public struct Product: Identifiable, Codable {
        public var id: String
        public var quantity: Int
    }
}

extension Sequence where Element == BirdFood {
    public func birdFood(for productID: String) -> (BirdFood, BirdFood.Product)? {
        lazy.compactMap { birdFood in
            birdFood.products
                .first { $0.id == productID }
                .map { (birdFood, $0) }
        }
        .first
    }
}

extension BirdFood {
    static func generateAll(modelContext: ModelContext) {
        modelContext.insert(BirdFood(id: "Nutrition Pellet", name: "Nutrition Pellet", summary: "A pellet.", priority: 0))
        modelContext.insert(BirdFood(id: "Suet Cake", name: "Suet Cake", summary: "Fat and seeds.", products: [
            Product(id: "suet.3", quantity: 3), Product(id: "suet.1", quantity: 1), Product(id: "suet.10", quantity: 10),
        ]))
        modelContext.insert(BirdFood(id: "Seed Mix 10", name: "seed mix 10", summary: "Ten seeds."))
        modelContext.insert(BirdFood(id: "Seed Mix 9", name: "Seed Mix 9", summary: "Nine seeds."))
        modelContext.insert(BirdFood(id: "Sunflower Seeds", name: "Sunflower Seeds", summary: "Seeds.", products: [
            Product(id: "sunflower.5", quantity: 5),
        ]))
    }
}

// MARK: - Account

@Model public class Account {
    @Attribute(.unique) public var id: String
    public var bird: Bird?
    public var joinDate: Date
    public var displayName: String
    public var emailAddress: String
    public var isPremiumMember: Bool

    public init(joinDate: Date, displayName: String, emailAddress: String, isPremiumMember: Bool) {
        self.id = UUID().uuidString
        self.joinDate = joinDate
        self.displayName = displayName
        self.emailAddress = emailAddress
        self.isPremiumMember = isPremiumMember
    }
}

enum BirdsDataGeneration {
    /// The schema of the parts that compile today.
    static let schema = Schema([Bird.self, BirdSpecies.self, BirdFood.self, Account.self])

    static func generateAllData(modelContext: ModelContext) {
        BirdFood.generateAll(modelContext: modelContext)
        let allBirdFood = try! modelContext.fetch(FetchDescriptor<BirdFood>(sortBy: [.init(\.id)]))
        let species: [BirdSpecies] = [
            BirdSpecies(info: .hummingbird, naturalScale: 0.4),
            BirdSpecies(info: .dove),
            BirdSpecies(info: .scrubJay, naturalScale: 0.8, isEarlyAccess: true),
        ]
        let white = BirdPalette.BirdColor(red: 1, green: 1, blue: 1)
        let green = BirdPalette.BirdColor(red: 0.1, green: 0.8, blue: 0.2)
        for (index, species) in species.enumerated() {
            modelContext.insert(species)
            let bird = Bird(
                creationDate: Date(timeIntervalSinceReferenceDate: Double(index) * 1_000),
                colors: BirdPalette(primary: green, secondary: white, accent: index == 0 ? white : nil),
                tag: index == 0 ? .classicGreenHummingbird : nil)
            modelContext.insert(bird)
            bird.species = species
            bird.favoriteFood = allBirdFood[index]
            bird.dislikedFoods = [allBirdFood[(index + 1) % allBirdFood.count], allBirdFood[(index + 2) % allBirdFood.count]]
        }
        let account = Account(joinDate: Date(timeIntervalSinceReferenceDate: 0), displayName: "Juniper", emailAddress: "juniper@example.com", isPremiumMember: false)
        modelContext.insert(account)
        account.bird = try! modelContext.fetch(FetchDescriptor<Bird>(sortBy: [.init(\.creationDate)])).first
    }
}
#endif
