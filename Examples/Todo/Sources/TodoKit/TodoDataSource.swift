import StowageQueries

// The seed's "custom FetchRequest that can accept mock data", and its Redux-like actions: app logic
// reads through a data source and changes it by sending actions, and never names a model or a context.
// `MockTodoDataSource` keeps mocks in memory; `StowageTodoDataSource` keeps models in a store.

/// A change to the groups and tasks, as a Redux-like app sends it to its data source.
///
/// Actions carry identifiers and plain values only, so they are `Equatable` and `Sendable` (seed 004's
/// reason for `BaseValueProtocol`). A data source performs an action as it is: checking titles is the
/// logic's job (``TodoLogic``), before it sends the action.
public enum TodoAction: Equatable, Sendable {
    /// Adds a group with no task.
    case addGroup(title: String)
    /// Gives a group another title.
    case renameGroup(WrappedID, title: String)
    /// Deletes a group and its tasks.
    case deleteGroup(WrappedID)
    /// Adds a task, not done, at the end of a group.
    case addTask(title: String, group: WrappedID)
    /// Marks a task done, or not done again.
    case toggleTask(WrappedID)
    /// Deletes a task.
    case deleteTask(WrappedID)
    /// Deletes a group's done tasks.
    case clearCompleted(group: WrappedID)
}

/// Where the groups and tasks come from, and where actions go: a store in the app, mocks in previews
/// and tests. App logic takes `any TodoDataSource` and gets the same answers from either.
///
/// Objects are handed out type-erased, as `AnyConvertibleValueObservableObject`: read `wrappedValue`
/// for the current value, and observe it with `withObservationTracking`, which sees the changes of
/// the model or mock behind.
public protocol TodoDataSource {
    /// Every group, by title.
    func groups() throws -> [AnyConvertibleValueObservableObject<TodoGroup>]

    /// The tasks of a group, in the order they were added.
    ///
    /// - Throws: ``TodoError`` `.unknownGroup` when no group has the identifier.
    func tasks(in group: WrappedID) throws -> [AnyConvertibleValueObservableObject<TodoTask>]

    /// Performs an action, all or nothing: when it throws, nothing has changed.
    ///
    /// - Returns: The identifier of the group or task the action created, `nil` for the other actions.
    /// - Throws: ``TodoError`` `.unknownGroup` or `.unknownTask` for an identifier that names no group
    ///   or task, `.store` when the store cannot be written.
    @discardableResult
    func perform(_ action: TodoAction) throws -> WrappedID?
}
