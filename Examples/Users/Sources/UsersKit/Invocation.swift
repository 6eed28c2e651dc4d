import ExampleSupport

/// What the user asked for on the command line: a command and, optionally, a store file.
struct Invocation: Equatable {
    /// A Users command with its arguments.
    enum Command: Equatable {
        case importFile(path: String)
        case list
        case export
        case demo
        case help
    }

    /// The store file given with `--store`, or `nil` for `./users.store`.
    var storePath: String?
    var command: Command

    static let usage = """
        Users: users from an API's JSON, kept in an embedded SQLite store, with Stowage. The JSON's
        Codable User and the stored UserModel are separate models that convert to each other.

        Usage: users [--store PATH] <command> [arguments]

        Commands:
          import <file.json>  Import a JSON array of users in one save: a user whose username is
                              stored already is updated, the others are inserted. A file with a
                              mistake anywhere is refused whole
          list                Show every user: username, role and avatar
          export              Print every user as a JSON array, the format import reads
          demo                Walk through an import, an update, a refused file and a reopened store
          help                Show this help

        Options:
          --store PATH        The store file (default: ./users.store)

        A user: {"username": "ada", "role": "Admin", "avatar": "https://example.com/ada.png"}
        Only username is required. Roles: Admin, Owner, User; any other is stored as Unknown.
        Copy a store: users export > users.json, then users --store copy.store import users.json
        STOWAGE_SQL_DEBUG=1 logs every SQL statement; 2 adds the bound values.
        Exit status: 0 on success, 1 when an operation fails, 64 for a usage error.
        """
}

extension Invocation {
    /// Parses the arguments that follow the program name, as ``CommandLineArguments`` describes.
    ///
    /// - Throws: ``UsersError`` `.usage` for an unknown command or option or a wrong number of
    ///   arguments.
    init(parsing arguments: [String]) throws {
        let line = try CommandLineArguments<UsersErrorCode>(parsing: arguments, program: "users")
        storePath = line.storePath
        command = try Self.command(line)
    }

    private static func command(_ line: CommandLineArguments<UsersErrorCode>) throws -> Command {
        let arguments = line.arguments
        switch line.command {
        case nil:
            return .help
        case "import":
            try line.expect(1, "import <file.json>")
            return .importFile(path: arguments[0])
        case "list":
            try line.expect(0, "list")
            return .list
        case "export":
            try line.expect(0, "export")
            return .export
        case "demo":
            try line.expect(0, "demo")
            return .demo
        default:
            throw line.unknownCommand
        }
    }
}
