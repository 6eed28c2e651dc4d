#if !canImport(Darwin)
import Foundation
import SwiftData
import Testing

@Suite("iTour (Hacking with Swift)")
struct ITourTests {
    typealias Destination = ITourFirstSteps.Destination

    @Test func samplesSortSearchEditDelete() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("itour-\(UUID().uuidString).store")
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            // `.modelContainer(for: Destination.self)`, with the tutorial's samples and an empty new destination.
            let modelContext = ModelContext(try ModelContainer(for: Destination.self, configurations: ModelConfiguration(url: url)))
            ITourFirstSteps.addSamples(modelContext: modelContext)
            let destination = Destination()
            modelContext.insert(destination)
            destination.name = "Étretat"
            destination.details = "Cliffs"
            try modelContext.save()
        }
        let modelContext = ModelContext(try ModelContainer(for: Destination.self, configurations: ModelConfiguration(url: url)))

        let byName = try modelContext.fetch(ITourFirstSteps.listing(sort: ITourFirstSteps.sortOrders[0], searchString: ""))
        #expect(byName.map(\.name) == ["Étretat", "Florence", "Naples", "Rome"])
        let byPriority = try modelContext.fetch(ITourFirstSteps.listing(sort: ITourFirstSteps.sortOrders[1], searchString: ""))
        #expect(byPriority.map(\.name) == ["Rome", "Étretat", "Florence", "Naples"])
        // Case- and diacritic-insensitive search.
        let search = try modelContext.fetch(ITourFirstSteps.listing(sort: ITourFirstSteps.sortOrders[0], searchString: "e"))
        #expect(search.map(\.name) == ["Étretat", "Florence", "Naples", "Rome"])
        let etretat = try modelContext.fetch(ITourFirstSteps.listing(sort: ITourFirstSteps.sortOrders[0], searchString: "ETR"))
        #expect(etretat.map(\.name) == ["Étretat"])
        #expect(try modelContext.fetch(ITourFirstSteps.upcoming()).map(\.name) == ["Florence", "Rome"])

        // Editing (the form binds to the model) and swipe-to-delete.
        etretat[0].priority = 3
        modelContext.delete(byName[2])
        try modelContext.save()
        let after = try modelContext.fetch(ITourFirstSteps.listing(sort: ITourFirstSteps.sortOrders[1], searchString: ""))
        #expect(after.map(\.name) == ["Étretat", "Rome", "Florence"])
    }
}
#endif
