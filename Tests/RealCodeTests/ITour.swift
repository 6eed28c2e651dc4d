#if !canImport(Darwin)
// Hacking with Swift's SwiftData tutorial project, iTour ("SwiftData by Example"): `@Model class
// Destination` (not final) with default arguments in its initializer, the list's two sort descriptors,
// its search predicate with `localizedStandardContains` and an `if` in the closure, and a date filter.
// The tutorial's first steps have Destination without sights (here, nested in an enum so that the
// final Destination can keep its name); the final one, with `@Relationship(deleteRule: .cascade)
// var sights = [Sight]()`, is in RelationshipSpellings.swift.
import Foundation
import SwiftData

enum ITourFirstSteps {
    @Model
    class Destination {
        var name: String
        var details: String
        var date: Date
        var priority: Int

        init(name: String = "", details: String = "", date: Date = .now, priority: Int = 2) {
            self.name = name
            self.details = details
            self.date = date
            self.priority = priority
        }
    }

    /// The sort picker's choices: `[SortDescriptor(\Destination.name)]` and so on.
    static let sortOrders: [[SortDescriptor<Destination>]] = [
        [SortDescriptor(\Destination.name), SortDescriptor(\Destination.date)],
        [SortDescriptor(\Destination.priority, order: .reverse), SortDescriptor(\Destination.name)],
        [SortDescriptor(\Destination.date), SortDescriptor(\Destination.name)],
    ]

    /// DestinationListingView's query: `Query(filter: #Predicate { ... }, sort: sort)`.
    static func listing(sort: [SortDescriptor<Destination>], searchString: String) -> FetchDescriptor<Destination> {
        FetchDescriptor(predicate: #Predicate {
            if searchString.isEmpty {
                return true
            } else {
                return $0.name.localizedStandardContains(searchString)
            }
        }, sortBy: sort)
    }

    /// The "upcoming destinations" challenge: `#Predicate { $0.date > now }`.
    static func upcoming() -> FetchDescriptor<Destination> {
        let now = Date.now
        return FetchDescriptor(predicate: #Predicate { $0.date > now }, sortBy: [SortDescriptor(\Destination.date)])
    }

    static func addSamples(modelContext: ModelContext) {
        let rome = Destination(name: "Rome", date: .now.addingTimeInterval(86_400 * 30), priority: 3)
        let florence = Destination(name: "Florence", date: .now.addingTimeInterval(86_400 * 10))
        let naples = Destination(name: "Naples", date: .now.addingTimeInterval(-86_400 * 300), priority: 1)

        modelContext.insert(rome)
        modelContext.insert(florence)
        modelContext.insert(naples)
    }
}
#endif
