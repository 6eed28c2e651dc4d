import Testing
@testable import RemindersKit

@Suite struct InvocationTests {
    @Test func parsesEveryCommand() throws {
        #expect(try Invocation(parsing: ["lists"]) == Invocation(command: .lists))
        #expect(try Invocation(parsing: ["add-list", "Groceries"]) == Invocation(command: .addList(name: "Groceries")))
        #expect(try Invocation(parsing: ["add", "Groceries", "Oat milk"]) == Invocation(command: .add(list: "Groceries", title: "Oat milk")))
        #expect(try Invocation(parsing: ["show", "Groceries"]) == Invocation(command: .show(list: "Groceries")))
        #expect(try Invocation(parsing: ["complete", "Groceries", "Milk"]) == Invocation(command: .complete(list: "Groceries", title: "Milk")))
        #expect(try Invocation(parsing: ["rename", "Groceries", "Bread", "Rye"]) == Invocation(command: .rename(list: "Groceries", title: "Bread", newTitle: "Rye")))
        #expect(try Invocation(parsing: ["delete", "Groceries", "Milk"]) == Invocation(command: .delete(list: "Groceries", title: "Milk")))
        #expect(try Invocation(parsing: ["delete-list", "Groceries"]) == Invocation(command: .deleteList(name: "Groceries")))
        #expect(try Invocation(parsing: ["demo"]) == Invocation(command: .demo))
    }

    @Test(arguments: [[], ["help"], ["-h"], ["--help"], ["lists", "--help"]])
    func asksForHelp(arguments: [String]) throws {
        #expect(try Invocation(parsing: arguments) == Invocation(command: .help))
    }

    @Test func storeOptionGoesAnywhere() throws {
        let expected = Invocation(storePath: "/tmp/r.store", command: .lists)
        #expect(try Invocation(parsing: ["--store", "/tmp/r.store", "lists"]) == expected)
        #expect(try Invocation(parsing: ["lists", "--store", "/tmp/r.store"]) == expected)
        #expect(try Invocation(parsing: ["--store=/tmp/r.store", "lists"]) == expected)
    }

    @Test func doubleDashEndsTheOptions() throws {
        #expect(try Invocation(parsing: ["add", "--", "Groceries", "-1 eggs"]) == Invocation(command: .add(list: "Groceries", title: "-1 eggs")))
    }

    @Test(arguments: [
        (["frobnicate"], "unknown command \"frobnicate\". Run \"reminders help\" for the commands."),
        (["lists", "all"], "lists takes no arguments, got 1. Usage: reminders lists"),
        (["add-list"], "add-list takes 1 argument, got 0. Usage: reminders add-list <name>"),
        (["add-list", "Weekend", "chores"], "add-list takes 1 argument, got 2. Usage: reminders add-list <name>"),
        (["add", "Groceries"], "add takes 2 arguments, got 1. Usage: reminders add <list> <title>"),
        (["add", "Groceries", "Oat", "milk"], "add takes 2 arguments, got 3. Usage: reminders add <list> <title>"),
        (["show"], "show takes 1 argument, got 0. Usage: reminders show <list>"),
        (["complete", "Groceries"], "complete takes 2 arguments, got 1. Usage: reminders complete <list> <title>"),
        (["rename", "Groceries", "Bread"], "rename takes 3 arguments, got 2. Usage: reminders rename <list> <title> <new title>"),
        (["delete", "Groceries"], "delete takes 2 arguments, got 1. Usage: reminders delete <list> <title>"),
        (["delete-list"], "delete-list takes 1 argument, got 0. Usage: reminders delete-list <name>"),
        (["demo", "now"], "demo takes no arguments, got 1. Usage: reminders demo"),
        (["--store"], "--store needs a file path: reminders --store PATH <command>."),
        (["--store=", "lists"], "--store needs a file path: reminders --store PATH <command>."),
        (["--verbose", "lists"], "unknown option --verbose. Run \"reminders help\" for the options."),
    ])
    func rejectsMalformedCommandLines(arguments: [String], message: String) {
        #expect(throws: RemindersError(.usage, message)) { try Invocation(parsing: arguments) }
    }
}
