import ExampleSupport
import Foundation
import Observation
import StowageQueries

/// The `demo` command: one scripted session through ``TodoLogic``, on mocks and on the store file, and
/// the proof that the logic cannot tell them apart.
///
/// The demo runs the session on a ``MockTodoDataSource`` (no database), then on a
/// ``StowageTodoDataSource`` over the store file, and compares what each reported and the groups'
/// summaries. It watches a group through `AnyConvertibleValueObservableObject` on both, reopens the
/// store in a second container to show what was saved, and finally deletes the groups it created so the
/// store is left as the demo found it.
struct Demo {
    let storeURL: URL
    let console: Console

    func run() throws {
        let store = TodoLogic(StowageTodoDataSource(context: ModelContext(try Todo.openContainer(at: storeURL))))
        try checkTitlesAreFree(in: store)
        say("Todo demo. Store: \(storeURL.path)")

        console.writeStep(1, "Run a session on mock data: MockTodoDataSource keeps MockGroup and MockTask objects in memory, no database")
        let mocks = TodoLogic(MockTodoDataSource())
        let mockLines = try Session.run(on: mocks)
        mockLines.forEach { say("   " + $0) }

        console.writeStep(2, "Run the same session on the store file: StowageTodoDataSource saves each action in a transaction of its own")
        let storeLines = try Session.run(on: store)
        if storeLines == mockLines {
            say("   The same \(Report.count(storeLines.count, "line")) as on the mocks, refusals included.")
        } else {
            say("   Not the same lines as on the mocks:")
            storeLines.forEach { say("   " + $0) }
        }

        console.writeStep(3, "Compare what the app logic sees: the groups' summaries, from the mocks and from the store")
        let mockSummaries = try mocks.summaries()
        let storeSummaries = try demoSummaries(store)
        say("   Mocks:")
        Report.groups(mockSummaries, indent: "     ").forEach(say)
        say("   Store:")
        Report.groups(storeSummaries, indent: "     ").forEach(say)
        say(mockSummaries == storeSummaries ? "   Equal: the logic cannot tell mocks from models." : "   They differ.")

        console.writeStep(4, "Watch \"Home\" through AnyConvertibleValueObservableObject and add a task: the observer hears of it, mock or model")
        for (name, logic) in [("Mocks", mocks), ("Store", store)] {
            let home = try logic.group(titled: "Home")
            let changed = ChangeFlag()
            let before = withObservationTracking { home.wrappedValue } onChange: { changed.set() }
            try logic.addTask("Water the plants", to: home.id)
            let heard = changed.isSet ? "the observer was called" : "the observer was NOT called"
            say("   \(name): \(heard); \"Home\" went from \(Report.count(before.taskCount, "task")) to \(home.wrappedValue.taskCount).")
        }

        console.writeStep(5, "Open the store file again in a new ModelContainer: what was saved is on disk")
        let reopened = TodoLogic(StowageTodoDataSource(context: ModelContext(try Todo.openContainer(at: storeURL))))
        for summary in try demoSummaries(reopened) {
            say("   \"\(summary.title)\": \(Report.counts(summary))")
            Report.tasks(try reopened.tasks(in: reopened.group(titled: summary.title).id).map(\.wrappedValue), indent: "     ").forEach(say)
        }

        console.writeStep(6, "Clean up: delete the demo's groups, their tasks with them (a cascade), leaving the store as the demo found it")
        for group in try reopened.groups() where isDemoGroup(group.wrappedValue.title) {
            let title = group.wrappedValue.title
            say("   " + Report.deletedGroup(title, tasks: try reopened.deleteGroup(group.id)))
        }

        say("")
        say("Done. Your turn: todo add-group Home, todo add Home Buy milk, then todo groups. Run todo help for more.")
    }

    /// The summaries of the demo's groups only: the store may hold the user's groups too.
    private func demoSummaries(_ logic: TodoLogic) throws -> [GroupSummary] {
        try logic.summaries().filter { isDemoGroup($0.title) }
    }

    private func isDemoGroup(_ title: String) -> Bool {
        Session.titles.contains { TodoLogic.same($0, title) }
    }

    /// Refuses to run on a store where the demo's group titles are taken, so it never touches the user's
    /// groups.
    private func checkTitlesAreFree(in logic: TodoLogic) throws {
        let taken = try logic.groups().map(\.wrappedValue.title).filter(isDemoGroup)
        guard taken.isEmpty else {
            throw TodoError(
                .duplicateGroup,
                "the demo creates its own groups, but the store at \(storeURL.path) already has \(taken.map { "\"\($0)\"" }.joined(separator: ", ")). Run the demo on another store: todo demo --store /tmp/todo-demo.store")
        }
    }

    private func say(_ line: String) { console.write(line) }
}

/// Whether an observation's `onChange` ran: set from whatever thread the change happens on.
final class ChangeFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    /// Records that the change happened.
    func set() { lock.withLock { value = true } }

    /// Whether the change happened.
    var isSet: Bool { lock.withLock { value } }
}
