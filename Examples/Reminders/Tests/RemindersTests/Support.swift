import ExampleTestSupport
import Foundation
import Stowage
@testable import RemindersKit

// The shared test helpers, named here so every file of the target sees them without an import.
typealias Transcript = ExampleTestSupport.Transcript
typealias TemporaryDirectory = ExampleTestSupport.TemporaryDirectory

extension TemporaryDirectory {
    /// A directory of its own under the temporary directory, removed by ``remove()``.
    init() throws { try self.init(prefix: "RemindersTests") }
}

/// A fresh in-memory container for both models.
func makeInMemoryContainer() throws -> ModelContainer {
    try ModelContainer(for: MyList.self, Reminder.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
}

/// A reminder book on a fresh in-memory container.
func makeInMemoryBook() throws -> ReminderBook {
    ReminderBook(context: ModelContext(try makeInMemoryContainer()))
}

/// Runs a Reminders command line and returns its exit status with what it wrote.
func reminders(_ arguments: String...) -> (status: Int32, transcript: Transcript) {
    let transcript = Transcript()
    let status = Reminders.run(arguments, console: transcript.console)
    return (status, transcript)
}

/// Saves any model through the protocol, as generic code does: the model's own `save()` runs.
func saveGenerically(_ model: some Model) throws {
    try model.save()
}

/// Deletes any model through the protocol, as generic code does.
func deleteGenerically(_ model: some Model) throws {
    try model.delete()
}
