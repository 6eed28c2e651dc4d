import Foundation
import StowageQueries

/// A contact as stored: the persistence model, which only the data layer handles (seed 003's
/// `MyCoreDataContactObject`).
@Model
public final class ContactModel {
    #Index<ContactModel>([\.givenName])
    /// The first name.
    public var givenName: String
    /// The last name, when known.
    public var familyName: String?

    /// A contact to insert.
    public init(givenName: String, familyName: String? = nil) {
        self.givenName = givenName
        self.familyName = familyName
    }
}

/// A contact as the app shows it: an immutable value made from its model (seed 003's `Contact`).
public struct Contact: Queryable, Equatable, Sendable {
    public typealias Filter = ContactFilter

    /// The first name.
    public let givenName: String
    /// The last name, when known.
    public let familyName: String?

    /// The value of a stored contact.
    public init(result: ContactModel) {
        givenName = result.givenName
        familyName = result.familyName
    }

    /// A value with these names (for tests and mocks).
    public init(givenName: String, familyName: String?) {
        self.givenName = givenName
        self.familyName = familyName
    }

    /// "Given Family", or the given name alone.
    public var fullName: String { familyName.map { "\(givenName) \($0)" } ?? givenName }
}

/// A second projection of the same model (seed 003: several `Queryable` types may read one model):
/// the initials a compact list shows, read through the same filter.
public struct ContactInitials: Queryable, Equatable, Sendable {
    public typealias Filter = ContactFilter

    /// Up to two letters: the first of each name.
    public let initials: String

    /// The initials of a stored contact.
    public init(result: ContactModel) {
        initials = String(result.givenName.prefix(1)) + String((result.familyName ?? "").prefix(1))
    }
}

/// Which contacts to read, in what order (seed 003's `ContactFilter`): `Codable`, so that a search can
/// be saved and restored.
public struct ContactFilter: QueryFilter, Codable, Sendable {
    /// Every contact, by given name then family name.
    public static let all = ContactFilter()

    /// The orders contacts can be listed in.
    public enum Order: String, Codable, Sendable {
        /// By given name, then family name (as people read them: ignoring case, numbers by value).
        case name
        /// In the order they were added: no sorting, so the first page of millions of contacts is
        /// read at once.
        case added
    }

    /// Text that the given or family name must contain (ignoring case and diacritics); empty matches
    /// every contact.
    public var searchString = ""
    /// The order of the results.
    public var order = Order.name

    /// A filter matching every contact, or those whose name contains `searchString`.
    public init(searchString: String = "", order: Order = .name) {
        self.searchString = searchString
        self.order = order
    }

    public func fetchDescriptor(_ queryStore: QueryStore) -> FetchDescriptor<ContactModel> {
        let text = searchString.trimmingCharacters(in: .whitespaces)
        let sort = order == .added ? [] : [SortDescriptor(\ContactModel.givenName), SortDescriptor(\ContactModel.familyName)]
        guard !text.isEmpty else { return FetchDescriptor(sortBy: sort) }
        return FetchDescriptor(
            predicate: #Predicate {
                $0.givenName.localizedStandardContains(text) || ($0.familyName ?? "").localizedStandardContains(text)
            },
            sortBy: sort)
    }
}
