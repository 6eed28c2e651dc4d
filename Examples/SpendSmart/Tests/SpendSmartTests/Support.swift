import ExampleTestSupport
import Foundation
import Stowage
@testable import SpendSmartKit

// The shared test helpers, named here so every file of the target sees them without an import.
typealias Transcript = ExampleTestSupport.Transcript
typealias TemporaryDirectory = ExampleTestSupport.TemporaryDirectory

extension TemporaryDirectory {
    /// A directory of its own under the temporary directory, removed by ``remove()``.
    init() throws { try self.init(prefix: "SpendSmartTests") }
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
