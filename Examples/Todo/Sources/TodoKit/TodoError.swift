import ExampleSupport
import StowageQueries

/// A problem Todo reports to the user: what went wrong and what to do about it. The app logic and both
/// data sources throw it, so mocks and the store fail the same way.
public typealias TodoError = ExampleError<TodoErrorCode>

/// What kind of problem a ``TodoError`` is.
public enum TodoErrorCode: ExampleErrorCode {
    /// The command line is malformed: unknown command, missing or extra arguments, bad option.
    case usage
    /// A group or task title is blank.
    case blankTitle
    /// Another group has the title.
    case duplicateGroup
    /// The group already has an open task with the title.
    case duplicateTask
    /// No group has the given title or identifier.
    case unknownGroup
    /// No task has the given title (in its group) or identifier.
    case unknownTask
    /// The task to mark done is done already.
    case alreadyCompleted
    /// The store could not be opened, read or written.
    case store

    /// Whether the problem is a mistake in what the user typed (exit status 64): a malformed command
    /// line or a blank title.
    public var isUsageError: Bool {
        switch self {
        case .usage, .blankTitle: return true
        case .duplicateGroup, .duplicateTask, .unknownGroup, .unknownTask, .alreadyCompleted, .store: return false
        }
    }
}

extension TodoError {
    /// No group called `title`.
    static func unknownGroup(titled title: String) -> TodoError {
        TodoError(.unknownGroup, "no group named \"\(title)\". Run \"todo groups\" to see the groups.")
    }

    /// No group with the identifier `id` (a data source's error: the logic finds groups by title first).
    static func unknownGroup(_ id: WrappedID) -> TodoError {
        TodoError(.unknownGroup, "no group has the identifier \(id.text).")
    }

    /// No task with the identifier `id`.
    static func unknownTask(_ id: WrappedID) -> TodoError {
        TodoError(.unknownTask, "no task has the identifier \(id.text).")
    }

    /// Another group is called `title`.
    static func duplicateGroup(_ title: String) -> TodoError {
        TodoError(.duplicateGroup, "there is already a group named \"\(title)\". Run \"todo groups\" to see the groups.")
    }
}

extension WrappedID {
    /// The identifier as the messages show it: `"home"`, `7`, a UUID, or a model's identifier.
    var text: String {
        switch self {
        case .string(let string): return "\"\(string)\""
        case .integer(let integer): return String(integer)
        case .uuid(let uuid): return uuid.uuidString
        case .persistentIdentifier(let identifier): return identifier.description
        }
    }
}
