import Foundation
import Stowage

// A class hierarchy, as in Apple's "Adopting inheritance in SwiftData" and the WWDC25 session "Dive into
// inheritance and schema migration": trips, of which some are business or personal trips.

@Model
public class Trip {
    public var name: String
    public var destination: String
    public var startDate: Date
    @Relationship(deleteRule: .cascade, inverse: \BucketListItem.trip)
    public var bucketList: [BucketListItem] = [BucketListItem]()
    public var traveller: Traveller?

    public init(name: String, destination: String, startDate: Date = Date(timeIntervalSinceReferenceDate: 0)) {
        self.name = name
        self.destination = destination
        self.startDate = startDate
    }
}

@Model
public class BusinessTrip: Trip {
    public var perdiem: Double = 0.0
    public var client: String?

    public init(name: String, destination: String, perdiem: Double) {
        self.perdiem = perdiem
        super.init(name: name, destination: destination)
    }
}

@Model
public final class PersonalTrip: Trip {
    public enum Reason: String, CaseIterable, Codable, Sendable {
        case family
        case reunion
        case wellness
    }

    public var reason: Reason

    public init(name: String, destination: String, reason: Reason) {
        self.reason = reason
        super.init(name: name, destination: destination)
    }
}

/// Two levels down: a business trip abroad.
@Model
public final class InternationalTrip: BusinessTrip {
    public var country: String

    public init(name: String, destination: String, perdiem: Double, country: String) {
        self.country = country
        super.init(name: name, destination: destination, perdiem: perdiem)
    }
}

@Model
public final class BucketListItem {
    public var title: String
    public var trip: Trip?

    public init(title: String) { self.title = title }
}

@Model
public final class Traveller {
    public var name: String
    @Relationship(inverse: \Trip.traveller)
    public var trips: [Trip] = []

    public init(name: String) { self.name = name }
}

public enum InheritanceFixtures {
    public static var types: [String: any PersistentModel.Type] { [
        "Trip": Trip.self, "BusinessTrip": BusinessTrip.self, "PersonalTrip": PersonalTrip.self,
        "InternationalTrip": InternationalTrip.self, "BucketListItem": BucketListItem.self, "Traveller": Traveller.self,
    ] }

    public static func open(_ url: URL, types names: [String]) throws -> ModelContainer {
        try ReopenFixtures.open(url, types: names, from: types)
    }

    /// A traveller with one trip of each class, each with a bucket list item.
    public static func fill(_ container: ModelContainer) throws {
        let context = ModelContext(container)
        let ada = Traveller(name: "Ada")
        context.insert(ada)
        let trips: [Trip] = [
            Trip(name: "Weekend", destination: "Lyon"),
            BusinessTrip(name: "Summit", destination: "Berlin", perdiem: 80),
            PersonalTrip(name: "Reunion", destination: "Porto", reason: .reunion),
            InternationalTrip(name: "Expo", destination: "Osaka", perdiem: 120, country: "Japan"),
        ]
        for trip in trips {
            ada.trips.append(trip)
            trip.bucketList.append(BucketListItem(title: "See \(trip.destination)"))
        }
        (trips[1] as! BusinessTrip).client = "Acme"
        try context.save()
    }

    /// Every trip with its class and its class's own values, sorted by name, then what relates to them.
    public static func summary(_ container: ModelContainer) throws -> String {
        let context = ModelContext(container)
        var lines = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)])).map { trip in
            var line = "\(type(of: trip)) \(trip.name) \(trip.destination)"
            if let business = trip as? BusinessTrip { line += " perdiem=\(business.perdiem) client=\(business.client ?? "-")" }
            if let international = trip as? InternationalTrip { line += " country=\(international.country)" }
            if let personal = trip as? PersonalTrip { line += " reason=\(personal.reason.rawValue)" }
            line += " items=\(trip.bucketList.map(\.title).joined(separator: "+")) traveller=\(trip.traveller?.name ?? "-")"
            return line
        }
        let items = try context.fetch(FetchDescriptor<BucketListItem>(sortBy: [SortDescriptor(\.title)]))
        lines += items.map { "item \($0.title) -> \($0.trip.map { "\(type(of: $0)) \($0.name)" } ?? "-")" }
        let ada = try context.fetch(FetchDescriptor<Traveller>()).first
        lines.append("traveller \(ada?.name ?? "-") trips=\(ada?.trips.map { "\(type(of: $0))" }.joined(separator: ",") ?? "-")")
        return lines.joined(separator: "\n")
    }
}
