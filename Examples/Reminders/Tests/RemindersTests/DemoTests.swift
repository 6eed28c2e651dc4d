import Foundation
import Stowage
import Testing
@testable import RemindersKit

@Suite struct DemoTests {
    static func expectedTranscript(store: String, otherLists: [String] = []) -> [String] {
        [
            "Reminders demo. Store: \(store)",
            "",
            "1. Add two lists the article's way: a MyList inserted into the context, then myList.save()",
            "   Added the list \"Groceries\".",
            "   Added the list \"Errands\".",
            "",
            "2. Add reminders with reminder.save(): Reminder's own save() checks the title before saving",
            "   Added \"Milk\" to \"Groceries\".",
            "   Added \"Bread\" to \"Groceries\".",
            "   Added \"Eggs\" to \"Groceries\".",
            "   Added \"Post the parcel\" to \"Errands\".",
            "   Added \"Pick up the dry cleaning\" to \"Errands\".",
            "",
            "3. Add a reminder with a blank title: Reminder's save() refuses it, and nothing is saved",
            "   Refused: a reminder needs a title that is not blank.",
            "   Nothing was saved: the store has 3 reminders in \"Groceries\", and the context was rolled back (hasChanges: false).",
            "",
            "4. Every list in the store with MyList.all: no sort, so in the order they were added",
        ] + otherLists.map { "   " + $0 } + [
            "   Groceries  3 open, 0 completed",
            "   Errands    2 open, 0 completed",
            "",
            "5. The reminders of \"Groceries\" with Reminder.byList(myList:): one query, in the order they were added",
            "   [ ] Milk",
            "   [ ] Bread",
            "   [ ] Eggs",
            "",
            "6. Change reminders, then save() them, as the article's ReminderDetailView does",
            "   Completed \"Milk\" in \"Groceries\".",
            "   Renamed \"Bread\" to \"Sourdough bread\" in \"Groceries\".",
            "",
            "7. Delete a reminder with reminder.delete()",
            "   Deleted \"Eggs\" from \"Groceries\".",
            "",
            "8. Delete the list \"Errands\" with myList.delete(): its reminders go with it (cascade)",
            "   Deleted the list \"Errands\" and its 2 reminders.",
            "",
            "9. Open the store file again in a new ModelContainer: what was saved is on disk",
            "   Lists:",
        ] + otherLists.map { "     " + $0 } + [
            "     Groceries  1 open, 1 completed",
            "   \"Groceries\":",
            "     [x] Milk",
            "     [ ] Sourdough bread",
            "   Reminders in no list (what deleting \"Errands\" would leave without the cascade): 0.",
            "",
            "10. Clean up: delete \"Groceries\" with myList.delete(), leaving the store as the demo found it",
            "   Deleted the list \"Groceries\" and its 2 reminders.",
            "",
            "Done. Your turn: reminders add-list Groceries, then reminders add Groceries Milk and reminders lists. Run reminders help for more.",
        ]
    }

    @Test func showsTheWholeFlowAndCanRunAgain() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("demo.store")

        let first = reminders("demo", "--store", store)
        #expect(first.status == 0)
        #expect(first.transcript.errors.isEmpty)
        #expect(first.transcript.output == Self.expectedTranscript(store: store))

        let second = reminders("demo", "--store", store)
        #expect(second.status == 0)
        #expect(second.transcript.errors.isEmpty)
        #expect(second.transcript.output == Self.expectedTranscript(store: store))

        let context = ModelContext(try Reminders.openContainer(at: URL(fileURLWithPath: store)))
        #expect(try context.fetchCount(FetchDescriptor<MyList>()) == 0)
        #expect(try context.fetchCount(FetchDescriptor<Reminder>()) == 0)
    }

    @Test func leavesTheUsersListsAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("reminders.store")
        #expect(reminders("--store", store, "add-list", "Books").status == 0)
        #expect(reminders("--store", store, "add", "Books", "Dune").status == 0)
        #expect(reminders("--store", store, "complete", "Books", "Dune").status == 0)
        let before = storeContents(store)

        let demo = reminders("--store", store, "demo")
        #expect(demo.status == 0)
        // The demo's listings show the user's lists too (the width of the name column is the longest
        // name's), and the cleanup deletes only what the demo created.
        #expect(demo.transcript.output == Self.expectedTranscript(store: store, otherLists: ["Books      0 open, 1 completed"]))
        #expect(storeContents(store) == before)
        #expect(reminders("--store", store, "lists").transcript.output == ["1 list:", "  Books  0 open, 1 completed"])
    }

    @Test func refusesAStoreWhereItsNamesAreTaken() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("reminders.store")
        #expect(reminders("--store", store, "add-list", "Errands").status == 0)
        #expect(reminders("--store", store, "add", "Errands", "Buy stamps").status == 0)

        let demo = reminders("--store", store, "demo")
        #expect(demo.status == 1)
        #expect(demo.transcript.output.isEmpty)
        #expect(demo.transcript.errors == [
            "error: the demo creates its own lists, but the store at \(store) already has \"Errands\". Run the demo on another store: reminders demo --store /tmp/reminders-demo.store",
        ])
        #expect(storeContents(store) == ["Errands: [ ] Buy stamps"])
    }
}
