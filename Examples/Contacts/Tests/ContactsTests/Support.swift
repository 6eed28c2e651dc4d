import ExampleTestSupport
import Foundation
import StowageQueries
@testable import ContactsKit

// The shared test helpers, named here so every file of the target sees them without an import.
typealias Transcript = ExampleTestSupport.Transcript
typealias TemporaryDirectory = ExampleTestSupport.TemporaryDirectory

extension TemporaryDirectory {
    /// A directory of its own under the temporary directory, removed by ``remove()``.
    init() throws { try self.init(prefix: "ContactsTests") }
}

/// A data store on a fresh in-memory container.
func makeInMemoryStore() throws -> QueryStore {
    try QueryStore(for: [ContactModel.self], url: nil)
}

/// Runs a Contacts command line (with `input` as its standard input) and returns its exit status with
/// what it wrote.
@MainActor
func contacts(_ arguments: String..., input: [String] = []) async -> (status: Int32, transcript: Transcript) {
    let transcript = Transcript()
    let (lines, continuation) = AsyncStream.makeStream(of: String.self)
    input.forEach { continuation.yield($0) }
    continuation.finish()
    let status = await Contacts.runAsync(arguments, console: transcript.console, input: { lines })
    return (status, transcript)
}

/// The given and family names of `contacts`, as "Given Family".
func names(_ contacts: some Sequence<Contact>) -> [String] {
    contacts.map(\.fullName)
}
