import ExampleSupport
import Testing

@Suite struct CommandLineArgumentsTests {
    private func parse(_ arguments: [String], isArgument: (String) -> Bool = { _ in false }) throws -> Arguments {
        try Arguments(parsing: arguments, program: "app", isArgument: isArgument)
    }

    @Test func splitsTheCommandFromItsArguments() throws {
        let line = try parse(["add", "Tea", "3"])
        #expect(line.command == "add")
        #expect(line.arguments == ["Tea", "3"])
        #expect(line.storePath == nil)
        #expect(line.program == "app")
    }

    @Test(arguments: [[], ["help"], ["help", "add"], ["-h"], ["--help"], ["list", "--help"], ["--store", "a.store"]])
    func asksForHelp(arguments: [String]) throws {
        let line = try parse(arguments)
        #expect(line.command == nil)
        #expect(line.arguments.isEmpty)
    }

    @Test func storeOptionGoesAnywhere() throws {
        for arguments in [["--store", "/tmp/a.store", "list", "x"], ["list", "--store", "/tmp/a.store", "x"], ["list", "x", "--store=/tmp/a.store"]] {
            let line = try parse(arguments)
            #expect(line.storePath == "/tmp/a.store")
            #expect(line.command == "list")
            #expect(line.arguments == ["x"])
        }
        #expect(try parse(["--store", "a", "--store", "b", "list"]).storePath == "b")
    }

    @Test func doubleDashEndsTheOptions() throws {
        let line = try parse(["--", "add", "--store", "-h", "--"])
        #expect(line.command == "add")
        #expect(line.arguments == ["--store", "-h", "--"])
        #expect(line.storePath == nil)
    }

    @Test func aLoneDashIsAnArgument() throws {
        #expect(try parse(["add", "-"]).arguments == ["-"])
    }

    @Test func dashedArgumentsAreOptionsUnlessTheExampleSaysOtherwise() throws {
        #expect(throws: TestError(.usage, "unknown option -5. Run \"app help\" for the options.")) { try parse(["over", "-5"]) }
        let line = try parse(["over", "-5"]) { Int($0) != nil }
        #expect(line.arguments == ["-5"])
        #expect(throws: TestError(.usage, "unknown option -x. Run \"app help\" for the options.")) {
            try parse(["over", "-x"]) { Int($0) != nil }
        }
    }

    @Test(arguments: [
        (["--store"], "--store needs a file path: app --store PATH <command>."),
        (["list", "--store", ""], "--store needs a file path: app --store PATH <command>."),
        (["--store=", "list"], "--store needs a file path: app --store PATH <command>."),
        (["--verbose", "list"], "unknown option --verbose. Run \"app help\" for the options."),
    ])
    func rejectsMalformedOptions(arguments: [String], message: String) {
        #expect(throws: TestError(.usage, message)) { try parse(arguments) }
    }

    @Test func expectsAnExactNumberOfArguments() throws {
        try parse(["list"]).expect(0, "list")
        try parse(["show", "a"]).expect(1, "show <name>")
        #expect(throws: TestError(.usage, "list takes no arguments, got 1. Usage: app list")) {
            try parse(["list", "all"]).expect(0, "list")
        }
        #expect(throws: TestError(.usage, "show takes 1 argument, got 0. Usage: app show <name>")) {
            try parse(["show"]).expect(1, "show <name>")
        }
        #expect(throws: TestError(.usage, "move takes 2 arguments, got 3. Usage: app move <from> <to>")) {
            try parse(["move", "a", "b", "c"]).expect(2, "move <from> <to>")
        }
    }

    @Test func expectsAtLeastSomeArguments() throws {
        try parse(["note", "a", "b", "c"]).expect(atLeast: 2, "a title and some words", "note <title> <words>")
        #expect(throws: TestError(.usage, "note takes a title and some words, got 1 argument. Usage: app note <title> <words>")) {
            try parse(["note", "a"]).expect(atLeast: 2, "a title and some words", "note <title> <words>")
        }
        #expect(throws: TestError(.usage, "note takes a title and some words, got 0 arguments. Usage: app note <title> <words>")) {
            try parse(["note"]).expect(atLeast: 2, "a title and some words", "note <title> <words>")
        }
    }

    @Test func namesAnUnknownCommand() throws {
        #expect(try parse(["frobnicate", "x"]).unknownCommand == TestError(.usage, "unknown command \"frobnicate\". Run \"app help\" for the commands."))
    }
}
