import ExampleTestSupport
import Foundation
import Stowage
@testable import UsersKit

// The shared test helpers, named here so every file of the target sees them without an import.
typealias Transcript = ExampleTestSupport.Transcript
typealias TemporaryDirectory = ExampleTestSupport.TemporaryDirectory

extension TemporaryDirectory {
    /// A directory of its own under the temporary directory, removed by ``remove()``.
    init() throws { try self.init(prefix: "UsersTests") }

    /// Writes `text` to the file `name` in the directory and returns its path.
    func write(_ name: String, _ text: String) throws -> String {
        let path = path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}

/// A context on a fresh in-memory container for `UserModel`.
func makeInMemoryContext() throws -> ModelContext {
    ModelContext(try ModelContainer(for: UserModel.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
}

/// Every user of the store file at `path`, read through a new container (what is on disk), as domain
/// values by username.
func storedUsers(at path: String) throws -> [User] {
    let context = ModelContext(try Users.openContainer(at: URL(fileURLWithPath: path)))
    return try context.fetch(UserModel.all).compactMap { $0.toModel() }
}

/// Every user in `context`'s container, read through a new context, as domain values by username.
func storedUsers(in context: ModelContext) throws -> [User] {
    try ModelContext(context.container).fetch(UserModel.all).compactMap { $0.toModel() }
}

/// Runs a Users command line and returns its exit status with what it wrote.
func users(_ arguments: String...) -> (status: Int32, transcript: Transcript) {
    let transcript = Transcript()
    let status = Users.run(arguments, console: transcript.console)
    return (status, transcript)
}

/// JSON text as the API would send it.
func json(_ text: String) -> Data { Data(text.utf8) }

/// A model that is not `UserModel`, for a container that cannot hold users.
@Model
final class Unrelated {
    var name: String
    init(name: String) { self.name = name }
}
