import ExampleSupport
import Foundation
import Stowage

/// The `demo` command: many-to-many with shared ingredients on the store file, step by step.
///
/// The demo adds recipes that share ingredients, lists them, shows the recipes using an ingredient,
/// takes an ingredient out of a recipe, deletes a recipe (its ingredients stay), reopens the store in a
/// second container to show what was saved, and finally deletes what it created so the store is left
/// as the demo found it.
struct Demo {
    let storeURL: URL
    let console: Console

    /// The recipes the demo adds, in order.
    static let recipes: [(name: String, ingredients: [String])] = [
        ("Pancakes", ["flour", "milk", "eggs"]),
        ("Omelette", ["eggs", "butter", "salt"]),
        ("French Toast", ["bread", "eggs", "milk", "butter"]),
    ]
    static let shared = "eggs"
    static let removed = (ingredient: "milk", recipe: "French Toast")
    static let deleted = "Pancakes"

    func run() throws {
        let book = RecipeBook(context: ModelContext(try Recipes.openContainer(at: storeURL)))
        try checkNamesAreFree(in: book)
        say("Recipes demo. Store: \(storeURL.path)")
        var created: Set<String> = []

        let first = Self.recipes[0]
        console.writeStep(1, "Add \"\(first.name)\" the article's way: ingredients appended to a Recipe before it is inserted (SwiftData throws there)")
        let addition = try book.add(first.name, ingredients: first.ingredients)
        created.formUnion(addition.created)
        say("   " + Report.added(addition))

        console.writeStep(2, "Add two more: an ingredient that exists is reused, so recipes share it")
        for (name, ingredients) in Self.recipes.dropFirst() {
            let addition = try book.add(name, ingredients: ingredients)
            created.formUnion(addition.created)
            say("   " + Report.added(addition))
        }

        console.writeStep(3, "List every recipe with its ingredients, in the order they were added")
        Report.recipes(try book.recipes(), indent: "   ").forEach(say)

        console.writeStep(4, "Which recipes use \"\(Self.shared)\"? One Ingredient, linked to each recipe through a join table")
        say("   " + Report.usage(try book.ingredient(named: Self.shared)))
        let demoRecipes = try book.recipes().filter { recipe in Self.recipes.contains { $0.name == recipe.name } }
        let links = demoRecipes.reduce(0) { $0 + $1.ingredients.count }
        let distinct = Set(demoRecipes.flatMap { $0.ingredients.map(\.name) }).count
        say("   The \(demoRecipes.count) recipes list \(links) ingredients between them, but only \(distinct) distinct Ingredient models: each is stored once.")

        console.writeStep(5, "Remove \"\(Self.removed.ingredient)\" from \"\(Self.removed.recipe)\": only the link goes")
        let ingredient = try book.remove(Self.removed.ingredient, from: Self.removed.recipe)
        say("   " + Report.removed(ingredient, from: Self.removed.recipe))

        console.writeStep(6, "Delete \"\(Self.deleted)\": no cascade on a many-to-many, so its ingredients stay")
        let survivors = try book.delete(Self.deleted)
        say("   " + Report.deleted(Self.deleted, ingredients: survivors))

        console.writeStep(7, "Open the store file again in a new ModelContainer: what was saved is on disk")
        let reopened = RecipeBook(context: ModelContext(try Recipes.openContainer(at: storeURL)))
        say("   Recipes:")
        Report.recipes(try reopened.recipes(), indent: "     ").forEach(say)
        say("   Ingredients:")
        Report.ingredients(try reopened.ingredients(), indent: "     ").forEach(say)

        console.writeStep(8, "Clean up: delete the demo's recipes and the ingredients it created, leaving the store as the demo found it")
        for recipe in try reopened.recipes() where demoNames.contains(recipe.name) {
            let name = recipe.name
            try reopened.delete(name)
            say("   " + Report.deleted(name, ingredients: []))
        }
        let deletedIngredients = try reopened.deleteUnusedIngredients(named: created)
        if !deletedIngredients.isEmpty {
            say("   Deleted the ingredients: \(deletedIngredients.joined(separator: ", ")).")
        }

        say("")
        say("Done. Your turn: recipes add Pancakes flour, milk, eggs, then recipes ingredient eggs. Run recipes help for more.")
    }

    /// Every recipe name the demo uses.
    private var demoNames: Set<String> {
        Set(Self.recipes.map(\.name))
    }

    /// Refuses to run on a store where the demo's recipe names are taken, so it never touches the
    /// user's recipes. The user's ingredients may be shared by the demo's recipes: the demo deletes only
    /// the ingredients it created.
    private func checkNamesAreFree(in book: RecipeBook) throws {
        let taken = try book.recipes().map(\.name).filter(demoNames.contains).sorted()
        guard taken.isEmpty else {
            throw RecipesError(
                .duplicateRecipe,
                "the demo creates its own recipes, but the store at \(storeURL.path) already has \(taken.map { "\"\($0)\"" }.joined(separator: ", ")). Run the demo on another store: recipes demo --store /tmp/recipes-demo.store")
        }
    }

    private func say(_ line: String) { console.write(line) }
}
