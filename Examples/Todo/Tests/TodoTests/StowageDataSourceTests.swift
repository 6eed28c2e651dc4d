import Foundation
import StowageQueries
import Testing
@testable import TodoKit

/// What only the store's data source has to do: save each action in one transaction, roll back a
/// failed one, and hand out identifiers that last.
@Suite struct StowageDataSourceTests {
    @Test func eachActionIsSavedAndItsIdentifierIsPermanent() throws {
        let container = try makeInMemoryContainer()
        let source = StowageTodoDataSource(context: ModelContext(container))
        let group = try #require(try source.perform(.addGroup(title: "Home")))
        let task = try #require(try source.perform(.addTask(title: "Buy milk", group: group)))
        #expect(!source.context.hasChanges)
        for id in [group, task] {
            guard case .persistentIdentifier(let identifier) = id else {
                Issue.record("not a model's identifier: \(id)")
                continue
            }
            #expect(!identifier.isTemporary)
        }
        // Another context resolves the identifiers: they name the saved rows.
        let other = StowageTodoDataSource(context: ModelContext(container))
        #expect(try other.tasks(in: group).map(\.wrappedValue) == [TodoTask(id: task, title: "Buy milk", group: group)])
        #expect(try other.perform(.toggleTask(task)) == nil)
        #expect(try source.tasks(in: group).map(\.wrappedValue.isCompleted) == [true])
    }

    @Test func clearingAndDeletingRemoveTheRows() throws {
        let context = ModelContext(try makeInMemoryContainer())
        let logic = TodoLogic(StowageTodoDataSource(context: context))
        let home = try logic.addGroup("Home")
        let work = try logic.addGroup("Work")
        for title in ["Buy milk", "Fix the tap", "Call the plumber"] { try logic.addTask(title, to: home) }
        try logic.addTask("Send the report", to: work)
        try logic.complete(taskTitled: "Buy milk", in: home)
        try logic.complete(taskTitled: "Fix the tap", in: home)
        #expect(try logic.clearCompleted(in: home) == 2)
        #expect(try context.fetch(FetchDescriptor<TaskModel>(sortBy: [SortDescriptor(\.title)])).map(\.title) == ["Call the plumber", "Send the report"])
        try logic.deleteGroup(home)
        #expect(try context.fetch(FetchDescriptor<GroupModel>()).map(\.title) == ["Work"])
        #expect(try context.fetch(FetchDescriptor<TaskModel>()).map(\.title) == ["Send the report"])
    }

    @Test func aFailedSaveIsRolledBackAndWritesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = URL(fileURLWithPath: directory.path("todo.store"))
        let home = try TodoLogic(StowageTodoDataSource(context: ModelContext(try Todo.openContainer(at: url)))).addGroup("Home")

        // A container that may not save: every action fails at the save.
        let readOnly = try ModelContainer(for: GroupModel.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        let source = StowageTodoDataSource(context: ModelContext(readOnly))
        let logic = TodoLogic(source)
        let group = try logic.group(titled: "Home")
        for action in [TodoAction.addTask(title: "Buy milk", group: home), .renameGroup(home, title: "House"), .deleteGroup(home), .addGroup(title: "Work")] {
            #expect(errorCode { try source.perform(action) } == .store)
            #expect(!source.context.hasChanges)
        }
        // The models are as they were, and so is the store.
        #expect(group.wrappedValue == TodoGroup(id: home, title: "Home", taskCount: 0))
        #expect(try logic.summaries() == [GroupSummary(title: "Home", open: 0, completed: 0)])
        let reopened = TodoLogic(StowageTodoDataSource(context: ModelContext(try Todo.openContainer(at: url))))
        #expect(try reopened.summaries() == [GroupSummary(title: "Home", open: 0, completed: 0)])
    }

    @Test func aFailedSaveMessageSaysWhatWentWrong() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = URL(fileURLWithPath: directory.path("todo.store"))
        _ = try Todo.openContainer(at: url)
        let readOnly = try ModelContainer(for: GroupModel.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        let logic = TodoLogic(StowageTodoDataSource(context: ModelContext(readOnly)))
        do {
            try logic.addGroup("Home")
            Issue.record("the save did not fail")
        } catch let error as TodoError {
            #expect(error.code == .store)
            #expect(error.message.hasPrefix("could not save to the store: "))
        }
    }

    @Test func anotherStoresIdentifierNamesNothingHere() throws {
        let first = TodoLogic(StowageTodoDataSource(context: ModelContext(try makeInMemoryContainer())))
        let second = TodoLogic(StowageTodoDataSource(context: ModelContext(try makeInMemoryContainer())))
        let home = try first.addGroup("Home")
        try second.addGroup("Home")
        #expect(errorCode { try second.tasks(in: home) } == .unknownGroup)
        #expect(errorCode { try second.addTask("Buy milk", to: home) } == .unknownGroup)
        #expect(try second.summaries() == [GroupSummary(title: "Home", open: 0, completed: 0)])
    }
}
