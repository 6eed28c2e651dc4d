import ExampleSupport

/// What the user asked for on the command line: a command and, optionally, a store file.
struct Invocation: Equatable {
    /// A Contacts command with its arguments.
    enum Command: Equatable {
        case add(givenName: String, familyName: String?)
        case list(search: String)
        case search
        case fill(count: Int)
        case demo
        case help
    }

    /// The store file given with `--store`, or `nil` for `./contacts.store`.
    var storePath: String?
    var command: Command

    static let usage = """
        Contacts: contacts as immutable values over an embedded SQLite store, with Stowage and
        StowageQueries (Queryable values, a filter, live results).

        Usage: contacts [--store PATH] <command> [arguments]

        Commands:
          add <given name> [family name]  Add a contact
          list [text]                     Show the contacts, or those whose name contains text
          search                          Search as you type: each line you enter is the new search;
                                          the matches are shown again whenever any process changes
                                          the contacts. An empty line matches everyone; end with Ctrl-D
          fill <count>                    Add count generated contacts (to try large results)
          demo                            Walk through values, filters, live search and updates
          help                            Show this help

        Options:
          --store PATH                    The store file (default: ./contacts.store)

        STOWAGE_SQL_DEBUG=1 logs every SQL statement; 2 adds the bound values.
        Exit status: 0 on success, 1 when an operation fails, 64 for a usage error.
        """
}

extension Invocation {
    /// Parses the arguments that follow the program name, as ``CommandLineArguments`` describes.
    ///
    /// - Throws: ``ContactsError`` `.usage` for an unknown command or option or a wrong number of
    ///   arguments, `.invalidCount` for a count that is not a positive whole number.
    init(parsing arguments: [String]) throws {
        let line = try CommandLineArguments<ContactsErrorCode>(parsing: arguments, program: "contacts")
        storePath = line.storePath
        command = try Self.command(line)
    }

    private static func command(_ line: CommandLineArguments<ContactsErrorCode>) throws -> Command {
        let arguments = line.arguments
        switch line.command {
        case nil:
            return .help
        case "add":
            guard (1...2).contains(arguments.count) else {
                throw ContactsError(.usage, "add takes a given name and, optionally, a family name, got \(arguments.count) arguments. Usage: contacts add <given name> [family name]")
            }
            return .add(givenName: arguments[0], familyName: arguments.count == 2 ? arguments[1] : nil)
        case "list":
            guard arguments.count <= 1 else {
                throw ContactsError(.usage, "list takes at most one search text, got \(arguments.count) arguments. Usage: contacts list [text]")
            }
            return .list(search: arguments.first ?? "")
        case "search":
            try line.expect(0, "search")
            return .search
        case "fill":
            try line.expect(1, "fill <count>")
            guard let count = Int(arguments[0]), count > 0 else {
                throw ContactsError(.invalidCount, "fill needs a positive whole number of contacts, got \"\(arguments[0])\".")
            }
            return .fill(count: count)
        case "demo":
            try line.expect(0, "demo")
            return .demo
        default:
            throw line.unknownCommand
        }
    }
}
