import Stowage

/// A problem Recipes reports to the user: what went wrong and what to do about it.
struct RecipesError: Error, Equatable, CustomStringConvertible {
    /// What kind of problem it is.
    enum Code: Equatable {
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
    }

    let code: Code
    let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    var description: String { message }

    /// The process exit status for this error: 64 (`EX_USAGE`) for command-line mistakes, 1 otherwise.
    var exitStatus: Int32 {
        switch code {
        case .usage, .invalidName: return 64
        case .unknownRecipe, .unknownIngredient, .notInRecipe, .duplicateRecipe, .store: return 1
        }
    }

    static func unknownRecipe(_ name: String) -> RecipesError {
        RecipesError(.unknownRecipe, "no recipe named \"\(name)\". Run \"recipes list\" to see the recipes.")
    }

    static func unknownIngredient(_ name: String) -> RecipesError {
        RecipesError(.unknownIngredient, "no ingredient named \"\(name)\". Run \"recipes ingredients\" to see the ingredients.")
    }

    /// Wraps an error thrown by Stowage while `action` ("save to", "read") the store.
    static func store(_ action: String, _ error: any Error) -> RecipesError {
        let reason = (error as? StowageError)?.message ?? String(describing: error)
        return RecipesError(.store, "could not \(action) the store: \(reason)")
    }
}
