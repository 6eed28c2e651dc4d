import ExampleSupport

/// What the user asked for on the command line: a command and, optionally, a store file.
struct Invocation: Equatable {
    /// A SpendSmart command with its arguments.
    enum Command: Equatable {
        case add(name: String, limit: Double)
        case list
        case over(Double)
        case rename(from: String, to: String)
        case delete(name: String)
        case spend(budget: String, amount: Double, note: String)
        case show(budget: String)
        case demo
        case help
    }

    /// The store file given with `--store`, or `nil` for `./spendsmart.store`.
    var storePath: String?
    var command: Command

    static let usage = """
        SpendSmart: budgets kept in an embedded SQLite store, with Stowage.

        Usage: spendsmart [--store PATH] <command> [arguments]

        Commands:
          add <name> <limit>              Create a budget (limit: a positive number, like 500 or 1250.50)
          list                            Show every budget with what is spent of its limit
          over <amount>                   Show the budgets whose limit is over <amount>
          rename <old> <new>              Rename a budget
          spend <budget> <amount> <note>  Add a transaction to a budget (the note may be several words)
          show <budget>                   Show a budget's transactions, its total and what is left
          delete <name>                   Delete a budget and its transactions
          demo                            Walk through budgets, transactions, totals and deletion
          help                            Show this help

        Options:
          --store PATH                    The store file (default: ./spendsmart.store)

        Quote names with spaces: spendsmart add "Summer Trip" 2000
        Then: spendsmart spend "Summer Trip" 180 Train tickets
        STOWAGE_SQL_DEBUG=1 logs every SQL statement; 2 adds the bound values.
        Exit status: 0 on success, 1 when an operation fails, 64 for a usage error.
        """
}

extension Invocation {
    /// Parses the arguments that follow the program name, as ``CommandLineArguments`` describes. A
    /// negative amount, like `-20`, is an argument, not an option.
    ///
    /// - Throws: ``SpendSmartError`` `.usage` for an unknown command or option or a wrong number of
    ///   arguments, `.invalidAmount` for an amount that is not a number.
    init(parsing arguments: [String]) throws {
        let line = try CommandLineArguments<SpendSmartErrorCode>(parsing: arguments, program: "spendsmart") {
            Amount.parse($0) != nil
        }
        storePath = line.storePath
        command = try Self.command(line)
    }

    private static func command(_ line: CommandLineArguments<SpendSmartErrorCode>) throws -> Command {
        let arguments = line.arguments
        switch line.command {
        case nil:
            return .help
        case "add":
            try line.expect(2, "add <name> <limit>")
            return .add(name: arguments[0], limit: try amount(arguments[1], "limit"))
        case "list":
            try line.expect(0, "list")
            return .list
        case "over":
            try line.expect(1, "over <amount>")
            return .over(try amount(arguments[0], "amount"))
        case "rename":
            try line.expect(2, "rename <old> <new>")
            return .rename(from: arguments[0], to: arguments[1])
        case "delete":
            try line.expect(1, "delete <name>")
            return .delete(name: arguments[0])
        case "spend":
            try line.expect(atLeast: 3, "a budget, an amount and a note", "spend <budget> <amount> <note>")
            return .spend(budget: arguments[0], amount: try amount(arguments[1], "amount"), note: arguments[2...].joined(separator: " "))
        case "show":
            try line.expect(1, "show <budget>")
            return .show(budget: arguments[0])
        case "demo":
            try line.expect(0, "demo")
            return .demo
        default:
            throw line.unknownCommand
        }
    }

    private static func amount(_ text: String, _ role: String) throws -> Double {
        guard let value = Amount.parse(text) else {
            throw SpendSmartError(.invalidAmount, "\"\(text)\" is not a valid \(role): write a number such as 500 or 1250.50.")
        }
        return value
    }
}
