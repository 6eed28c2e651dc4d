import Foundation
import GRDB
import Stowage

// The files of the "corrupt-files" scenario (CorruptFiles.swift): a real Stowage store and the 100
// damaged or foreign variants made from it.

@Model final class CorruptNote {
    var title: String
    var body: String
    var score: Double
    var created: Date
    var tag: CorruptTag?

    init(title: String, body: String, score: Double, created: Date) {
        self.title = title
        self.body = body
        self.score = score
        self.created = created
    }
}

/// A note's tag. No inverse (`notes`): a to-one relationship and its inverse make a reference cycle
/// between two models, which keeps their context, its container and the store open after the last
/// reference to them goes (reported; the scenario needs its stores closed).
@Model final class CorruptTag {
    @Attribute(.unique) var name: String

    init(name: String) { self.name = name }
}

@Model final class CorruptLog {
    var line: Int
    var message: String

    init(line: Int, message: String) {
        self.line = line
        self.message = message
    }
}

/// Another program's models: "a Stowage store of other models".
@Model final class CorruptForeignInvoice {
    var number: Int
    var customer: String
    var total: Double

    init(number: Int, customer: String, total: Double) {
        self.number = number
        self.customer = customer
        self.total = total
    }
}

/// One file (or directory) put where the container looks for its store, with the companions placed
/// beside it.
struct CorruptVariant {
    /// The family: "foreign", "wal", "text", "truncated", "random", "zeroed", "header", "page".
    let kind: String
    let name: String
    /// The store file's bytes; `nil` with `directory` for a directory at the store's path.
    let store: Data?
    var directory = false
    /// Files placed beside the store, by suffix (`-wal`, `-shm`).
    var companions: [String: Data] = [:]
}

/// The real files the variants are made from.
struct CorruptSources {
    /// The store, closed (its WAL checkpointed into it: one file).
    var store = Data()
    var pageSize = 4096
    /// The store's `-wal` copied after its first save, while it was open: older than the store.
    var staleWAL = Data()
    /// The store's file and `-wal` copied while it was open after its last save (what a crash leaves).
    var crashedStore = Data()
    var crashedWAL = Data()
    /// A Stowage store of other models (`CorruptForeignInvoice`), closed, and its `-wal` while open.
    var otherModels = Data()
    var otherModelsWAL = Data()
    /// A Stowage store of `CorruptLog` only: a subset of the scenario's models.
    var subset = Data()
    /// Another program's database (no Stowage metadata), in rollback-journal mode, and the `-wal` of
    /// a copy of it in WAL mode, copied while that copy was open.
    var foreignApp = Data()
    var foreignAppWAL = Data()
    /// A valid SQLite database with no tables.
    var emptySQLite = Data()
    /// The store changed by SQL another program ran on it, by what was done.
    var tampered: [(name: String, store: Data)] = []

    static var models: [any PersistentModel.Type] { [CorruptNote.self, CorruptTag.self, CorruptLog.self] }

