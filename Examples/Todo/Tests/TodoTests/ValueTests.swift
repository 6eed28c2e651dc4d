import Foundation
import StowageQueries
import Testing
@testable import TodoKit

/// Seed 004's types with the Todo values: values, mocks and the type eraser, no store anywhere.
@Suite struct ValueTests {
    @Test func valuesAreEquatableIdentifiedAndSendable() {
        let home = TodoGroup(id: .string("home"), title: "Home", taskCount: 2)
        #expect(home == TodoGroup(id: .string("home"), title: "Home", taskCount: 2))
        #expect(home != TodoGroup(id: .string("home"), title: "Home", taskCount: 3))
        #expect(home.id == .string("home"))
        let task = TodoTask(id: .uuid(UUID()), title: "Buy milk", group: home.id)
        #expect(!task.isCompleted)
        #expect(task.group == .string("home"))
        func sendable(_: some Sendable) {}
        sendable(home)
        sendable(task)
        sendable(TodoAction.addTask(title: "Buy milk", group: home.id))
    }

    @Test func aMockReadsAndWritesItsValueByDynamicMemberLookup() {
        let group = MockGroup(TodoGroup(id: .string("home"), title: "Home", taskCount: 5))
        #expect(group.title == "Home")
        #expect(group.taskCount == 5)
        group.title = "House"
        group.taskCount += 1
        #expect(group._wrappedValue == TodoGroup(id: .string("home"), title: "House", taskCount: 6))
        #expect(group.convertToValueType() == group._wrappedValue)

        let task = MockTask(TodoTask(id: .integer(1), title: "Buy milk"))
        task.isCompleted.toggle()
        #expect(task.convertToValueType() == TodoTask(id: .integer(1), title: "Buy milk", isCompleted: true))
    }

    @Test func updateReplacesTheWholeState() {
        let group = MockGroup(TodoGroup(id: .string("home"), title: "Home", taskCount: 5))
        group.update(TodoGroup(id: .string("work"), title: "Work", taskCount: 1))
        #expect(group.id == .string("work"))
        #expect(group.title == "Work")
        #expect(group.taskCount == 1)
    }

    @Test func mocksAreEqualWhenTheirStatesAre() {
        let value = TodoGroup(id: .string("home"), title: "Home", taskCount: 5)
        let one = MockGroup(value)
        let other = MockGroup(value)
        #expect(one !== other)
        #expect(one == other)
        other.taskCount = 4
        #expect(!(one == other))
    }

    @Test func aMockIsIdentifiedByItsValuesID() {
        let group = MockGroup(TodoGroup(id: .uuid(UUID(uuidString: "6D9A9E8C-0000-4000-8000-000000000001")!), title: "Home", taskCount: 0))
        #expect(MockGroup.ID.self == WrappedID.self)
        #expect(group.id == .uuid(UUID(uuidString: "6D9A9E8C-0000-4000-8000-000000000001")!))
        #expect(group.id.id == group.id)
    }

    @Test func eraseToAnyShowsTheObjectBehind() throws {
        let group = MockGroup(TodoGroup(id: .string("home"), title: "Home", taskCount: 5))
        let erased: AnyConvertibleValueObservableObject<TodoGroup> = group.eraseToAny()
        #expect(erased.id == .string("home"))
        #expect(erased.wrappedValue == group._wrappedValue)
        #expect(erased._object as? MockGroup === group)
        // The eraser reads the object now, not a copy taken when it was made.
        group.title = "House"
        #expect(erased.wrappedValue.title == "House")
    }

    @Test func aMockDataSourceKeepsItsSeedDataAndCountsTheTasks() throws {
        let source = MockTodoDataSource(
            groups: [
                TodoGroup(id: .string("work"), title: "Work", taskCount: 99),
                TodoGroup(id: .string("home"), title: "Home"),
            ],
            tasks: [
                TodoTask(id: .string("t1"), title: "Buy milk", group: .string("home")),
                TodoTask(id: .string("t2"), title: "Fix the tap", isCompleted: true, group: .string("home")),
            ])
        #expect(try source.groups().map(\.wrappedValue) == [
            TodoGroup(id: .string("home"), title: "Home", taskCount: 2),
            TodoGroup(id: .string("work"), title: "Work", taskCount: 0),
        ])
        #expect(try source.tasks(in: .string("home")).map(\.wrappedValue.title) == ["Buy milk", "Fix the tap"])
        #expect(try source.groups()[0]._object as? MockGroup === source.mockGroup(.string("home")))
        #expect(source.mockTask(.string("t2"))?.isCompleted == true)

        let summaries = try TodoLogic(source).summaries()
        #expect(summaries == [GroupSummary(title: "Home", open: 1, completed: 1), GroupSummary(title: "Work", open: 0, completed: 0)])
    }

    @Test func aMockDataSourceNumbersNewIdentifiersAroundTakenOnes() throws {
        let source = MockTodoDataSource(groups: [TodoGroup(id: .string("group-2"), title: "Home")])
        #expect(try source.perform(.addGroup(title: "Work")) == .string("group-1"))
        #expect(try source.perform(.addGroup(title: "Garden")) == .string("group-3"))
        #expect(try source.perform(.addTask(title: "Buy milk", group: .string("group-2"))) == .string("task-4"))
        #expect(try source.perform(.toggleTask(.string("task-4"))) == nil)
    }

    @Test func theLogicTakesSeedDataForPreviews() throws {
        let logic = TodoLogic(MockTodoDataSource(groups: [TodoGroup(id: .string("home"), title: "Home")]))
        try logic.addTask("Buy milk", to: .string("home"))
        #expect(try logic.summaries() == [GroupSummary(title: "Home", open: 1, completed: 0)])
    }
}
