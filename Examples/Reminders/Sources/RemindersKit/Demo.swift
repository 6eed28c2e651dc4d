import ExampleSupport
import Foundation
import Stowage

/// The `demo` command: the seed's Active Record flow on the store file, step by step.
///
/// The demo adds lists and reminders with their own `save()`, shows `Reminder`'s `save()` refusing a
/// blank title, lists with `MyList.all` and `Reminder.byList(myList:)`, changes, completes and deletes
/// reminders, deletes a list with its reminders, reopens the store in a second container to show what
/// was saved, and finally deletes what it created so the store is left as the demo found it.
struct Demo {
    let storeURL: URL
    let console: Console

    /// The lists the demo adds, in order, with their reminders.
    static let lists: [(name: String, reminders: [String])] = [
        ("Groceries", ["Milk", "Bread", "Eggs"]),
        ("Errands", ["Post the parcel", "Pick up the dry cleaning"]),
    ]
    static let kept = "Groceries"
    static let completed = "Milk"
    static let renamed = (title: "Bread", newTitle: "Sourdough bread")
    static let deleted = "Eggs"
    static let deletedList = "Errands"

    func run() throws {
        let container = try Reminders.openContainer(at: storeURL)
        let book = ReminderBook(context: ModelContext(container))
        try checkNamesAreFree(in: book)
        say("Reminders demo. Store: \(storeURL.path)")

        console.writeStep(1, "Add two lists the article's way: a MyList inserted into the context, then myList.save()")
        for (name, _) in Self.lists {
            say("   " + Report.addedList(try book.addList(name)))
        }

        console.writeStep(2, "Add reminders with reminder.save(): Reminder's own save() checks the title before saving")
        for (name, titles) in Self.lists {
            for title in titles {
                say("   " + Report.added(try book.add(title, to: name), to: name))
            }
        }

        console.writeStep(3, "Add a reminder with a blank title: Reminder's save() refuses it, and nothing is saved")
        do {
            try book.add("  ", to: Self.kept)
            say("   The blank title was saved: Reminder's save() did not run.")
        } catch let error as RemindersError where error.code == .invalidName {
            say("   Refused: \(error.message)")
        }
        let stored = try ModelContext(container).fetchCount(Reminder.byList(myList: try book.list(named: Self.kept)))
        say("   Nothing was saved: the store has \(Report.count(stored, "reminder")) in \"\(Self.kept)\", and the context was rolled back (hasChanges: \(book.context.hasChanges)).")

        console.writeStep(4, "Every list in the store with MyList.all: no sort, so in the order they were added")
        Report.lists(try book.lists(), indent: "   ").forEach(say)

        console.writeStep(5, "The reminders of \"\(Self.kept)\" with Reminder.byList(myList:): one query, in the order they were added")
        Report.reminders(try book.reminders(in: try book.list(named: Self.kept)), indent: "   ").forEach(say)

        console.writeStep(6, "Change reminders, then save() them, as the article's ReminderDetailView does")
        let completion = try book.complete(Self.completed, in: Self.kept)
        say("   " + Report.completed(completion.reminder, in: Self.kept, wasCompleted: completion.wasCompleted))
        let renamed = try book.rename(Self.renamed.title, in: Self.kept, to: Self.renamed.newTitle)
        say("   " + Report.renamed(Self.renamed.title, to: renamed, in: Self.kept))

        console.writeStep(7, "Delete a reminder with reminder.delete()")
        try book.delete(Self.deleted, from: Self.kept)
        say("   " + Report.deleted(Self.deleted, from: Self.kept))

        console.writeStep(8, "Delete the list \"\(Self.deletedList)\" with myList.delete(): its reminders go with it (cascade)")
        say("   " + Report.deletedList(Self.deletedList, reminders: try book.deleteList(Self.deletedList)))

        console.writeStep(9, "Open the store file again in a new ModelContainer: what was saved is on disk")
        let reopened = ReminderBook(context: ModelContext(try Reminders.openContainer(at: storeURL)))
        say("   Lists:")
        Report.lists(try reopened.lists(), indent: "     ").forEach(say)
        say("   \"\(Self.kept)\":")
        Report.reminders(try reopened.reminders(in: try reopened.list(named: Self.kept)), indent: "     ").forEach(say)
        let orphans = try reopened.context.fetchCount(FetchDescriptor<Reminder>(predicate: #Predicate { $0.list == nil }))
        say("   Reminders in no list (what deleting \"\(Self.deletedList)\" would leave without the cascade): \(orphans).")

        console.writeStep(10, "Clean up: delete \"\(Self.kept)\" with myList.delete(), leaving the store as the demo found it")
        say("   " + Report.deletedList(Self.kept, reminders: try reopened.deleteList(Self.kept)))

        say("")
        say("Done. Your turn: reminders add-list Groceries, then reminders add Groceries Milk and reminders lists. Run reminders help for more.")
    }

    /// Every list name the demo uses.
    private var demoNames: Set<String> {
        Set(Self.lists.map(\.name))
    }

    /// Refuses to run on a store where the demo's list names are taken, so it never touches the user's
    /// lists.
    private func checkNamesAreFree(in book: ReminderBook) throws {
        let taken = try book.lists().map(\.name).filter(demoNames.contains)
        guard taken.isEmpty else {
            throw RemindersError(
                .duplicateList,
                "the demo creates its own lists, but the store at \(storeURL.path) already has \(taken.map { "\"\($0)\"" }.joined(separator: ", ")). Run the demo on another store: reminders demo --store /tmp/reminders-demo.store")
        }
    }

    private func say(_ line: String) { console.write(line) }
}
