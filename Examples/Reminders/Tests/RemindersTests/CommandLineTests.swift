import Foundation
import Stowage
import Testing
@testable import RemindersKit

/// The program as a user runs it: one `Reminders.run` per command line, each opening the store file in
/// a new container, like separate launches.
@Suite struct CommandLineTests {
    @Test func everyCommandAcrossRuns() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("reminders.store")

        let lists = [
            reminders("--store", store, "add-list", "Groceries"),
            reminders("--store", store, "add-list", "Weekend chores"),
        ]
        #expect(lists.map(\.status) == [0, 0])
        #expect(lists.map(\.transcript.output) == [["Added the list \"Groceries\"."], ["Added the list \"Weekend chores\"."]])

        let added = [
            reminders("--store", store, "add", "Groceries", "Milk"),
            reminders("--store", store, "add", "Groceries", "Bread"),
            reminders("--store", store, "add", "Groceries", "Apples"),
            reminders("--store", store, "add", "Weekend chores", "Mow the lawn"),
        ]
        #expect(added.map(\.status) == [0, 0, 0, 0])
        #expect(added.map(\.transcript.output) == [
            ["Added \"Milk\" to \"Groceries\"."],
            ["Added \"Bread\" to \"Groceries\"."],
            ["Added \"Apples\" to \"Groceries\"."],
            ["Added \"Mow the lawn\" to \"Weekend chores\"."],
        ])

        let complete = reminders("--store", store, "complete", "Groceries", "Bread")
        #expect(complete.status == 0)
        #expect(complete.transcript.output == ["Completed \"Bread\" in \"Groceries\"."])
        let again = reminders("--store", store, "complete", "Groceries", "Bread")
        #expect(again.status == 0)
        #expect(again.transcript.output == ["\"Bread\" in \"Groceries\" was completed already."])

        let list = reminders("--store", store, "lists")
        #expect(list.status == 0)
        #expect(list.transcript.errors.isEmpty)
        #expect(list.transcript.output == [
            "2 lists:",
            "  Groceries       2 open, 1 completed",
            "  Weekend chores  1 open, 0 completed",
        ])

        let show = reminders("--store", store, "show", "Groceries")
        #expect(show.status == 0)
        #expect(show.transcript.output == ["\"Groceries\": 2 open, 1 completed", "  [ ] Milk", "  [x] Bread", "  [ ] Apples"])

        let rename = reminders("--store", store, "rename", "Groceries", "Apples", "Green apples")
        #expect(rename.status == 0)
        #expect(rename.transcript.output == ["Renamed \"Apples\" to \"Green apples\" in \"Groceries\"."])

        let delete = reminders("--store", store, "delete", "Groceries", "Milk")
        #expect(delete.status == 0)
        #expect(delete.transcript.output == ["Deleted \"Milk\" from \"Groceries\"."])
        #expect(reminders("--store", store, "show", "Groceries").transcript.output == [
            "\"Groceries\": 1 open, 1 completed", "  [x] Bread", "  [ ] Green apples",
        ])

        let deleteList = reminders("--store", store, "delete-list", "Weekend chores")
        #expect(deleteList.status == 0)
        #expect(deleteList.transcript.output == ["Deleted the list \"Weekend chores\" and its 1 reminder."])
        #expect(reminders("--store", store, "lists").transcript.output == ["1 list:", "  Groceries  1 open, 1 completed"])

        // A container of the test's own, naming the models in the other order, reads what the runs saved.
        let container = try ModelContainer(for: Reminder.self, MyList.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: store)))
        let context = ModelContext(container)
        let groceries = try #require(try context.fetch(MyList.all).first)
        #expect(groceries.name == "Groceries")
        #expect(try context.fetch(Reminder.byList(myList: groceries)).map(\.title) == ["Bread", "Green apples"])
        #expect(try context.fetch(Reminder.all).map(\.title) == ["Bread", "Green apples"])
    }

    @Test func deleteListTakesItsRemindersAcrossRuns() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("reminders.store")
        #expect(reminders("--store", store, "add-list", "Groceries").status == 0)
        #expect(reminders("--store", store, "add-list", "Errands").status == 0)
        for title in ["Milk", "Bread", "Eggs"] { #expect(reminders("--store", store, "add", "Groceries", title).status == 0) }
        #expect(reminders("--store", store, "add", "Errands", "Post the parcel").status == 0)

        #expect(reminders("--store", store, "delete-list", "Groceries").transcript.output == ["Deleted the list \"Groceries\" and its 3 reminders."])
        #expect(storeContents(store) == ["Errands: [ ] Post the parcel"])
        #expect(reminders("--store", store, "add-list", "Empty").status == 0)
        #expect(reminders("--store", store, "delete-list", "Empty").transcript.output == ["Deleted the list \"Empty\"; it had no reminders."])
    }

    @Test func emptyStoresAndListsSaySo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("reminders.store")
        #expect(reminders("--store", store, "lists").transcript.output == ["No lists yet. Add one with: reminders add-list <name>"])
        #expect(reminders("--store", store, "add-list", "Weekend chores").status == 0)
        let show = reminders("--store", store, "show", "Weekend chores")
        #expect(show.status == 0)
        #expect(show.transcript.output == ["\"Weekend chores\" has no reminders. Add one with: reminders add 'Weekend chores' <title>"])
        #expect(reminders("--store", store, "lists").transcript.output == ["1 list:", "  Weekend chores  0 open, 0 completed"])
    }

    @Test func theStoreDefaultsToTheWorkingDirectory() {
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        #expect(Reminders.storeURL(nil) == cwd.appendingPathComponent("reminders.store"))
        #expect(Reminders.storeURL("data/r.store") == cwd.appendingPathComponent("data/r.store"))
    }

    @Test func helpPrintsTheUsageAndOpensNoStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("reminders.store")
        for arguments in [["help"], [], ["--help"]] {
            let transcript = Transcript()
            #expect(Reminders.run(["--store", store] + arguments, console: transcript.console) == 0)
            #expect(transcript.output == [Invocation.usage])
            #expect(transcript.errors.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    // MARK: - Errors

    @Test func operationErrorsFailWithStatus1AndWriteNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("reminders.store")
        #expect(reminders("--store", store, "add-list", "Groceries").status == 0)
        #expect(reminders("--store", store, "add-list", "Weekend chores").status == 0)
        #expect(reminders("--store", store, "add", "Groceries", "Milk").status == 0)
        #expect(reminders("--store", store, "add", "Groceries", "Bread").status == 0)
        #expect(reminders("--store", store, "complete", "Groceries", "Bread").status == 0)
        let before = storeContents(store)
        #expect(before == ["Groceries: [ ] Milk, [x] Bread", "Weekend chores: (no reminders)"])

        let cases: [([String], String)] = [
            (["add-list", "Groceries"], "error: there is a list named \"Groceries\" already. Run \"reminders lists\" to see the lists."),
            (["add", "Errands", "Post the parcel"], "error: no list named \"Errands\". Run \"reminders lists\" to see the lists."),
            (["add", "Groceries", "Milk"], "error: \"Groceries\" has a reminder \"Milk\" already. Run \"reminders show Groceries\" to see its reminders."),
            (["show", "Errands"], "error: no list named \"Errands\". Run \"reminders lists\" to see the lists."),
            (["complete", "Groceries", "Eggs"], "error: \"Groceries\" has no reminder \"Eggs\". Run \"reminders show Groceries\" to see its reminders."),
            (["complete", "Errands", "Milk"], "error: no list named \"Errands\". Run \"reminders lists\" to see the lists."),
            (["rename", "Groceries", "Eggs", "Duck eggs"], "error: \"Groceries\" has no reminder \"Eggs\". Run \"reminders show Groceries\" to see its reminders."),
            (["rename", "Groceries", "Milk", "Bread"], "error: \"Groceries\" has a reminder \"Bread\" already. Run \"reminders show Groceries\" to see its reminders."),
            (["delete", "Weekend chores", "Milk"], "error: \"Weekend chores\" has no reminder \"Milk\". Run \"reminders show 'Weekend chores'\" to see its reminders."),
            (["delete", "Errands", "Milk"], "error: no list named \"Errands\". Run \"reminders lists\" to see the lists."),
            (["delete-list", "Errands"], "error: no list named \"Errands\". Run \"reminders lists\" to see the lists."),
        ]
        for (arguments, message) in cases {
            let transcript = Transcript()
            #expect(Reminders.run(["--store", store] + arguments, console: transcript.console) == 1, "\(arguments)")
            #expect(transcript.output.isEmpty)
            #expect(transcript.errors == [message])
            #expect(storeContents(store) == before, "\(arguments)")
        }
    }

    @Test func blankNamesFailWithStatus64AndWriteNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("reminders.store")
        #expect(reminders("--store", store, "add-list", "Groceries").status == 0)
        #expect(reminders("--store", store, "add", "Groceries", "Milk").status == 0)
        let before = storeContents(store)

        let cases: [([String], String)] = [
            (["add-list", "  "], "error: a list needs a name that is not blank."),
            (["add", "Groceries", ""], "error: a reminder needs a title that is not blank."),
            (["add", "Groceries", " \t "], "error: a reminder needs a title that is not blank."),
            (["rename", "Groceries", "Milk", " "], "error: a reminder needs a title that is not blank."),
        ]
        for (arguments, message) in cases {
            let transcript = Transcript()
            #expect(Reminders.run(["--store", store] + arguments, console: transcript.console) == 64, "\(arguments)")
            #expect(transcript.output.isEmpty)
            #expect(transcript.errors == [message])
            #expect(storeContents(store) == before, "\(arguments)")
        }
    }

    @Test func usageErrorsFailWithStatus64AndTouchNoStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("reminders.store")

        let missing = reminders("--store", store, "add", "Groceries")
        #expect(missing.status == 64)
        #expect(missing.transcript.output.isEmpty)
        #expect(missing.transcript.errors == ["error: add takes 2 arguments, got 1. Usage: reminders add <list> <title>"])
        let unknown = reminders("--store", store, "frobnicate")
        #expect(unknown.status == 64)
        #expect(unknown.transcript.errors == ["error: unknown command \"frobnicate\". Run \"reminders help\" for the commands."])
        #expect(reminders("--store", store, "--verbose", "lists").status == 64)
        #expect(reminders("--store", store, "delete-list").status == 64)
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    @Test func aFileThatIsNotAStoreFailsWithStatus1AndIsLeftAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("notes.txt")
        let contents = Data("Groceries: milk, bread\n".utf8)
        try contents.write(to: URL(fileURLWithPath: path))

        let lists = reminders("--store", path, "lists")
        #expect(lists.status == 1)
        #expect(lists.transcript.output.isEmpty)
        #expect(lists.transcript.errors.first?.hasPrefix("error: could not open the store at \(path): ") == true)
        #expect(reminders("--store", path, "add-list", "Groceries").status == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == contents)
    }
}

/// Every list in the store with its reminders, read through a container of the test's own: one line
/// per list, `Groceries: [ ] Milk, [x] Bread`.
func storeContents(_ store: String) -> [String] {
    do {
        let container = try ModelContainer(for: MyList.self, Reminder.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: store)))
        let context = ModelContext(container)
        var lines = try context.fetch(MyList.all).map { list in
            let reminders = try context.fetch(Reminder.byList(myList: list))
            let items = reminders.map { ($0.isCompleted ? "[x] " : "[ ] ") + $0.title }
            return "\(list.name): " + (items.isEmpty ? "(no reminders)" : items.joined(separator: ", "))
        }
        let orphans = try context.fetchCount(FetchDescriptor<Reminder>(predicate: #Predicate { $0.list == nil }))
        if orphans > 0 { lines.append("\(orphans) reminders in no list") }
        return lines
    } catch {
        return ["error: \(error)"]
    }
}
