import ExampleSupport

/// A problem Reminders reports to the user: what went wrong and what to do about it.
typealias RemindersError = ExampleError<RemindersErrorCode>

/// What kind of problem a ``RemindersError`` is.
enum RemindersErrorCode: ExampleErrorCode {
    /// The command line is malformed: unknown command, missing or extra arguments, bad option.
    case usage
    /// A list name or a reminder title is blank.
    case invalidName
    /// No list has the given name.
    case unknownList
    /// The list has no reminder with the given title.
    case unknownReminder
    /// A list with the given name exists already.
    case duplicateList
    /// The list has a reminder with the given title already.
    case duplicateReminder
    /// A model was saved or deleted before it was inserted into a context.
    case notInserted
    /// The store could not be opened, read or written.
    case store

    var isUsageError: Bool {
        switch self {
        case .usage, .invalidName: return true
        case .unknownList, .unknownReminder, .duplicateList, .duplicateReminder, .notInserted, .store: return false
        }
    }
}

extension RemindersError {
    /// No list called `name`.
    static func unknownList(_ name: String) -> RemindersError {
        RemindersError(.unknownList, "no list named \"\(name)\". Run \"reminders lists\" to see the lists.")
    }

    /// No reminder called `title` in the list called `list`.
    static func unknownReminder(_ title: String, in list: String) -> RemindersError {
        RemindersError(
            .unknownReminder, "\"\(list)\" has no reminder \"\(title)\". Run \"reminders show \(Report.quoted(list))\" to see its reminders.")
    }
}
