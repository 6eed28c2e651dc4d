import ExampleSupport

/// Output and error lines written by a command, for exact comparisons.
public final class Transcript {
    /// The lines written as normal output, in order.
    public private(set) var output: [String] = []
    /// The lines written as error output, in order.
    public private(set) var errors: [String] = []

    /// Creates an empty transcript.
    public init() {}

    /// A console that appends to this transcript.
    public var console: Console {
        Console(write: { self.output.append($0) }, writeError: { self.errors.append($0) })
    }
}
