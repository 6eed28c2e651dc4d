import ExampleSupport
import Foundation
import Stowage

/// The Recipes command-line program: parses the arguments, runs the command on the store, and reports
/// the result.
///
/// ```swift
/// exit(Recipes.run(Array(CommandLine.arguments.dropFirst())))
/// ```
public enum Recipes {
    /// The store file used when no `--store` is given, in the working directory.
    public static let defaultStoreFileName = "recipes.store"

    /// Runs one command line.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after the program name.
    ///   - console: Where output and errors go.
    /// - Returns: The exit status: 0 on success, 1 when an operation fails, 64 for a usage error.
    public static func run(_ arguments: [String], console: Console = .standard) -> Int32 {
        console.run {
            try execute(Invocation(parsing: arguments), console: console)
        }
    }

    static func execute(_ invocation: Invocation, console: Console) throws {
        if invocation.command == .help {
            console.write(Invocation.usage)
            return
        }
        let url = storeURL(invocation.storePath)
        if invocation.command == .demo {
            try Demo(storeURL: url, console: console).run()
            return
        }
        let book = RecipeBook(context: ModelContext(try openContainer(at: url)))
        switch invocation.command {
        case .add(let recipe, let ingredients):
            console.write(Report.added(try book.add(recipe, ingredients: ingredients)))
        case .list:
            let recipes = try book.recipes()
            if recipes.isEmpty {
                console.write("No recipes yet. Add one with: recipes add <recipe> <ingredient, ingredient, ...>")
            } else {
                console.write("\(Report.count(recipes.count, "recipe")):")
                Report.recipes(recipes).forEach(console.write)
            }
        case .ingredients:
            let ingredients = try book.ingredients()
            if ingredients.isEmpty {
                console.write("No ingredients yet. Add a recipe with: recipes add <recipe> <ingredient, ingredient, ...>")
            } else {
                console.write("\(Report.count(ingredients.count, "ingredient")):")
                Report.ingredients(ingredients).forEach(console.write)
            }
        case .ingredient(let name):
            console.write(Report.usage(try book.ingredient(named: name)))
        case .remove(let recipe, let ingredient):
            console.write(Report.removed(try book.remove(ingredient, from: recipe), from: recipe))
        case .delete(let recipe):
            console.write(Report.deleted(recipe, ingredients: try book.delete(recipe)))
        case .demo, .help:
            break
        }
    }

    /// The `--store` path, or `recipes.store` in the working directory. Relative paths are relative to
    /// the working directory.
    static func storeURL(_ path: String?) -> URL {
        URL(fileURLWithPath: path ?? defaultStoreFileName).absoluteURL
    }

    /// Opens (creating if needed) the store at `url`. Naming `Recipe` is enough: the container finds
    /// `Ingredient` through `Recipe.ingredients`.
    static func openContainer(at url: URL) throws -> ModelContainer {
        do {
            return try ModelContainer(for: Recipe.self, configurations: ModelConfiguration(url: url))
        } catch {
            throw RecipesError.store(openingAt: url, error)
        }
    }
}
