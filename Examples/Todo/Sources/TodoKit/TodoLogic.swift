import Foundation
import StowageQueries

/// A group's tasks counted, as the app lists groups: `Home  2 open, 1 done`.
public struct GroupSummary: Equatable, Sendable {
    /// The group's title.
    public var title: String
    /// The number of tasks not done.
    public var open: Int
    /// The number of tasks done.
    public var completed: Int

    /// Creates a summary.
    public init(title: String, open: Int, completed: Int) {
        self.title = title
        self.open = open
        self.completed = completed
    }

    /// The number of tasks, done or not.
    public var total: Int { open + completed }
}

/// The app's rules for groups and tasks, over any ``TodoDataSource``: it never names a model or a
/// context, so it runs the same on mocks and on a store (seed 004's goal).
///
/// The rules:
/// - Titles are trimmed, and may not be blank.
/// - Group titles are unique, without regard to case: there is one "Home", not also a "home". Groups are
///   found by title the same way, so `home` finds "Home".
/// - A group has at most one open task with a title (again without regard to case); a done task's title
///   may be used again.
/// - Groups are listed by title as people read it (`localizedStandardCompare`: "Item 2" before
///   "Item 10"); a group's tasks open ones first, then done ones, each in the order they were added.
///
/// Each change is one action sent to the data source, after the checks: a refused change sends nothing.
public struct TodoLogic {
    /// Where the groups and tasks come from.
    public let dataSource: any TodoDataSource

    /// The logic over `dataSource`.
    public init(_ dataSource: any TodoDataSource) {
        self.dataSource = dataSource
    }

    // MARK: - Reading

    /// Every group, by title.
    public func groups() throws -> [AnyConvertibleValueObservableObject<TodoGroup>] {
        try dataSource.groups()
            .map { (object: $0, value: $0.wrappedValue) }
            .sorted { Self.precedes($0.value.title, $1.value.title) }
            .map(\.object)
    }

    /// The group called `title`, without regard to case.
    ///
    /// - Throws: ``TodoError`` `.unknownGroup` when no group has that title.
    public func group(titled title: String) throws -> AnyConvertibleValueObservableObject<TodoGroup> {
        let title = Self.trimmed(title)
        guard let group = try dataSource.groups().first(where: { Self.same($0.wrappedValue.title, title) }) else {
            throw TodoError.unknownGroup(titled: title)
        }
        return group
    }

    /// A group's tasks: the open ones, then the done ones, each in the order they were added.
    ///
    /// - Throws: ``TodoError`` `.unknownGroup` when no group has the identifier.
    public func tasks(in group: WrappedID) throws -> [AnyConvertibleValueObservableObject<TodoTask>] {
        let tasks = try dataSource.tasks(in: group).map { (object: $0, value: $0.wrappedValue) }
        return (tasks.filter { !$0.value.isCompleted } + tasks.filter { $0.value.isCompleted }).map(\.object)
    }

    /// Every group's summary, by title.
    public func summaries() throws -> [GroupSummary] {
        try groups().map { try summary(of: $0.wrappedValue) }
    }

    /// A group's summary.
    ///
    /// - Throws: ``TodoError`` `.unknownGroup` when no group has the identifier.
    public func summary(of group: WrappedID) throws -> GroupSummary {
        guard let value = try dataSource.groups().lazy.map(\.wrappedValue).first(where: { $0.id == group }) else {
            throw TodoError.unknownGroup(group)
        }
        return try summary(of: value)
    }

    private func summary(of group: TodoGroup) throws -> GroupSummary {
        let completed = try dataSource.tasks(in: group.id).filter { $0.wrappedValue.isCompleted }.count
        return GroupSummary(title: group.title, open: group.taskCount - completed, completed: completed)
    }

    // MARK: - Changing

    /// Adds a group called `title`, trimmed.
    ///
    /// - Returns: The new group's identifier.
    /// - Throws: ``TodoError`` `.blankTitle`, `.duplicateGroup` when a group has the title already.
    @discardableResult
    public func addGroup(_ title: String) throws -> WrappedID {
        let title = try Self.validTitle(title, "a group")
        try checkFree(title, except: nil)
        return try created(.addGroup(title: title))
    }

    /// Gives a group another title, trimmed. The group may change the case of its own title.
    ///
    /// - Throws: ``TodoError`` `.blankTitle`, `.duplicateGroup` when another group has the title,
    ///   `.unknownGroup`.
    public func renameGroup(_ group: WrappedID, to title: String) throws {
        let title = try Self.validTitle(title, "a group")
        try checkFree(title, except: group)
        try dataSource.perform(.renameGroup(group, title: title))
    }

