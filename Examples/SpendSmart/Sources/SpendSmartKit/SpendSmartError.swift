import Stowage

/// A problem SpendSmart reports to the user: what went wrong and what to do about it.
struct SpendSmartError: Error, Equatable, CustomStringConvertible {
    /// What kind of problem it is.
    enum Code: Equatable {
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
    }

    let code: Code
    let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    var description: String { message }

    /// The process exit status for this error: 64 (`EX_USAGE`) for command-line mistakes, 1 otherwise.
    var exitStatus: Int32 {
        switch code {
        case .usage, .invalidAmount, .invalidName, .invalidNote: return 64
        case .unknownBudget, .duplicateBudget, .store, .outdatedStore: return 1
        }
    }

    static func unknownBudget(_ name: String) -> SpendSmartError {
        SpendSmartError(.unknownBudget, "no budget named \"\(name)\". Run \"spendsmart list\" to see the budgets.")
    }

    static func duplicateBudget(_ name: String) -> SpendSmartError {
        SpendSmartError(.duplicateBudget, "a budget named \"\(name)\" already exists. Pick another name, or rename the existing budget.")
    }

    /// Wraps an error thrown by Stowage while `action` ("open", "save", "read") the store.
    static func store(_ action: String, _ error: any Error) -> SpendSmartError {
        let reason = (error as? StowageError)?.message ?? String(describing: error)
        return SpendSmartError(.store, "could not \(action) the store: \(reason)")
    }
}
