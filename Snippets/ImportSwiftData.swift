// snippet.hide
// Getting Started: a program that keeps `import SwiftData`, through Stowage's SwiftData product. On
// Apple platforms `import SwiftData` is Apple's framework, which this package's build would hide behind
// Stowage's empty module of that name (see Package.swift): the program is built on other platforms.
#if !canImport(Darwin)
// snippet.show
import SwiftData

@Model
final class Trip {
    var destination: String
    var days: Int

    init(destination: String, days: Int) {
        self.destination = destination
        self.days = days
    }
}

let schema = SwiftData.Schema([Trip.self])
let container = try SwiftData.ModelContainer(for: schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
let context = ModelContext(container)
context.insert(Trip(destination: "Lisbon", days: 5))
context.insert(Trip(destination: "Seed Island 10", days: 2))
context.insert(Trip(destination: "seed island 9", days: 12))
try context.save()

let longTrips = FetchDescriptor<Trip>(
    predicate: #Predicate { $0.days > 3 },
    sortBy: [SortDescriptor(\.destination, comparator: .localizedStandard)])
for trip in try context.fetch(longTrips) {
    print(trip.destination, trip.days)
}
// snippet.hide
let names = try context.fetch(longTrips).map(\.destination)
precondition(names == ["Lisbon", "seed island 9"], "\(names)")
#endif
