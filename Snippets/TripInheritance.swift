// snippet.hide
// Class inheritance: trips, of which some are business trips, as in Apple's "Adopting inheritance in
// SwiftData".
// snippet.show
// snippet.models
import Stowage

@Model
class Trip {
    var name: String
    var destination: String

    init(name: String, destination: String) {
        self.name = name
        self.destination = destination
    }
}

@Model
class BusinessTrip: Trip {
    var perdiem: Double = 0.0

    init(name: String, destination: String, perdiem: Double) {
        self.perdiem = perdiem
        super.init(name: name, destination: destination)
    }
}

@Model
class PersonalTrip: Trip {
    enum Reason: String, Codable {
        case family, reunion, wellness
    }

    var reason: Reason

    init(name: String, destination: String, reason: Reason) {
        self.reason = reason
        super.init(name: name, destination: destination)
    }
}
// snippet.end

// snippet.usage
let container = try ModelContainer(
    for: Trip.self, BusinessTrip.self, PersonalTrip.self,   // list every subclass
    configurations: ModelConfiguration(url: URL(fileURLWithPath: "trips.store")))
let context = ModelContext(container)
context.insert(Trip(name: "Weekend", destination: "Lyon"))
context.insert(BusinessTrip(name: "Summit", destination: "Berlin", perdiem: 80))
context.insert(PersonalTrip(name: "Reunion", destination: "Porto", reason: .reunion))
try context.save()

// Every trip, each of its own class, sorted on a property they share.
let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
print(trips.map { "\(type(of: $0)) \($0.name)" })    // PersonalTrip Reunion, BusinessTrip Summit, Trip Weekend

// Only business trips; `is` and `as?` in a predicate run in SQL.
let business = try context.fetch(FetchDescriptor<BusinessTrip>())
let generous = try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { trip in
    if let business = trip as? BusinessTrip { return business.perdiem > 50 } else { return false }
}))
let notPersonal = try context.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { !($0 is PersonalTrip) }))
// snippet.end
// snippet.hide
precondition(trips.map { "\(type(of: $0)) \($0.name)" } == ["PersonalTrip Reunion", "BusinessTrip Summit", "Trip Weekend"])
precondition(business.map(\.name) == ["Summit"] && generous.map(\.name) == ["Summit"] && notPersonal == 2)
