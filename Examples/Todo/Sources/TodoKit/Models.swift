import StowageQueries

// The seed's `C_Group` and `C_Task`, modelled last: the values came first. A group owns its tasks
// (deleting a group deletes them, `.cascade`), a task knows its group through the inverse. Each model
// converts to its value, which is all the app logic ever sees of it.

/// A stored group of tasks (the seed's `C_Group`).
@Model
public final class GroupModel {
    /// The group's title.
    public var title: String

    /// The group's tasks, in the order they were added; deleted with the group.
    @Relationship(deleteRule: .cascade, inverse: \TaskModel.group)
    public var tasks: [TaskModel] = []

    /// A group with no task yet.
    public init(title: String) {
        self.title = title
    }
}

/// A stored task (the seed's `C_Task`).
@Model
public final class TaskModel {
    /// What is to be done.
    public var title: String
    /// Whether the task is done.
    public var isCompleted: Bool = false
    /// The group the task is in.
    public var group: GroupModel?

    /// A task not done yet, in no group until it is added to one.
    public init(title: String) {
        self.title = title
    }
}

extension GroupModel: ConvertibleValueObservableObject {
    /// The group's identifier for the app: its `persistentModelID`, wrapped. It hides the
    /// `id: PersistentIdentifier` every model gets, so `Identifiable` uses this one.
    public var id: WrappedID { .persistentIdentifier(persistentModelID) }

    /// The group as a value, with its number of tasks.
    public func convertToValueType() -> TodoGroup {
        TodoGroup(id: id, title: title, taskCount: tasks.count)
    }
}

extension TaskModel: ConvertibleValueObservableObject {
    /// The task's identifier for the app: its `persistentModelID`, wrapped.
    public var id: WrappedID { .persistentIdentifier(persistentModelID) }

    /// The task as a value, with its group's identifier.
    public func convertToValueType() -> TodoTask {
        TodoTask(id: id, title: title, isCompleted: isCompleted, group: group?.id)
    }
}