    /// Makes the sources in `directory`.
    static func make(in directory: URL) throws -> CorruptSources {
        var sources = CorruptSources()
        let fileManager = FileManager.default
        try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
        func read(_ url: URL) throws -> Data { try Data(contentsOf: url) }
        func wal(_ url: URL) -> URL { URL(fileURLWithPath: url.path + "-wal") }
        /// Waits until a released container's store is one file: it closes at once, unless its change
        /// watcher was checking the file at that moment (the store then closes on the watcher's queue
        /// once the check ends).
        func closed(_ url: URL) throws -> Data {
            let deadline = now() + 5
            while fileManager.fileExists(atPath: wal(url).path) {
                guard now() < deadline else { throw SourceError("closing the store \(url.lastPathComponent) left a -wal beside it") }
                usleep(1000)
            }
            return try read(url)
        }

        // The store: tags, a few hundred notes (a table of several pages, so its b-tree has an interior
        // page), log lines; two saves.
        let store = directory.appendingPathComponent("base.store")
        do {
            let container = try ModelContainer(for: Schema(models), configurations: ModelConfiguration(url: store))
            let context = ModelContext(container)
            let tags = (0..<8).map { CorruptTag(name: "tag \($0)") }
            for tag in tags { context.insert(tag) }
            for index in 0..<150 {
                let note = CorruptNote(
                    title: "note \(index)", body: String(repeating: "body of note \(index); ", count: 6),
                    score: Double(index) / 4, created: Date(timeIntervalSinceReferenceDate: Double(index) * 3600))
                context.insert(note)
                note.tag = tags[index % tags.count]
            }
            try context.save()
            sources.staleWAL = try read(wal(store))
            for index in 150..<400 {
                let note = CorruptNote(
                    title: "note \(index)", body: String(repeating: "body of note \(index); ", count: 6),
                    score: Double(index) / 4, created: Date(timeIntervalSinceReferenceDate: Double(index) * 3600))
                context.insert(note)
                note.tag = tags[index % tags.count]
            }
            for line in 0..<50 { context.insert(CorruptLog(line: line, message: "log line \(line)")) }
            try context.save()
            sources.crashedStore = try read(store)
            sources.crashedWAL = try read(wal(store))
        }
        sources.store = try closed(store)
        sources.pageSize = Int(sources.store[16]) << 8 | Int(sources.store[17])
        if sources.pageSize == 1 { sources.pageSize = 65536 }

        // Another program's models, through Stowage.
        let other = directory.appendingPathComponent("other.store")
        do {
            let container = try ModelContainer(for: CorruptForeignInvoice.self, configurations: ModelConfiguration(url: other))
            let context = ModelContext(container)
            for number in 0..<60 { context.insert(CorruptForeignInvoice(number: number, customer: "customer \(number)", total: Double(number) * 9.5)) }
            try context.save()
            sources.otherModelsWAL = try read(wal(other))
        }
        sources.otherModels = try closed(other)

        let subset = directory.appendingPathComponent("subset.store")
        do {
            let container = try ModelContainer(for: CorruptLog.self, configurations: ModelConfiguration(url: subset))
            let context = ModelContext(container)
            for line in 0..<20 { context.insert(CorruptLog(line: line, message: "subset line \(line)")) }
            try context.save()
        }
        sources.subset = try closed(subset)

        // Another program's database, written with GRDB: its own tables, no Stowage metadata.
        let foreign = directory.appendingPathComponent("foreign.sqlite")
        let foreignSQL = """
            CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT UNIQUE);
            CREATE TABLE orders (id INTEGER PRIMARY KEY, person INTEGER REFERENCES person(id), amount REAL, placed TEXT);
            CREATE INDEX orders_person ON orders(person);
            """
        do {
            let queue = try DatabaseQueue(path: foreign.path)
            try queue.write { db in
                try db.execute(sql: foreignSQL)
                for id in 1...200 {
                    try db.execute(sql: "INSERT INTO person (id, name, email) VALUES (?, ?, ?)", arguments: [id, "person \(id)", "p\(id)@example.com"])
                    try db.execute(sql: "INSERT INTO orders (person, amount, placed) VALUES (?, ?, '2024-01-01')", arguments: [id, Double(id) * 1.5])
                }
            }
            try queue.close()
        }
        sources.foreignApp = try read(foreign)
        let foreignWAL = directory.appendingPathComponent("foreign-wal.sqlite")
        do {
            let queue = try DatabaseQueue(path: foreignWAL.path)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA journal_mode = WAL")
                try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
                try db.execute(sql: foreignSQL)
                try db.inTransaction {
                    for id in 1...200 {
                        try db.execute(sql: "INSERT INTO person (id, name, email) VALUES (?, ?, ?)", arguments: [id, "person \(id)", "p\(id)@example.com"])
                    }
                    return .commit
                }
            }
            sources.foreignAppWAL = try read(wal(foreignWAL))
            try queue.close()
        }

        let empty = directory.appendingPathComponent("empty.sqlite")
        do {
            let queue = try DatabaseQueue(path: empty.path)
            try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA user_version = 7") }
            try queue.close()
        }
        sources.emptySQLite = try read(empty)

