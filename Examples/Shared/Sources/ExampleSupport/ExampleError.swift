import Foundation
import Stowage

/// The kinds of problem an example reports: each example lists its own in an enum.
public protocol ExampleErrorCode: Equatable, Sendable {
    /// The command line is malformed: unknown command, missing or extra arguments, bad option.
    static var usage: Self { get }
    /// The store could not be opened, read or written.
    static var store: Self { get }
    /// Whether the problem is a mistake in what the user typed, which exits with status 64
    /// (`EX_USAGE`) rather than 1.
    var isUsageError: Bool { get }
}

/// A problem an example reports to the user: what went wrong and what to do about it.
///
/// Each example names its own: `typealias SpendSmartError = ExampleError<SpendSmartErrorCode>`.
public struct ExampleError<Code: ExampleErrorCode>: Error, Equatable, CustomStringConvertible {
    /// What kind of problem it is.
    public let code: Code
    /// What went wrong and what to do about it, written after `error: `.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    public var description: String { message }

    /// The process exit status for this error: 64 (`EX_USAGE`) for a mistake in what the user typed,
    /// 1 otherwise.
    public var exitStatus: Int32 { code.isUsageError ? 64 : 1 }

    /// Wraps an error thrown by Stowage while `action` ("save to", "read") the store.
    public static func store(_ action: String, _ error: any Error) -> Self {
        Self(.store, "could not \(action) the store: \(reason(error))")
    }

    /// Wraps an error thrown by Stowage while opening the store at `url`.
    public static func store(openingAt url: URL, _ error: any Error) -> Self {
        Self(.store, "could not open the store at \(url.path): \(reason(error))")
    }

    /// The message of a `StowageError`, or the description of another error.
    private static func reason(_ error: any Error) -> String {
        (error as? StowageError)?.message ?? String(describing: error)
    }
}

/// An error that ``Console/run(_:)`` reports with its own message and exit status.
protocol ExitStatusError: Error {
    var message: String { get }
    var exitStatus: Int32 { get }
}

extension ExampleError: ExitStatusError {}
