import ExampleSupport

/// The error codes of an example used only by these tests.
enum TestCode: ExampleErrorCode {
    case usage, invalidInput, missing, store

    var isUsageError: Bool { self == .usage || self == .invalidInput }
}

typealias TestError = ExampleError<TestCode>
typealias Arguments = CommandLineArguments<TestCode>
