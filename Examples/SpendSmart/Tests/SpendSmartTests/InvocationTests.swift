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
        (["--store"], "--store needs a file path: spendsmart --store PATH <command>."),
        (["--store=", "list"], "--store needs a file path: spendsmart --store PATH <command>."),
        (["--verbose", "list"], "unknown option --verbose. Run \"spendsmart help\" for the options."),
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
    }
}
