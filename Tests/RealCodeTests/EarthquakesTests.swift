#if !canImport(Darwin)
import Foundation
import SwiftData
import Testing

@Suite("Earthquakes")
struct EarthquakesTests {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("earthquakes-\(UUID().uuidString).store")
    let day = Calendar.autoupdatingCurrent.startOfDay(for: Date(timeIntervalSinceReferenceDate: 750_000_000))

    /// What the app's refresh inserts from the USGS feed: one quake per code.
    private func feed(_ day: Date) -> [Quake] {
        [
            Quake(code: "ak1", magnitude: 1.4, time: day.addingTimeInterval(3_600), name: "40 km W of Anchorage, Alaska", longitude: -150, latitude: 61),
            Quake(code: "ci2", magnitude: 3.2, time: day.addingTimeInterval(7_200), name: "5 km N of Ridgecrest, CA", longitude: -117, latitude: 35),
            Quake(code: "us3", magnitude: 5.9, time: day.addingTimeInterval(30_000), name: "Kermadec Islands region", longitude: -177, latitude: -29),
            Quake(code: "ak4", magnitude: 2.1, time: day.addingTimeInterval(90_000), name: "12 km SE of Willow, Alaska", longitude: -150, latitude: 61.7),
        ]
    }

    @Test func refreshFilterSortSaveAndReopen() throws {
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            let container = try ModelContainer(for: Quake.self, configurations: ModelConfiguration(url: url))
            let modelContext = ModelContext(container)
            for quake in feed(day) { modelContext.insert(quake) }
            try modelContext.save()
            // A later refresh carries a revised magnitude for a known code: it updates, not duplicates.
            modelContext.insert(Quake(code: "ci2", magnitude: 3.4, time: day.addingTimeInterval(7_200), name: "5 km N of Ridgecrest, CA", longitude: -117, latitude: 35))
            try modelContext.save()
        }
        let modelContext = ModelContext(try ModelContainer(for: Quake.self, configurations: ModelConfiguration(url: url)))
        #expect(Quake.totalQuakes(modelContext: modelContext) == 4)
        #expect(Quake.dateRange(modelContext: modelContext) == day.addingTimeInterval(3_600) ... day.addingTimeInterval(90_000))

        // The list: that day's quakes, newest first, or by magnitude.
        let list = try modelContext.fetch(quakeListDescriptor(searchText: "", searchDate: day, sortParameter: .time, sortOrder: .reverse))
        #expect(list.map(\.code) == ["us3", "ci2", "ak1"])
        #expect(list[list[1].id]?.magnitude == 3.4)
        // The map: `Query(filter: Quake.predicate(...), sort: \.magnitude, order: .reverse)`, searching the location's name.
        let map = try modelContext.fetch(quakeListDescriptor(searchText: "Alaska", searchDate: day, sortParameter: .magnitude, sortOrder: .reverse))
        #expect(map.map(\.location.name) == ["40 km W of Anchorage, Alaska"])
        let nextDay = try modelContext.fetch(FetchDescriptor(predicate: Quake.predicate(searchText: "Alaska", searchDate: day.addingTimeInterval(86_400))))
        #expect(nextDay.map(\.code) == ["ak4"])
        #expect(nextDay.first?.location.latitude == 61.7)

        // Deleting everything, as the app's "delete all".
        try modelContext.delete(model: Quake.self)
        try modelContext.save()
        #expect(Quake.totalQuakes(modelContext: modelContext) == 0)
        #expect(Quake.dateRange(modelContext: modelContext) == .distantPast ... .distantFuture)
    }
}
#endif
