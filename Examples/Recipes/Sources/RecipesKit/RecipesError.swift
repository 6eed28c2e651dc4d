import ExampleSupport

/// A problem Recipes reports to the user: what went wrong and what to do about it.
typealias RecipesError = ExampleError<RecipesErrorCode>

/// What kind of problem a ``RecipesError`` is.
enum RecipesErrorCode: ExampleErrorCode {
    /// The command line is malformed: unknown command, missing or extra arguments, bad option.
    case usage
    /// A recipe or ingredient name is blank.
    case invalidName
    /// No recipe has the given name.
    case unknownRecipe
    /// No ingredient has the given name.
    case unknownIngredient
    /// The recipe does not use the ingredient to remove.
    case notInRecipe
    /// A recipe the demo creates already exists.
    case duplicateRecipe
    /// The store could not be opened, read or written.
    case store

    var isUsageError: Bool {
        switch self {
        case .usage, .invalidName: return true
        case .unknownRecipe, .unknownIngredient, .notInRecipe, .duplicateRecipe, .store: return false
        }
    }
}

extension RecipesError {
    static func unknownRecipe(_ name: String) -> RecipesError {
        RecipesError(.unknownRecipe, "no recipe named \"\(name)\". Run \"recipes list\" to see the recipes.")
    }

    static func unknownIngredient(_ name: String) -> RecipesError {
        RecipesError(.unknownIngredient, "no ingredient named \"\(name)\". Run \"recipes ingredients\" to see the ingredients.")
    }
}
