import ExampleSupport

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
    /// Parses the arguments that follow the program name, as ``CommandLineArguments`` describes.
    ///
    /// - Throws: ``RecipesError`` `.usage` for an unknown command or option or a wrong number of
    ///   arguments.
    init(parsing arguments: [String]) throws {
        let line = try CommandLineArguments<RecipesErrorCode>(parsing: arguments, program: "recipes")
        storePath = line.storePath
        command = try Self.command(line)
    }

    /// The ingredient names in the arguments after the recipe: split at commas when there are any,
    /// otherwise one per argument.
    static func ingredientNames(_ arguments: [String]) -> [String] {
        guard arguments.contains(where: { $0.contains(",") }) else { return arguments }
        return arguments.joined(separator: " ").split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }

    private static func command(_ line: CommandLineArguments<RecipesErrorCode>) throws -> Command {
        let arguments = line.arguments
        switch line.command {
        case nil:
            return .help
        case "add":
            try line.expect(atLeast: 2, "a recipe and its ingredients", "add <recipe> <ingredient, ingredient, ...>")
            return .add(recipe: arguments[0], ingredients: ingredientNames(Array(arguments.dropFirst())))
        case "list":
            try line.expect(0, "list")
            return .list
        case "ingredients":
            try line.expect(0, "ingredients")
            return .ingredients
        case "ingredient":
            try line.expect(1, "ingredient <name>")
            return .ingredient(name: arguments[0])
        case "remove":
            try line.expect(2, "remove <recipe> <ingredient>")
            return .remove(recipe: arguments[0], ingredient: arguments[1])
        case "delete":
            try line.expect(1, "delete <recipe>")
            return .delete(recipe: arguments[0])
        case "demo":
            try line.expect(0, "demo")
            return .demo
        default:
            throw line.unknownCommand
        }
    }
}
