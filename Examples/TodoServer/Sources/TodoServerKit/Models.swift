import Foundation
import Stowage

/// A named list of things to do. Its `id` is the identifier the API shows.
@Model
public final class TodoList {
    /// The list's identifier in URLs (`/lists/{id}`).
    @Attribute(.unique) public var id: UUID
    /// The list's name. The API refuses a name another list has; it is not a unique constraint,
    /// because SwiftData's answer to inserting a duplicate of a unique value is to update the existing
    /// row (an upsert), not to fail.
    public var name: String
    /// When the list was created.
    public var createdAt: Date
    /// The list's items, deleted with it.
    @Relationship(deleteRule: .cascade, inverse: \TodoItem.list)
    public var items: [TodoItem] = []

    /// Creates a list.
    public init(id: UUID = UUID(), name: String, createdAt: Date = .now) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
    }
}

/// One thing to do, in one list.
@Model
public final class TodoItem {
    #Index<TodoItem>([\.isDone], [\.priority])

    /// The item's identifier in URLs (`/items/{id}`).
    @Attribute(.unique) public var id: UUID
    /// What to do.
    public var title: String
    /// Whether it is done.
    public var isDone: Bool
    /// Higher is more urgent; 0 by default.
    public var priority: Int
    /// When it is due, if ever.
    public var dueDate: Date?
    /// When the item was created.
    public var createdAt: Date
    /// The list the item belongs to.
    public var list: TodoList?

    /// Creates an item.
    public init(id: UUID = UUID(), title: String, isDone: Bool = false, priority: Int = 0, dueDate: Date? = nil, createdAt: Date = .now) {
        self.id = id
        self.title = title
        self.isDone = isDone
        self.priority = priority
        self.dueDate = dueDate
        self.createdAt = createdAt
    }
}
