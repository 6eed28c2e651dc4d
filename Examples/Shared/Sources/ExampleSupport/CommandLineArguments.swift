/// The arguments after an example's program name, split into the options every example reads the
/// same way and the command.
///
/// `--store PATH` (or `--store=PATH`) may appear anywhere; `--` ends the options, so a name may start
/// with `-`. No arguments, `help`, `-h` and `--help` ask for the help text.
///
/// ```swift
/// let line = try CommandLineArguments<RecipesErrorCode>(parsing: arguments, program: "recipes")
/// switch line.command {
/// case nil: return .help
/// case "delete":
///     try line.expect(1, "delete <recipe>")
///     return .delete(recipe: line.arguments[0])
/// default: throw line.unknownCommand
/// }
/// ```
///
/// Usage errors are ``ExampleError`` values with the code `Code.usage`, and name the program.
public struct CommandLineArguments<Code: ExampleErrorCode> {
    /// The program name the messages use, like `recipes`.
    public let program: String
    /// The store file given with `--store`, or `nil` for the example's default.
    public let storePath: String?
    /// The command name, or `nil` when the command line asks for the help text.
    public let command: String?
    /// The arguments after the command name, empty when ``command`` is `nil`.
    public let arguments: [String]

    /// Parses the arguments that follow the program name.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after the program name.
    ///   - program: The program name, for the messages.
    ///   - isArgument: Whether an argument starting with `-` is an argument rather than an unknown
    ///     option, like a negative amount. By default none is.
    /// - Throws: ``ExampleError`` `Code.usage` for an unknown option or a `--store` without a path.
    public init(parsing arguments: [String], program: String, isArgument: (String) -> Bool = { _ in false }) throws {
        self.program = program
        var storePath: String?
        var positional: [String] = []
        var remaining = arguments[...]
        var wantsHelp = false
        while let argument = remaining.popFirst() {
            if argument == "--" {
                positional.append(contentsOf: remaining)
                break
            } else if argument == "--store" {
                guard let path = remaining.popFirst(), !path.isEmpty else { throw Self.missingStorePath(program) }
                storePath = path
            } else if argument.hasPrefix("--store=") {
                let path = String(argument.dropFirst("--store=".count))
                guard !path.isEmpty else { throw Self.missingStorePath(program) }
                storePath = path
            } else if argument == "-h" || argument == "--help" {
                wantsHelp = true
            } else if argument.hasPrefix("-"), argument.count > 1, !isArgument(argument) {
                throw ExampleError<Code>(.usage, "unknown option \(argument). Run \"\(program) help\" for the options.")
            } else {
                positional.append(argument)
            }
        }
        self.storePath = storePath
        if wantsHelp || positional.first == nil || positional.first == "help" {
            command = nil
            self.arguments = []
        } else {
            command = positional.first
            self.arguments = Array(positional.dropFirst())
        }
    }

    /// Throws a usage error unless the command has exactly `count` arguments.
    ///
    /// - Parameter synopsis: The command with its arguments, like `delete <recipe>`.
    public func expect(_ count: Int, _ synopsis: String) throws {
        guard arguments.count == count else {
            throw usageError(
                "\(name) takes \(count == 0 ? "no" : String(count)) argument\(count == 1 ? "" : "s"), got \(arguments.count). Usage: \(program) \(synopsis)")
        }
    }

    /// Throws a usage error unless the command has at least `count` arguments.
    ///
    /// - Parameters:
    ///   - takes: What the command takes, like `a recipe and its ingredients`.
    ///   - synopsis: The command with its arguments, like `add <recipe> <ingredient, ...>`.
    public func expect(atLeast count: Int, _ takes: String, _ synopsis: String) throws {
        guard arguments.count >= count else {
            throw usageError(
                "\(name) takes \(takes), got \(arguments.count) argument\(arguments.count == 1 ? "" : "s"). Usage: \(program) \(synopsis)")
        }
    }

    /// The usage error for a command the program does not have.
    public var unknownCommand: ExampleError<Code> {
        usageError("unknown command \"\(name)\". Run \"\(program) help\" for the commands.")
    }

    /// The command name for the messages.
    private var name: String { command ?? "help" }

    private func usageError(_ message: String) -> ExampleError<Code> {
        ExampleError(.usage, message)
    }

    private static func missingStorePath(_ program: String) -> ExampleError<Code> {
        ExampleError(.usage, "--store needs a file path: \(program) --store PATH <command>.")
    }
}
