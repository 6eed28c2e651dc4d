/// What the user asked for on the command line: a command and, optionally, a store file.
struct Invocation: Equatable {
    /// A Recipes command with its arguments.
    enum Command: Equatable {
        case add(recipe: String, ingredients: [String])
        case list
        case ingredients
        case ingredient(name: String)
        case remove(recipe: String, ingredient: String)
        case delete(recipe: String)
        case demo
        case help
    }

    /// The store file given with `--store`, or `nil` for `./recipes.store`.
    var storePath: String?
    var command: Command

    static let usage = """
        Recipes: recipes and the ingredients they share, kept in an embedded SQLite store, with Stowage.

        Usage: recipes [--store PATH] <command> [arguments]

        Commands:
          add <recipe> <ingredient, ingredient, ...>  Add a recipe, or ingredients to a recipe; an
                                                      ingredient that exists is shared, not duplicated
          list                                        Show every recipe with its ingredients
          ingredients                                 Show every ingredient with the recipes using it
          ingredient <name>                           Show the recipes using an ingredient
          remove <recipe> <ingredient>                Take an ingredient out of a recipe (it stays in
                                                      the store and in other recipes)
          delete <recipe>                             Delete a recipe (its ingredients stay)
          demo                                        Walk through shared ingredients, removal and deletion
          help                                        Show this help

        Options:
          --store PATH                                The store file (default: ./recipes.store)

        Separate ingredients with commas: recipes add "French Toast" bread, eggs, milk
        Without commas, each argument is one ingredient: recipes add Omelette eggs butter
        STOWAGE_SQL_DEBUG=1 logs every SQL statement; 2 adds the bound values.
        Exit status: 0 on success, 1 when an operation fails, 64 for a usage error.
        """
}

extension Invocation {
    /// Parses the arguments that follow the program name.
    ///
    /// `--store PATH` (or `--store=PATH`) may appear anywhere; `--` ends the options, so a name may
    /// start with `-`. No arguments, `help`, `-h` and `--help` ask for the help text.
    ///
    /// - Throws: ``RecipesError`` `.usage` for an unknown command or option or a wrong number of
    ///   arguments.
    init(parsing arguments: [String]) throws {
        var storePath: String?
        var positional: [String] = []
        var remaining = arguments[...]
        var wantsHelp = false
        while let argument = remaining.popFirst() {
            if argument == "--" {
                positional.append(contentsOf: remaining)
                break
            } else if argument == "--store" {
                guard let path = remaining.popFirst(), !path.isEmpty else {
                    throw RecipesError(.usage, "--store needs a file path: recipes --store PATH <command>.")
                }
                storePath = path
            } else if argument.hasPrefix("--store=") {
                let path = String(argument.dropFirst("--store=".count))
                guard !path.isEmpty else {
                    throw RecipesError(.usage, "--store needs a file path: recipes --store PATH <command>.")
                }
                storePath = path
            } else if argument == "-h" || argument == "--help" {
                wantsHelp = true
            } else if argument.hasPrefix("-"), argument.count > 1 {
                throw RecipesError(.usage, "unknown option \(argument). Run \"recipes help\" for the options.")
            } else {
                positional.append(argument)
            }
        }
        self.storePath = storePath
        guard !wantsHelp, let name = positional.first else {
            command = .help
            return
        }
        command = try Self.command(name, Array(positional.dropFirst()))
    }

    /// The ingredient names in the arguments after the recipe: split at commas when there are any,
    /// otherwise one per argument.
    static func ingredientNames(_ arguments: [String]) -> [String] {
        guard arguments.contains(where: { $0.contains(",") }) else { return arguments }
        return arguments.joined(separator: " ").split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }

    private static func command(_ name: String, _ arguments: [String]) throws -> Command {
        func expect(_ count: Int, _ synopsis: String) throws {
            guard arguments.count == count else {
                throw RecipesError(
                    .usage, "\(name) takes \(count == 0 ? "no" : String(count)) argument\(count == 1 ? "" : "s"), got \(arguments.count). Usage: recipes \(synopsis)")
            }
        }
        switch name {
        case "add":
            guard arguments.count >= 2 else {
                throw RecipesError(
                    .usage, "add takes a recipe and its ingredients, got \(arguments.count) argument\(arguments.count == 1 ? "" : "s"). Usage: recipes add <recipe> <ingredient, ingredient, ...>")
            }
            return .add(recipe: arguments[0], ingredients: ingredientNames(Array(arguments.dropFirst())))
        case "list":
            try expect(0, "list")
            return .list
        case "ingredients":
            try expect(0, "ingredients")
            return .ingredients
        case "ingredient":
            try expect(1, "ingredient <name>")
            return .ingredient(name: arguments[0])
        case "remove":
            try expect(2, "remove <recipe> <ingredient>")
            return .remove(recipe: arguments[0], ingredient: arguments[1])
        case "delete":
            try expect(1, "delete <recipe>")
            return .delete(recipe: arguments[0])
        case "demo":
            try expect(0, "demo")
            return .demo
        case "help":
            return .help
        default:
            throw RecipesError(.usage, "unknown command \"\(name)\". Run \"recipes help\" for the commands.")
        }
    }
}
