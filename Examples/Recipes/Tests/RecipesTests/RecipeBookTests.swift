import Foundation
import Stowage
import Testing
@testable import RecipesKit

@Suite struct RecipeBookTests {
    @Test func addCreatesTheRecipeWithItsIngredientsInOrder() throws {
        let book = try makeInMemoryBook()
        let addition = try book.add("Pancakes", ingredients: ["flour", "milk", "eggs"])
        #expect(addition.isNewRecipe)
        #expect(addition.created == ["flour", "milk", "eggs"])
        #expect(addition.recipe.ingredients.map(\.name) == ["flour", "milk", "eggs"])
        #expect(addition.recipe.ingredients.allSatisfy { $0.recipes.map(\.name) == ["Pancakes"] })
        #expect(!book.context.hasChanges)

        let other = RecipeBook(context: ModelContext(book.context.container))
        #expect(try other.recipes().map(\.name) == ["Pancakes"])
        #expect(try other.recipe(named: "Pancakes").ingredients.map(\.name) == ["flour", "milk", "eggs"])
    }

    @Test func ingredientsAreSharedNotDuplicated() throws {
        let book = try makeInMemoryBook()
        try book.add("Pancakes", ingredients: ["flour", "milk", "eggs"])
        let omelette = try book.add("Omelette", ingredients: ["eggs", "butter"])
        #expect(omelette.created == ["butter"])

        let other = ModelContext(book.context.container)
        #expect(try other.fetchCount(FetchDescriptor<Ingredient>()) == 4)
        let eggs = try #require(try other.fetch(Ingredient.named("eggs")).first)
        #expect(eggs.recipes.map(\.name) == ["Pancakes", "Omelette"])
        let recipes = try other.fetch(Recipe.all)
        #expect(recipes.map(\.name) == ["Omelette", "Pancakes"])
        // The same Ingredient object in both recipes.
        #expect(recipes[0].ingredients[0] === recipes[1].ingredients[2])
    }

    @Test func addToAnExistingRecipeAppendsWhatItLacks() throws {
        let book = try makeInMemoryBook()
        try book.add("Omelette", ingredients: ["eggs", "salt"])
        let addition = try book.add("Omelette", ingredients: ["butter", "eggs", "chives"])
        #expect(!addition.isNewRecipe)
        #expect(addition.added.map(\.name) == ["butter", "chives"])
        #expect(addition.alreadyInRecipe == ["eggs"])
        #expect(try book.recipe(named: "Omelette").ingredients.map(\.name) == ["eggs", "salt", "butter", "chives"])
        #expect(try book.recipes().count == 1)
    }

    @Test func addTrimsNamesAndSkipsBlanksAndRepeats() throws {
        let book = try makeInMemoryBook()
        let addition = try book.add("  Toast ", ingredients: [" bread", "", "butter ", "bread", "  "])
        #expect(addition.recipe.name == "Toast")
        #expect(addition.recipe.ingredients.map(\.name) == ["bread", "butter"])
        #expect(try book.ingredients().map(\.name) == ["bread", "butter"])
    }

