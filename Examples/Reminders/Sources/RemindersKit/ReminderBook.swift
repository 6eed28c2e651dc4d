import Foundation
import Stowage

/// The app's operations on lists and their reminders, over any `ModelContext`: a file store in the
/// app, an in-memory container in tests.
///
/// Every change is made the Active Record way: the models are changed or inserted, then saved or
/// deleted through their ``Model`` methods (`myList.save()`, `reminder.delete()`), so a model's own
/// rules, like ``Reminder/save()``'s check of the title, apply. When one of them throws, the context is
/// rolled back, so nothing of the failed change stays pending or is written, and the error is rethrown
/// as a ``RemindersError``.
///
/// List names are unique, and reminder titles unique in their list, so a command line can name them.
/// Names are compared exactly; new names and titles are trimmed of surrounding white space.
struct ReminderBook {
    let context: ModelContext

    init(context: ModelContext) {
        self.context = context
    }

    /// Every list in the order it was added (``Model/all``), with its reminders loaded in one more
    /// query for all of them.
    func lists() throws -> [MyList] {
        var descriptor = MyList.all
        descriptor.relationshipKeyPathsForPrefetching = [\.reminders]
        return try fetch(descriptor)
    }

    /// The list called `name`.
    ///
    /// - Throws: ``RemindersError`` `.unknownList` when no list has that name.
    func list(named name: String) throws -> MyList {
        guard let list = try fetch(FetchDescriptor<MyList>(predicate: #Predicate { $0.name == name })).first else {
            throw RemindersError.unknownList(name)
        }
        return list
    }

    /// The reminders of `list` in the order they were added, with ``Reminder/byList(myList:)``.
    func reminders(in list: MyList) throws -> [Reminder] {
        try fetch(Reminder.byList(myList: list))
    }

    /// The reminder called `title` in the list called `listName`.
    ///
    /// - Throws: ``RemindersError`` `.unknownList`, or `.unknownReminder` when the list has no reminder
    ///   with that title.
    func reminder(_ title: String, in listName: String) throws -> Reminder {
        let list = try list(named: listName)
        guard let reminder = try reminders(in: list).first(where: { $0.title == title }) else {
            throw RemindersError.unknownReminder(title, in: list.name)
        }
        return reminder
    }

    /// Adds a list called `name` (trimmed) with `myList.save()`.
    ///
    /// - Throws: ``RemindersError`` `.invalidName` for a blank name, `.duplicateList` when a list has
    ///   that name, `.store` when saving fails.
    @discardableResult
    func addList(_ name: String) throws -> MyList {
        let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw RemindersError(.invalidName, "a list needs a name that is not blank.") }
        guard try fetch(FetchDescriptor<MyList>(predicate: #Predicate { $0.name == name })).isEmpty else {
            throw RemindersError(.duplicateList, "there is a list named \"\(name)\" already. Run \"reminders lists\" to see the lists.")
        }
        let list = MyList(name: name)
        context.insert(list)
        try perform { try list.save() }
        return list
    }

    /// Adds a reminder called `title` (trimmed) to the list called `listName`, with `reminder.save()`.
    ///
    /// - Throws: ``RemindersError`` `.unknownList`; `.duplicateReminder` when the list has a reminder
    ///   with that title; `.invalidName`, from ``Reminder/save()``, for a blank title; `.store` when
    ///   saving fails.
    @discardableResult
    func add(_ title: String, to listName: String) throws -> Reminder {
        let list = try list(named: listName)
        let title = title.trimmingCharacters(in: .whitespacesAndNewlines)
        try checkTitleIsFree(title, in: list)
        let reminder = Reminder(title: title)
        context.insert(reminder)
        reminder.list = list
        try perform { try reminder.save() }
        return reminder
    }

    /// Marks the reminder called `title` in the list called `listName` as completed, with
    /// `reminder.save()`.
    ///
    /// - Returns: The reminder, and whether it was completed already (then nothing is saved).
    /// - Throws: ``RemindersError`` `.unknownList`, `.unknownReminder`, `.store` when saving fails.
    @discardableResult
    func complete(_ title: String, in listName: String) throws -> (reminder: Reminder, wasCompleted: Bool) {
        let reminder = try reminder(title, in: listName)
        guard !reminder.isCompleted else { return (reminder, true) }
        reminder.isCompleted = true
        try perform { try reminder.save() }
        return (reminder, false)
    }

    /// Changes the title of the reminder called `title` in the list called `listName` to `newTitle`
    /// (trimmed), with `reminder.save()`: the seed's ReminderDetailView.
    ///
    /// - Throws: ``RemindersError`` `.unknownList`, `.unknownReminder`; `.duplicateReminder` when another
    ///   reminder of the list has the new title; `.invalidName`, from ``Reminder/save()``, for a blank
    ///   title; `.store` when saving fails.
    @discardableResult
    func rename(_ title: String, in listName: String, to newTitle: String) throws -> Reminder {
        let reminder = try reminder(title, in: listName)
        let newTitle = newTitle.trimmingCharacters(in: .whitespacesAndNewlines)
        if let list = reminder.list { try checkTitleIsFree(newTitle, in: list, except: reminder) }
        reminder.title = newTitle
        try perform { try reminder.save() }
        return reminder
    }

    /// Deletes the reminder called `title` in the list called `listName`, with `reminder.delete()`.
    ///
    /// - Throws: ``RemindersError`` `.unknownList`, `.unknownReminder`, `.store` when saving fails.
    func delete(_ title: String, from listName: String) throws {
        let reminder = try reminder(title, in: listName)
        try perform { try reminder.delete() }
    }

    /// Deletes the list called `name` with `myList.delete()`; its reminders go with it (the `.cascade`
    /// rule of ``MyList/reminders``).
    ///
    /// - Returns: The number of reminders deleted with the list.
    /// - Throws: ``RemindersError`` `.unknownList`, `.store` when saving fails.
    @discardableResult
    func deleteList(_ name: String) throws -> Int {
        let list = try list(named: name)
        let count = list.reminders.count
        try perform { try list.delete() }
        return count
    }

    /// Throws `.duplicateReminder` when `list` has a reminder other than `reminder` called `title`.
    private func checkTitleIsFree(_ title: String, in list: MyList, except reminder: Reminder? = nil) throws {
        guard try reminders(in: list).contains(where: { $0.title == title && $0 !== reminder }) else { return }
        throw RemindersError(
            .duplicateReminder,
            "\"\(list.name)\" has a reminder \"\(title)\" already. Run \"reminders show \(Report.quoted(list.name))\" to see its reminders.")
    }

    private func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        do {
            return try context.fetch(descriptor)
        } catch {
            throw RemindersError.store("read", error)
        }
    }

    /// Runs an Active Record change; when it throws, rolls the context back and rethrows the error as a
    /// ``RemindersError``.
    private func perform(_ change: () throws -> Void) throws {
        do {
            try change()
        } catch {
            context.rollback()
            throw error as? RemindersError ?? RemindersError.store("save to", error)
        }
    }
}
