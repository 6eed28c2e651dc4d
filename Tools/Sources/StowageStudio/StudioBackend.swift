import Foundation
import GRDB
import StowageCore
import StowageTools

/// Where a studio reads its store and how its edits are saved: a store file on its own
/// (``FileBackend``, what `stowage studio` serves), or an app's container (``ContainerBackend``).
protocol StudioBackend: Sendable {
    /// Whether the studio may edit.
    var isWritable: Bool { get }
    /// Whether edits are saves of the app's models (a mounted studio), which set every relationship,
    /// rather than ``StoreEditor``'s (see ``StoreEditor/refusal(toSet:of:in:)``).
    var editsThroughModels: Bool { get }
    /// A reader of the store as it is now.
    func reader() throws -> StoreReader
    /// The store file's and its `-wal`'s sizes and times: they change with every commit.
    var signature: FileSignature { get }
    /// Saves `changes` as one save by the author `stowage-studio`.
    /// - Returns: the keys of the inserted rows.
    func apply(_ changes: [StoreEditor.Change]) throws -> [Int64]
    /// What deleting a row would remove, and whether its delete rules allow it.
    func deletePlan(entity: String, key: Int64) throws -> StoreEditor.DeletePlan
}

/// The history author of every studio edit.
let studioAuthor = "stowage-studio"

/// A store file opened by the studio itself.
///
/// Read-only, it reads the file without changing a byte (``StoreReader``'s untouched reading). With
/// `--write`, a writable connection serves reads and edits. Either way it opens the store again when the
/// file or its `-wal` changed, so that it sees another process's saves and, after the app migrated the
/// store, its new models (an edit that raced a migration is refused by ``StoreReader/write(_:)``).
final class FileBackend: StudioBackend, @unchecked Sendable {  // @unchecked: `current` is behind `lock`.
    let path: String
    let isWritable: Bool
    var editsThroughModels: Bool { false }
    private let lock = NSLock()
    private var current: (reader: StoreReader, signature: FileSignature)?

    init(path: String, writable: Bool) throws {
        self.path = path
        isWritable = writable
        _ = try reader()
    }

    func reader() throws -> StoreReader {
        try lock.withLock {
            let signature = FileSignature(path)
            if let current, current.signature == signature { return current.reader }
            let reader = try StoreReader(path: path, writable: isWritable)
            current = (reader, signature)
            return reader
        }
    }

    var signature: FileSignature { FileSignature(path) }

    func apply(_ changes: [StoreEditor.Change]) throws -> [Int64] {
        try StoreEditor(try reader()).apply(changes, author: studioAuthor).insertedKeys
    }

    func deletePlan(entity: String, key: Int64) throws -> StoreEditor.DeletePlan {
        try StoreEditor(try reader()).deletePlan(entity: entity, key: key)
    }
}

/// The sizes and modification times of a store file and its `-wal`, and the header of the `-shm` (the
/// WAL index, whose change counter and last frame move with every commit, even one that rewrites a
/// reset `-wal` in place within the same clock tick): when they are unchanged, no process has committed
/// to the store since. Reading them changes nothing.
struct FileSignature: Equatable {
    private let parts: [Int64]
    private let walIndex: Data

    init(_ path: String) {
        var parts: [Int64] = []
        for file in [path, path + "-wal"] {
            var info = stat()
            if stat(file, &info) == 0 {
                parts += [Int64(info.st_size), Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec), Int64(info.st_ino)]
            } else {
                parts.append(-1)
            }
        }
        self.parts = parts
        if let handle = FileHandle(forReadingAtPath: path + "-shm") {
            walIndex = (try? handle.read(upToCount: 48)) ?? Data()
            try? handle.close()
        } else {
            walIndex = Data()
        }
    }

    /// The number of frames in the `-wal` (the WAL index header's `mxFrame`, in native byte order), or
    /// `nil` without one: it grows with each commit, and falls to 0 when a checkpoint restarts the log.
    var walFrames: UInt32? {
        guard walIndex.count >= 20 else { return nil }
        return walIndex.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 16, as: UInt32.self) }
    }
}

/// An app's container: reads come from its store file, edits go through a ``ModelContext`` of the
/// container, so that they are the app's own saves (its delete rules, uniqueness and observers).
final class ContainerBackend: StudioBackend, @unchecked Sendable {  // @unchecked: immutable; FileBackend locks.
    let container: ModelContainer
    let isWritable: Bool
    var editsThroughModels: Bool { true }
    private let file: FileBackend