        // The store after another program ran SQL on it.
        let tamperings: [(String, String)] = [
            ("a table added by another program", "CREATE TABLE other_program (id INTEGER PRIMARY KEY, value TEXT); INSERT INTO other_program (value) VALUES ('x')"),
            ("Stowage's metadata table dropped", "DROP TABLE _stowage_metadata"),
            ("the recorded layout replaced by invalid JSON", "UPDATE _stowage_metadata SET value = '{\"entities\": [' WHERE key = 'schema_layout'"),
            ("the store identifier removed", "DELETE FROM _stowage_metadata WHERE key = 'store_identifier'"),
            ("a model's table dropped", "DROP TABLE CorruptLog"),
            ("a column renamed", "ALTER TABLE CorruptLog RENAME COLUMN message TO text"),
            ("a text column holding blobs and integers", "UPDATE CorruptNote SET title = x'FF00FE', body = 12 WHERE _pk % 3 = 0"),
            ("a NOT NULL column holding NULL", "PRAGMA ignore_check_constraints = ON; PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, '\"score\" REAL NOT NULL', '\"score\" REAL') WHERE name = 'CorruptNote'"),
        ]
        for (index, (name, sql)) in tamperings.enumerated() {
            let copy = directory.appendingPathComponent("tampered-\(index).store")
            try sources.store.write(to: copy)
            let queue = try DatabaseQueue(path: copy.path)
            try queue.writeWithoutTransaction { db in try db.execute(sql: sql) }
            try queue.close()
            if name == "a NOT NULL column holding NULL" {
                // The schema change takes effect for new connections: now store NULLs in the column.
                let queue = try DatabaseQueue(path: copy.path)
                try queue.writeWithoutTransaction { db in try db.execute(sql: "UPDATE CorruptNote SET score = NULL WHERE _pk % 5 = 0") }
                try queue.close()
            }
            try? fileManager.removeItem(atPath: copy.path + "-wal")
            try? fileManager.removeItem(atPath: copy.path + "-shm")
            sources.tampered.append((name, try read(copy)))
        }
        return sources
    }

    struct SourceError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Every variant, in families; `random` chooses the offsets and bytes of the random ones.
    func variants(count: Int = 100, random: inout SeededGenerator) -> [CorruptVariant] {
        var list: [CorruptVariant] = []
        func add(_ kind: String, _ name: String, _ store: Data?, companions: [String: Data] = [:], directory: Bool = false) {
            list.append(CorruptVariant(kind: kind, name: name, store: store, directory: directory, companions: companions))
        }
        let size = store.count
        let pages = size / pageSize

        // Foreign files: the ones named in the tests come first (quick runs take the first of each family).
        add("foreign", "another app's database", foreignApp)
        add("foreign", "a Stowage store of other models", otherModels)
        add("foreign", "a Stowage store of a subset of the models", subset)
        add("foreign", "an SQLite database with no tables", emptySQLite)
        add("foreign", "an SQLite database with no tables and a damaged freelist", damagedFreelist)
        add("foreign", "the store itself, intact (the control)", store)
        for (name, data) in tampered { add("foreign", name, data) }

        // Write-ahead logs beside the store.
        add("wal", "the WAL of another app's database beside the store", store, companions: ["-wal": foreignAppWAL])
        add("wal", "the WAL of a Stowage store of other models beside the store", store, companions: ["-wal": otherModelsWAL])
        add("wal", "a stale WAL of the store itself", store, companions: ["-wal": staleWAL])
        add("wal", "an empty file with a WAL", Data(), companions: ["-wal": crashedWAL])
        add("wal", "the store and WAL a crash leaves", crashedStore, companions: ["-wal": crashedWAL])
        add("wal", "a WAL of random bytes", store, companions: ["-wal": randomBytes(8 * 1024, &random)])
        add("wal", "a WAL with its header only", store, companions: ["-wal": crashedWAL.prefix(32)])
        add("wal", "an empty WAL", store, companions: ["-wal": Data()])
        add("wal", "a -shm of random bytes beside the store and its WAL", crashedStore,
            companions: ["-wal": crashedWAL, "-shm": randomBytes(32 * 1024, &random)])

        // Not databases.
        add("text", "a text file", Data("These are my notes.\nNot a database.\n".utf8))
        add("text", "an empty file", Data())
        add("text", "a directory", nil, directory: true)
        add("text", "SQLite's magic string followed by text", Data("SQLite format 3\u{0}".utf8) + Data(String(repeating: "then text, ", count: 400).utf8))
        add("text", "a JSON document", Data(#"{"notes": [{"title": "a", "body": "b"}]}"#.utf8))
        add("text", "a gzip stream header", Data([0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0x03]) + randomBytes(500, &random))

        // Truncated: page boundaries and odd offsets.
        var lengths = [1, 15, 16, 17, 99, 100, 101, 512, pageSize / 2, pageSize - 1, pageSize + 1, pageSize + 100,
                       2 * pageSize - 1, size / 2 + 3, size - pageSize + 1, size - 100, size - 1]
        let boundaries = Array(Set((1..<pages).map { $0 * pageSize }).sorted())
        let step = max(1, boundaries.count / 6)
        lengths += stride(from: 0, to: boundaries.count, by: step).map { boundaries[$0] }
        for length in lengths.filter({ $0 > 0 && $0 < size }) {
            add("truncated", "truncated to \(length) bytes", store.prefix(length))
        }

        // Random bytes, with and without SQLite's header.
        for length in [1, 100, 4096, 8192, size] {
            add("random", "\(length) random bytes", randomBytes(length, &random))
        }
        for length in [100, pageSize, size] {
            add("random", "SQLite's header then \(length - 100) random bytes", store.prefix(100) + randomBytes(length - 100, &random))
        }

        // Zeroed.
        func zeroed(_ range: Range<Int>) -> Data {
            var data = store
            data.replaceSubrange(range, with: Data(count: range.count))
            return data
        }
        add("zeroed", "the first 16 bytes zeroed", zeroed(0..<16))
        add("zeroed", "the 100-byte header zeroed", zeroed(0..<100))
        add("zeroed", "the first page zeroed", zeroed(0..<pageSize))
        add("zeroed", "the second page zeroed", zeroed(pageSize..<2 * pageSize))
        add("zeroed", "the last page zeroed", zeroed((pages - 1) * pageSize..<size))

        // The header's fields, each with a byte's bits inverted, and a few chosen values.
        let fields: [(Int, String)] = [
            (0, "magic string"), (15, "magic string's NUL"), (16, "page size (high byte)"), (17, "page size (low byte)"),
            (18, "write version"), (19, "read version"), (20, "reserved space per page"),
            (21, "maximum payload fraction"), (23, "leaf payload fraction"), (27, "change counter"), (31, "size in pages"),
            (35, "first freelist page"), (39, "freelist page count"), (43, "schema cookie"), (47, "schema format"),
            (55, "largest root page (auto-vacuum)"), (59, "text encoding"), (71, "application id"), (95, "version-valid-for number"),
        ]
        for (offset, field) in fields {
            var data = store
            data[offset] ^= 0xFF
            add("header", "header: \(field) (byte \(offset)) inverted", data)
        }
        func header(_ name: String, _ changes: [Int: UInt8]) {
            var data = store
            for (offset, value) in changes { data[offset] = value }
            add("header", "header: \(name)", data)
        }
        header("text encoding UTF-16le", [59: 2])
        header("page size 512 (the file's pages are larger)", [16: 0x02, 17: 0x00])
        header("size in pages 1", [28: 0, 29: 0, 30: 0, 31: 1])

        // Damage inside the file: the schema's text, the metadata, page headers.
        func replacingFirst(_ text: String, with replacement: String) -> Data? {
            guard let range = store.firstRange(of: Data(text.utf8)) else { return nil }
            var data = store
            data.replaceSubrange(range, with: Data(replacement.utf8))
            return data
        }
        if let data = replacingFirst(#"CREATE TABLE "CorruptNote""#, with: #"CRE@TE TABLE "CorruptNote""#) {
            add("page", "a CREATE TABLE statement of the schema garbled", data)
        }
        if let data = replacingFirst(#"CREATE TABLE "CorruptNote""#, with: #"CREATE TABLE "CorruptNotX""#) {
            add("page", "a table renamed in the schema's text", data)
        }
        if let data = replacingFirst(#""entities""#, with: #""entitiez""#) {
            add("page", "the recorded layout's JSON garbled", data)
        }
        for page in [2, pages / 2, pages] where page >= 2 {
            var data = store
            data[(page - 1) * pageSize] = 0x07  // not a b-tree page type
            add("page", "page \(page)'s type byte invalid", data)
        }
        // Random bytes changed in random pages (page 1 after its header is the schema's b-tree).
        while list.count < count {
            let page = Int.random(in: 1...pages, using: &random)
            let first = page == 1 ? 100 : 0
            let flips = Int.random(in: 1...4, using: &random)
            var data = store
            var offsets: [Int] = []
            for _ in 0..<flips {
                let offset = (page - 1) * pageSize + Int.random(in: first..<pageSize, using: &random)
                data[offset] ^= UInt8.random(in: 1...255, using: &random)
                offsets.append(offset)
            }
            add("page", "page \(page): bytes changed at \(offsets.sorted().map(String.init).joined(separator: ", "))", data)
        }
        return list
    }

    /// ``emptySQLite`` (rollback-journal mode) with a second page on its freelist, of 0xFF bytes: SQLite
    /// reads it as a database with no tables, and finds the damage only when it allocates a page.
    var damagedFreelist: Data {
        var data = emptySQLite
        let pageSize = Int(data[16]) << 8 | Int(data[17])
        func put(_ value: UInt32, at offset: Int) {
            data.replaceSubrange(offset..<offset + 4, with: withUnsafeBytes(of: value.bigEndian) { Data($0) })
        }
        put(2, at: 28)  // size in pages
        put(2, at: 32)  // first freelist trunk page
        put(1, at: 36)  // freelist page count
        data.append(Data(repeating: 0xFF, count: pageSize))
        return data
    }

    private func randomBytes(_ count: Int, _ random: inout SeededGenerator) -> Data {
        Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &random) })
    }
}
