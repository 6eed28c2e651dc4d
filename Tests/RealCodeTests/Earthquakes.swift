#if !canImport(Darwin)
// The model layer of Apple's "Earthquakes" SwiftData sample ("Filtering and sorting persistent data"):
// `@Model class Quake` (not final) with a unique code and a Codable struct attribute, the predicate
// shared by its list and map (a search in a property of that struct, and a date range), and its
// FetchDescriptor uses.
import Foundation
import SwiftData

/// A representation of an earthquake.
@Model
class Quake {
    /// A unique identifier associated with each earthquake event.
    @Attribute(.unique) var code: String

    /// The measured strength of the earthquake.
    var magnitude: Double

    /// When the earthquake happened.
    var time: Date

    /// Where the earthquake happened.
    var location: Location

    /// Creates a new earthquake from the specified values.
    init(
        code: String,
        magnitude: Double,
        time: Date,
        name: String,
        longitude: Double,
        latitude: Double
    ) {
        self.code = code
        self.magnitude = magnitude
        self.time = time
        self.location = Location(name: name, longitude: longitude, latitude: latitude)
    }
}

/// The place of an earthquake, stored in the quake's row.
struct Location: Codable {
    var name: String
    var longitude: Double
    var latitude: Double
}

// A convenience for accessing a quake in an array by its identifier.
extension Array where Element: Quake {
    /// Gets the first quake in the array with the specified ID, if any.
    subscript(id: Quake.ID?) -> Quake? {
        first { $0.id == id }
    }
}

extension Quake {
    /// A filter that checks for a date and text in the quake's location name.
    static func predicate(
        searchText: String,
        searchDate: Date
    ) -> Predicate<Quake> {
        let calendar = Calendar.autoupdatingCurrent
        let start = calendar.startOfDay(for: searchDate)
        let end = calendar.date(byAdding: .init(day: 1), to: start) ?? start

        return #Predicate<Quake> { quake in
            (searchText.isEmpty || quake.location.name.contains(searchText))
            &&
            (quake.time > start && quake.time < end)
        }
    }

    /// Report the range of dates over which there are earthquakes.
    static func dateRange(modelContext: ModelContext) -> ClosedRange<Date> {
        let descriptor = FetchDescriptor<Quake>(sortBy: [.init(\.time, order: .forward)])
        guard let quakes = try? modelContext.fetch(descriptor),
              let first = quakes.first?.time,
              let last = quakes.last?.time else { return .distantPast ... .distantFuture }
        return first ... last
    }

    /// Reports the total number of quakes.
    static func totalQuakes(modelContext: ModelContext) -> Int {
        (try? modelContext.fetchCount(FetchDescriptor<Quake>())) ?? 0
    }
}

// Ensure that the model's conformance to Identifiable is public.
extension Quake: Identifiable {}

/// How the list sorts (the list view's `sortParameter`).
enum SortParameter {
    case time, magnitude
}

/// The query the list view builds: `Query(filter: predicate, sort: \.time, order: sortOrder)`.
func quakeListDescriptor(searchText: String, searchDate: Date, sortParameter: SortParameter, sortOrder: SortOrder) -> FetchDescriptor<Quake> {
    let predicate = Quake.predicate(searchText: searchText, searchDate: searchDate)
    switch sortParameter {
    case .time: return FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.time, order: sortOrder)])
    case .magnitude: return FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.magnitude, order: sortOrder)])
    }
}
#endif
