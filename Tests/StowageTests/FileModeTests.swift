import Foundation
import Stowage
import Testing

/// Issue 16's "file modes": a store and the files kept beside it (SQLite's write-ahead log and shared
/// memory index, Stowage's write turns on Linux) are readable and writable by their owner only (Stowage
/// creates the store 0600; SQLite and the write turns give the files beside it the store's mode).
@Suite("File modes")
struct FileModeTests {
    @Test func theStoreAndTheFilesBesideItAreOwnerOnly() throws {
        try withFileStore([Item.self]) { url, open in
            let container = try open()
            let context = ModelContext(container)
            context.insert(Item(name: "a", value: 1))
            try context.save()
            // While the container is open, the -wal and -shm files exist (and, after a save on Linux,
            // the -lock file).
            var paths = [url.path, url.path + "-wal", url.path + "-shm"]
            #if os(Linux)
            paths.append(url.path + "-lock")
            #endif
            for path in paths {
                let attributes = try FileManager.default.attributesOfItem(atPath: path)
                let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
                #expect(mode == 0o600, "\(path) has mode \(String(mode, radix: 8))")
            }
            _ = container
        }
    }
}
