/// The sentences and tables Recipes prints, shared by the commands and the demo.
enum Report {
    /// What an addition did: `Added "Omelette" with eggs (also in Pancakes), butter (new).`
    static func added(_ addition: RecipeBook.Addition) -> String {
        let recipe = addition.recipe
        let items = addition.added.map { ingredient in
            if addition.created.contains(ingredient.name) { return "\(ingredient.name) (new)" }
            let others = ingredient.recipes.filter { $0 !== recipe }.map(\.name)
            return others.isEmpty ? ingredient.name : "\(ingredient.name) (also in \(others.joined(separator: ", ")))"
        }
        var sentence: String
        if items.isEmpty {
            sentence = addition.isNewRecipe ? "Added \"\(recipe.name)\"." : "Nothing to add to \"\(recipe.name)\"."
        } else if addition.isNewRecipe {
            sentence = "Added \"\(recipe.name)\" with \(items.joined(separator: ", "))."
        } else {
            sentence = "Added to \"\(recipe.name)\": \(items.joined(separator: ", "))."
        }
        if !addition.alreadyInRecipe.isEmpty {
            sentence += " It already has \(addition.alreadyInRecipe.joined(separator: ", "))."
        }
        return sentence
    }

    /// Where an ingredient is used: `"eggs" is in 2 recipes: Pancakes, Omelette.`
    static func usage(_ ingredient: Ingredient) -> String {
        let recipes = ingredient.recipes.map(\.name)
        return recipes.isEmpty
            ? "\"\(ingredient.name)\" is in no recipe."
            : "\"\(ingredient.name)\" is in \(count(recipes.count, "recipe")): \(recipes.joined(separator: ", "))."
    }

    /// An ingredient taken out of a recipe, and where it is still used.
    static func removed(_ ingredient: Ingredient, from recipe: String) -> String {
        let recipes = ingredient.recipes.map(\.name)
        let still = recipes.isEmpty
            ? "\"\(ingredient.name)\" is in no recipe now, and stays in the store."
            : "\"\(ingredient.name)\" is still in \(count(recipes.count, "recipe")): \(recipes.joined(separator: ", "))."
        return "Removed \"\(ingredient.name)\" from \"\(recipe)\". " + still
    }

    /// A deleted recipe, and the ingredients that survive it.
    static func deleted(_ recipe: String, ingredients: [Ingredient]) -> String {
        ingredients.isEmpty
            ? "Deleted \"\(recipe)\"."
            : "Deleted \"\(recipe)\". Its ingredients stay: \(ingredients.map(\.name).joined(separator: ", "))."
    }

    /// `1 recipe`, `2 recipes`.
    static func count(_ count: Int, _ noun: String) -> String {
        count == 1 ? "1 \(noun)" : "\(count) \(noun)s"
    }

    /// One line per recipe: its name, then its ingredients in order.
    static func recipes(_ recipes: [Recipe], indent: String = "  ") -> [String] {
        table(recipes.map { ($0.name, $0.ingredients.map(\.name), "(no ingredients)") }, indent: indent)
    }

    /// One line per ingredient: its name, then the recipes using it.
    static func ingredients(_ ingredients: [Ingredient], indent: String = "  ") -> [String] {
        table(ingredients.map { ($0.name, $0.recipes.map(\.name), "(no recipe)") }, indent: indent)
    }

    private static func table(_ rows: [(name: String, items: [String], none: String)], indent: String) -> [String] {
        let width = rows.map(\.name.count).max() ?? 0
        return rows.map { row in
            let padding = String(repeating: " ", count: width - row.name.count)
            return indent + row.name + padding + "  " + (row.items.isEmpty ? row.none : row.items.joined(separator: ", "))
        }
    }
}
