// snippet.hide
// Architectures: queryable values and a live query (StowageQueries).
// snippet.show
// snippet.types
import StowageQueries
// snippet.hide

/// A check of what the article says, run by .ci/docs (a `precondition` cannot hold `try` or `await`).
func expect(_ condition: Bool, _ message: @autoclosure () -> String = "", line: Int = #line) {
    if !condition { fatalError("line \(line): \(message())") }
}
// snippet.show

@Model
final class ContactModel {
    var givenName: String
    var familyName: String?
    init(givenName: String, familyName: String? = nil) {
        self.givenName = givenName
        self.familyName = familyName
    }
}

struct Contact: Queryable, Sendable {
    typealias Filter = ContactFilter
    let givenName: String, familyName: String?
    init(result: ContactModel) { givenName = result.givenName; familyName = result.familyName }
}

struct ContactFilter: QueryFilter, Codable {
    static let all = ContactFilter()
    var searchString = ""

    func fetchDescriptor(_ queryStore: QueryStore) -> FetchDescriptor<ContactModel> {
        let text = searchString
        return FetchDescriptor(
            predicate: text.isEmpty ? nil : #Predicate { $0.givenName.localizedStandardContains(text) },
            sortBy: [SortDescriptor(\.givenName)])
    }
}
// snippet.end
// snippet.hide
let url = URL(fileURLWithPath: "contacts.store")

@MainActor func search() async throws {
    var printed: [[String]] = []
    func print(_ names: [String]) { printed.append(names) }
    // snippet.show
    // snippet.query
    let store = try QueryStore(for: [ContactModel.self], url: url)
    try store.write { $0.insert(ContactModel(givenName: "Ada", familyName: "Lovelace")) }  // one transaction
    let contacts = try Query<Contact>(.all, in: store)      // follows every context's and process's saves
    contacts.filter.searchString = "ada"                    // runs it again, once
    for await results in contacts.updates() { print(results.map(\.givenName)) }
    // snippet.end
    expect(printed.last == ["Ada"], "\(printed)")
}
// snippet.hide
let searching = Task { @MainActor in try await search() }
try await Task.sleep(for: .milliseconds(200))
searching.cancel()
try await searching.value
let store = try QueryStore(for: [ContactModel.self], url: url)
expect(try store.fetch(ContactFilter(searchString: "ADA"), as: Contact.self).map(\.givenName) == ["Ada"])
