import Foundation

/// A directory of its own under the temporary directory, removed by ``remove()``.
public struct TemporaryDirectory {
    /// The directory.
    public let url: URL

    /// Creates a directory named `<prefix>-<UUID>` under the temporary directory.
    public init(prefix: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of the file `name` in the directory.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Removes the directory and everything in it.
    public func remove() { try? FileManager.default.removeItem(at: url) }
}
