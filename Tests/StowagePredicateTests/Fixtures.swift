import Foundation
import Stowage
@testable import StowageCore

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