    @Test func addRefusesABlankRecipeOrNoIngredient() throws {
        let book = try makeInMemoryBook()
        #expect(throws: RecipesError(.invalidName, "a recipe needs a name that is not blank.")) {
            try book.add("  ", ingredients: ["eggs"])
        }
        #expect(throws: RecipesError(.invalidName, "\"Toast\" needs at least one ingredient: recipes add \"Toast\" flour, milk, eggs")) {
            try book.add("Toast", ingredients: [" ", ""])
        }
        #expect(try book.recipes().isEmpty)
        #expect(try book.ingredients().isEmpty)
    }

    @Test func removeTakesOnlyTheLink() throws {
        let book = try makeInMemoryBook()
        try book.add("Pancakes", ingredients: ["flour", "milk", "eggs"])
        try book.add("French Toast", ingredients: ["bread", "eggs", "milk"])

        let milk = try book.remove("milk", from: "French Toast")
        #expect(milk.recipes.map(\.name) == ["Pancakes"])

        let other = RecipeBook(context: ModelContext(book.context.container))
        #expect(try other.recipe(named: "French Toast").ingredients.map(\.name) == ["bread", "eggs"])
        #expect(try other.recipe(named: "Pancakes").ingredients.map(\.name) == ["flour", "milk", "eggs"])
        #expect(try other.ingredient(named: "milk").recipes.map(\.name) == ["Pancakes"])

        // Removed from its last recipe, an ingredient stays in the store.
        try book.remove("bread", from: "French Toast")
        #expect(try other.ingredients().count == 4)
        #expect(try ModelContext(book.context.container).fetch(Ingredient.named("bread")).first?.recipes.isEmpty == true)
    }

    @Test func removeFailsForWhatIsNotThere() throws {
        let book = try makeInMemoryBook()
        try book.add("Pancakes", ingredients: ["flour", "eggs"])
        try book.add("Omelette", ingredients: ["butter"])
        #expect(throws: RecipesError(.notInRecipe, "\"Pancakes\" does not use \"butter\". Run \"recipes list\" to see its ingredients.")) {
            try book.remove("butter", from: "Pancakes")
        }
        #expect(throws: RecipesError.unknownIngredient("salt")) { try book.remove("salt", from: "Pancakes") }
        #expect(throws: RecipesError.unknownRecipe("Waffles")) { try book.remove("eggs", from: "Waffles") }
        #expect(try book.recipe(named: "Pancakes").ingredients.map(\.name) == ["flour", "eggs"])
    }

    @Test func deletingARecipeKeepsItsIngredients() throws {
        let book = try makeInMemoryBook()
        try book.add("Pancakes", ingredients: ["flour", "milk", "eggs"])
        try book.add("Omelette", ingredients: ["eggs", "butter"])

        let survivors = try book.delete("Pancakes")
        #expect(survivors.map(\.name) == ["flour", "milk", "eggs"])

        let other = RecipeBook(context: ModelContext(book.context.container))
        #expect(try other.recipes().map(\.name) == ["Omelette"])
        #expect(try other.ingredients().map(\.name) == ["butter", "eggs", "flour", "milk"])
        #expect(try other.ingredient(named: "eggs").recipes.map(\.name) == ["Omelette"])
        #expect(try other.ingredient(named: "flour").recipes.isEmpty)
        #expect(throws: RecipesError.unknownRecipe("Pancakes")) { try book.delete("Pancakes") }
    }

    @Test func deleteUnusedIngredientsKeepsTheUsedOnesAndOthers() throws {
        let book = try makeInMemoryBook()
        try book.add("Pancakes", ingredients: ["flour", "milk", "eggs"])
        try book.add("Omelette", ingredients: ["eggs"])
        try book.delete("Pancakes")
        #expect(try book.deleteUnusedIngredients(named: ["flour", "eggs"]) == ["flour"])
        #expect(try RecipeBook(context: ModelContext(book.context.container)).ingredients().map(\.name) == ["eggs", "milk"])
    }

    @Test func listingLoadsEveryRecipesIngredientsInTwoQueries() throws {
        // Tracing is installed when a store opens: observe before creating the container.
        let log = SQLDebug.StatementLog()
        let observation = SQLDebug.observe { log.append($0) }
        defer { observation.cancel() }
        let book = try makeInMemoryBook()
        for index in 1...5 {
            try book.add("Recipe \(index)", ingredients: (1...index).map { "ingredient \($0)" })
        }
        let container = book.context.container
        log.removeAll()

        let recipes = try RecipeBook(context: ModelContext(container)).recipes()
        #expect(recipes.map(\.ingredients.count) == [1, 2, 3, 4, 5])
        #expect(log.events(of: container).filter { $0.sql.hasPrefix("SELECT") }.count == 2)
    }

    @Test func recipesTheirIngredientsAndBothOrdersSurviveAcrossContainers() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = URL(fileURLWithPath: directory.path("recipes.store"))
        do {
            let book = RecipeBook(context: ModelContext(try Recipes.openContainer(at: url)))
            try book.add("Pancakes", ingredients: ["milk", "flour", "eggs"])
            try book.add("Omelette", ingredients: ["salt", "eggs"])
            try book.add("Crêpes", ingredients: ["eggs", "milk", "flour"])
        }
        let book = RecipeBook(context: ModelContext(try Recipes.openContainer(at: url)))
        #expect(try book.recipe(named: "Pancakes").ingredients.map(\.name) == ["milk", "flour", "eggs"])
        #expect(try book.recipe(named: "Crêpes").ingredients.map(\.name) == ["eggs", "milk", "flour"])
        // The ingredient side keeps its order too: the order the recipes took the ingredient.
        #expect(try book.ingredient(named: "eggs").recipes.map(\.name) == ["Pancakes", "Omelette", "Crêpes"])
        #expect(try book.ingredients().count == 4)
    }
}
