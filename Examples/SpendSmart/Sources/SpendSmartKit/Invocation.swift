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
        /// Print the totals, then again each time they change: after `updates` changes, or until the
        /// program is stopped when `nil`.
        case watch(updates: Int?)
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
          watch [--updates N]             Show every budget's spent of limit, again when it changes (Ctrl-C stops)
          demo                            Walk through budgets, transactions, totals and deletion
          help                            Show this help

        Options:
          --store PATH                    The store file (default: ./spendsmart.store)
          --updates N                     With watch: stop after N updates (default: never)

        Quote names with spaces: spendsmart add "Summer Trip" 2000
        Then: spendsmart spend "Summer Trip" 180 Train tickets
        Watch in one terminal (spendsmart watch) while you spend in another.
        STOWAGE_SQL_DEBUG=1 logs every SQL statement; 2 adds the bound values.
        Exit status: 0 on success, 1 when an operation fails, 64 for a usage error.
        """
}

extension Invocation {
    /// Parses the arguments that follow the program name, as ``CommandLineArguments`` describes. A
    /// negative amount, like `-20`, is an argument, not an option. `watch`'s `--updates N` (or
    /// `--updates=N`) may appear anywhere before `--`, like `--store`.
    ///
    /// - Throws: ``SpendSmartError`` `.usage` for an unknown command or option, a wrong number of
    ///   arguments, or `--updates` without a count or with another command than `watch`;
    ///   `.invalidAmount` for an amount that is not a number.
    init(parsing arguments: [String]) throws {
        let (arguments, updates) = try Self.takingUpdates(from: arguments)
        let line = try CommandLineArguments<SpendSmartErrorCode>(parsing: arguments, program: "spendsmart") {
            Amount.parse($0) != nil
        }
        storePath = line.storePath
        command = try Self.command(line, updates: updates)
    }

    /// The arguments without `--updates N`, and `N` (`nil` without the option).
    private static func takingUpdates(from arguments: [String]) throws -> (arguments: [String], updates: Int?) {
        var rest: [String] = []
        var updates: Int?
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            let count: String?
            if argument == "--" {
                rest.append(argument)
                rest.append(contentsOf: remaining)
                break
            } else if argument == "--updates" {
                count = remaining.popFirst()
            } else if argument.hasPrefix("--updates=") {
                count = String(argument.dropFirst("--updates=".count))
            } else {
                rest.append(argument)
                continue
            }
            guard let count, !count.isEmpty, count.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(count) else {
                throw SpendSmartError(
                    .usage, "--updates needs a whole number of updates, like 3: spendsmart watch --updates N.")
            }
            updates = number
        }
        return (rest, updates)
    }

    private static func command(_ line: CommandLineArguments<SpendSmartErrorCode>, updates: Int?) throws -> Command {
        if updates != nil, line.command != nil, line.command != "watch" {
            throw SpendSmartError(.usage, "--updates is an option of watch: spendsmart watch --updates N.")
        }
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
        case "watch":
            try line.expect(0, "watch [--updates N]")
            return .watch(updates: updates)
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
