import Foundation
import Stowage
@testable import StowageCore

/// A status stored as its raw value.
enum Status: String, Codable, CaseIterable {
    case draft, active, archived
}

/// The model predicates are tested on: one attribute of each kind a predicate compares.
@Model
final class Item {
    var number: Int
    var count: Int
    var price: Double
    var name: String
    var note: String?
    var rank: Int?
    var flag: Bool
    var date: Date
    var status: Status
    var previous: Status?
    var token: UUID

    init(
        number: Int, count: Int = 0, price: Double = 0, name: String = "", note: String? = nil, rank: Int? = nil,
        flag: Bool = false, date: Date = Date(timeIntervalSinceReferenceDate: 0), status: Status = .draft,
        previous: Status? = nil, token: UUID = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
    ) {
        self.number = number
        self.count = count
        self.price = price
        self.name = name
        self.note = note
        self.rank = rank
        self.flag = flag
        self.date = date
        self.status = status
        self.previous = previous
        self.token = token
    }
}

/// A container (in memory unless given a file URL) whose statements are recorded.
struct Fixture {
    let container: ModelContainer
    let context: ModelContext
    let log: SQLDebug.StatementLog
    let observation: SQLObservation

    init(storeURL: URL? = nil) throws {
        let log = SQLDebug.StatementLog()
        observation = SQLDebug.observe { log.append($0) }
        let configuration = storeURL.map { ModelConfiguration(url: $0) } ?? ModelConfiguration(isStoredInMemoryOnly: true)
        container = try ModelContainer(for: Item.self, configurations: configuration)
        context = ModelContext(container)
        self.log = log
    }

    /// Inserts `items` and saves.
    func insert(_ items: [Item]) throws {
        for item in items { context.insert(item) }
        try context.save()
    }

    /// The `number`s of the items a fetch returns, in order.
    func numbers(_ predicate: Predicate<Item>, sortBy: [SortDescriptor<Item>] = [SortDescriptor(\.number)]) throws -> [Int] {
        try context.fetch(FetchDescriptor(predicate: predicate, sortBy: sortBy)).map(\.number)
    }

    /// The SQL (and arguments) of the statements run since `mark`.
    func statements(after mark: Int) -> [String] {
        log.events(of: container).dropFirst(mark).map(\.expandedSQL)
    }

    var statementCount: Int { log.events(of: container).count }
}

/// The entity of `Item`.
var itemEntity: Schema.Entity { Schema([Item.self]).entitiesByName["Item"]! }

/// Translates `predicate` and renders `SELECT COUNT(*)` with its filter.
func countSQL(_ predicate: Predicate<Item>) -> (sql: String, arguments: [StorageValue], complete: Bool) {
    let translation = PredicateTranslator.translate(predicate.expression, variable: predicate.variable.key, entity: itemEntity)
    var query = StoreQuery(entity: itemEntity)
    query.filter = translation.filter
    query.parameters = translation.parameters
    let fragment = SQLiteSQL.count(query)
    return (fragment.sql, fragment.arguments, translation.isComplete)
}
