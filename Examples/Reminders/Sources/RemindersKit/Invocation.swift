import ExampleSupport

/// What the user asked for on the command line: a command and, optionally, a store file.
struct Invocation: Equatable {
    /// A Reminders command with its arguments.
    enum Command: Equatable {
        case lists
        case addList(name: String)
        case add(list: String, title: String)
        case show(list: String)
        case complete(list: String, title: String)
        case rename(list: String, title: String, newTitle: String)
        case delete(list: String, title: String)
        case deleteList(name: String)
        case demo
        case help
    }

    /// The store file given with `--store`, or `nil` for `./reminders.store`.
    var storePath: String?
    var command: Command

    static let usage = """
        Reminders: lists of reminders kept in an embedded SQLite store, with Stowage and the Active
        Record pattern (each model saves and deletes itself).

        Usage: reminders [--store PATH] <command> [arguments]

        Commands:
          lists                              Show every list with its open and completed reminders
          add-list <name>                    Add a list
          add <list> <title>                 Add a reminder to a list
          show <list>                        Show a list's reminders, in the order they were added
          complete <list> <title>            Mark a reminder as completed
          rename <list> <title> <new title>  Change a reminder's title
          delete <list> <title>              Delete a reminder
          delete-list <name>                 Delete a list and its reminders
          demo                               Walk through the Active Record pattern step by step
          help                               Show this help

        Options:
          --store PATH                       The store file (default: ./reminders.store)

        Quote names with spaces: reminders add Groceries "Oat milk"
        STOWAGE_SQL_DEBUG=1 logs every SQL statement; 2 adds the bound values.
        Exit status: 0 on success, 1 when an operation fails, 64 for a usage error.
        """
}

extension Invocation {
    /// Parses the arguments that follow the program name, as ``CommandLineArguments`` describes.
    ///
    /// - Throws: ``RemindersError`` `.usage` for an unknown command or option or a wrong number of
    ///   arguments.
    init(parsing arguments: [String]) throws {
        let line = try CommandLineArguments<RemindersErrorCode>(parsing: arguments, program: "reminders")
        storePath = line.storePath
        command = try Self.command(line)
    }

    private static func command(_ line: CommandLineArguments<RemindersErrorCode>) throws -> Command {
        let arguments = line.arguments
        switch line.command {
        case nil:
            return .help
        case "lists":
            try line.expect(0, "lists")
            return .lists
        case "add-list":
            try line.expect(1, "add-list <name>")
            return .addList(name: arguments[0])
        case "add":
            try line.expect(2, "add <list> <title>")
            return .add(list: arguments[0], title: arguments[1])
        case "show":
            try line.expect(1, "show <list>")
            return .show(list: arguments[0])
        case "complete":
            try line.expect(2, "complete <list> <title>")
            return .complete(list: arguments[0], title: arguments[1])
        case "rename":
            try line.expect(3, "rename <list> <title> <new title>")
            return .rename(list: arguments[0], title: arguments[1], newTitle: arguments[2])
        case "delete":
            try line.expect(2, "delete <list> <title>")
            return .delete(list: arguments[0], title: arguments[1])
        case "delete-list":
            try line.expect(1, "delete-list <name>")
            return .deleteList(name: arguments[0])
        case "demo":
            try line.expect(0, "demo")
            return .demo
        default:
            throw line.unknownCommand
        }
    }
}
