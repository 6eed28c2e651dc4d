import Stowage

// The many-to-many models from the SpendSmart article, with `import Stowage` in place of
// `import SwiftData`. One change: the article declares `let name`; Stowage, like SwiftData in the
// Swift 6 language mode, persists only `var` properties, so the names are `var`.
//
// No delete rule is given, so both sides use the default, `.nullify`: deleting a recipe removes it from
// its ingredients' `recipes` and keeps the ingredients; deleting an ingredient keeps its recipes.

@Model
final class Recipe {
    var name: String

    init(name: String) {
        self.name = name
    }

    @Relationship
    var ingredients: [Ingredient] = []
}

@Model
final class Ingredient {

    var name: String

    @Relationship(inverse: \Recipe.ingredients)
    var recipes: [Recipe] = []

    init(name: String) {
        self.name = name
    }
}

extension Recipe {
    /// Every recipe, by name, with its ingredients loaded in the same fetch (one more query for all).
    static var all: FetchDescriptor<Recipe> {
        var descriptor = FetchDescriptor<Recipe>(sortBy: [SortDescriptor(\Recipe.name)])
        descriptor.relationshipKeyPathsForPrefetching = [\.ingredients]
        return descriptor
    }

    /// The recipes called exactly `name`.
    static func named(_ name: String) -> FetchDescriptor<Recipe> {
        FetchDescriptor(predicate: #Predicate { $0.name == name })
    }
}

extension Ingredient {
    /// Every ingredient, by name, with the recipes using it loaded in the same fetch.
    static var all: FetchDescriptor<Ingredient> {
        var descriptor = FetchDescriptor<Ingredient>(sortBy: [SortDescriptor(\Ingredient.name)])
        descriptor.relationshipKeyPathsForPrefetching = [\.recipes]
        return descriptor
    }

    /// The ingredients called exactly `name`.
    static func named(_ name: String) -> FetchDescriptor<Ingredient> {
        FetchDescriptor(predicate: #Predicate { $0.name == name })
    }
}
