import ExampleSupport

/// What the user asked for on the command line: a command and, optionally, a store file.
struct Invocation: Equatable {
    /// A Todo command with its arguments.
    enum Command: Equatable {
        case groups
        case addGroup(title: String)
        case renameGroup(title: String, newTitle: String)
        case deleteGroup(title: String)
        case add(group: String, task: String)
        case done(group: String, task: String)
        case tasks(group: String)
        case clear(group: String)
        case demo
        case help
    }

    /// The store file given with `--store`, or `nil` for `./todo.store`.
    var storePath: String?
    var command: Command

    static let usage = """
        Todo: tasks in groups, kept in an embedded SQLite store with Stowage. The app logic never names a
        model: the demo runs it on mock data too, with no database, and compares.

        Usage: todo [--store PATH] <command> [arguments]

        Commands:
          groups                          Show every group with its open and done tasks
          add-group <title>               Add a group
          rename-group <title> <new>      Give a group another title
          delete-group <title>            Delete a group and its tasks
          add <group> <task>              Add a task at the end of a group
          done <group> <task>             Mark a task done
          tasks <group>                   Show a group's tasks, open ones first
          clear <group>                   Delete a group's done tasks
          demo                            Run one session on mocks and on the store, and compare
          help                            Show this help

        Options:
          --store PATH                    The store file (default: ./todo.store)

        Titles are found without regard to case: todo add home "Buy milk" adds to "Home".
        A task's words need no quotes: todo add Home Buy milk
        STOWAGE_SQL_DEBUG=1 logs every SQL statement; 2 adds the bound values.
        Exit status: 0 on success, 1 when an operation fails, 64 for a usage error.
        """
}

extension Invocation {
    /// Parses the arguments that follow the program name, as ``CommandLineArguments`` describes.
    ///
    /// - Throws: ``TodoError`` `.usage` for an unknown command or option or a wrong number of arguments.
    init(parsing arguments: [String]) throws {
        let line = try CommandLineArguments<TodoErrorCode>(parsing: arguments, program: "todo")
        storePath = line.storePath
        command = try Self.command(line)
    }

    private static func command(_ line: CommandLineArguments<TodoErrorCode>) throws -> Command {
        let arguments = line.arguments
        /// The words after the group, as one task title.
        var task: String { arguments.dropFirst().joined(separator: " ") }
        switch line.command {
        case nil:
            return .help
        case "groups":
            try line.expect(0, "groups")
            return .groups
        case "add-group":
            try line.expect(1, "add-group <title>")
            return .addGroup(title: arguments[0])
        case "rename-group":
            try line.expect(2, "rename-group <title> <new title>")
            return .renameGroup(title: arguments[0], newTitle: arguments[1])
        case "delete-group":
            try line.expect(1, "delete-group <title>")
            return .deleteGroup(title: arguments[0])
        case "add":
            try line.expect(atLeast: 2, "a group and a task", "add <group> <task>")
            return .add(group: arguments[0], task: task)
        case "done":
            try line.expect(atLeast: 2, "a group and a task", "done <group> <task>")
            return .done(group: arguments[0], task: task)
        case "tasks":
            try line.expect(1, "tasks <group>")
            return .tasks(group: arguments[0])
        case "clear":
            try line.expect(1, "clear <group>")
            return .clear(group: arguments[0])
        case "demo":
            try line.expect(0, "demo")
            return .demo
        default:
            throw line.unknownCommand
        }
    }
}
