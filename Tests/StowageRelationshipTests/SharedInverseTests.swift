import Foundation
import GRDB
import Stowage
import Testing

// Apple's Backyard Birds declares two relationships with the same inverse: a backyard's plants stand on
// its leading or its trailing side, and each plant knows its backyard.
@Model
final class Yard {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Shrub.yard)
    var leadingShrubs: [Shrub] = []
    @Relationship(deleteRule: .nullify, inverse: \Shrub.yard)
    var trailingShrubs: [Shrub] = []

    init(name: String) { self.name = name }
}

@Model
final class Shrub {
    var name: String
    var yard: Yard?

    init(name: String) { self.name = name }
}

@Suite struct SharedInverseTests {
    private func names(_ shrubs: [Shrub]) -> [String] { shrubs.map(\.name) }

    @Test func theSchemaOpensAndSaysWhoIsWhosInverse() throws {
        let schema = Schema([Yard.self, Shrub.self])
        let yard = try #require(schema.entity(for: Yard.self))
        let shrub = try #require(schema.entity(for: Shrub.self))
        #expect((yard.storedPropertiesByName["leadingShrubs"] as? Schema.Relationship)?.inverseName == "yard")
        #expect((yard.storedPropertiesByName["trailingShrubs"] as? Schema.Relationship)?.inverseName == "yard")
        // The to-one names the first relationship that declares it, as its primary inverse.
        #expect((shrub.storedPropertiesByName["yard"] as? Schema.Relationship)?.inverseName == "leadingShrubs")
        _ = try ModelContainer(for: Yard.self, Shrub.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    }

    @Test func appendingThroughEitherArraySetsTheToOne() {
        let yard = Yard(name: "Home")
        let rose = Shrub(name: "Rose"), fern = Shrub(name: "Fern")
        yard.leadingShrubs.append(rose)
        yard.trailingShrubs.append(fern)
        #expect(rose.yard === yard)
        #expect(fern.yard === yard)
        #expect(names(yard.leadingShrubs) == ["Rose"])
        #expect(names(yard.trailingShrubs) == ["Fern"])
    }

    @Test func aShrubStandsInOneArrayOfOneYard() {
        let home = Yard(name: "Home"), park = Yard(name: "Park")
        let rose = Shrub(name: "Rose")
        home.leadingShrubs.append(rose)
        // Moving it to the other side of the same yard takes it out of the first.
        home.trailingShrubs.append(rose)
        #expect(home.leadingShrubs.isEmpty)
        #expect(names(home.trailingShrubs) == ["Rose"])
        #expect(rose.yard === home)
        // Moving it to another yard takes it out of this one.
        park.leadingShrubs.append(rose)
        #expect(home.trailingShrubs.isEmpty)
        #expect(rose.yard === park)
    }

    @Test func settingTheToOneAddsToTheFirstArrayAndClearingRemovesFromEither() {
        let home = Yard(name: "Home"), park = Yard(name: "Park")
        let rose = Shrub(name: "Rose"), fern = Shrub(name: "Fern")
        rose.yard = home
        #expect(names(home.leadingShrubs) == ["Rose"])
        #expect(home.trailingShrubs.isEmpty)
        home.trailingShrubs.append(fern)
        fern.yard = nil
        #expect(home.trailingShrubs.isEmpty)
        fern.yard = park
        #expect(names(park.leadingShrubs) == ["Fern"])
        rose.yard = park
        #expect(home.leadingShrubs.isEmpty)
        #expect(names(park.leadingShrubs) == ["Fern", "Rose"])
        // Clearing an array clears the to-one of each shrub it held.
        park.leadingShrubs = []
        #expect(rose.yard == nil && fern.yard == nil)
    }

    @Test func eachArrayHoldsItsOwnShrubsAfterAReopenInAnyModelOrder() throws {
        let url = temporaryStoreURL()
        do {
            let container = try ModelContainer(for: Yard.self, Shrub.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let yard = Yard(name: "Home")
            context.insert(yard)
            yard.leadingShrubs = [Shrub(name: "Rose"), Shrub(name: "Tulip")]
            yard.trailingShrubs = [Shrub(name: "Fern"), Shrub(name: "Ivy"), Shrub(name: "Moss")]
            try context.save()
        }
        for order in [[Shrub.self, Yard.self], [Yard.self, Shrub.self]] as [[any PersistentModel.Type]] {
            let container = try ModelContainer(for: Schema(order), configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let yard = try #require(try context.fetch(FetchDescriptor<Yard>()).first)
            #expect(names(yard.leadingShrubs) == ["Rose", "Tulip"])
            #expect(names(yard.trailingShrubs) == ["Fern", "Ivy", "Moss"])
            let shrubs = try context.fetch(FetchDescriptor<Shrub>(sortBy: [SortDescriptor(\.name)]))
            #expect(shrubs.allSatisfy { $0.yard === yard })
            // Predicates see each array on its own.
            let trailing = try context.fetch(FetchDescriptor<Yard>(predicate: #Predicate { yard in
                yard.trailingShrubs.contains { $0.name == "Ivy" }
            }))
            #expect(trailing.count == 1)
            let leading = try context.fetch(FetchDescriptor<Yard>(predicate: #Predicate { yard in
                yard.leadingShrubs.contains { $0.name == "Ivy" }
            }))
            #expect(leading.isEmpty)
            let inHome = try context.fetchCount(FetchDescriptor<Shrub>(predicate: #Predicate { $0.yard?.name == "Home" }))
            #expect(inHome == 5)
        }
    }

    @Test func movingAndClearingAreSavedOnBothSides() throws {
        let url = temporaryStoreURL()
        let container = try ModelContainer(for: Yard.self, Shrub.self, configurations: ModelConfiguration(url: url))
        do {
            let context = ModelContext(container)
            let yard = Yard(name: "Home")
            context.insert(yard)
            yard.leadingShrubs = [Shrub(name: "Rose"), Shrub(name: "Fern")]
            try context.save()
        }
        do {
            let context = ModelContext(container)
            let yard = try #require(try context.fetch(FetchDescriptor<Yard>()).first)
            let fern = try #require(yard.leadingShrubs.last)
            yard.trailingShrubs.append(fern)
            let rose = try #require(yard.leadingShrubs.first)
            rose.yard = nil
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Shrub.self, Yard.self, configurations: ModelConfiguration(url: url)))
        let yard = try #require(try context.fetch(FetchDescriptor<Yard>()).first)
        #expect(yard.leadingShrubs.isEmpty)
        #expect(names(yard.trailingShrubs) == ["Fern"])
        let rose = try #require(try context.fetch(FetchDescriptor<Shrub>(predicate: #Predicate { $0.name == "Rose" })).first)
        #expect(rose.yard == nil)
    }

    @Test func eachArrayKeepsItsOwnDeleteRule() throws {
        let container = try ModelContainer(for: Yard.self, Shrub.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let yard = Yard(name: "Home")
        context.insert(yard)
        yard.leadingShrubs = [Shrub(name: "Rose")]  // cascade
        yard.trailingShrubs = [Shrub(name: "Fern")]  // nullify
        try context.save()
        context.delete(yard)
        try context.save()
        let left = try context.fetch(FetchDescriptor<Shrub>())
        #expect(names(left) == ["Fern"])
        #expect(left.first?.yard == nil)
        let fresh = ModelContext(container)
        #expect(try fresh.fetch(FetchDescriptor<Shrub>()).map { $0.yard == nil } == [true])
    }

    @Test func deletingAShrubTakesItOutOfItsArray() throws {
        let container = try ModelContainer(for: Yard.self, Shrub.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let yard = Yard(name: "Home")
        context.insert(yard)
        yard.trailingShrubs = [Shrub(name: "Fern"), Shrub(name: "Ivy")]
        try context.save()
        context.delete(yard.trailingShrubs[0])
        try context.save()
        #expect(names(yard.trailingShrubs) == ["Ivy"])
        #expect(names(try ModelContext(container).fetch(FetchDescriptor<Yard>()).first?.trailingShrubs ?? []) == ["Ivy"])
    }

    @Test func sharingIsRefusedWhereItHasNoMeaning() throws {
        // A to-many shared as the inverse of two relationships stays an error.
        let error = #expect(throws: StowageError.self) {
            _ = try ModelContainer(for: Society.self, Fellow.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        }
        #expect(error?.code == .invalidSchema)
        #expect(error?.message.contains("Only a to-one relationship can be the inverse of several relationships") == true)
    }
}

@Model
final class Society {
    var name: String = ""
    @Relationship(inverse: \Fellow.societies) var fellows: [Fellow] = []
    @Relationship(inverse: \Fellow.societies) var honoraryFellows: [Fellow] = []
    init() {}
}

@Model
final class Fellow {
    var name: String = ""
    var societies: [Society] = []
    init() {}
}
