import Testing
@testable import UsersKit

@Suite struct InvocationTests {
    @Test func parsesEveryCommand() throws {
        #expect(try Invocation(parsing: ["import", "users.json"]) == Invocation(command: .importFile(path: "users.json")))
        #expect(try Invocation(parsing: ["list"]) == Invocation(command: .list))
        #expect(try Invocation(parsing: ["export"]) == Invocation(command: .export))
        #expect(try Invocation(parsing: ["demo"]) == Invocation(command: .demo))
    }

    @Test(arguments: [[], ["help"], ["-h"], ["--help"], ["list", "--help"]])
    func asksForHelp(arguments: [String]) throws {
        #expect(try Invocation(parsing: arguments) == Invocation(command: .help))
    }

    @Test func storeOptionGoesAnywhere() throws {
        let expected = Invocation(storePath: "/tmp/u.store", command: .importFile(path: "a.json"))
        #expect(try Invocation(parsing: ["--store", "/tmp/u.store", "import", "a.json"]) == expected)
        #expect(try Invocation(parsing: ["import", "a.json", "--store", "/tmp/u.store"]) == expected)
        #expect(try Invocation(parsing: ["--store=/tmp/u.store", "import", "a.json"]) == expected)
    }

    @Test func doubleDashEndsTheOptions() throws {
        #expect(try Invocation(parsing: ["import", "--", "-odd-.json"]) == Invocation(command: .importFile(path: "-odd-.json")))
    }

    @Test(arguments: [
        (["frobnicate"], "unknown command \"frobnicate\". Run \"users help\" for the commands."),
        (["import"], "import takes 1 argument, got 0. Usage: users import <file.json>"),
        (["import", "a.json", "b.json"], "import takes 1 argument, got 2. Usage: users import <file.json>"),
        (["list", "all"], "list takes no arguments, got 1. Usage: users list"),
        (["export", "out.json"], "export takes no arguments, got 1. Usage: users export"),
        (["demo", "now"], "demo takes no arguments, got 1. Usage: users demo"),
        (["--store"], "--store needs a file path: users --store PATH <command>."),
        (["--verbose", "list"], "unknown option --verbose. Run \"users help\" for the options."),
    ])
    func rejectsMalformedCommandLines(arguments: [String], message: String) {
        #expect(throws: UsersError(.usage, message)) { try Invocation(parsing: arguments) }
    }
}
