import Foundation
import StowageQueries

/// A data source of mocks in memory: ``MockGroup`` and ``MockTask`` objects, no database at all. Previews
/// and tests run the app logic on it, and get the answers a store would give.
///
/// New groups and tasks get string identifiers, `group-1`, `task-2`, …, so runs are repeatable. The mocks
/// change as models would: adding a task changes its group's `taskCount`, so an observer of the group
/// hears of it.
///
/// ```swift
/// let logic = TodoLogic(MockTodoDataSource(groups: [TodoGroup(id: .string("home"), title: "Home")]))
/// try logic.addTask("Buy milk", to: .string("home"))
/// ```
public final class MockTodoDataSource: TodoDataSource {
    private var groupMocks: [MockGroup] = []
    /// Each group's tasks, in the order they were added, by group identifier.
    private var taskMocks: [WrappedID: [MockTask]] = [:]
    private var lastNumber = 0

    /// A data source holding these groups and tasks. Each task goes in the group its `group` names,
    /// and each group's `taskCount` is set to its number of tasks.
    ///
    /// - Precondition: Identifiers are unique, and every task's `group` is one of `groups`.
    public init(groups: [TodoGroup] = [], tasks: [TodoTask] = []) {
        for group in groups {
            precondition(taskMocks[group.id] == nil, "MockTodoDataSource: two groups have the identifier \(group.id.text).")
            taskMocks[group.id] = []
            var value = group
            value.taskCount = tasks.filter { $0.group == group.id }.count
            groupMocks.append(MockGroup(value))
        }
        for task in tasks {
            guard let group = task.group, taskMocks[group] != nil else {
                preconditionFailure("MockTodoDataSource: the task \(task.id.text) is in no group given.")
            }
            taskMocks[group]?.append(MockTask(task))
        }
    }

    /// The mock behind a group, to change it as another part of the app would.
    public func mockGroup(_ id: WrappedID) -> MockGroup? {
        groupMocks.first { $0.id == id }
    }

    /// The mock behind a task, to change it as another part of the app would.
    public func mockTask(_ id: WrappedID) -> MockTask? {
        taskMocks.values.lazy.flatMap { $0 }.first { $0.id == id }
    }

    /// Every group's mock, by title.
    public func groups() throws -> [AnyConvertibleValueObservableObject<TodoGroup>] {
        groupMocks
            .sorted { $0.title.localizedStandardCompare($1.title) == .orderedAscending }
            .map { $0.eraseToAny() }
    }

    /// The mocks of a group's tasks, in the order they were added.
    ///
    /// - Throws: ``TodoError`` `.unknownGroup` when no group has the identifier.
    public func tasks(in group: WrappedID) throws -> [AnyConvertibleValueObservableObject<TodoTask>] {
        guard let tasks = taskMocks[group] else { throw TodoError.unknownGroup(group) }
        return tasks.map { $0.eraseToAny() }
    }

    /// Performs an action on the mocks, checking its identifiers before it changes anything.
    ///
    /// - Returns: The identifier of the group or task the action created, `nil` for the other actions.
    /// - Throws: ``TodoError`` `.unknownGroup` or `.unknownTask` for an identifier no mock has.
    @discardableResult
    public func perform(_ action: TodoAction) throws -> WrappedID? {
        // Every identifier is resolved before anything changes: an action that throws changes nothing.
        switch action {
        case .addGroup(let title):
            let id = newID("group")
            groupMocks.append(MockGroup(TodoGroup(id: id, title: title, taskCount: 0)))
            taskMocks[id] = []
            return id
        case .renameGroup(let id, let title):
            try group(id).title = title
        case .deleteGroup(let id):
            let group = try group(id)
            groupMocks.removeAll { $0 === group }
            taskMocks[id] = nil
        case .addTask(let title, let groupID):
            let group = try group(groupID)
            let id = newID("task")
            taskMocks[groupID, default: []].append(MockTask(TodoTask(id: id, title: title, isCompleted: false, group: groupID)))
            group.taskCount += 1
            return id
        case .toggleTask(let id):
            try task(id).isCompleted.toggle()
        case .deleteTask(let id):
            let task = try task(id)
            if let groupID = task.group, let group = mockGroup(groupID) {
                taskMocks[groupID]?.removeAll { $0 === task }
                group.taskCount -= 1
            }
        case .clearCompleted(let groupID):
            let group = try group(groupID)
            let remaining = taskMocks[groupID, default: []].filter { !$0.isCompleted }
            taskMocks[groupID] = remaining
            if group.taskCount != remaining.count { group.taskCount = remaining.count }
        }
        return nil
    }

    private func group(_ id: WrappedID) throws -> MockGroup {
        guard let group = mockGroup(id) else { throw TodoError.unknownGroup(id) }
        return group
    }

    private func task(_ id: WrappedID) throws -> MockTask {
        guard let task = mockTask(id) else { throw TodoError.unknownTask(id) }
        return task
    }

    /// `group-1`, `task-2`, …: the next number no identifier uses yet.
    private func newID(_ kind: String) -> WrappedID {
        var id: WrappedID
        repeat {
            lastNumber += 1
            id = .string("\(kind)-\(lastNumber)")
        } while mockGroup(id) != nil || mockTask(id) != nil
        return id
    }
}
