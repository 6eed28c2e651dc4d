import Foundation

/// What to fetch: a predicate, a sort order, and paging and loading options.
///
/// ```swift
/// var descriptor = FetchDescriptor<Budget>(
///     predicate: #Predicate { $0.limit > 100 },
///     sortBy: [SortDescriptor(\.name)])
/// descriptor.fetchLimit = 20
/// let budgets = try context.fetch(descriptor)
/// ```
///
/// The predicate, the sort, the limit and the offset all run in SQL. A predicate node that SQL cannot
/// express is evaluated in Swift over the rows SQL already narrowed, with a warning naming the node
/// (see ``ModelContext/requiresSQLTranslation`` for the strict mode).
public struct FetchDescriptor<T: PersistentModel>: @unchecked Sendable {
    // @unchecked Sendable: key paths are immutable values; Predicate and SortDescriptor are Sendable.

    /// The condition models must satisfy, or `nil` for every model.
    public var predicate: Predicate<T>?
    /// The order of the results. Strings sort with `localizedStandard` order unless the descriptor names
    /// another comparator, as in SwiftData.
    public var sortBy: [SortDescriptor<T>]
    /// The maximum number of models to return.
    public var fetchLimit: Int?
    /// The number of matching models to skip.
    public var fetchOffset: Int?
    /// Whether the results include the context's unsaved inserts, changes and deletions (the default).
    public var includePendingChanges: Bool = true
    /// The properties to load with each row; the others load on first access. Empty loads every
    /// property.
    public var propertiesToFetch: [PartialKeyPath<T>] = []
    /// Relationships to load for all results in one query each, instead of one query per model.
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>] = []

    /// Creates a descriptor.
    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}
