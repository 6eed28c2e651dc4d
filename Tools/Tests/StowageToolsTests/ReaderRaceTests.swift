import ExampleTestSupport
import Foundation
import GRDB
import Stowage
import StowageTools
import Testing

@Suite("Reading a store while its app opens and closes it")
struct ReaderRaceTests {
    /// The app's last connection closing removes the `-wal` and `-shm`; a reader that saw them a moment
    /// before must still open the store (it reads the file as it is then), not fail with "cannot be opened".
    @Test func aReaderOpensWhileTheAppOpensAndClosesTheStore() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-reader-race")
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("tags.store")
        do {
            let context = ModelContext(try ModelContainer(for: Schema(toolModels), configurations: ModelConfiguration(url: url)))
            context.insert(ToolTag(name: "red"))
            try context.save()
        }
        let stop = Locked(false)
        // The app: a connection that writes (creating the -wal and -shm), then closes (removing them).
        let app = Thread {
            var configuration = Configuration()
            configuration.prepareDatabase { db in
                if let connection = db.sqliteConnection { StowageSQLFunctions.register(on: connection) }
            }
            while !stop.value {
                if let queue = try? DatabaseQueue(path: url.path, configuration: configuration) {
                    try? queue.write { db in try db.execute(sql: "UPDATE ToolTag SET name = name") }
                    try? queue.close()
                }
            }
        }
        app.start()
        defer { stop.set(true) }
        var failures: [String] = []  // what the reader threw, most recent last
        let deadline = Date().addingTimeInterval(1.5)
        var opened = 0
        while Date() < deadline {
            do {
                let reader = try StoreReader(path: url.path)
                _ = try reader.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM ToolTag") }
                opened += 1
            } catch {
                failures.append("\(error)")
            }
        }
        stop.set(true)
        #expect(opened > 0)
        #expect(failures.isEmpty, "\(failures.count) of \(opened + failures.count) opens failed, the first: \(failures.first ?? "")")
        print("stowage's reader opened a store \(opened) times in 1.5 s while another connection opened, wrote and closed it")
    }
}
