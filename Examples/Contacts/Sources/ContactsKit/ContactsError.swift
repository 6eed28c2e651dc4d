import ExampleSupport

/// A problem Contacts reports to the user: what went wrong and what to do about it.
typealias ContactsError = ExampleError<ContactsErrorCode>

/// What kind of problem a ``ContactsError`` is.
enum ContactsErrorCode: ExampleErrorCode {
    /// The command line is malformed: unknown command, missing or extra arguments, bad option.
    case usage
    /// A given name is blank.
    case invalidName
    /// A count is not a positive whole number.
    case invalidCount
    /// The store could not be opened, read or written.
    case store

    var isUsageError: Bool {
        switch self {
        case .usage, .invalidName, .invalidCount: return true
        case .store: return false
        }
    }
}
