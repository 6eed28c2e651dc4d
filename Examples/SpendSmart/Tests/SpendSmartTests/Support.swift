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

/// The date the tests give new transactions: noon on 14 March 2024 in the machine's time zone, so it
/// prints as `2024-03-14` wherever the tests run.
let testDate: Date = {
    let components = DateComponents(year: 2024, month: 3, day: 14, hour: 12)
    return Calendar(identifier: .gregorian).date(from: components)!
}()

/// Runs a SpendSmart command line, dating new transactions ``testDate``, and returns its exit status
/// with what it wrote.
func spendsmart(_ arguments: String...) -> (status: Int32, transcript: Transcript) {
    let transcript = Transcript()
    let status = SpendSmart.run(arguments, console: transcript.console, now: { testDate })
    return (status, transcript)
}
