import Foundation
import Stowage
import Testing
@testable import RecipesKit

/// The program as a user runs it: one `Recipes.run` per command line, each opening the store file in a
/// new container, like separate launches.
@Suite struct CommandLineTests {
    @Test func everyCommandAcrossRuns() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("recipes.store")

        let added = [
            recipes("--store", store, "add", "Pancakes", "flour,", "milk,", "eggs"),
            recipes("--store", store, "add", "Omelette", "eggs", "butter", "salt"),
            recipes("--store", store, "add", "French Toast", "bread, eggs, milk, butter"),
            recipes("--store", store, "add", "Omelette", "chives,", "eggs"),
        ]
        #expect(added.map(\.status) == [0, 0, 0, 0])
        #expect(added.map(\.transcript.output) == [
            ["Added \"Pancakes\" with flour (new), milk (new), eggs (new)."],
            ["Added \"Omelette\" with eggs (also in Pancakes), butter (new), salt (new)."],
            ["Added \"French Toast\" with bread (new), eggs (also in Pancakes, Omelette), milk (also in Pancakes), butter (also in Omelette)."],
            ["Added to \"Omelette\": chives (new). It already has eggs."],
        ])

        let list = recipes("--store", store, "list")
        #expect(list.status == 0)
        #expect(list.transcript.errors.isEmpty)
        #expect(list.transcript.output == [
            "3 recipes:",
            "  French Toast  bread, eggs, milk, butter",
            "  Omelette      eggs, butter, salt, chives",
            "  Pancakes      flour, milk, eggs",
        ])

        let eggs = recipes("--store", store, "ingredient", "eggs")
        #expect(eggs.status == 0)
        #expect(eggs.transcript.output == ["\"eggs\" is in 3 recipes: Pancakes, Omelette, French Toast."])

        let remove = recipes("--store", store, "remove", "French Toast", "milk")
        #expect(remove.status == 0)
        #expect(remove.transcript.output == ["Removed \"milk\" from \"French Toast\". \"milk\" is still in 1 recipe: Pancakes."])

        let delete = recipes("--store", store, "delete", "Pancakes")
        #expect(delete.status == 0)
        #expect(delete.transcript.output == ["Deleted \"Pancakes\". Its ingredients stay: flour, milk, eggs."])

        let ingredients = recipes("--store", store, "ingredients")
        #expect(ingredients.status == 0)
        #expect(ingredients.transcript.output == [
            "7 ingredients:",
            "  bread   French Toast",
            "  butter  Omelette, French Toast",
            "  chives  Omelette",
            "  eggs    Omelette, French Toast",
            "  flour   (no recipe)",
            "  milk    (no recipe)",
            "  salt    Omelette",
        ])
        #expect(recipes("--store", store, "ingredient", "flour").transcript.output == ["\"flour\" is in no recipe."])

        // A container of the test's own reads what the separate runs saved.
        let container = try ModelContainer(for: Recipe.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: store)))
        let context = ModelContext(container)
        #expect(try context.fetch(Recipe.all).map(\.name) == ["French Toast", "Omelette"])
        #expect(try context.fetchCount(FetchDescriptor<Ingredient>()) == 7)
    }

    @Test func removingFromTheLastRecipeKeepsTheIngredient() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("recipes.store")
        #expect(recipes("--store", store, "add", "Toast", "bread,", "butter").status == 0)
        let remove = recipes("--store", store, "remove", "Toast", "butter")
        #expect(remove.transcript.output == ["Removed \"butter\" from \"Toast\". \"butter\" is in no recipe now, and stays in the store."])
        #expect(recipes("--store", store, "list").transcript.output == ["1 recipe:", "  Toast  bread"])
        #expect(recipes("--store", store, "remove", "Toast", "bread").status == 0)
        #expect(recipes("--store", store, "list").transcript.output == ["1 recipe:", "  Toast  (no ingredients)"])
        #expect(recipes("--store", store, "ingredients").transcript.output == ["2 ingredients:", "  bread   (no recipe)", "  butter  (no recipe)"])
    }

    @Test func emptyStoresSaySo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("recipes.store")
        #expect(recipes("--store", store, "list").transcript.output == ["No recipes yet. Add one with: recipes add <recipe> <ingredient, ingredient, ...>"])
        #expect(recipes("--store", store, "ingredients").transcript.output == ["No ingredients yet. Add a recipe with: recipes add <recipe> <ingredient, ingredient, ...>"])
    }

    @Test func theStoreDefaultsToTheWorkingDirectory() {
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        #expect(Recipes.storeURL(nil) == cwd.appendingPathComponent("recipes.store"))
        #expect(Recipes.storeURL("data/r.store") == cwd.appendingPathComponent("data/r.store"))
    }

    @Test func helpPrintsTheUsageAndOpensNoStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("recipes.store")
        let help = recipes("--store", store, "help")
        #expect(help.status == 0)
        #expect(help.transcript.output == [Invocation.usage])
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    // MARK: - Errors

    @Test func unknownNamesFailWithStatus1() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("recipes.store")
        #expect(recipes("--store", store, "add", "Pancakes", "flour,", "eggs").status == 0)
        #expect(recipes("--store", store, "add", "Toast", "bread").status == 0)

        let cases: [([String], String)] = [
            (["delete", "Waffles"], "error: no recipe named \"Waffles\". Run \"recipes list\" to see the recipes."),
            (["remove", "Waffles", "eggs"], "error: no recipe named \"Waffles\". Run \"recipes list\" to see the recipes."),
            (["remove", "Pancakes", "sugar"], "error: no ingredient named \"sugar\". Run \"recipes ingredients\" to see the ingredients."),
            (["remove", "Pancakes", "bread"], "error: \"Pancakes\" does not use \"bread\". Run \"recipes list\" to see its ingredients."),
            (["ingredient", "sugar"], "error: no ingredient named \"sugar\". Run \"recipes ingredients\" to see the ingredients."),
        ]
        for (arguments, message) in cases {
            let transcript = Transcript()
            #expect(Recipes.run(["--store", store] + arguments, console: transcript.console) == 1)
            #expect(transcript.output.isEmpty)
            #expect(transcript.errors == [message])
        }
        #expect(recipes("--store", store, "list").transcript.output == ["2 recipes:", "  Pancakes  flour, eggs", "  Toast     bread"])
    }

    @Test func usageErrorsFailWithStatus64AndTouchNoStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("recipes.store")

        let noIngredient = recipes("--store", store, "add", "Pancakes")
        #expect(noIngredient.status == 64)
        #expect(noIngredient.transcript.errors == ["error: add takes a recipe and its ingredients, got 1 argument. Usage: recipes add <recipe> <ingredient, ingredient, ...>"])
        #expect(recipes("--store", store, "frobnicate").status == 64)
        #expect(!FileManager.default.fileExists(atPath: store))

        let blank = recipes("--store", store, "add", "Pancakes", ",", ",")
        #expect(blank.status == 64)
        #expect(blank.transcript.errors == ["error: \"Pancakes\" needs at least one ingredient: recipes add \"Pancakes\" flour, milk, eggs"])
        #expect(recipes("--store", store, "list").transcript.output == ["No recipes yet. Add one with: recipes add <recipe> <ingredient, ingredient, ...>"])
    }

    @Test func aFileThatIsNotAStoreFailsWithStatus1AndIsLeftAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("notes.txt")
        let contents = Data("Pancakes: flour, milk, eggs\n".utf8)
        try contents.write(to: URL(fileURLWithPath: path))

        let list = recipes("--store", path, "list")
        #expect(list.status == 1)
        #expect(list.transcript.output.isEmpty)
        #expect(list.transcript.errors.first?.hasPrefix("error: could not open the store at \(path): ") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == contents)
    }
}
