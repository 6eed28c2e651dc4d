import CFuzzerDriver
import Foundation
import GRDB
import Stowage

// libFuzzer target: the fuzzer's bytes are written to a file and opened as a store, with
// `allowsSave: false` then `allowsSave: true`; when a container opens, every model is fetched and
// read. Every step must succeed or throw a `StowageError`; a refused file and a read-only open must
// leave the file's bytes as they were. Anything else prints "DIFFERENCE" and aborts (libFuzzer saves
// the input); a crash or an ASan report is libFuzzer's own.
//
//     fuzz-open-store [libFuzzer flags] CORPUS [MORE CORPORA…]      (see ../../fuzz.sh)
//
// When the first corpus directory is empty, real store files are written into it first: Stowage
// stores of these models (4096-byte pages as Stowage makes them, and vacuumed to 512-byte pages in
// rollback-journal mode, which makes small inputs), an empty store, a store of other models, another
// program's database.

@Model final class FuzzNote {
    var title: String
    var score: Double
    var created: Date
    var tag: FuzzTag?

    init(title: String, score: Double, created: Date) {
        self.title = title
        self.score = score
        self.created = created
    }
}

/// No inverse (`notes`): a relationship and its inverse make a reference cycle between two models that
/// keeps their container and its store open (reported), and the seeds are read once their store closed.
@Model final class FuzzTag {
    @Attribute(.unique) var name: String

    init(name: String) { self.name = name }
}

@Model final class FuzzOther {
    var label: String
    init(label: String) { self.label = label }
}

enum OpenStore {
    static let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stowage-fuzz-open-\(getpid())")
    static let store = directory.appendingPathComponent("fuzz.store")
    static var models: [any PersistentModel.Type] { [FuzzNote.self, FuzzTag.self] }
    nonisolated(unsafe) static var executions = 0
    nonisolated(unsafe) static var opened = 0
    nonisolated(unsafe) static var refusals: [String: Int] = [:]

    static func run(_ data: Data) {
        executions += 1
        for allowsSave in [false, true] {
            place(data)
            var refusal: String?
            do {
                let container = try ModelContainer(for: Schema(models), configurations: ModelConfiguration(url: store, allowsSave: allowsSave))
                let context = ModelContext(container)
                for note in try fetch(context, FetchDescriptor<FuzzNote>()) { _ = (note.title, note.score, note.created) }
                for tag in try fetch(context, FetchDescriptor<FuzzTag>()) { _ = tag.name }
                opened += 1
            } catch let error as StowageError {
                refusal = error.code.rawValue
                refusals[error.code.rawValue, default: 0] += 1
            } catch {
                fail(data, "allowsSave: \(allowsSave): not a StowageError: \(type(of: error)): \(error)")
            }
            let unchanged = (try? Data(contentsOf: store)) == data
            if let refusal, !unchanged {
                fail(data, "allowsSave: \(allowsSave): refused (\(refusal)) and the file's bytes changed")
            }
            if !allowsSave, !unchanged {
                fail(data, "allowsSave: false: the open changed the file's bytes")
            }
        }
    }

    /// Fetches, turning a fetch's StowageError into nothing fetched (a damaged page shows at fetch time).
    static func fetch<T: PersistentModel>(_ context: ModelContext, _ descriptor: FetchDescriptor<T>) throws -> [T] {
        do {
            return try context.fetch(descriptor)
        } catch let error as StowageError {
            refusals["fetch " + error.code.rawValue, default: 0] += 1
            return []
        }
    }

    static func place(_ data: Data) {
        let fileManager = FileManager.default
        for suffix in ["", "-wal", "-shm", "-journal"] { try? fileManager.removeItem(atPath: store.path + suffix) }
        do {
            try data.write(to: store)
        } catch {
            FileHandle.standardError.write(Data("fuzz-open-store: cannot write \(store.path): \(error)\n".utf8))
            exit(1)
        }
    }

