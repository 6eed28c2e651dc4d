import Foundation
import StowageQueries
import Testing
@testable import ContactsKit

@Suite struct ContactValueTests {
    @Test func valuesAreMadeFromModelsAndTwoProjectionsReadOneModel() throws {
        let store = try makeInMemoryStore()
        try store.write { context in
            context.insert(ContactModel(givenName: "Ada", familyName: "Lovelace"))
            context.insert(ContactModel(givenName: "Grace"))
        }
        #expect(names(try store.fetch(.all, as: Contact.self)) == ["Ada Lovelace", "Grace"])
        #expect(try store.fetch(.all, as: ContactInitials.self).map(\.initials) == ["AL", "G"])
    }

    @Test func theFilterSearchesBothNamesIgnoringCaseAndDiacriticsInNameOrder() throws {
        let store = try makeInMemoryStore()
        try store.write { context in
            for (given, family) in [("Zoë", "Adams"), ("Ada", "Lovelace"), ("Émile", "Borel"), ("Alan", "Turing"), ("ada", nil)] as [(String, String?)] {
                context.insert(ContactModel(givenName: given, familyName: family))
            }
        }
        // "Ada" and "ada" are equal given names in the localized standard order (the contact without a
        // family name comes first: a missing value sorts first, as in SQL).
        #expect(names(try store.fetch(ContactFilter(searchString: "ADA"), as: Contact.self)) == ["ada", "Ada Lovelace", "Zoë Adams"])
        #expect(names(try store.fetch(ContactFilter(searchString: "emile"), as: Contact.self)) == ["Émile Borel"])
        #expect(names(try store.fetch(ContactFilter(searchString: "  "), as: Contact.self)).count == 5, "blank matches everyone")
        #expect(names(try store.fetch(ContactFilter(order: .added), as: Contact.self)) == ["Zoë Adams", "Ada Lovelace", "Émile Borel", "Alan Turing", "ada"])
    }

    @Test func filtersRoundTripThroughJSON() throws {
        let filter = ContactFilter(searchString: "lo", order: .added)
        let decoded = try JSONDecoder().decode(ContactFilter.self, from: JSONEncoder().encode(filter))
        #expect(decoded == filter)
        #expect(decoded != ContactFilter.all)
    }
}

@MainActor
@Suite struct ContactsCommandTests {
    @Test func addListAndTheirErrors() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("c.store")
        #expect(await contacts("--store", store, "add", "Ada", "Lovelace").transcript.output == ["Added Ada Lovelace."])
        #expect(await contacts("--store", store, "add", " Grace ").transcript.output == ["Added Grace."])
        let blank = await contacts("--store", store, "add", "  ", "Nobody")
        #expect(blank.status == 64)
        #expect(blank.transcript.errors == ["error: a contact needs a given name. Usage: contacts add <given name> [family name]"])
        #expect(await contacts("--store", store, "list").transcript.output == ["2 contacts:", "  Ada Lovelace", "  Grace"])
        #expect(await contacts("--store", store, "list", "love").transcript.output == ["1 contact matching \"love\":", "  Ada Lovelace"])
        #expect(await contacts("--store", store, "list", "xyz").transcript.output == ["0 contacts matching \"xyz\"."])
        // What was written is in the file: a new container (as a new process would) reads it.
        let reopened = try QueryStore(for: [ContactModel.self], url: URL(fileURLWithPath: store))
        #expect(names(try reopened.fetch(.all, as: Contact.self)) == ["Ada Lovelace", "Grace"])
    }

    @Test func usageErrorsAndAStoreThatIsNotADatabase() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        #expect(await contacts("frobnicate").status == 64)
        #expect(await contacts("fill", "lots").transcript.errors == ["error: fill needs a positive whole number of contacts, got \"lots\"."])
        #expect(await contacts("fill", "0").status == 64)
        #expect(await contacts("list", "a", "b").status == 64)
        #expect(await contacts("search", "now").status == 64)
        let notes = directory.path("notes.txt")
        try Data("not a database\n".utf8).write(to: URL(fileURLWithPath: notes))
        let result = await contacts("--store", notes, "list")
        #expect(result.status == 1)
        #expect(result.transcript.errors.first?.hasPrefix("error: could not open the store at \(notes)") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: notes)) == Data("not a database\n".utf8), "the file is untouched")
        #expect(await contacts("help").transcript.output == [Invocation.usage])
    }

    @Test func onlySearchReadsStandardInput() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("c.store")
        var reads = 0
        let input: () -> AsyncStream<String> = {
            reads += 1
            return AsyncStream { $0.finish() }
        }
        for arguments in [["add", "Ada"], ["list"], ["fill", "3"], ["help"]] {
            _ = await Contacts.runAsync(["--store", store] + arguments, console: Transcript().console, input: input)
        }
        #expect(reads == 0, "a command other than search leaves standard input to the next program")
        #expect(await Contacts.runAsync(["--store", store, "search"], console: Transcript().console, input: input) == 0)
        #expect(reads == 1)
    }

    @Test func fillAddsGeneratedContactsInBatches() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("c.store")
        let result = await contacts("--store", store, "fill", "12345")
        #expect(result.transcript.output == ["Added 12345 contacts; the store has 12345 contacts."])
        let reopened = try QueryStore(for: [ContactModel.self], url: URL(fileURLWithPath: store))
        #expect(try reopened.count(ContactFilter(searchString: "Ada")) == 1235)
    }

    @Test func searchShowsEachSearchAndTheStoresChanges() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = URL(fileURLWithPath: directory.path("c.store"))
        let store = try Contacts.openDataStore(at: url)
        try Contacts.add("Ada", "Lovelace", to: store)
        try Contacts.add("Alan", "Turing", to: store)

        let transcript = Transcript()
        let (input, typing) = AsyncStream.makeStream(of: String.self)
        let search = Task { await Contacts.runAsync(["--store", url.path, "search"], console: transcript.console, input: { input }) }
        typing.yield("ada")
        #expect(try await eventually { transcript.output.last == "  Ada Lovelace" })
        // Another container on the file (as another process would) adds a match: shown by itself.
        let other = try Contacts.openDataStore(at: url)
        try Contacts.add("Adam", "Smith", to: other)
        #expect(try await eventually { transcript.output.contains("-- the contacts changed") })
        typing.finish()
        #expect(await search.value == 0)
        #expect(transcript.output == [
            "Type a search and press Return (an empty line shows everyone; Ctrl-D ends).",
            "2 contacts:", "  Ada Lovelace", "  Alan Turing",
            "1 contact matching \"ada\":", "  Ada Lovelace",
            "-- the contacts changed",
            "2 contacts matching \"ada\":", "  Ada Lovelace", "  Adam Smith",
        ])
    }
}

/// Whether `condition` holds within a few seconds (checked every 10 ms; no timing is asserted).
@MainActor
func eventually(_ condition: () -> Bool) async throws -> Bool {
    for _ in 0..<500 {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
