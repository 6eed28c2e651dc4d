import Testing
@testable import SpendSmartKit

@Suite struct InvocationTests {
    @Test func parsesEveryCommand() throws {
        #expect(try Invocation(parsing: ["add", "Groceries", "500"]) == Invocation(command: .add(name: "Groceries", limit: 500)))
        #expect(try Invocation(parsing: ["add", "Summer Trip", "1250.50"]) == Invocation(command: .add(name: "Summer Trip", limit: 1250.5)))
        #expect(try Invocation(parsing: ["list"]) == Invocation(command: .list))
        #expect(try Invocation(parsing: ["over", "100"]) == Invocation(command: .over(100)))
        #expect(try Invocation(parsing: ["over", "-20"]) == Invocation(command: .over(-20)))
        #expect(try Invocation(parsing: ["rename", "Vacation", "Summer Trip"]) == Invocation(command: .rename(from: "Vacation", to: "Summer Trip")))
        #expect(try Invocation(parsing: ["delete", "Books"]) == Invocation(command: .delete(name: "Books")))
        #expect(try Invocation(parsing: ["demo"]) == Invocation(command: .demo))
        #expect(try Invocation(parsing: ["spend", "Groceries", "4.50", "Milk"]) == Invocation(command: .spend(budget: "Groceries", amount: 4.5, note: "Milk")))
        #expect(try Invocation(parsing: ["show", "Summer Trip"]) == Invocation(command: .show(budget: "Summer Trip")))
        #expect(try Invocation(parsing: ["watch"]) == Invocation(command: .watch(updates: nil)))
    }

    @Test func updatesOptionOfWatchGoesAnywhere() throws {
        let expected = Invocation(storePath: "/tmp/b.store", command: .watch(updates: 2))
        #expect(try Invocation(parsing: ["watch", "--updates", "2", "--store", "/tmp/b.store"]) == expected)
        #expect(try Invocation(parsing: ["--updates=2", "--store", "/tmp/b.store", "watch"]) == expected)
        #expect(try Invocation(parsing: ["--store", "/tmp/b.store", "--updates", "2", "watch"]) == expected)
        #expect(try Invocation(parsing: ["watch", "--updates", "0"]) == Invocation(command: .watch(updates: 0)))
        #expect(try Invocation(parsing: ["--updates", "2", "help"]) == Invocation(command: .help))
        #expect(try Invocation(parsing: ["add", "--", "--updates", "5"]) == Invocation(command: .add(name: "--updates", limit: 5)))
    }

    @Test func theNoteOfSpendMayBeSeveralWords() throws {
        let expected = Invocation(command: .spend(budget: "Summer Trip", amount: 180, note: "Train tickets"))
        #expect(try Invocation(parsing: ["spend", "Summer Trip", "180", "Train", "tickets"]) == expected)
        #expect(try Invocation(parsing: ["spend", "Summer Trip", "180", "Train tickets"]) == expected)
    }

    @Test(arguments: [[], ["help"], ["-h"], ["--help"], ["list", "--help"]])
    func asksForHelp(arguments: [String]) throws {
        #expect(try Invocation(parsing: arguments) == Invocation(command: .help))
    }

    @Test func storeOptionGoesAnywhere() throws {
        let expected = Invocation(storePath: "/tmp/b.store", command: .list)
        #expect(try Invocation(parsing: ["--store", "/tmp/b.store", "list"]) == expected)
        #expect(try Invocation(parsing: ["list", "--store", "/tmp/b.store"]) == expected)
        #expect(try Invocation(parsing: ["--store=/tmp/b.store", "list"]) == expected)
    }

    @Test func doubleDashEndsTheOptions() throws {
        #expect(try Invocation(parsing: ["add", "--", "--odd--", "5"]) == Invocation(command: .add(name: "--odd--", limit: 5)))
    }

    @Test(arguments: [
        (["frobnicate"], "unknown command \"frobnicate\". Run \"spendsmart help\" for the commands."),
        (["add", "Books"], "add takes 2 arguments, got 1. Usage: spendsmart add <name> <limit>"),
        (["list", "all"], "list takes no arguments, got 1. Usage: spendsmart list"),
        (["over"], "over takes 1 argument, got 0. Usage: spendsmart over <amount>"),
        (["delete", "a", "b"], "delete takes 1 argument, got 2. Usage: spendsmart delete <name>"),
        (["rename", "a"], "rename takes 2 arguments, got 1. Usage: spendsmart rename <old> <new>"),
        (["spend", "Groceries", "5"], "spend takes a budget, an amount and a note, got 2 arguments. Usage: spendsmart spend <budget> <amount> <note>"),
        (["spend"], "spend takes a budget, an amount and a note, got 0 arguments. Usage: spendsmart spend <budget> <amount> <note>"),
        (["show"], "show takes 1 argument, got 0. Usage: spendsmart show <budget>"),
        (["show", "a", "b"], "show takes 1 argument, got 2. Usage: spendsmart show <budget>"),
        (["--store"], "--store needs a file path: spendsmart --store PATH <command>."),
        (["--store=", "list"], "--store needs a file path: spendsmart --store PATH <command>."),
        (["--verbose", "list"], "unknown option --verbose. Run \"spendsmart help\" for the options."),
        (["watch", "now"], "watch takes no arguments, got 1. Usage: spendsmart watch [--updates N]"),
        (["watch", "--updates"], "--updates needs a whole number of updates, like 3: spendsmart watch --updates N."),
        (["watch", "--updates", "-1"], "--updates needs a whole number of updates, like 3: spendsmart watch --updates N."),
        (["watch", "--updates=", "2"], "--updates needs a whole number of updates, like 3: spendsmart watch --updates N."),
        (["watch", "--updates", "+2"], "--updates needs a whole number of updates, like 3: spendsmart watch --updates N."),
        (["list", "--updates", "2"], "--updates is an option of watch: spendsmart watch --updates N."),
    ])
    func rejectsMalformedCommandLines(arguments: [String], message: String) {
        #expect(throws: SpendSmartError(.usage, message)) { try Invocation(parsing: arguments) }
    }

    @Test(arguments: ["abc", "", "5O0", "1e3", "inf", "nan", "0x10", "1,000", "$5", "."])
    func rejectsAmountsThatAreNotPlainNumbers(text: String) {
        #expect(throws: SpendSmartError(.invalidAmount, "\"\(text)\" is not a valid limit: write a number such as 500 or 1250.50.")) {
            try Invocation(parsing: ["add", "Books", text])
        }
        #expect(throws: SpendSmartError(.invalidAmount, "\"\(text)\" is not a valid amount: write a number such as 500 or 1250.50.")) {
            try Invocation(parsing: ["over", text])
        }
        #expect(throws: SpendSmartError(.invalidAmount, "\"\(text)\" is not a valid amount: write a number such as 500 or 1250.50.")) {
            try Invocation(parsing: ["spend", "Books", text, "Atlas"])
        }
    }
}
