import Foundation
import Stowage

/// The app's operations on recipes and their shared ingredients, over any `ModelContext`: a file store
/// in the app, an in-memory container in tests.
///
/// An ingredient exists once, whatever the number of recipes using it: ``add(_:ingredients:)`` reuses
/// the ingredient of that name when there is one. Recipe and ingredient names are unique, and
/// compared exactly. Each change is saved before the method returns; when the save fails, the
/// context's changes are rolled back and the error is rethrown as a ``RecipesError``.
struct RecipeBook {
    let context: ModelContext

    init(context: ModelContext) {
        self.context = context
    }

    /// What ``add(_:ingredients:)`` did.
    struct Addition {
        /// The recipe, new or existing.
        let recipe: Recipe
        /// Whether the recipe was created by this addition.
        let isNewRecipe: Bool
        /// The ingredients added to the recipe, in order.
        let added: [Ingredient]
        /// The names of the ingredients that did not exist before and were created.
        let created: Set<String>
        /// The names of the ingredients the recipe already had.
        let alreadyInRecipe: [String]
    }

    /// Every recipe by name, with its ingredients.
    func recipes() throws -> [Recipe] {
        try fetch(Recipe.all)
    }

    /// Every ingredient by name, with the recipes using it.
    func ingredients() throws -> [Ingredient] {
        try fetch(Ingredient.all)
    }

    /// The recipe called `name`.
    ///
    /// - Throws: ``RecipesError`` `.unknownRecipe` when no recipe has that name.
    func recipe(named name: String) throws -> Recipe {
        guard let recipe = try fetch(Recipe.named(name)).first else { throw RecipesError.unknownRecipe(name) }
        return recipe
    }

    /// The ingredient called `name`.
    ///
    /// - Throws: ``RecipesError`` `.unknownIngredient` when no ingredient has that name.
    func ingredient(named name: String) throws -> Ingredient {
        guard let ingredient = try fetch(Ingredient.named(name)).first else { throw RecipesError.unknownIngredient(name) }
        return ingredient
    }

    /// Adds ingredients to the recipe called `recipeName`, creating the recipe if there is none, and
    /// saves.
    ///
    /// An ingredient that exists already (in any recipe, or in none) is reused rather than created
    /// again, so recipes share it. Ingredients the recipe has already are skipped; the others are
    /// appended, in the given order.
    ///
    /// - Throws: ``RecipesError`` `.invalidName` for a blank recipe name or no ingredient name, `.store`
    ///   when saving fails.
    @discardableResult
    func add(_ recipeName: String, ingredients names: [String]) throws -> Addition {
        let recipeName = try Self.validName(recipeName, "a recipe")
        let names = Self.uniqueNames(names)
        guard !names.isEmpty else {
            throw RecipesError(.invalidName, "\"\(recipeName)\" needs at least one ingredient: recipes add \"\(recipeName)\" flour, milk, eggs")
        }
        let existing = try fetch(Recipe.named(recipeName)).first
        // The article's first version of this code: the ingredients are appended to a recipe that is not
        // inserted yet, and the recipe is inserted afterwards. SwiftData throws there; Stowage keeps both
        // sides of each link, and inserting the recipe inserts its new ingredients.
        let recipe = existing ?? Recipe(name: recipeName)
        var added: [Ingredient] = []
        var created: Set<String> = []
        var alreadyInRecipe: [String] = []
        for name in names {
            if recipe.ingredients.contains(where: { $0.name == name }) {
                alreadyInRecipe.append(name)
                continue
            }
            let ingredient: Ingredient
            if let shared = try fetch(Ingredient.named(name)).first {
                ingredient = shared
            } else {
                ingredient = Ingredient(name: name)
                created.insert(name)
            }
            recipe.ingredients.append(ingredient)
            added.append(ingredient)
        }
        if existing == nil { context.insert(recipe) }
        try save()
        return Addition(recipe: recipe, isNewRecipe: existing == nil, added: added, created: created, alreadyInRecipe: alreadyInRecipe)
    }

    /// Removes the ingredient called `ingredientName` from the recipe called `recipeName` and saves.
    /// The ingredient stays in the store, and in its other recipes.
    ///
    /// - Returns: The removed ingredient.
    /// - Throws: ``RecipesError`` `.unknownRecipe`, `.unknownIngredient` when no ingredient has that
    ///   name, `.notInRecipe` when the recipe does not use it, `.store` when saving fails.
    @discardableResult
    func remove(_ ingredientName: String, from recipeName: String) throws -> Ingredient {
        let recipe = try recipe(named: recipeName)
        guard let index = recipe.ingredients.firstIndex(where: { $0.name == ingredientName }) else {
            _ = try ingredient(named: ingredientName)
            throw RecipesError(
                .notInRecipe, "\"\(recipe.name)\" does not use \"\(ingredientName)\". Run \"recipes list\" to see its ingredients.")
        }
        let ingredient = recipe.ingredients.remove(at: index)
        try save()
        return ingredient
    }

    /// Deletes the recipe called `name` and saves. Its ingredients stay: the relationship has no
    /// cascade, so deleting a recipe only removes it from its ingredients' `recipes`.
    ///
    /// - Returns: The recipe's ingredients, which survive it.
    /// - Throws: ``RecipesError`` `.unknownRecipe` when no recipe has that name, `.store` when saving
    ///   fails.
    @discardableResult
    func delete(_ name: String) throws -> [Ingredient] {
        let recipe = try recipe(named: name)
        let ingredients = recipe.ingredients
        context.delete(recipe)
        try save()
        return ingredients
    }

    /// Deletes the ingredients among `names` that no recipe uses, and saves.
    ///
    /// - Returns: The names of the deleted ingredients, by name.
    @discardableResult
    func deleteUnusedIngredients(named names: Set<String>) throws -> [String] {
        let unused = try ingredients().filter { names.contains($0.name) && $0.recipes.isEmpty }
        for ingredient in unused { context.delete(ingredient) }
        try save()
        return unused.map(\.name)
    }

    private func fetch<Model: PersistentModel>(_ descriptor: FetchDescriptor<Model>) throws -> [Model] {
        do {
            return try context.fetch(descriptor)
        } catch {
            throw RecipesError.store("read", error)
        }
    }

    private func save() throws {
        do {
            try context.save()
        } catch {
            context.rollback()
            throw RecipesError.store("save to", error)
        }
    }

    private static func validName(_ name: String, _ what: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw RecipesError(.invalidName, "\(what) needs a name that is not blank.") }
        return trimmed
    }

    /// The names trimmed, without blanks and repeats, in their first order.
    static func uniqueNames(_ names: [String]) -> [String] {
        var seen: Set<String> = []
        return names
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty && seen.insert($0).inserted }
    }
}
