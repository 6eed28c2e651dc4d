import ExampleTestSupport
import Foundation
import Observation
import StowageQueries
import Testing
@testable import TodoKit

// The shared test helpers, named here so every file of the target sees them without an import.
typealias Transcript = ExampleTestSupport.Transcript
typealias TemporaryDirectory = ExampleTestSupport.TemporaryDirectory

extension TemporaryDirectory {
    /// A directory of its own under the temporary directory, removed by ``remove()``.
    init() throws { try self.init(prefix: "TodoTests") }
}

/// Runs a Todo command line and returns its exit status with what it wrote.
func todo(_ arguments: String...) -> (status: Int32, transcript: Transcript) {
    let transcript = Transcript()
    let status = Todo.run(arguments, console: transcript.console)
    return (status, transcript)
}

/// A container for the Todo models, in memory.
func makeInMemoryContainer() throws -> ModelContainer {
    try ModelContainer(for: GroupModel.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
}

/// Where the shared logic tests run. Each test over `TodoLogic` takes a backend as its argument, so its
/// one body runs on mocks and on real stores, and must see the same titles, counts, order and errors.
enum Backend: CaseIterable, CustomTestStringConvertible {
    /// `MockTodoDataSource`: mocks in memory, no database.
    case mocks
    /// `StowageTodoDataSource` on an in-memory store.
    case memoryStore
    /// `StowageTodoDataSource` on a store file, read back through a new container.
    case fileStore

    var testDescription: String {
        switch self {
        case .mocks: return "mocks"
        case .memoryStore: return "in-memory store"
        case .fileStore: return "store file"
        }
    }

    /// A fresh, empty data source of this kind.
    func makeFixture() throws -> Fixture {
        switch self {
        case .mocks:
            let source = MockTodoDataSource()
            return Fixture(logic: TodoLogic(source), reopen: { TodoLogic(source) }, remove: {})
        case .memoryStore:
            let container = try makeInMemoryContainer()
            return Fixture(
                logic: TodoLogic(StowageTodoDataSource(context: ModelContext(container))),
                reopen: { TodoLogic(StowageTodoDataSource(context: ModelContext(container))) }, remove: {})
        case .fileStore:
            let directory = try TemporaryDirectory()
            let url = URL(fileURLWithPath: directory.path("todo.store"))
            return Fixture(
                logic: TodoLogic(StowageTodoDataSource(context: ModelContext(try Todo.openContainer(at: url)))),
                reopen: { TodoLogic(StowageTodoDataSource(context: ModelContext(try Todo.openContainer(at: url)))) },
                remove: directory.remove)
        }
    }
}

/// The logic over one backend's data source, and a second look at what it saved.
struct Fixture {
    /// The logic the test drives.
    let logic: TodoLogic
    /// The logic over what was saved, seen afresh: a new container on the store file, a new context on
    /// the in-memory store, the same mocks (they have nowhere else to be).
    let reopen: () throws -> TodoLogic
    /// Removes the store file's directory, if any.
    let remove: () -> Void
}

extension TodoLogic {
    /// The titles of the groups, in order.
    func groupTitles() throws -> [String] {
        try groups().map(\.wrappedValue.title)
    }

    /// The group called `title`'s tasks, in order, as `[ ] title` or `[x] title`.
    func taskLines(_ title: String) throws -> [String] {
        Report.tasks(try tasks(in: group(titled: title).id).map(\.wrappedValue), indent: "")
    }

    /// The identifier of the group called `title`.
    func id(_ title: String) throws -> WrappedID {
        try group(titled: title).id
    }
}

/// Whether reading `value` in `withObservationTracking` is followed by a change notification when
/// `change` runs.
func observationFires<Value>(reading value: @escaping () -> Value, when change: () throws -> Void) rethrows -> Bool {
    let flag = ChangeFlag()
    _ = withObservationTracking { value() } onChange: { flag.set() }
    try change()
    return flag.isSet
}
