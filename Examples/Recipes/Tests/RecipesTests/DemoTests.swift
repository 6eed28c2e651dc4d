import Foundation
import Stowage
import Testing
@testable import RecipesKit

@Suite struct DemoTests {
    static func expectedTranscript(store: String) -> [String] {
        [
            "Recipes demo. Store: \(store)",
            "",
            "1. Add \"Pancakes\" the article's way: ingredients appended to a Recipe before it is inserted (SwiftData throws there)",
            "   Added \"Pancakes\" with flour (new), milk (new), eggs (new).",
            "",
            "2. Add two more: an ingredient that exists is reused, so recipes share it",
            "   Added \"Omelette\" with eggs (also in Pancakes), butter (new), salt (new).",
            "   Added \"French Toast\" with bread (new), eggs (also in Pancakes, Omelette), milk (also in Pancakes), butter (also in Omelette).",
            "",
            "3. List every recipe with its ingredients, in the order they were added",
            "   French Toast  bread, eggs, milk, butter",
            "   Omelette      eggs, butter, salt",
            "   Pancakes      flour, milk, eggs",
            "",
            "4. Which recipes use \"eggs\"? One Ingredient, linked to each recipe through a join table",
            "   \"eggs\" is in 3 recipes: Pancakes, Omelette, French Toast.",
            "   The 3 recipes list 10 ingredients between them, but only 6 distinct Ingredient models: each is stored once.",
            "",
            "5. Remove \"milk\" from \"French Toast\": only the link goes",
            "   Removed \"milk\" from \"French Toast\". \"milk\" is still in 1 recipe: Pancakes.",
            "",
            "6. Delete \"Pancakes\": no cascade on a many-to-many, so its ingredients stay",
            "   Deleted \"Pancakes\". Its ingredients stay: flour, milk, eggs.",
            "",
            "7. Open the store file again in a new ModelContainer: what was saved is on disk",
            "   Recipes:",
            "     French Toast  bread, eggs, butter",
            "     Omelette      eggs, butter, salt",
            "   Ingredients:",
            "     bread   French Toast",
            "     butter  Omelette, French Toast",
            "     eggs    Omelette, French Toast",
            "     flour   (no recipe)",
            "     milk    (no recipe)",
            "     salt    Omelette",
            "",
            "8. Clean up: delete the demo's recipes and the ingredients it created, leaving the store as the demo found it",
            "   Deleted \"French Toast\".",
            "   Deleted \"Omelette\".",
            "   Deleted the ingredients: bread, butter, eggs, flour, milk, salt.",
            "",
            "Done. Your turn: recipes add Pancakes flour, milk, eggs, then recipes ingredient eggs. Run recipes help for more.",
        ]
    }

    @Test func showsTheWholeFlowAndCanRunAgain() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("demo.store")

        let first = recipes("demo", "--store", store)
        #expect(first.status == 0)
        #expect(first.transcript.errors.isEmpty)
        #expect(first.transcript.output == Self.expectedTranscript(store: store))

        let second = recipes("demo", "--store", store)
        #expect(second.status == 0)
        #expect(second.transcript.output == Self.expectedTranscript(store: store))

        let context = ModelContext(try Recipes.openContainer(at: URL(fileURLWithPath: store)))
        #expect(try context.fetchCount(FetchDescriptor<Recipe>()) == 0)
        #expect(try context.fetchCount(FetchDescriptor<Ingredient>()) == 0)
    }

    @Test func sharesButKeepsTheUsersIngredients() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("recipes.store")
        #expect(recipes("--store", store, "add", "Shakshuka", "tomatoes,", "eggs").status == 0)

        let demo = recipes("--store", store, "demo")
        #expect(demo.status == 0)
        // The user's eggs are reused by the demo's recipes, and not deleted at the end.
        #expect(demo.transcript.output.contains("   Added \"Pancakes\" with flour (new), milk (new), eggs (also in Shakshuka)."))
        #expect(demo.transcript.output.contains("   Deleted the ingredients: bread, butter, flour, milk, salt."))
        #expect(recipes("--store", store, "list").transcript.output == ["1 recipe:", "  Shakshuka  tomatoes, eggs"])
        #expect(recipes("--store", store, "ingredients").transcript.output == ["2 ingredients:", "  eggs      Shakshuka", "  tomatoes  Shakshuka"])
    }

    @Test func refusesAStoreWhereItsNamesAreTaken() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("recipes.store")
        #expect(recipes("--store", store, "add", "Pancakes", "buckwheat").status == 0)

        let demo = recipes("--store", store, "demo")
        #expect(demo.status == 1)
        #expect(demo.transcript.output.isEmpty)
        #expect(demo.transcript.errors == [
            "error: the demo creates its own recipes, but the store at \(store) already has \"Pancakes\". Run the demo on another store: recipes demo --store /tmp/recipes-demo.store",
        ])
        #expect(recipes("--store", store, "list").transcript.output == ["1 recipe:", "  Pancakes  buckwheat"])
    }
}
