import Stowage

// The seed's two Core Data entities as Stowage models, with `import Stowage` in place of the Core Data
// model file. The article's generated classes have optional attributes (`myList.name ?? ""`); these
// declare what the app needs instead: every list has a name, every reminder a title.

/// A list of reminders, like "Groceries": the seed's `MyList` entity.
///
/// Deleting a list deletes its reminders (the `.cascade` rule): a reminder does not outlive its list.
@Model
final class MyList {
    /// The list's name, unique in the store (``ReminderBook`` checks it).
    var name: String

    /// The list's reminders. The inverse of ``Reminder/list``: setting a reminder's `list` adds it here.
    @Relationship(deleteRule: .cascade, inverse: \Reminder.list)
    var reminders: [Reminder] = []

    /// Creates a list with no reminders. It is a plain object until it is inserted into a context.
    init(name: String) {
        self.name = name
    }
}

/// A reminder in a list: the seed's `Reminder` entity.
@Model
final class Reminder {
    /// What to do. ``Reminder/save()`` refuses a blank title.
    var title: String
    /// Whether the reminder is done.
    var isCompleted: Bool
    /// The list the reminder belongs to, or `nil` for none. The inverse of ``MyList/reminders``.
    var list: MyList?

    /// Creates a reminder in no list. It is a plain object until it is inserted into a context.
    init(title: String, isCompleted: Bool = false) {
        self.title = title
        self.isCompleted = isCompleted
    }
}
