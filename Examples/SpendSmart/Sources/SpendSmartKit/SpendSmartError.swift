import ExampleSupport

/// A problem SpendSmart reports to the user: what went wrong and what to do about it.
typealias SpendSmartError = ExampleError<SpendSmartErrorCode>

/// What kind of problem a ``SpendSmartError`` is.
enum SpendSmartErrorCode: ExampleErrorCode {
    /// The command line is malformed: unknown command, missing or extra arguments, bad option.
    case usage
    /// An amount is not a number, or not a valid limit.
    case invalidAmount
    /// A budget name is empty.
    case invalidName
    /// A transaction's note is empty.
    case invalidNote
    /// No budget has the given name.
    case unknownBudget
    /// A budget with the given name already exists.
    case duplicateBudget
    /// The store could not be opened, read or written.
    case store
    /// The store was created by an earlier version of SpendSmart whose models differ.
    case outdatedStore

    var isUsageError: Bool {
        switch self {
        case .usage, .invalidAmount, .invalidName, .invalidNote: return true
        case .unknownBudget, .duplicateBudget, .store, .outdatedStore: return false
        }
    }
}

extension SpendSmartError {
    static func unknownBudget(_ name: String) -> SpendSmartError {
        SpendSmartError(.unknownBudget, "no budget named \"\(name)\". Run \"spendsmart list\" to see the budgets.")
    }

    static func duplicateBudget(_ name: String) -> SpendSmartError {
        SpendSmartError(.duplicateBudget, "a budget named \"\(name)\" already exists. Pick another name, or rename the existing budget.")
    }
}
