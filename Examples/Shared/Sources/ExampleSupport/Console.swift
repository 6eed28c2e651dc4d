import Foundation

/// Where an example writes: lines for the user, and error lines. Tests capture both.
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

extension Console {
    /// Runs one command and returns the process exit status.
    ///
    /// An error thrown by `command` is written to the error output as `error: <message>`.
    ///
    /// - Returns: 0 on success, the ``ExampleError/exitStatus`` of an ``ExampleError`` (64 for a usage
    ///   error, 1 otherwise), 1 for any other error.
    public func run(_ command: () throws -> Void) -> Int32 {
        do {
            try command()
            return 0
        } catch let error as any ExitStatusError {
            writeError("error: \(error.message)")
            return error.exitStatus
        } catch {
            writeError("error: \(error)")
            return 1
        }
    }

    /// Writes the title of a demo's step after a blank line, as `2. List every budget`.
    public func writeStep(_ number: Int, _ title: String) {
        write("")
        write("\(number). \(title)")
    }
}
