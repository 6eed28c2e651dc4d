import Foundation

/// The identifier of one persisted model: its entity, its store and its primary key.
///
/// Identifiers are values: compare them, keep them in sets, send them across actors and look the
/// model up again with ``ModelContext/model(for:)`` or ``ModelContext/registeredModel(for:)``.
/// A model inserted but not yet saved has a *temporary* identifier; the save that writes it gives it
/// its permanent one.
public struct PersistentIdentifier: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
    enum Key: Hashable, Comparable, Codable, Sendable {
        case temporary(UInt64)
        case row(Int64)
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

    /// The primary key of the row in its entity's table, or `nil` for a temporary identifier.
    public var primaryKey: Int64? {
        if case .row(let pk) = key { return pk }
        return nil
    }

    /// Orders identifiers by entity name, then store, then key: temporary identifiers before saved ones,
    /// saved ones by primary key.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.entityName, lhs.storeIdentifier ?? "") < (rhs.entityName, rhs.storeIdentifier ?? "")
            || ((lhs.entityName, lhs.storeIdentifier ?? "") == (rhs.entityName, rhs.storeIdentifier ?? "") && lhs.key < rhs.key)
    }

    /// The entity name and key: `Budget/p12` for a saved model's row 12, `Budget/t3` for a temporary one.
    public var description: String {
        switch key {
        case .temporary(let n): return "\(entityName)/t\(n)"
        case .row(let pk): return "\(entityName)/p\(pk)"
        }
    }

    private static let temporaryCounter = Locked<UInt64>(0)

    static func nextTemporaryKey() -> Key {
        .temporary(temporaryCounter.withLock { $0 += 1; return $0 })
    }
}
