import ExampleSupport
import StowageQueries

/// A data source over a `ModelContext`: ``GroupModel`` and ``TaskModel`` in a Stowage store. The app
/// runs its logic on it; the logic sees the same values and errors as on ``MockTodoDataSource``.
///
/// Each action is saved before ``perform(_:)`` returns, in one transaction. When an action fails — an
/// identifier names no model, or the store refuses the save — the context is rolled back: nothing is
/// written, and the models are as they were.
///
/// ```swift
/// let container = try ModelContainer(for: GroupModel.self, configurations: ModelConfiguration(url: url))
/// let logic = TodoLogic(StowageTodoDataSource(context: ModelContext(container)))
/// ```
public struct StowageTodoDataSource: TodoDataSource {
    /// The context the models live in.
    public let context: ModelContext

    /// A data source over `context`, whose container's schema has ``GroupModel`` (and so ``TaskModel``).
    public init(context: ModelContext) {
        self.context = context
    }

    /// Every group's model, by title, with its tasks loaded in the same fetch.
    ///
    /// - Throws: ``TodoError`` `.store` when the store cannot be read.
    public func groups() throws -> [AnyConvertibleValueObservableObject<TodoGroup>] {
        var descriptor = FetchDescriptor<GroupModel>(sortBy: [SortDescriptor(\GroupModel.title)])
        // Each group's value counts its tasks: load them all in one more query.
        descriptor.relationshipKeyPathsForPrefetching = [\.tasks]
        do {
            return try context.fetch(descriptor).map { $0.eraseToAny() }
        } catch {
            throw TodoError.store("read", error)
        }
    }

    /// The models of a group's tasks, in the order they were added.
    ///
    /// - Throws: ``TodoError`` `.unknownGroup` when the identifier names no live group of this store.
    public func tasks(in group: WrappedID) throws -> [AnyConvertibleValueObservableObject<TodoTask>] {
        try self.group(group).tasks.map { $0.eraseToAny() }
    }

    /// Performs an action on the models and saves it, in one transaction; rolls the context back when
    /// the action or the save fails.
    ///
    /// - Returns: The identifier of the group or task the action created (permanent: read after the
    ///   save), `nil` for the other actions.
    /// - Throws: ``TodoError`` `.unknownGroup` or `.unknownTask` for an identifier that names no live
    ///   model of this store (a mock's, another store's, a deleted model's), `.store` when the save fails.
    @discardableResult
    public func perform(_ action: TodoAction) throws -> WrappedID? {
        let created: (any ConvertibleValueObservableObject)?
        do {
            created = try apply(action)
        } catch {
            context.rollback()
            throw error
        }
        do {
            try context.save()
        } catch {
            context.rollback()
            throw TodoError.store("save to", error)
        }
        // Read after the save: an inserted model's identifier is temporary until then.
        return created?.id
    }

    /// Makes the action's changes in the context, unsaved.
    private func apply(_ action: TodoAction) throws -> (any ConvertibleValueObservableObject)? {
        switch action {
        case .addGroup(let title):
            let group = GroupModel(title: title)
            context.insert(group)
            return group
        case .renameGroup(let id, let title):
            try group(id).title = title
        case .deleteGroup(let id):
            // The tasks go with it: `tasks` is a cascade relationship.
            context.delete(try group(id))
        case .addTask(let title, let groupID):
            let group = try group(groupID)
            let task = TaskModel(title: title)
            context.insert(task)
            group.tasks.append(task)
            return task
        case .toggleTask(let id):
            try task(id).isCompleted.toggle()
        case .deleteTask(let id):
            context.delete(try task(id))
        case .clearCompleted(let groupID):
            for task in try group(groupID).tasks where task.isCompleted {
                context.delete(task)
            }
        }
        return nil
    }

    private func group(_ id: WrappedID) throws -> GroupModel {
        guard let group: GroupModel = model(id) else { throw TodoError.unknownGroup(id) }
        return group
    }

    private func task(_ id: WrappedID) throws -> TaskModel {
        guard let task: TaskModel = model(id) else { throw TodoError.unknownTask(id) }
        return task
    }

    /// The live model of type `Model` an identifier names, or `nil`: for a mock's identifier, another
    /// entity's, or a deleted model's.
    private func model<Model: PersistentModel>(_ id: WrappedID) -> Model? {
        guard case .persistentIdentifier(let identifier) = id,
              context.container.schema.entitiesByName[identifier.entityName] != nil,
              let model = context.model(for: identifier) as? Model, !model.isDeleted
        else { return nil }
        return model
    }
}
