import Foundation
import Stowage
@testable import SpendSmartKit

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
        url = FileManager.default.temporaryDirectory.appendingPathComponent("SpendSmartTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// A store on a fresh in-memory container.
func makeInMemoryStore() throws -> BudgetStore {
    let container = try ModelContainer(for: Budget.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    return BudgetStore(context: ModelContext(container))
}

/// Runs a SpendSmart command line and returns its exit status with what it wrote.
func spendsmart(_ arguments: String...) -> (status: Int32, transcript: Transcript) {
    let transcript = Transcript()
    let status = SpendSmart.run(arguments, console: transcript.console)
    return (status, transcript)
}
