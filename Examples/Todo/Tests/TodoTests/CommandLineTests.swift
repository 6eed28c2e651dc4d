import Foundation
import StowageQueries
import Testing
@testable import TodoKit

/// The program as a user runs it: one `Todo.run` per command line, each opening the store file in a new
/// container, like separate launches.
@Suite struct CommandLineTests {
    @Test func everyCommandAcrossRuns() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("todo.store")

        let runs = [
            todo("--store", store, "add-group", " Home "),
            todo("--store", store, "add-group", "Work"),
            todo("--store", store, "add", "home", "Buy", "milk"),
            todo("--store", store, "add", "Home", "Fix the tap"),
            todo("--store", store, "add", "Home", "Call the plumber"),
            todo("--store", store, "add", "Work", "Send the report"),
            todo("--store", store, "done", "HOME", "buy milk"),
            todo("--store", store, "done", "Home", "Call the plumber"),
            todo("--store", store, "rename-group", "work", "Home Office"),
        ]
        #expect(runs.map(\.status) == Array(repeating: 0, count: runs.count))
        #expect(runs.allSatisfy { $0.transcript.errors.isEmpty })
        #expect(runs.map(\.transcript.output) == [
            ["Added the group \"Home\"."],
            ["Added the group \"Work\"."],
            ["Added \"Buy milk\" to \"Home\" (1 open, 0 done)."],
            ["Added \"Fix the tap\" to \"Home\" (2 open, 0 done)."],
            ["Added \"Call the plumber\" to \"Home\" (3 open, 0 done)."],
            ["Added \"Send the report\" to \"Work\" (1 open, 0 done)."],
            ["Done: \"Buy milk\" in \"Home\" (2 open, 1 done)."],
            ["Done: \"Call the plumber\" in \"Home\" (1 open, 2 done)."],
            ["Renamed \"Work\" to \"Home Office\"."],
        ])

        let groups = todo("--store", store, "groups")
        #expect(groups.status == 0)
        #expect(groups.transcript.output == ["2 groups:", "  Home         1 open, 2 done", "  Home Office  1 open, 0 done"])

        let tasks = todo("--store", store, "tasks", "home")
        #expect(tasks.status == 0)
        #expect(tasks.transcript.output == ["\"Home\": 1 open, 2 done:", "  [ ] Fix the tap", "  [x] Buy milk", "  [x] Call the plumber"])

        let clear = todo("--store", store, "clear", "Home")
        #expect(clear.status == 0)
        #expect(clear.transcript.output == ["Cleared 2 done tasks from \"Home\" (1 open, 0 done)."])
        #expect(todo("--store", store, "clear", "Home").transcript.output == ["\"Home\" has no done task to clear."])
        #expect(todo("--store", store, "tasks", "Home").transcript.output == ["\"Home\": 1 open, 0 done:", "  [ ] Fix the tap"])

        let delete = todo("--store", store, "delete-group", "home office")
        #expect(delete.status == 0)
        #expect(delete.transcript.output == ["Deleted the group \"Home Office\" and its 1 task."])
        #expect(todo("--store", store, "groups").transcript.output == ["1 group:", "  Home  1 open, 0 done"])

        // A container of the test's own reads what the separate runs saved.
        let context = ModelContext(try Todo.openContainer(at: URL(fileURLWithPath: store)))
        #expect(try context.fetch(FetchDescriptor<GroupModel>()).map(\.title) == ["Home"])
        #expect(try context.fetch(FetchDescriptor<TaskModel>()).map(\.title) == ["Fix the tap"])
    }

    @Test func emptyStoresAndGroupsSaySo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("todo.store")
        #expect(todo("--store", store, "groups").transcript.output == ["No groups yet. Add one with: todo add-group <title>"])
        #expect(todo("--store", store, "add-group", "Home Office").status == 0)
        #expect(todo("--store", store, "tasks", "Home Office").transcript.output == ["\"Home Office\" has no tasks yet. Add one with: todo add \"Home Office\" <task>"])
        #expect(todo("--store", store, "groups").transcript.output == ["1 group:", "  Home Office  no tasks"])
        #expect(todo("--store", store, "delete-group", "Home Office").transcript.output == ["Deleted the group \"Home Office\"."])
    }

    @Test func theStoreDefaultsToTheWorkingDirectory() {
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        #expect(Todo.storeURL(nil) == cwd.appendingPathComponent("todo.store"))
        #expect(Todo.storeURL("data/t.store") == cwd.appendingPathComponent("data/t.store"))
    }

    @Test func helpPrintsTheUsageAndOpensNoStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("todo.store")
        let help = todo("--store", store, "help")
        #expect(help.status == 0)
        #expect(help.transcript.output == [Invocation.usage])
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    // MARK: - Errors

    @Test func refusedCommandsFailWithStatus1AndWriteNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("todo.store")
        #expect(todo("--store", store, "add-group", "Home").status == 0)
        #expect(todo("--store", store, "add-group", "Work").status == 0)
        #expect(todo("--store", store, "add", "Home", "Buy milk").status == 0)
        #expect(todo("--store", store, "done", "Home", "Buy milk").status == 0)
        #expect(todo("--store", store, "add", "Home", "Fix the tap").status == 0)

        let cases: [([String], String)] = [
            (["add-group", "home"], "error: there is already a group named \"Home\". Run \"todo groups\" to see the groups."),
            (["rename-group", "Work", "HOME"], "error: there is already a group named \"Home\". Run \"todo groups\" to see the groups."),
            (["rename-group", "Garden", "Yard"], "error: no group named \"Garden\". Run \"todo groups\" to see the groups."),
            (["delete-group", "Garden"], "error: no group named \"Garden\". Run \"todo groups\" to see the groups."),
            (["add", "Garden", "Mow"], "error: no group named \"Garden\". Run \"todo groups\" to see the groups."),
            (["add", "Home", "fix the TAP"], "error: \"Home\" already has an open task named \"Fix the tap\"."),
            (["done", "Home", "Buy milk"], "error: \"Buy milk\" in \"Home\" is done already."),
            (["done", "Home", "Buy eggs"], "error: no task named \"Buy eggs\" in \"Home\". See its tasks with: todo tasks Home"),
            (["done", "Garden", "Mow"], "error: no group named \"Garden\". Run \"todo groups\" to see the groups."),
            (["tasks", "Garden"], "error: no group named \"Garden\". Run \"todo groups\" to see the groups."),
            (["clear", "Garden"], "error: no group named \"Garden\". Run \"todo groups\" to see the groups."),
        ]
        for (arguments, message) in cases {
            let transcript = Transcript()
            #expect(Todo.run(["--store", store] + arguments, console: transcript.console) == 1, "\(arguments)")
            #expect(transcript.output.isEmpty)
            #expect(transcript.errors == [message])
        }
        #expect(todo("--store", store, "groups").transcript.output == ["2 groups:", "  Home  1 open, 1 done", "  Work  no tasks"])
        #expect(todo("--store", store, "tasks", "Home").transcript.output == ["\"Home\": 1 open, 1 done:", "  [ ] Fix the tap", "  [x] Buy milk"])
    }

    @Test func usageErrorsFailWithStatus64AndWriteNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("todo.store")

        let missing = todo("--store", store, "add", "Home")
        #expect(missing.status == 64)
        #expect(missing.transcript.output.isEmpty)
        #expect(missing.transcript.errors == ["error: add takes a group and a task, got 1 argument. Usage: todo add <group> <task>"])
        #expect(todo("--store", store, "frobnicate").status == 64)
        #expect(todo("--store", store, "groups", "--verbose").status == 64)
        #expect(!FileManager.default.fileExists(atPath: store))

        #expect(todo("--store", store, "add-group", "Home").status == 0)
        let cases: [([String], String)] = [
            (["add-group", "  "], "error: a group needs a title that is not blank."),
            (["rename-group", "Home", ""], "error: a group needs a title that is not blank."),
            (["add", "Home", " ", " "], "error: a task needs a title that is not blank."),
        ]
        for (arguments, message) in cases {
            let transcript = Transcript()
            #expect(Todo.run(["--store", store] + arguments, console: transcript.console) == 64, "\(arguments)")
            #expect(transcript.output.isEmpty)
            #expect(transcript.errors == [message])
        }
        #expect(todo("--store", store, "groups").transcript.output == ["1 group:", "  Home  no tasks"])
    }

    @Test func aFileThatIsNotAStoreFailsWithStatus1AndIsLeftAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("notes.txt")
        let contents = Data("Home: buy milk\n".utf8)
        try contents.write(to: URL(fileURLWithPath: path))

        for command in [["groups"], ["add-group", "Home"], ["demo"]] {
            let run = Transcript()
            #expect(Todo.run(["--store", path] + command, console: run.console) == 1)
            #expect(run.output.isEmpty)
            #expect(run.errors.first?.hasPrefix("error: could not open the store at \(path): ") == true)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == contents)
    }
}
