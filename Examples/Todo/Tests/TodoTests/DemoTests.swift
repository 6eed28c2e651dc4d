import Foundation
import StowageQueries
import Testing
@testable import TodoKit

@Suite struct DemoTests {
    static func expectedTranscript(store: String) -> [String] {
        [
            "Todo demo. Store: \(store)",
            "",
            "1. Run a session on mock data: MockTodoDataSource keeps MockGroup and MockTask objects in memory, no database",
            "   Added the group \"Home\".",
            "   Added the group \"Work\".",
            "   Added \"Buy milk\" to \"Home\" (1 open, 0 done).",
            "   Added \"Fix the tap\" to \"Home\" (2 open, 0 done).",
            "   Added \"Call the plumber\" to \"Home\" (3 open, 0 done).",
            "   Added \"Send the report\" to \"Work\" (1 open, 0 done).",
            "   Added \"Book a room\" to \"Work\" (2 open, 0 done).",
            "   Done: \"Buy milk\" in \"Home\" (2 open, 1 done).",
            "   Done: \"Send the report\" in \"Work\" (1 open, 1 done).",
            "   Refused: there is already a group named \"Home\". Run \"todo groups\" to see the groups.",
            "   Refused: \"Home\" already has an open task named \"Fix the tap\".",
            "   Refused: \"Buy milk\" in \"Home\" is done already.",
            "   Cleared 1 done task from \"Home\" (2 open, 0 done).",
            "   Renamed \"Work\" to \"Office\".",
            "",
            "2. Run the same session on the store file: StowageTodoDataSource saves each action in a transaction of its own",
            "   The same 14 lines as on the mocks, refusals included.",
            "",
            "3. Compare what the app logic sees: the groups' summaries, from the mocks and from the store",
            "   Mocks:",
            "     Home    2 open, 0 done",
            "     Office  1 open, 1 done",
            "   Store:",
            "     Home    2 open, 0 done",
            "     Office  1 open, 1 done",
            "   Equal: the logic cannot tell mocks from models.",
            "",
            "4. Watch \"Home\" through AnyConvertibleValueObservableObject and add a task: the observer hears of it, mock or model",
            "   Mocks: the observer was called; \"Home\" went from 2 tasks to 3.",
            "   Store: the observer was called; \"Home\" went from 2 tasks to 3.",
            "",
            "5. Open the store file again in a new ModelContainer: what was saved is on disk",
            "   \"Home\": 3 open, 0 done",
            "     [ ] Fix the tap",
            "     [ ] Call the plumber",
            "     [ ] Water the plants",
            "   \"Office\": 1 open, 1 done",
            "     [ ] Book a room",
            "     [x] Send the report",
            "",
            "6. Clean up: delete the demo's groups, their tasks with them (a cascade), leaving the store as the demo found it",
            "   Deleted the group \"Home\" and its 3 tasks.",
            "   Deleted the group \"Office\" and its 2 tasks.",
            "",
            "Done. Your turn: todo add-group Home, todo add Home Buy milk, then todo groups. Run todo help for more.",
        ]
    }

    @Test func showsTheWholeFlowAndCanRunAgain() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("demo.store")

        let first = todo("demo", "--store", store)
        #expect(first.status == 0)
        #expect(first.transcript.errors.isEmpty)
        #expect(first.transcript.output == Self.expectedTranscript(store: store))

        let second = todo("demo", "--store", store)
        #expect(second.status == 0)
        #expect(second.transcript.output == Self.expectedTranscript(store: store))

        let context = ModelContext(try Todo.openContainer(at: URL(fileURLWithPath: store)))
        #expect(try context.fetchCount(FetchDescriptor<GroupModel>()) == 0)
        #expect(try context.fetchCount(FetchDescriptor<TaskModel>()) == 0)
    }

    @Test func keepsTheUsersGroups() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("todo.store")
        #expect(todo("--store", store, "add-group", "Garden").status == 0)
        #expect(todo("--store", store, "add", "Garden", "Mow the lawn").status == 0)

        let demo = todo("--store", store, "demo")
        #expect(demo.status == 0)
        // The store's summaries are the demo's groups only, so they still equal the mocks'.
        #expect(demo.transcript.output.contains("   Equal: the logic cannot tell mocks from models."))
        #expect(!demo.transcript.output.contains { $0.contains("Garden") })
        #expect(todo("--store", store, "groups").transcript.output == ["1 group:", "  Garden  1 open, 0 done"])
        #expect(todo("--store", store, "tasks", "Garden").transcript.output == ["\"Garden\": 1 open, 0 done:", "  [ ] Mow the lawn"])
    }

    @Test(arguments: ["Home", "office", "WORK"])
    func refusesAStoreWhereItsTitlesAreTaken(title: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("todo.store")
        #expect(todo("--store", store, "add-group", title).status == 0)

        let demo = todo("--store", store, "demo")
        #expect(demo.status == 1)
        #expect(demo.transcript.output.isEmpty)
        #expect(demo.transcript.errors == [
            "error: the demo creates its own groups, but the store at \(store) already has \"\(title)\". Run the demo on another store: todo demo --store /tmp/todo-demo.store",
        ])
        #expect(todo("--store", store, "groups").transcript.output == ["1 group:", "  \(title)  no tasks"])
    }
}
