import Foundation
import Stowage
import Testing

/// Issue 16's "file modes": a store and the files SQLite keeps beside it (write-ahead log, shared
/// memory index) are readable and writable by their owner only (Stowage creates the store 0600; SQLite
/// gives the files beside it the store's mode).
@Suite("File modes")
struct FileModeTests {
    @Test func theStoreAndItsWALAndSharedMemoryFilesAreOwnerOnly() throws {
        try withFileStore([Item.self]) { url, open in
            let container = try open()
            let context = ModelContext(container)
            context.insert(Item(name: "a", value: 1))
            try context.save()
            // While the container is open, the -wal and -shm files exist.
            for path in [url.path, url.path + "-wal", url.path + "-shm"] {
                let attributes = try FileManager.default.attributesOfItem(atPath: path)
                let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
                #expect(mode == 0o600, "\(path) has mode \(String(mode, radix: 8))")
            }
            _ = container
        }
    }
}
