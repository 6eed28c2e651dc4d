import Testing
@testable import TodoKit

@Suite struct InvocationTests {
    @Test func parsesEveryCommand() throws {
        #expect(try Invocation(parsing: ["groups"]) == Invocation(command: .groups))
        #expect(try Invocation(parsing: ["add-group", "Home Office"]) == Invocation(command: .addGroup(title: "Home Office")))
        #expect(try Invocation(parsing: ["rename-group", "Work", "Office"]) == Invocation(command: .renameGroup(title: "Work", newTitle: "Office")))
        #expect(try Invocation(parsing: ["delete-group", "Home"]) == Invocation(command: .deleteGroup(title: "Home")))
        #expect(try Invocation(parsing: ["add", "Home", "Buy milk"]) == Invocation(command: .add(group: "Home", task: "Buy milk")))
        #expect(try Invocation(parsing: ["done", "Home", "Buy milk"]) == Invocation(command: .done(group: "Home", task: "Buy milk")))
        #expect(try Invocation(parsing: ["tasks", "Home"]) == Invocation(command: .tasks(group: "Home")))
        #expect(try Invocation(parsing: ["clear", "Home"]) == Invocation(command: .clear(group: "Home")))
        #expect(try Invocation(parsing: ["demo"]) == Invocation(command: .demo))
    }

    @Test func aTasksWordsNeedNoQuotes() throws {
        #expect(try Invocation(parsing: ["add", "Home", "Buy", "oat", "milk"]) == Invocation(command: .add(group: "Home", task: "Buy oat milk")))
        #expect(try Invocation(parsing: ["done", "Home", "Buy", "oat milk"]) == Invocation(command: .done(group: "Home", task: "Buy oat milk")))
    }

    @Test(arguments: [[], ["help"], ["-h"], ["--help"], ["groups", "--help"]])
    func asksForHelp(arguments: [String]) throws {
        #expect(try Invocation(parsing: arguments) == Invocation(command: .help))
    }

    @Test func storeOptionGoesAnywhere() throws {
        let expected = Invocation(storePath: "/tmp/t.store", command: .groups)
        #expect(try Invocation(parsing: ["--store", "/tmp/t.store", "groups"]) == expected)
        #expect(try Invocation(parsing: ["groups", "--store", "/tmp/t.store"]) == expected)
        #expect(try Invocation(parsing: ["--store=/tmp/t.store", "groups"]) == expected)
    }

    @Test func doubleDashEndsTheOptions() throws {
        #expect(try Invocation(parsing: ["add", "--", "-odd-", "-1", "task"]) == Invocation(command: .add(group: "-odd-", task: "-1 task")))
    }

    @Test(arguments: [
        (["frobnicate"], "unknown command \"frobnicate\". Run \"todo help\" for the commands."),
        (["groups", "all"], "groups takes no arguments, got 1. Usage: todo groups"),
        (["add-group"], "add-group takes 1 argument, got 0. Usage: todo add-group <title>"),
        (["add-group", "Home", "Office"], "add-group takes 1 argument, got 2. Usage: todo add-group <title>"),
        (["rename-group", "Work"], "rename-group takes 2 arguments, got 1. Usage: todo rename-group <title> <new title>"),
        (["delete-group"], "delete-group takes 1 argument, got 0. Usage: todo delete-group <title>"),
        (["add", "Home"], "add takes a group and a task, got 1 argument. Usage: todo add <group> <task>"),
        (["done"], "done takes a group and a task, got 0 arguments. Usage: todo done <group> <task>"),
        (["tasks"], "tasks takes 1 argument, got 0. Usage: todo tasks <group>"),
        (["clear", "Home", "now"], "clear takes 1 argument, got 2. Usage: todo clear <group>"),
        (["demo", "again"], "demo takes no arguments, got 1. Usage: todo demo"),
        (["--store"], "--store needs a file path: todo --store PATH <command>."),
        (["--store=", "groups"], "--store needs a file path: todo --store PATH <command>."),
        (["--verbose", "groups"], "unknown option --verbose. Run \"todo help\" for the options."),
    ])
    func rejectsMalformedCommandLines(arguments: [String], message: String) {
        #expect(throws: TodoError(.usage, message)) { try Invocation(parsing: arguments) }
    }
}
