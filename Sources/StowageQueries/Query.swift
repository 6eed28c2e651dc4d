import Observation

/// A live query of ``Queryable`` values with a mutable filter (seed 003's `@Query`, without SwiftUI):
/// its ``results`` follow the store as any context, actor or process saves, and setting ``filter`` runs
/// it again (search as you type). Built on ``ResultsObserver``, so it re-runs only for changes of the
/// models it reads, and a result of millions of rows is read page by page.
///
/// ```swift
/// let contacts = try Query<Contact>(.all, in: queryStore)
/// contacts.filter.searchString = "ad"     // the seed's `$contacts.searchString` binding
/// for contact in contacts.results { print(contact.givenName) }
/// for await results in contacts.updates() { render(results) }
/// ```
///
/// `Query` is `Observable`: `withObservationTracking` on ``results`` hears of every update, and on
/// ``filter`` of each change to it. Use it in the isolation it was created in; made on an actor (the
/// main actor in an app), it updates there by itself.
public final class Query<T: Queryable>: Observable {
    /// The data store the query reads.
    public let queryStore: QueryStore
    /// The observer behind the query (its descriptor is the filter's: not for changing).
    let observer: ResultsObserver<T.Filter.ResultType, Never>
    private let registrar = ObservationRegistrar()
    private var currentFilter: T.Filter

    /// A live query of the values matching `filter`, in the caller's isolation.
    ///
    /// - Throws: What the first fetch throws (an unsupported predicate, a store error).
    public init(_ filter: T.Filter, in queryStore: QueryStore, isolation: isolated (any Actor)? = #isolation) throws {
        self.queryStore = queryStore
        currentFilter = filter
        observer = try ResultsObserver(
            fetchDescriptor: filter.fetchDescriptor(queryStore), modelContext: queryStore.viewContext, isolation: isolation)
    }

    /// The filter. Setting a different one runs the query again before the setter returns; setting an
    /// equal one does nothing.
    public var filter: T.Filter {
        get {
            registrar.access(self, keyPath: \.filter)
            return currentFilter
        }
        set {
            guard newValue != currentFilter else { return }
            registrar.withMutation(of: self, keyPath: \.filter) { currentFilter = newValue }
            observer.fetchDescriptor = newValue.fetchDescriptor(queryStore)
        }
    }

    /// The values matching the filter now, made as they are read.
    public var results: QueryResults<T> { QueryResults(observer.results) }

    /// What the latest update changed (see ``ResultsObserver/lastUpdate``).
    public var lastUpdate: ResultsDifference<Never>? { observer.lastUpdate }

    /// The error of the latest run of the query, if it failed (a new filter whose query the store
    /// refused: the results stay as they were); `nil` after one that succeeded.
    public var lastError: (any Error)? { observer.lastError }

    /// The results after each update, starting with the current ones: for code that does not use
    /// Observation. Read it in the query's isolation; it ends when the query is released. A query made
    /// outside any actor updates only when ``results`` is read: make it on an actor to stream.
    public func updates() -> QueryUpdates<T> { QueryUpdates(base: observer.updates()) }
}

/// The results of a ``Query`` after each update (see ``Query/updates()``).
public struct QueryUpdates<T: Queryable>: AsyncSequence {
    /// Each element is the query's results after an update.
    public typealias Element = QueryResults<T>
    /// The sequence never throws: a failed query shows in ``Query/lastError``.
    public typealias Failure = Never

    let base: ResultsUpdates<T.Filter.ResultType, Never>

    /// An iterator that starts with the current results, then waits for each update.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator()) }

    /// The iterator of ``QueryUpdates``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: ResultsUpdates<T.Filter.ResultType, Never>.AsyncIterator

        /// The results after the next update, or `nil` once the query is gone or the task is cancelled.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> QueryResults<T>? {
            await base.next(isolation: actor).map { QueryResults($0.results) }
        }

        /// The results after the next update: see ``next(isolation:)``.
        public mutating func next() async -> QueryResults<T>? {
            await base.next().map { QueryResults($0.results) }
        }
    }
}
