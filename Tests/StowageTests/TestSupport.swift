import Foundation
import GRDB
import Stowage
@testable import StowageCore

/// A unique temporary directory for one test, removed by `remove()`.
struct TemporaryDirectory {
    let url: URL

    init(_ function: String = #function) throws {
        let name = "stowage-tests-\(function.prefix { $0.isLetter || $0.isNumber })-\(UUID().uuidString)"
        url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A file URL inside the directory.
    func file(_ name: String = "store.sqlite") -> URL { url.appendingPathComponent(name) }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// Runs `body` with a container whose store is a file in a fresh temporary directory.
func withFileStore<Result>(
    _ types: [any PersistentModel.Type], function: String = #function,
    _ body: (_ url: URL, _ open: () throws -> ModelContainer) throws -> Result
) throws -> Result {
    let directory = try TemporaryDirectory(function)
    defer { directory.remove() }
    let url = directory.file()
    return try body(url) { try ModelContainer(for: Schema(types), configurations: ModelConfiguration(url: url)) }
}

/// Creates a store file at `url` holding one saved `Item` named `name`, and closes it.
func createStore(at url: URL, item name: String) throws {
    let context = ModelContext(try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: url)))
    context.insert(Item(name: name, value: 1))
    try context.save()
}

/// Whether a statement reads or writes the store's history (which every save records), for tests
/// about the statements of the models' own tables.
func isHistoryStatement(_ sql: String) -> Bool { sql.contains("_stowage_history") }

/// A container keeping items in `items.store` and budgets (with their expenses) in `budgets.store`.
func twoStores(in directory: TemporaryDirectory) throws -> (ModelContainer, items: URL, budgets: URL) {
    let items = directory.file("items.store"), budgets = directory.file("budgets.store")
    let container = try ModelContainer(
        for: Budget.self, Item.self,
        configurations: ModelConfiguration("items", schema: Schema([Item.self]), url: items),
        ModelConfiguration("rest", url: budgets))
    return (container, items, budgets)
}

/// An in-memory container for `types`.
func inMemoryContainer(_ types: any PersistentModel.Type...) throws -> ModelContainer {
    try ModelContainer(for: Schema(types), configurations: ModelConfiguration(isStoredInMemoryOnly: true))
}

/// The SQLite store of a container, for raw checks.
func sqliteStore(_ container: ModelContainer) -> SQLiteStore {
    container.store as! SQLiteStore
}

/// Reads a store file with plain GRDB, outside Stowage.
func rawRead<Result>(_ url: URL, _ body: (Database) throws -> Result) throws -> Result {
    var configuration = Configuration()
    configuration.readonly = true
    let queue = try DatabaseQueue(path: url.path, configuration: configuration)
    return try queue.read(body)
}

/// The bytes of a file, or `nil` when it does not exist.
func fileBytes(_ url: URL) -> Data? {
    FileManager.default.contents(atPath: url.path)
}

/// The POSIX permissions of a file.
func permissions(_ url: URL) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

/// Runs `body` and returns the `StowageError` it throws, or `nil` (recording an issue) when it throws
/// something else or nothing.
func stowageError(_ body: () throws -> Void) -> StowageError? {
    do {
        try body()
        return nil
    } catch let error as StowageError {
        return error
    } catch {
        return nil
    }
}

/// Captures the statements of containers opened while it lives.
final class StatementCapture: Sendable {
    let log = SQLDebug.StatementLog()
    let observation: SQLObservation

    init() {
        let log = self.log
        observation = SQLDebug.observe { log.append($0) }
    }

    func sql(of container: ModelContainer) -> [String] { log.events(of: container).map(\.sql) }

    /// The statements a container ran, without transaction control and pragmas.
    func statements(of container: ModelContainer) -> [SQLStatementEvent] {
        let ignored = ["BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE", "PRAGMA"]
        return log.events(of: container).filter { event in
            !ignored.contains { event.sql.uppercased().hasPrefix($0) }
        }
    }

    /// Statements other than transaction control.
    func writes(of container: ModelContainer) -> [SQLStatementEvent] {
        statements(of: container).filter { !$0.sql.uppercased().hasPrefix("SELECT") }
    }

    func removeAll() { log.removeAll() }
}