    /// Deletes a group and its tasks.
    ///
    /// - Returns: The number of tasks deleted with the group.
    /// - Throws: ``TodoError`` `.unknownGroup`.
    @discardableResult
    public func deleteGroup(_ group: WrappedID) throws -> Int {
        let count = try dataSource.tasks(in: group).count
        try dataSource.perform(.deleteGroup(group))
        return count
    }

    /// Adds a task called `title`, trimmed, at the end of a group.
    ///
    /// - Returns: The new task's identifier.
    /// - Throws: ``TodoError`` `.blankTitle`, `.duplicateTask` when the group has an open task with that
    ///   title, `.unknownGroup`.
    @discardableResult
    public func addTask(_ title: String, to group: WrappedID) throws -> WrappedID {
        let title = try Self.validTitle(title, "a task")
        let tasks = try dataSource.tasks(in: group).map(\.wrappedValue)
        if let open = tasks.first(where: { !$0.isCompleted && Self.same($0.title, title) }) {
            throw TodoError(.duplicateTask, "\"\(try groupTitle(group))\" already has an open task named \"\(open.title)\".")
        }
        return try created(.addTask(title: title, group: group))
    }

    /// Marks the open task called `title` (without regard to case) in a group done.
    ///
    /// - Returns: The task, done.
    /// - Throws: ``TodoError`` `.unknownTask` when the group has no task with that title,
    ///   `.alreadyCompleted` when its tasks with that title are all done, `.unknownGroup`.
    @discardableResult
    public func complete(taskTitled title: String, in group: WrappedID) throws -> TodoTask {
        let title = Self.trimmed(title)
        let tasks = try dataSource.tasks(in: group)
        let matching = tasks.filter { Self.same($0.wrappedValue.title, title) }
        guard let task = matching.first(where: { !$0.wrappedValue.isCompleted }) else {
            let groupTitle = try groupTitle(group)
            if let done = matching.first {
                throw TodoError(.alreadyCompleted, "\"\(done.wrappedValue.title)\" in \"\(groupTitle)\" is done already.")
            }
            throw TodoError(.unknownTask, "no task named \"\(title)\" in \"\(groupTitle)\". See its tasks with: todo tasks \(Todo.quoted(groupTitle))")
        }
        try dataSource.perform(.toggleTask(task.id))
        return task.wrappedValue
    }

    /// Marks a task done, or not done again.
    ///
    /// - Throws: ``TodoError`` `.unknownTask`.
    public func toggleTask(_ task: WrappedID) throws {
        try dataSource.perform(.toggleTask(task))
    }

    /// Deletes a task.
    ///
    /// - Throws: ``TodoError`` `.unknownTask`.
    public func deleteTask(_ task: WrappedID) throws {
        try dataSource.perform(.deleteTask(task))
    }

    /// Deletes a group's done tasks. A group with none is left alone: no action is sent.
    ///
    /// - Returns: The number of tasks deleted.
    /// - Throws: ``TodoError`` `.unknownGroup`.
    @discardableResult
    public func clearCompleted(in group: WrappedID) throws -> Int {
        let count = try dataSource.tasks(in: group).filter { $0.wrappedValue.isCompleted }.count
        if count > 0 { try dataSource.perform(.clearCompleted(group: group)) }
        return count
    }

    // MARK: - Rules

    /// Whether the title `lhs` comes before `rhs` in the lists: as people read them, then by code points
    /// when they compare the same that way.
    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        switch lhs.localizedStandardCompare(rhs) {
        case .orderedAscending: return true
        case .orderedDescending: return false
        case .orderedSame: return lhs < rhs
        }
    }

    /// Whether two titles are the same title: equal without regard to case.
    static func same(_ lhs: String, _ rhs: String) -> Bool {
        lhs.caseInsensitiveCompare(rhs) == .orderedSame
    }

    static func trimmed(_ title: String) -> String {
        title.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func validTitle(_ title: String, _ what: String) throws -> String {
        let trimmed = trimmed(title)
        guard !trimmed.isEmpty else { throw TodoError(.blankTitle, "\(what) needs a title that is not blank.") }
        return trimmed
    }

    /// Throws `.duplicateGroup` when a group other than `except` has the title.
    private func checkFree(_ title: String, except group: WrappedID?) throws {
        if let other = try dataSource.groups().map(\.wrappedValue).first(where: { $0.id != group && Self.same($0.title, title) }) {
            throw TodoError.duplicateGroup(other.title)
        }
    }

    private func groupTitle(_ group: WrappedID) throws -> String {
        guard let value = try dataSource.groups().lazy.map(\.wrappedValue).first(where: { $0.id == group }) else {
            throw TodoError.unknownGroup(group)
        }
        return value.title
    }

    /// Performs an action that creates a group or task, and returns its identifier.
    private func created(_ action: TodoAction) throws -> WrappedID {
        guard let id = try dataSource.perform(action) else {
            preconditionFailure("TodoLogic: the data source created nothing for \(action).")
        }
        return id
    }
}
