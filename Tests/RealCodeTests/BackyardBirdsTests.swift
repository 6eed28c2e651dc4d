#if !canImport(Darwin)
import Foundation
import SwiftData
import Testing

@Suite("Backyard Birds")
struct BackyardBirdsTests {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("backyard-birds-\(UUID().uuidString).store")

    private func container() throws -> ModelContainer {
        try ModelContainer(for: BirdsDataGeneration.schema, configurations: [ModelConfiguration(schema: BirdsDataGeneration.schema, url: url)])
    }

    @Test func generatesQueriesSavesAndReopens() throws {
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            let modelContext = ModelContext(try container())
            BirdsDataGeneration.generateAllData(modelContext: modelContext)
            try modelContext.save()
        }
        let modelContext = ModelContext(try container())

        // The sample's fetches: `FetchDescriptor<BirdFood>(sortBy: [.init(\.id)])` (a string: SwiftData's
        // default `.localizedStandard` order), birds by creation date.
        let allBirdFood = try modelContext.fetch(FetchDescriptor<BirdFood>(sortBy: [.init(\.id)]))
        #expect(allBirdFood.map(\.id) == ["Nutrition Pellet", "Seed Mix 9", "Seed Mix 10", "Suet Cake", "Sunflower Seeds"])
        let birds = try modelContext.fetch(FetchDescriptor<Bird>(sortBy: [.init(\.creationDate)]))
        #expect(birds.map(\.speciesName) == ["Hummingbird", "Dove", "California Scrub Jay"])
        #expect(birds.filter { !($0.species?.isEarlyAccess ?? false) }.count == 2)

        // Codable values and arrays of them, stored as attributes.
        let suet = try #require(allBirdFood.first { $0.id == "Suet Cake" })
        #expect(suet.isPremium && suet.priority == 1)
        #expect(suet.orderedProducts.map(\.quantity) == [1, 3, 10])
        #expect(allBirdFood.birdFood(for: "sunflower.5")?.0.id == "Sunflower Seeds")
        #expect(birds[0].colors.accent != nil && birds[1].colors.accent == nil)
        #expect(birds[0].tag == BirdTag.classicGreenHummingbird.rawValue)

        // Relationships: to-one, to-many without inverse, and the account's bird.
        #expect(birds[0].favoriteFood?.id == "Nutrition Pellet")
        #expect(Set(birds[0].dislikedFoods.map(\.id)) == ["Seed Mix 10", "Seed Mix 9"])
        let account = try #require(try modelContext.fetch(FetchDescriptor<Account>()).first)
        #expect(account.bird?.id == birds[0].id)

        // `#Predicate` with a captured array, as the widgets' entity queries look birds up.
        let identifiers = [birds[1].id, birds[2].id]
        let found = try modelContext.fetch(FetchDescriptor<Bird>(predicate: #Predicate { identifiers.contains($0.id) }))
        #expect(Set(found.map(\.id)) == Set(identifiers))

        // The visit status the app updates, saved.
        let visit = Date.now.addingTimeInterval(TimeInterval(minutes: -5))
        birds[1].updateVisitStatus(visitedOn: visit)
        birds[1].updateVisitStatus(visitedOn: visit.addingTimeInterval(-60))
        try modelContext.save()
        let reread = ModelContext(modelContext.container)
        let dove = try #require(try reread.fetch(FetchDescriptor<Bird>(predicate: #Predicate { $0.lastKnownVisit != nil })).first)
        guard case .recently(let date) = dove.visitStatus else { Issue.record("no visit"); return }
        #expect(abs(date.timeIntervalSince(visit)) < 0.001)
    }

    /// The shop's list, `FetchDescriptor(sortBy: [SortDescriptor(\.name, comparator: .localizedStandard)])`.
    @Test func sortsFoodByLocalizedStandardName() throws {
        let modelContext = ModelContext(try ModelContainer(for: BirdFood.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        BirdFood.generateAll(modelContext: modelContext)
        let names = ["Nutrition Pellet", "Seed Mix 9", "seed mix 10", "Suet Cake", "Sunflower Seeds"]
        // Unsaved: the fetch merges the inserted models in Swift.
        #expect(try modelContext.fetch(FetchDescriptor<BirdFood>(sortBy: [SortDescriptor(\.name, comparator: .localizedStandard)])).map(\.name) == names)
        try modelContext.save()
        #expect(try modelContext.fetch(FetchDescriptor<BirdFood>(sortBy: [SortDescriptor(\.name, comparator: .localizedStandard)])).map(\.name) == names)
        let premium = FetchDescriptor<BirdFood>(
            predicate: #Predicate { $0.priority > 0 }, sortBy: [.init(\BirdFood.name, comparator: .localizedStandard, order: .reverse)])
        #expect(try modelContext.fetch(premium).map(\.name) == ["Sunflower Seeds", "Suet Cake"])
    }

    @Test func uniqueIDsUpsert() throws {
        let modelContext = ModelContext(try ModelContainer(for: BirdFood.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        modelContext.insert(BirdFood(id: "Suet Cake", name: "Suet Cake", summary: "old"))
        try modelContext.save()
        modelContext.insert(BirdFood(id: "Suet Cake", name: "Suet Cake", summary: "new"))
        try modelContext.save()
        let all = try modelContext.fetch(FetchDescriptor<BirdFood>())
        #expect(all.count == 1)
        #expect(all.first?.summary == "new")
    }
}
#endif
