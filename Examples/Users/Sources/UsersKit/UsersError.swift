import ExampleSupport

/// A problem Users reports to the user: what went wrong and what to do about it.
typealias UsersError = ExampleError<UsersErrorCode>

/// What kind of problem a ``UsersError`` is.
enum UsersErrorCode: ExampleErrorCode {
    /// The command line is malformed: unknown command, missing or extra arguments, bad option.
    case usage
    /// The file to import does not exist or cannot be read.
    case unreadableFile
    /// The file to import is not a valid JSON array of users: nothing of it was imported.
    case invalidFile
    /// A user the demo creates already exists.
    case duplicateUser
    /// The store could not be opened, read or written.
    case store

    var isUsageError: Bool {
        switch self {
        case .usage: return true
        case .unreadableFile, .invalidFile, .duplicateUser, .store: return false
        }
    }
}

extension UsersError {
    /// The import of the file `name` was refused because of `error`.
    static func invalidFile(_ name: String, _ error: UserImportError) -> UsersError {
        UsersError(.invalidFile, "cannot import \(name): \(error). Nothing was imported.")
    }

    /// An import into the store failed while reading or saving it.
    static func importFailed(_ error: any Error) -> UsersError {
        var message = UsersError.store("import into", error).message
        while message.hasSuffix(".") { message.removeLast() }
        return UsersError(.store, message + ". Nothing was imported.")
    }
}
