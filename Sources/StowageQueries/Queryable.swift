/// A value made from a model: what the rest of an app reads instead of the model itself (seed 003's
/// `Queryable`). Values are immutable snapshots of their model when made; the model stays in the data
/// layer. Make yours `Sendable` (plain stored properties) to hand them across isolation boundaries.
///
/// ```swift
/// struct Contact: Queryable {
///     typealias Filter = ContactFilter
///     let givenName: String
///     let familyName: String?
///     init(result: ContactModel) {
///         givenName = result.givenName
///         familyName = result.familyName
///     }
/// }
/// ```
///
/// Several `Queryable` types may project one model, each with the properties a screen needs.
public protocol Queryable {
    /// The type that says which models to read, and in what order.
    associatedtype Filter: QueryFilter
    /// Makes the value from a model that matched the filter.
    init(result: Filter.ResultType)
}

/// Which models a ``Queryable`` type reads and in what order (seed 003's `QueryFilter`): the one place
/// that turns an app's notion of a search into a `FetchDescriptor`.
///
/// Filters are `Equatable` so that a live ``Query`` runs again only when its filter really changed.
/// Make yours `Codable` too to persist them (a saved search).
///
/// ```swift
/// struct ContactFilter: QueryFilter {
///     static let all = ContactFilter()
///     var searchString = ""
///     func fetchDescriptor(_ queryStore: QueryStore) -> FetchDescriptor<ContactModel> {
///         let text = searchString
///         return FetchDescriptor(
///             predicate: text.isEmpty ? nil : #Predicate { $0.givenName.localizedStandardContains(text) },
///             sortBy: [SortDescriptor(\.givenName)])
///     }
/// }
/// ```
public protocol QueryFilter: Equatable {
    /// The model the filter selects.
    associatedtype ResultType: PersistentModel
    /// The descriptor that selects and orders the models. The seed's `fetchRequest(_:)`; the data store
    /// is passed in for filters that need what it knows (the seed's cached information).
    func fetchDescriptor(_ queryStore: QueryStore) -> FetchDescriptor<ResultType>
}
