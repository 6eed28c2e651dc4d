import StowageQueries

// Seed 004's first step: the values the app works with, defined before any model. Views, reducers and
// the app logic (`TodoLogic`) see only these, each identified by a `WrappedID` that links it to the
// model or the mock behind it.

/// A group of tasks as the app shows it (seed 004's `TodoGroup`).
public struct TodoGroup: BaseValueProtocol {
    /// The group's identifier: a model's `PersistentIdentifier` in a store, a string for mock data.
    public var id: WrappedID
    /// The group's title, unique among the groups.
    public var title: String
    /// The number of tasks in the group, done or not.
    public var taskCount: Int

    /// Creates a group value.
    public init(id: WrappedID, title: String, taskCount: Int = 0) {
        self.id = id
        self.title = title
        self.taskCount = taskCount
    }
}

/// A task as the app shows it.
public struct TodoTask: BaseValueProtocol {
    /// The task's identifier: a model's `PersistentIdentifier` in a store, a string for mock data.
    public var id: WrappedID
    /// What is to be done.
    public var title: String
    /// Whether the task is done.
    public var isCompleted: Bool
    /// The identifier of the group the task is in, `nil` for a task in no group.
    public var group: WrappedID?

    /// Creates a task value.
    public init(id: WrappedID, title: String, isCompleted: Bool = false, group: WrappedID? = nil) {
        self.id = id
        self.title = title
        self.isCompleted = isCompleted
        self.group = group
    }
}
