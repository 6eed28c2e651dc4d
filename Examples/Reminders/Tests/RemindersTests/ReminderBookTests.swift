import Foundation
import Stowage
import Testing
@testable import RemindersKit

/// The app's operations, each made with the models' own `save()` and `delete()`.
@Suite struct ReminderBookTests {
    @Test func addListSavesATrimmedName() throws {
        let book = try makeInMemoryBook()
        let list = try book.addList("  Groceries ")
        #expect(list.name == "Groceries")
        #expect(!book.context.hasChanges)
        #expect(try ReminderBook(context: ModelContext(book.context.container)).lists().map(\.name) == ["Groceries"])
    }

    @Test func addListRefusesBlankAndDuplicateNames() throws {
        let book = try makeInMemoryBook()
        try book.addList("Groceries")
        #expect(throws: RemindersError(.invalidName, "a list needs a name that is not blank.")) { try book.addList(" \t") }
        #expect(throws: RemindersError(.duplicateList, "there is a list named \"Groceries\" already. Run \"reminders lists\" to see the lists.")) {
            try book.addList(" Groceries")
        }
        // Names are compared exactly.
        try book.addList("groceries")
        #expect(try book.lists().map(\.name) == ["Groceries", "groceries"])
    }

    @Test func addPutsTheReminderInItsList() throws {
        let book = try makeInMemoryBook()
        try book.addList("Groceries")
        try book.addList("Errands")
        let milk = try book.add(" Milk ", to: "Groceries")
        try book.add("Milk", to: "Errands")
        #expect(milk.title == "Milk")
        #expect(!milk.isCompleted)
        #expect(milk.list?.name == "Groceries")
        #expect(try book.list(named: "Groceries").reminders.map(\.title) == ["Milk"])
        #expect(!book.context.hasChanges)

        let other = ReminderBook(context: ModelContext(book.context.container))
        #expect(try other.reminders(in: try other.list(named: "Groceries")).map(\.title) == ["Milk"])
        #expect(try other.reminders(in: try other.list(named: "Errands")).map(\.title) == ["Milk"])
    }

    @Test func addFailsAndWritesNothing() throws {
        let book = try makeInMemoryBook()
        let groceries = try book.addList("Groceries")
        try book.add("Milk", to: "Groceries")

        #expect(throws: RemindersError.unknownList("Groceries ")) { try book.add("Bread", to: "Groceries ") }
        #expect(throws: RemindersError(.duplicateReminder, "\"Groceries\" has a reminder \"Milk\" already. Run \"reminders show Groceries\" to see its reminders.")) {
            try book.add(" Milk", to: "Groceries")
        }
        // The blank title is refused by Reminder's own save(); the book rolls the insertion back.
        #expect(throws: RemindersError(.invalidName, "a reminder needs a title that is not blank.")) { try book.add("  ", to: "Groceries") }
        #expect(!book.context.hasChanges)
        #expect(groceries.reminders.map(\.title) == ["Milk"])
        #expect(try book.reminders(in: groceries).map(\.title) == ["Milk"])
        #expect(try ModelContext(book.context.container).fetch(Reminder.all).map(\.title) == ["Milk"])
    }

    @Test func completeSavesOnceAndSaysWhenItWasDone() throws {
        let book = try makeInMemoryBook()
        try book.addList("Groceries")
        try book.add("Milk", to: "Groceries")
        try book.add("Bread", to: "Groceries")

        let first = try book.complete("Milk", in: "Groceries")
        #expect(first.reminder.isCompleted)
        #expect(!first.wasCompleted)
        #expect(try book.complete("Milk", in: "Groceries").wasCompleted)

        let other = ReminderBook(context: ModelContext(book.context.container))
        #expect(try other.reminders(in: try other.list(named: "Groceries")).map(\.isCompleted) == [true, false])
        #expect(throws: RemindersError.unknownReminder("Eggs", in: "Groceries")) { try book.complete("Eggs", in: "Groceries") }
        #expect(throws: RemindersError.unknownList("Errands")) { try book.complete("Milk", in: "Errands") }
    }

    @Test func renameGoesThroughRemindersSave() throws {
        let book = try makeInMemoryBook()
        try book.addList("Groceries")
        try book.add("Milk", to: "Groceries")
        try book.add("Bread", to: "Groceries")

        let renamed = try book.rename("Bread", in: "Groceries", to: " Sourdough bread ")
        #expect(renamed.title == "Sourdough bread")
        #expect(try book.rename("Milk", in: "Groceries", to: "Milk").title == "Milk")

        #expect(throws: RemindersError(.invalidName, "a reminder needs a title that is not blank.")) {
            try book.rename("Milk", in: "Groceries", to: " ")
        }
        #expect(throws: RemindersError(.duplicateReminder, "\"Groceries\" has a reminder \"Milk\" already. Run \"reminders show Groceries\" to see its reminders.")) {
            try book.rename("Sourdough bread", in: "Groceries", to: "Milk")
        }
        #expect(throws: RemindersError.unknownReminder("Bread", in: "Groceries")) { try book.rename("Bread", in: "Groceries", to: "Rye") }
        // The refused title was rolled back in the context, and never written.
        #expect(!book.context.hasChanges)
        #expect(try book.reminders(in: try book.list(named: "Groceries")).map(\.title) == ["Milk", "Sourdough bread"])
        let other = ReminderBook(context: ModelContext(book.context.container))
        #expect(try other.reminders(in: try other.list(named: "Groceries")).map(\.title) == ["Milk", "Sourdough bread"])
    }

    @Test func deleteTakesOneReminder() throws {
        let book = try makeInMemoryBook()
        try book.addList("Groceries")
        for title in ["Milk", "Bread", "Eggs"] { try book.add(title, to: "Groceries") }

        try book.delete("Bread", from: "Groceries")
        #expect(throws: RemindersError.unknownReminder("Bread", in: "Groceries")) { try book.delete("Bread", from: "Groceries") }
        #expect(throws: RemindersError.unknownList("Errands")) { try book.delete("Milk", from: "Errands") }
        let other = ReminderBook(context: ModelContext(book.context.container))
        let groceries = try other.list(named: "Groceries")
        #expect(try other.reminders(in: groceries).map(\.title) == ["Milk", "Eggs"])
        #expect(groceries.reminders.map(\.title) == ["Milk", "Eggs"])
    }

    @Test func deleteListCascadesToItsRemindersOnly() throws {
        let book = try makeInMemoryBook()
        try book.addList("Groceries")
        try book.addList("Errands")
        try book.addList("Someday")
        for title in ["Milk", "Bread"] { try book.add(title, to: "Groceries") }
        try book.add("Post the parcel", to: "Errands")

        #expect(try book.deleteList("Groceries") == 2)
        #expect(try book.deleteList("Someday") == 0)
        #expect(throws: RemindersError.unknownList("Groceries")) { try book.deleteList("Groceries") }

        let context = ModelContext(book.context.container)
        #expect(try context.fetch(MyList.all).map(\.name) == ["Errands"])
        #expect(try context.fetch(Reminder.all).map(\.title) == ["Post the parcel"])
    }

    @Test func listingLoadsEveryListsRemindersInTwoQueries() throws {
        // Tracing is installed when a store opens: observe before creating the container.
        let log = SQLDebug.StatementLog()
        let observation = SQLDebug.observe { log.append($0) }
        defer { observation.cancel() }
        let book = try makeInMemoryBook()
        for index in 1...5 {
            try book.addList("List \(index)")
            for item in 1...index { try book.add("Reminder \(item)", to: "List \(index)") }
        }
        let container = book.context.container
        log.removeAll()

        let lists = try ReminderBook(context: ModelContext(container)).lists()
        #expect(lists.map(\.reminders.count) == [1, 2, 3, 4, 5])
        #expect(log.events(of: container).filter { $0.sql.hasPrefix("SELECT") }.count == 2)
    }

    @Test func namesInSuggestedCommandsAreQuotedWhenNeeded() {
        #expect(Report.quoted("Groceries") == "Groceries")
        #expect(Report.quoted("Café-2") == "Café-2")
        #expect(Report.quoted("Weekend chores") == "'Weekend chores'")
        #expect(Report.quoted("Bob's") == "'Bob'\\''s'")
        #expect(Report.quoted("") == "''")
        #expect(RemindersError.unknownReminder("Mop", in: "Weekend chores").message
            == "\"Weekend chores\" has no reminder \"Mop\". Run \"reminders show 'Weekend chores'\" to see its reminders.")
    }
}
