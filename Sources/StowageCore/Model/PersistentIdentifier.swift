import Foundation

/// The identifier of one persisted model: its entity, its store and its primary key.
///
/// Identifiers are values: compare them, keep them in sets, send them across actors and look the
/// model up again with ``ModelContext/model(for:)`` or ``ModelContext/registeredModel(for:)``.
/// A model inserted but not yet saved has a *temporary* identifier; the save that writes it gives it
/// its permanent one.
public struct PersistentIdentifier: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    /// A temporary key, or a row's: a primary key (0 and up), or the stand-in (below 0) of a key a
    /// custom data store gave (see ``CustomPrimaryKeys``).
    enum Key: Hashable, Comparable, Codable, Sendable {
        case temporary(UInt64)
        case row(Int64)

        private enum CodingKeys: String, CodingKey { case temporary, row, custom }
        private enum PayloadKeys: String, CodingKey { case _0 }

        // The synthesized form (`{"row":{"_0":12}}`), and a custom data store's key as its JSON text, so
        // that the stand-in, which only means something in this process, is never written.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if let json = try container.decodeIfPresent(String.self, forKey: .custom) {
                self = .row(CustomPrimaryKeys.shared.standIn(json: json))
            } else if container.contains(.temporary) {
                self = .temporary(try container.nestedContainer(keyedBy: PayloadKeys.self, forKey: .temporary).decode(UInt64.self, forKey: ._0))
            } else {
                self = .row(try container.nestedContainer(keyedBy: PayloadKeys.self, forKey: .row).decode(Int64.self, forKey: ._0))
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case .temporary(let number):
                var payload = container.nestedContainer(keyedBy: PayloadKeys.self, forKey: .temporary)
                try payload.encode(number, forKey: ._0)
            case .row(let key) where key < 0:
                guard let custom = CustomPrimaryKeys.shared.key(for: key) else {
                    throw EncodingError.invalidValue(key, .init(codingPath: encoder.codingPath, debugDescription: "An identifier's key that no data store gave"))
                }
                try container.encode(custom.json, forKey: .custom)
            case .row(let key):
                var payload = container.nestedContainer(keyedBy: PayloadKeys.self, forKey: .row)
                try payload.encode(key, forKey: ._0)
            }
        }
    }

    /// The name of the entity (the model class) this identifier belongs to.
    public let entityName: String
    /// The identifier of the store holding the model, or `nil` while the identifier is temporary.
    public let storeIdentifier: String?
    let key: Key

    init(entityName: String, storeIdentifier: String?, key: Key) {
        self.entityName = entityName
        self.storeIdentifier = storeIdentifier
        self.key = key
    }

    /// Whether this identifier belongs to a model that has not been saved yet.
    public var isTemporary: Bool {
        if case .temporary = key { return true }
        return false
    }

    /// The primary key of the row in its entity's table, or `nil` for a temporary identifier and for an
    /// identifier a custom data store made (see ``identifier(for:entityName:primaryKey:)``).
    public var primaryKey: Int64? {
        if case .row(let pk) = key, pk >= 0 { return pk }
        return nil
    }

    /// The key the context files the model under: the row's primary key, or the stand-in of a custom
    /// data store's key.
    var rowKey: Int64? {
        if case .row(let pk) = key { return pk }
        return nil
    }

    /// Orders identifiers by entity name, then store, then key: temporary identifiers before saved ones,
    /// saved ones by primary key.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.entityName, lhs.storeIdentifier ?? "") < (rhs.entityName, rhs.storeIdentifier ?? "")
            || ((lhs.entityName, lhs.storeIdentifier ?? "") == (rhs.entityName, rhs.storeIdentifier ?? "") && lhs.key < rhs.key)
    }

    /// The entity name and key: `Budget/p12` for a saved model's row 12, `Budget/t3` for a temporary one,
    /// and the key a custom data store gave, as in `Trip/6F9619FF-8B86-D011-B42D-00C04FC964FF`.
    public var description: String {
        switch key {
        case .temporary(let n): return "\(entityName)/t\(n)"
        case .row(let pk):
            if pk < 0, let custom = CustomPrimaryKeys.shared.key(for: pk) { return "\(entityName)/\(custom.description)" }
            return "\(entityName)/p\(pk)"
        }
    }

    private static let temporaryCounter = Locked<UInt64>(0)

    static func nextTemporaryKey() -> Key {
        .temporary(temporaryCounter.withLock { $0 += 1; return $0 })
    }
}

extension PersistentIdentifier {
    /// The identifier of a model in a custom data store, made from the store's own primary key.
    ///
    /// A ``DataStore`` calls this when it saves an inserted model, and returns the identifier in its
    /// ``DataStoreSaveChangesResult``'s `remappedIdentifiers`; the same store identifier, entity name and
    /// primary key always give equal identifiers, also after encoding and decoding.
    ///
    /// ```swift
    /// let permanent = try PersistentIdentifier.identifier(
    ///     for: identifier, entityName: snapshot.persistentIdentifier.entityName, primaryKey: UUID())
    /// ```
    ///
    /// - Throws: `EncodingError` when `primaryKey` cannot be encoded as JSON.
    public static func identifier<PrimaryKey>(
        for storeIdentifier: String, entityName: String, primaryKey: PrimaryKey
    ) throws -> PersistentIdentifier
    where PrimaryKey: Comparable & CustomStringConvertible & Codable & Hashable {
        let key = try CustomPrimaryKeys.shared.standIn(for: primaryKey)
        return PersistentIdentifier(entityName: entityName, storeIdentifier: storeIdentifier, key: .row(key))
    }
}

/// The keys custom data stores give their models, each with a stand-in row key (below 0, growing from
/// `Int64.min` in the order keys are first seen) that the context files the model under, as it files a
/// SQLite row under its primary key.
///
/// A key is known by its JSON text, so a decoded identifier finds the stand-in of the one encoded. The
/// table lives as long as the process and holds each key once: a store that gives out millions of keys
/// keeps their text in memory.
final class CustomPrimaryKeys: Sendable {
    static let shared = CustomPrimaryKeys()

    struct Entry: Sendable {
        let json: String
        let description: String
    }

    private struct State {
        var standIns: [String: Int64] = [:]
        var entries: [Entry] = []
    }

    private let state = Locked(State())

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    func standIn<Key: Encodable & CustomStringConvertible>(for key: Key) throws -> Int64 {
        let json = String(decoding: try Self.encoder.encode(key), as: UTF8.self)
        return standIn(json: json, description: key.description)
    }

    func standIn(json: String, description: String? = nil) -> Int64 {
        state.withLock { state in
            if let key = state.standIns[json] { return key }
            state.entries.append(Entry(json: json, description: description ?? json))
            let key = Int64.min + Int64(state.entries.count)
            state.standIns[json] = key
            return key
        }
    }

    func key(for standIn: Int64) -> Entry? {
        state.withLock { state in
            let index = Int(standIn &- Int64.min) - 1
            return state.entries.indices.contains(index) ? state.entries[index] : nil
        }
    }
}