    /// Waits until the store at `url` is one file again: a released container closes its store at
    /// once, except when its change watcher was checking the file at that moment (it then holds the
    /// container until its check ends, and the store closes on the watcher's queue a moment later).
    static func waitUntilClosed(_ url: URL) throws {
        let deadline = Date().addingTimeInterval(5)
        while FileManager.default.fileExists(atPath: url.path + "-wal") {
            guard Date() < deadline else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path + "-wal"]) }
            usleep(1000)
        }
    }

    static func fail(_ data: Data, _ detail: String) -> Never {
        FileHandle.standardError.write(Data("DIFFERENCE: \(detail) (input of \(data.count) bytes)\n".utf8))
        abort()
    }

    /// Writes the seed stores into `corpus`.
    static func seed(_ corpus: URL) throws {
        let work = directory.appendingPathComponent("seeds")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        func stowageStore(_ name: String, rows: Int) throws -> URL {
            let url = work.appendingPathComponent(name)
            let container = try ModelContainer(for: Schema(models), configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let tags = (0..<3).map { FuzzTag(name: "tag \($0)") }
            if rows > 0 { for tag in tags { context.insert(tag) } }
            for index in 0..<rows {
                let note = FuzzNote(title: "note \(index)", score: Double(index) / 2, created: Date(timeIntervalSinceReferenceDate: Double(index)))
                context.insert(note)
                note.tag = tags[index % 3]
            }
            try context.save()
            return url
        }
        func copy(_ url: URL, as name: String) throws {
            try waitUntilClosed(url)
            try Data(contentsOf: url).write(to: corpus.appendingPathComponent(name))
        }
        let full = try stowageStore("notes.store", rows: 40)
        try copy(full, as: "seed-stowage-4096")  // waits for the container to close
        // The same store with 512-byte pages, in rollback-journal mode. VACUUM rebuilds the indexes,
        // whose String keys use Stowage's SQL function `stowage_nfc` (NFC; values unchanged otherwise).
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            db.add(function: DatabaseFunction("stowage_nfc", argumentCount: 1, pure: true) { values in
                guard let text = String.fromDatabaseValue(values[0]) else { return values[0] }
                return text.precomposedStringWithCanonicalMapping
            })
        }
        let queue = try DatabaseQueue(path: full.path, configuration: configuration)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = DELETE")
            try db.execute(sql: "PRAGMA page_size = 512")
            try db.execute(sql: "VACUUM")
        }
        try queue.close()
        try copy(full, as: "seed-stowage-512")
        try copy(try stowageStore("empty.store", rows: 0), as: "seed-stowage-empty")
        let other = work.appendingPathComponent("other.store")
        do {
            let container = try ModelContainer(for: FuzzOther.self, configurations: ModelConfiguration(url: other))
            let context = ModelContext(container)
            for index in 0..<5 { context.insert(FuzzOther(label: "other \(index)")) }
            try context.save()
        }
        try copy(other, as: "seed-stowage-other-models")
        let foreign = work.appendingPathComponent("foreign.sqlite")
        let foreignQueue = try DatabaseQueue(path: foreign.path)
        try foreignQueue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA page_size = 512")
            try db.execute(sql: "CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO person (name) VALUES ('a'), ('b')")
        }
        try foreignQueue.close()
        try copy(foreign, as: "seed-foreign-app")
    }
}

try FileManager.default.createDirectory(at: OpenStore.directory, withIntermediateDirectories: true)
// The first argument that is not a flag: a corpus directory to seed when empty (or an input to replay).
if let corpus = CommandLine.arguments.dropFirst().first(where: { !$0.hasPrefix("-") }) {
    let url = URL(fileURLWithPath: corpus)
    var isDirectory: ObjCBool = false
    if !FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        isDirectory = true
    }
    if isDirectory.boolValue, try FileManager.default.contentsOfDirectory(atPath: url.path).isEmpty {
        try OpenStore.seed(url)
        FileHandle.standardError.write(Data("fuzz-open-store: seeded \(url.path)\n".utf8))
    }
}
atexit {
    try? FileManager.default.removeItem(at: OpenStore.directory)
    guard OpenStore.executions > 0 else { return }  // libFuzzer's fork-mode parent runs no input itself.
    let refusals = OpenStore.refusals.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    FileHandle.standardError.write(Data("fuzz-open-store: \(OpenStore.executions) inputs, \(OpenStore.opened) opens succeeded; StowageErrors: \(refusals)\n".utf8))
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in
    OpenStore.run(data.map { Data(bytes: $0, count: size) } ?? Data())
    return 0
}
exit(status)