    init(container: ModelContainer, writable: Bool) throws {
        guard container.configurations.count == 1, let configuration = container.configurations.first,
              !configuration.isStoredInMemoryOnly, configuration.url.isFileURL
        else {
            throw ToolError(
                "Stowage Studio reads one store file: this container's store is kept in memory, is not an SQLite file, or is several stores")
        }
        self.container = container
        isWritable = writable
        file = try FileBackend(path: configuration.url.path, writable: false)
    }

    func reader() throws -> StoreReader { try file.reader() }
    var signature: FileSignature { file.signature }

    func apply(_ changes: [StoreEditor.Change]) throws -> [Int64] {
        let description = try reader().description
        let stored = try changes.map { change -> StoredChange in
            switch change {
            case .update(let entity, let key, let values):
                let (attributes, links) = try Self.split(values, of: try Self.entity(entity, in: description))
                return .update(entity: entity, key: key, attributes: attributes, links: links)
            case .insert(let entity, let values):
                let (attributes, links) = try Self.split(values, of: try Self.entity(entity, in: description))
                return .insert(entity: entity, attributes: attributes, links: links)
            case .delete(let entity, let key):
                return .delete(entity: entity, key: key)
            case .append(let entity, let key, let relationship, let row):
                return .append(entity: entity, key: key, relationship: relationship, row: row)
            case .remove(let entity, let key, let relationship, let row):
                return .remove(entity: entity, key: key, relationship: relationship, row: row)
            }
        }
        let context = ModelContext(container)
        context.author = studioAuthor
        return try context.applyStoredChanges(stored)
    }

    func deletePlan(entity: String, key: Int64) throws -> StoreEditor.DeletePlan {
        try StoreEditor(try reader()).deletePlan(entity: entity, key: key)
    }

    private static func entity(_ name: String, in description: StoreDescription) throws -> StoreDescription.Entity {
        guard let entity = description.entity(named: name) else { throw ToolError("the store has no entity \(name)") }
        return entity
    }

    /// JSON values by property name as the container's stored values and links: a to-one relationship
    /// takes a row's key or `null`, a to-many one an array of keys.
    private static func split(
        _ values: [String: JSONValue], of entity: StoreDescription.Entity
    ) throws -> ([String: StorageValue], [String: [Int64]]) {
        var attributes: [String: StorageValue] = [:]
        var links: [String: [Int64]] = [:]
        func key(_ value: JSONValue, of name: String) throws -> Int64 {
            guard case .number(let text) = value, let key = Int64(text) else { throw ToolError("\(name) takes rows' keys, not \(value.text)") }
            return key
        }
        for (name, value) in values {
            if let attribute = entity.attributes.first(where: { $0.name == name }) {
                attributes[name] = StorageValue(try StoredValues.stored(value, for: attribute))
            } else if let relationship = entity.relationships.first(where: { $0.name == name }) {
                switch (relationship.isToMany, value) {
                case (false, .null): links[name] = []
                case (false, _): links[name] = [try key(value, of: name)]
                case (true, .array(let elements)): links[name] = try elements.map { try key($0, of: name) }
                case (true, _): throw ToolError("\(name) is a to-many relationship: it takes an array of rows' keys, not \(value.text)")
                }
            } else {
                throw ToolError("\(entity.name) has no attribute or relationship \(name)")
            }
        }
        return (attributes, links)
    }
}

extension StorageValue {
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let integer): self = .integer(integer)
        case .double(let real): self = .real(real)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .blob(data)
        }
    }
}

extension StoreEditor.DeletePlan {
    /// The plan as the delete page's JSON twin gives it.
    var json: JSONValue {
        func rows(_ groups: [StoreEditor.RowKeys]) -> JSONValue {
            .array(groups.map { .object([("entity", .string($0.entity)), ("keys", .array($0.keys.map(JSONValue.integer)))]) })
        }
        return .object([
            ("entity", .string(entity)), ("key", .integer(key)), ("label", .string(label)), ("summary", .string(summary)),
            ("allowed", .bool(!isDenied)),
            ("deletes", rows(deletions)),
            ("clears", .array(clearedLinks.map {
                .object([("entity", .string($0.entity)), ("relationship", .string($0.relationship)), ("keys", .array($0.keys.map(JSONValue.integer)))])
            })),
            ("denials", .array(denials.map {
                .object([("entity", .string($0.entity)), ("key", .integer($0.key)), ("relationship", .string($0.relationship)), ("related", rows($0.related))])
            })),
        ])
    }
}
