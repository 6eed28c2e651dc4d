import Foundation
import Stowage
import Testing
@testable import RemindersKit

/// The seed's Active Record protocol: `save()`, `delete()` and `all`, `Reminder.byList(myList:)`, and
/// `Reminder`'s own `save()`.
@Suite struct ModelTests {
    @Test func saveWritesTheModelsContext() throws {
        let container = try makeInMemoryContainer()
        let context = ModelContext(container)
        let groceries = MyList(name: "Groceries")
        context.insert(groceries)
        try groceries.save()
        #expect(!context.hasChanges)
        #expect(try ModelContext(container).fetch(MyList.all).map(\.name) == ["Groceries"])

        groceries.name = "Food"
        try groceries.save()
        #expect(try ModelContext(container).fetch(MyList.all).map(\.name) == ["Food"])
    }

    @Test func deleteRemovesTheModelAndSaves() throws {
        let container = try makeInMemoryContainer()
        let context = ModelContext(container)
        let groceries = MyList(name: "Groceries")
        let errands = MyList(name: "Errands")
        context.insert(groceries)
        context.insert(errands)
        try groceries.save()

        try groceries.delete()
        #expect(groceries.isDeleted)
        #expect(!context.hasChanges)
        #expect(try ModelContext(container).fetch(MyList.all).map(\.name) == ["Errands"])
    }

    @Test func deletingAModelNeverSavedSavesTheContextItWasIn() throws {
        let container = try makeInMemoryContainer()
        let context = ModelContext(container)
        let kept = MyList(name: "Kept")
        let draft = MyList(name: "Draft")
        context.insert(kept)
        context.insert(draft)

        try draft.delete()
        #expect(draft.modelContext == nil)
        #expect(!context.hasChanges)
        #expect(try ModelContext(container).fetch(MyList.all).map(\.name) == ["Kept"])
    }

    @Test func allIsEveryModelInTheOrderItWasAdded() throws {
        let container = try makeInMemoryContainer()
        let context = ModelContext(container)
        #expect(MyList.all.sortBy.isEmpty)
        #expect(MyList.all.predicate == nil)
        for name in ["Groceries", "Errands", "Books"] {
            let list = MyList(name: name)
            context.insert(list)
            try list.save()
        }
        #expect(try ModelContext(container).fetch(MyList.all).map(\.name) == ["Groceries", "Errands", "Books"])
        // `all` is the protocol's, for every conforming model.
        let reminder = Reminder(title: "Milk")
        context.insert(reminder)
        try reminder.save()
        #expect(try ModelContext(container).fetch(Reminder.all).map(\.title) == ["Milk"])
    }

