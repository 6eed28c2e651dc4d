import Foundation
import Stowage
@testable import RecipesKit

/// Output and error lines written by a command, for exact comparisons.
final class Transcript {
    private(set) var output: [String] = []
    private(set) var errors: [String] = []

    var console: Console {
        Console(write: { self.output.append($0) }, writeError: { self.errors.append($0) })
    }
}

/// A directory of its own under the temporary directory, removed by ``remove()``.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("RecipesTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: url) }
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
