import ExampleSupport
import Foundation
import StowageQueries

/// The `demo` command: seed 003's data layer on the store file, step by step — values made from
/// models, a filter, two projections of one model, search as you type with a live query, an update
/// saved by another container (as another process would) arriving by itself, a filter saved as JSON,
/// and a failed write that changes nothing. It deletes the contacts it added at the end.
@MainActor
struct Demo {
    let storeURL: URL
    let console: Console

    /// The contacts the demo adds.
    static let contacts: [(String, String?)] = [
        ("Ada", "Lovelace"), ("Alan", "Turing"), ("Grace", "Hopper"),
        ("Adele", "Goldberg"), ("Barbara", "Liskov"), ("Edsger", "Dijkstra"),
    ]
    /// What the search box receives, one keystroke at a time.
    static let typed = ["a", "ad", "ada"]
    /// The contact another container adds while the search for `typed[1]` is live.
    static let arriving = ("Adam", "Smith")

    func run() async throws {
        let store = try Contacts.openDataStore(at: storeURL)
        say("Contacts demo. Store: \(storeURL.path)")
        var added: [PersistentIdentifier] = []
        // Whatever happens, the demo's contacts go (the store is left as the demo found it).
        defer { try? Self.delete(added, from: store) }

        console.writeStep(1, "Add \(Self.contacts.count) contacts through the QueryStore: one write, one transaction")
        let models = Self.contacts.map { ContactModel(givenName: $0.0, familyName: $0.1) }
        try store.write { context in models.forEach(context.insert) }
        added = models.map(\.persistentModelID)
        say("   Added \(models.map { Contact(result: $0).fullName }.joined(separator: ", ")).")

        console.writeStep(2, "Read them as values: Contact, and ContactInitials, a second projection of the same model")
        Report.matches(try Contacts.fetch(.all, from: store), search: "", indent: "   ").forEach(say)
        let initials = try Contacts.fetch(.all, from: store, as: ContactInitials.self)
        say("   Initials: \(initials.map(\.initials).joined(separator: " "))")

        console.writeStep(3, "Search as you type: a live Query whose filter changes with each keystroke")
        let query = try Query<Contact>(.all, in: store)
        for text in Self.typed {
            query.filter.searchString = text
            Report.matches(query.results, search: text, indent: "   ").forEach(say)
        }

        console.writeStep(4, "Another container adds \(Self.arriving.0) \(Self.arriving.1) while \"\(Self.typed[1])\" is searched: the query updates by itself")
        query.filter.searchString = Self.typed[1]
        var updates = query.updates().makeAsyncIterator()
        let before = await updates.next(isolation: #isolation)?.count ?? 0
        let other = try Contacts.openDataStore(at: storeURL)
        let newcomer = ContactModel(givenName: Self.arriving.0, familyName: Self.arriving.1)
        try other.write { $0.insert(newcomer) }
        added.append(newcomer.persistentModelID)
        // Waits for the update, for ten seconds at most (cancelling this wait ends the iteration).
        let waiting = Task { @MainActor () -> ([String], Int)? in
            while let results = await updates.next(isolation: #isolation) {
                guard results.count != before else { continue }
                return (Array(Report.matches(results, search: Self.typed[1], indent: "   ").dropFirst()), results.count)
            }
            return nil
        }
        let timeout = Task {
            try await Task.sleep(for: .seconds(10))
            waiting.cancel()
        }
        defer { timeout.cancel() }
        guard let (lines, arrived) = await waiting.value else {
            throw ContactsError(.store, "the live query was not told of the other container's save within 10 seconds.")
        }
        say("   The query's results changed from \(Report.count(before)) to \(Report.count(arrived)):")
        lines.forEach(say)

        console.writeStep(5, "Filters are Codable: a search saved as JSON and restored")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let saved = try encoder.encode(query.filter)
        say("   Saved: \(String(decoding: saved, as: UTF8.self))")
        let restored = try JSONDecoder().decode(ContactFilter.self, from: saved)
        say("   Restored: \(restored == query.filter ? "the same filter" : "a different filter"), \(Report.count(try store.count(restored))).")

        console.writeStep(6, "A write that fails changes nothing: it inserts a contact, then throws")
        let count = try store.count(ContactFilter.all)
        do {
            try store.write { context in
                context.insert(ContactModel(givenName: "Nobody"))
                throw ContactsError(.invalidName, "the demo's write gives up")
            }
        } catch let error as ContactsError {
            say("   The write threw (\(error.message)); the store still has \(Report.count(try store.count(ContactFilter.all))), as before: \(count).")
        }

        console.writeStep(7, "Open the store file again in a new container: what was saved is on disk")
        let reopened = try Contacts.openDataStore(at: storeURL)
        say("   \(Report.count(try reopened.count(ContactFilter(searchString: Self.typed[1])))) match \"\(Self.typed[1])\" in the reopened store.")

        console.writeStep(8, "Clean up: delete the demo's contacts, leaving the store as the demo found it")
        try Self.delete(added, from: store)
        say("   Deleted \(Report.count(added.count)).")
        added = []
        say("")
        say("Done. Your turn: contacts add Ada Lovelace, then contacts search. Run contacts help for more.")
    }

    private func say(_ line: String) { console.write(line) }

    /// Deletes the contacts `ids` name, in one write.
    private static func delete(_ ids: [PersistentIdentifier], from store: QueryStore) throws {
        try store.write { context in
            for id in ids { if let model = context.model(for: id) as? ContactModel { context.delete(model) } }
        }
    }
}
