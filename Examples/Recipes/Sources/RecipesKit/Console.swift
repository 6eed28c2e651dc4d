import Foundation

/// Where Recipes writes: lines for the user, and error lines. Tests capture both.
public struct Console {
    /// Writes a line of normal output.
    public var write: (String) -> Void
    /// Writes a line of error output.
    public var writeError: (String) -> Void

    /// Creates a console from two line writers.
    public init(write: @escaping (String) -> Void, writeError: @escaping (String) -> Void) {
        self.write = write
        self.writeError = writeError
    }

    /// Standard output and standard error.
    public static var standard: Console {
        Console(
            write: { print($0) },
            writeError: { FileHandle.standardError.write(Data(($0 + "\n").utf8)) })
    }
}
