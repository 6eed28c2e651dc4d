import ExampleTestSupport
import Foundation
import Stowage
@testable import RecipesKit

// The shared test helpers, named here so every file of the target sees them without an import.
typealias Transcript = ExampleTestSupport.Transcript
typealias TemporaryDirectory = ExampleTestSupport.TemporaryDirectory

extension TemporaryDirectory {
    /// A directory of its own under the temporary directory, removed by ``remove()``.
    init() throws { try self.init(prefix: "RecipesTests") }
}

/// A recipe book on a fresh in-memory container.
func makeInMemoryBook() throws -> RecipeBook {
    let container = try ModelContainer(for: Recipe.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    return RecipeBook(context: ModelContext(container))
}

/// Runs a Recipes command line and returns its exit status with what it wrote.
func recipes(_ arguments: String...) -> (status: Int32, transcript: Transcript) {
    let transcript = Transcript()
    let status = Recipes.run(arguments, console: transcript.console)
    return (status, transcript)
}
