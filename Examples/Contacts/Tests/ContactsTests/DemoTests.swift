import Foundation
import StowageQueries
import Testing
@testable import ContactsKit

@MainActor
@Suite struct ContactsDemoTests {
    static func expectedTranscript(store: String) -> [String] {
        [
            "Contacts demo. Store: \(store)",
            "",
            "1. Add 6 contacts through the QueryStore: one write, one transaction",
            "   Added Ada Lovelace, Alan Turing, Grace Hopper, Adele Goldberg, Barbara Liskov, Edsger Dijkstra.",
            "",
            "2. Read them as values: Contact, and ContactInitials, a second projection of the same model",
            "   6 contacts:",
            "     Ada Lovelace", "     Adele Goldberg", "     Alan Turing", "     Barbara Liskov", "     Edsger Dijkstra", "     Grace Hopper",
            "   Initials: AL AG AT BL ED GH",
            "",
            "3. Search as you type: a live Query whose filter changes with each keystroke",
            "   6 contacts matching \"a\":",
            "     Ada Lovelace", "     Adele Goldberg", "     Alan Turing", "     Barbara Liskov", "     Edsger Dijkstra", "     Grace Hopper",
            "   2 contacts matching \"ad\":",
            "     Ada Lovelace", "     Adele Goldberg",
            "   1 contact matching \"ada\":",
            "     Ada Lovelace",
            "",
            "4. Another container adds Adam Smith while \"ad\" is searched: the query updates by itself",
            "   The query's results changed from 2 contacts to 3 contacts:",
            "     Ada Lovelace", "     Adam Smith", "     Adele Goldberg",
            "",
            "5. Filters are Codable: a search saved as JSON and restored",
            "   Saved: {\"order\":\"name\",\"searchString\":\"ad\"}",
            "   Restored: the same filter, 3 contacts.",
            "",
            "6. A write that fails changes nothing: it inserts a contact, then throws",
            "   The write threw (the demo's write gives up); the store still has 7 contacts, as before: 7.",
            "",
            "7. Open the store file again in a new container: what was saved is on disk",
            "   3 contacts match \"ad\" in the reopened store.",
            "",
            "8. Clean up: delete the demo's contacts, leaving the store as the demo found it",
            "   Deleted 7 contacts.",
            "",
            "Done. Your turn: contacts add Ada Lovelace, then contacts search. Run contacts help for more.",
        ]
    }

    @Test func showsTheWholeFlowAndCanRunAgain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("demo.store")
        let first = await contacts("demo", "--store", store)
        #expect(first.status == 0, "\(first.transcript.errors)")
        #expect(first.transcript.output == Self.expectedTranscript(store: store))
        let second = await contacts("--store", store, "demo")
        #expect(second.transcript.output == Self.expectedTranscript(store: store), "the demo left the store as it found it")
        let reopened = try QueryStore(for: [ContactModel.self], url: URL(fileURLWithPath: store))
        #expect(try reopened.count(ContactFilter.all) == 0)
    }
}