    @Test func aModelInNoContextCannotSaveOrDelete() throws {
        let list = MyList(name: "Groceries")
        #expect(throws: RemindersError(.notInserted, "this MyList is in no model context: insert it with context.insert(_:) before calling save().")) {
            try list.save()
        }
        #expect(throws: RemindersError(.notInserted, "this MyList is in no model context: insert it with context.insert(_:) before calling delete().")) {
            try list.delete()
        }
        let reminder = Reminder(title: "Milk")
        #expect(throws: RemindersError(.notInserted, "this Reminder is in no model context: insert it with context.insert(_:) before calling save().")) {
            try reminder.save()
        }
        #expect(throws: RemindersError(.notInserted, "this Reminder is in no model context: insert it with context.insert(_:) before calling delete().")) {
            try reminder.delete()
        }
        #expect(RemindersError(.notInserted, "").exitStatus == 1)

        // A model rolled back out of its context is in none either.
        let context = ModelContext(try makeInMemoryContainer())
        context.insert(list)
        context.rollback()
        #expect(throws: RemindersError(.notInserted, "this MyList is in no model context: insert it with context.insert(_:) before calling save().")) {
            try list.save()
        }
    }

    // MARK: - Reminder's own save()

    @Test func reminderRefusesABlankTitleAndSavesNothing() throws {
        let container = try makeInMemoryContainer()
        let context = ModelContext(container)
        let groceries = MyList(name: "Groceries")
        context.insert(groceries)
        try groceries.save()

        for title in ["", "   ", "\n\t"] {
            let reminder = Reminder(title: title)
            context.insert(reminder)
            reminder.list = groceries
            #expect(throws: RemindersError(.invalidName, "a reminder needs a title that is not blank.")) { try reminder.save() }
            #expect(RemindersError(.invalidName, "").exitStatus == 64)
            // Nothing was written, and the context keeps the change so that it can be fixed.
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<Reminder>()) == 0)
            #expect(context.hasChanges)
            context.rollback()
        }

        let reminder = Reminder(title: " ")
        context.insert(reminder)
        reminder.list = groceries
        #expect(throws: RemindersError.self) { try reminder.save() }
        reminder.title = "Milk"
        try reminder.save()
        #expect(try ModelContext(container).fetch(Reminder.all).map(\.title) == ["Milk"])
    }

    @Test func reminderChecksItsTitleWhenChangedToo() throws {
        let container = try makeInMemoryContainer()
        let context = ModelContext(container)
        let reminder = Reminder(title: "Milk")
        context.insert(reminder)
        try reminder.save()

        reminder.title = " "
        #expect(throws: RemindersError(.invalidName, "a reminder needs a title that is not blank.")) { try reminder.save() }
        #expect(try ModelContext(container).fetch(Reminder.all).map(\.title) == ["Milk"])
        // Deleting is not held up by the check: delete() saves the context without calling save().
        try reminder.delete()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Reminder>()) == 0)
    }

    @Test func reminderChecksBeforeLookingForItsContext() {
        #expect(throws: RemindersError(.invalidName, "a reminder needs a title that is not blank.")) { try Reminder(title: "").save() }
    }

    @Test func reminderOwnSaveRunsThroughSomeModelAndAnyModel() throws {
        let container = try makeInMemoryContainer()
        let context = ModelContext(container)
        let blank = Reminder(title: "")
        context.insert(blank)

        #expect(throws: RemindersError(.invalidName, "a reminder needs a title that is not blank.")) { try saveGenerically(blank) }
        let existential: any Model = blank
        #expect(throws: RemindersError(.invalidName, "a reminder needs a title that is not blank.")) { try existential.save() }
        let models: [any Model] = [MyList(name: ""), blank]
        #expect(throws: RemindersError(.invalidName, "a reminder needs a title that is not blank.")) { try models[1].save() }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Reminder>()) == 0)

        // MyList keeps the protocol's default save(), which has no rule of its own: a blank name saves.
        let list = MyList(name: "")
        context.insert(list)
        context.delete(blank)
        try saveGenerically(list)
        #expect(try ModelContext(container).fetch(MyList.all).map(\.name) == [""])

        // Through the protocol, a valid reminder saves and deletes like any model.
        let milk = Reminder(title: "Milk")
        context.insert(milk)
        let model: any Model = milk
        try model.save()
        #expect(try ModelContext(container).fetch(Reminder.all).map(\.title) == ["Milk"])
        try deleteGenerically(milk)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Reminder>()) == 0)
    }

    // MARK: - Reminder.byList(myList:)

    @Test func byListFetchesOneListsRemindersInTheOrderTheyWereAdded() throws {
        let container = try makeInMemoryContainer()
        let context = ModelContext(container)
        let groceries = MyList(name: "Groceries")
        let errands = MyList(name: "Errands")
        context.insert(groceries)
        context.insert(errands)
        for (title, list) in [("Milk", groceries), ("Post the parcel", errands), ("Bread", groceries), ("Apples", groceries)] {
            let reminder = Reminder(title: title)
            context.insert(reminder)
            reminder.list = list
            try reminder.save()
        }
        let orphan = Reminder(title: "Nowhere")
        context.insert(orphan)
        try orphan.save()

        let other = ModelContext(container)
        let otherGroceries = try #require(try other.fetch(MyList.all).first)
        // The order they were added, not alphabetical.
        #expect(try other.fetch(Reminder.byList(myList: otherGroceries)).map(\.title) == ["Milk", "Bread", "Apples"])
        #expect(try other.fetch(Reminder.byList(myList: errands)).map(\.title) == ["Post the parcel"])
        #expect(Reminder.byList(myList: groceries).sortBy.isEmpty)

        // Unsaved reminders are included, after the saved ones.
        let eggs = Reminder(title: "Eggs")
        context.insert(eggs)
        eggs.list = groceries
        #expect(try context.fetch(Reminder.byList(myList: groceries)).map(\.title) == ["Milk", "Bread", "Apples", "Eggs"])
    }

    @Test func byListIsOneQuery() throws {
        // Tracing is installed when a store opens: observe before creating the container.
        let log = SQLDebug.StatementLog()
        let observation = SQLDebug.observe { log.append($0) }
        defer { observation.cancel() }
        let book = try makeInMemoryBook()
        try book.addList("Groceries")
        for title in ["Milk", "Bread", "Eggs"] { try book.add(title, to: "Groceries") }
        let container = book.context.container
        let context = ModelContext(container)
        let groceries = try ReminderBook(context: context).list(named: "Groceries")
        log.removeAll()

        let reminders = try context.fetch(Reminder.byList(myList: groceries))
        #expect(reminders.map(\.title) == ["Milk", "Bread", "Eggs"])
        #expect(log.events(of: container).filter { $0.sql.hasPrefix("SELECT") }.count == 1)
    }

    // MARK: - The cascade

    @Test func deletingAListDeletesItsReminders() throws {
        let container = try makeInMemoryContainer()
        let context = ModelContext(container)
        let groceries = MyList(name: "Groceries")
        let errands = MyList(name: "Errands")
        context.insert(groceries)
        context.insert(errands)
        for (title, list) in [("Milk", groceries), ("Bread", groceries), ("Post the parcel", errands)] {
            let reminder = Reminder(title: title)
            context.insert(reminder)
            reminder.list = list
        }
        try groceries.save()
        #expect(groceries.reminders.map(\.title) == ["Milk", "Bread"])

        let other = ModelContext(container)
        try #require(try other.fetch(MyList.all).first).delete()
        let fresh = ModelContext(container)
        #expect(try fresh.fetch(MyList.all).map(\.name) == ["Errands"])
        #expect(try fresh.fetch(Reminder.all).map(\.title) == ["Post the parcel"])
    }

    // MARK: - The store file

    @Test func listsAndRemindersAreReopenedFromTheFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = URL(fileURLWithPath: directory.path("reminders.store"))
        do {
            let book = ReminderBook(context: ModelContext(try Reminders.openContainer(at: url)))
            try book.addList("Groceries")
            try book.addList("Errands")
            for title in ["Milk", "Bread", "Apples"] { try book.add(title, to: "Groceries") }
            try book.add("Post the parcel", to: "Errands")
            try book.complete("Bread", in: "Groceries")
        }
        // The models named in the other order than the app's container names them.
        let container = try ModelContainer(for: Reminder.self, MyList.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let lists = try context.fetch(MyList.all)
        #expect(lists.map(\.name) == ["Groceries", "Errands"])
        let reminders = try context.fetch(Reminder.byList(myList: lists[0]))
        #expect(reminders.map(\.title) == ["Milk", "Bread", "Apples"])
        #expect(reminders.map(\.isCompleted) == [false, true, false])
        #expect(reminders.allSatisfy { $0.list === lists[0] })
        #expect(lists[1].reminders.map(\.title) == ["Post the parcel"])

        // Saved through a container that names them the other way, read back by the app's.
        let book = ReminderBook(context: context)
        try book.add("Eggs", to: "Groceries")
        let reopened = ReminderBook(context: ModelContext(try Reminders.openContainer(at: url)))
        #expect(try reopened.reminders(in: try reopened.list(named: "Groceries")).map(\.title) == ["Milk", "Bread", "Apples", "Eggs"])
    }
}
