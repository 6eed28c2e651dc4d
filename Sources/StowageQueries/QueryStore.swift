import Foundation

/// The data layer of an app built on ``Queryable`` values: it owns the container and the context that
/// values are read from, and every change goes through it, so the rest of the app never handles a
/// context.
///
/// Seed 003 calls this layer `DataStore`. In SwiftData that name is the protocol a storage backend
/// adopts (a JSON file, a server), which `import Stowage` provides too: this layer sits above the
/// container, that protocol below it, so the two names are kept apart.
///
/// ```swift
/// let store = try QueryStore(for: [ContactModel.self], url: storeURL)
/// try store.write { context in context.insert(ContactModel(givenName: "Ada")) }
/// let contacts = try store.fetch(ContactFilter.all, as: Contact.self)
/// ```
///
/// A data store is used in one isolation, like the context it holds (the main actor in an app).
public final class QueryStore {
    /// The container whose store holds the models.
    public let container: ModelContainer
    /// The context that queries read and ``write(_:)`` changes (the seed's `viewContext`).
    public let viewContext: ModelContext

    /// How many models ``fetch(_:as:)`` loads at a time: the most Stowage's iteration reads per batch.
    private static let batchSize = 256

    /// A data store over `container`, with a new context.
    public init(container: ModelContainer) {
        self.container = container
        viewContext = ModelContext(container)
    }

    /// A data store over a new container for `types`: in the store file at `url`, or in memory when
    /// `url` is `nil`.
    ///
    /// - Throws: What `ModelContainer` throws when the store cannot be opened.
    public convenience init(for types: [any PersistentModel.Type], url: URL?) throws {
        let configuration = url.map { ModelConfiguration(url: $0) } ?? ModelConfiguration(isStoredInMemoryOnly: true)
        self.init(container: try ModelContainer(for: Schema(types), configurations: configuration))
    }

    /// The values matching `filter`, made from their models as you read them, in batches.
    ///
    /// Models are loaded as you read; what is read up front depends on the filter: nothing but a count
    /// when it neither sorts nor filters in Swift, the primary keys of every match when it sorts (the
    /// store sorts them all), every model when part of its predicate runs in Swift. For millions of
    /// sorted matches, a ``Query`` reads page by page instead.
    public func fetch<T: Queryable>(_ filter: T.Filter, as type: T.Type = T.self) throws -> QueryResults<T> {
        QueryResults(try viewContext.fetch(filter.fetchDescriptor(self), batchSize: Self.batchSize))
    }

    /// The number of models matching `filter`.
    public func count<Filter: QueryFilter>(_ filter: Filter) throws -> Int {
        try viewContext.fetchCount(filter.fetchDescriptor(self))
    }

    /// Makes changes and saves them in one transaction. When `changes` or the save throws, nothing is
    /// saved and the context is rolled back to its last save. Do not call `write` inside `changes`: the
    /// inner call saves on its own, and the outer one cannot take that back.
    ///
    /// - Returns: What `changes` returns.
    @discardableResult
    public func write<Result>(_ changes: (ModelContext) throws -> Result) throws -> Result {
        do {
            let result = try changes(viewContext)
            try viewContext.save()
            return result
        } catch {
            viewContext.rollback()
            throw error
        }
    }
}
