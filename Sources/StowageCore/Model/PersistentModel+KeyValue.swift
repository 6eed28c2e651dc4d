import Foundation

// SwiftData's identity and key-value access: `PersistentIdentifier.id`, and `getValue(forKey:)` /
// `setValue(forKey:to:)` on models.

extension PersistentIdentifier: Identifiable {
    /// The identity of a model within its store: its entity and its primary key (or, before its first
    /// save, its temporary key). Two identifiers of the same row in different stores have equal `ID`s.
    public struct ID: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
        let entityName: String
        let key: Key

        /// Orders by entity name, then key.
        public static func < (lhs: Self, rhs: Self) -> Bool {
            lhs.entityName < rhs.entityName || (lhs.entityName == rhs.entityName && lhs.key < rhs.key)
        }

        /// The entity name and key, as in ``PersistentIdentifier/description``.
        public var description: String {
            PersistentIdentifier(entityName: entityName, storeIdentifier: nil, key: key).description
        }
    }

    /// The value that identifies the model within the store holding it.
    public var id: ID { ID(entityName: entityName, key: key) }
}

/// A collection of related models: the value of a to-many relationship (`[Transaction]`).
public protocol RelationshipCollection {
    /// The type of the related models.
    associatedtype PersistentElement: PersistentModel
}

extension Array: RelationshipCollection where Element: PersistentModel {
    /// The related models' type.
    public typealias PersistentElement = Element
}

extension Optional: RelationshipCollection where Wrapped: RelationshipCollection {
    /// The related models' type.
    public typealias PersistentElement = Wrapped.PersistentElement
}

extension PersistentModel {
    /// The value of an attribute, as reading the property does (a property not loaded yet is loaded).
    ///
    /// Stowage's `@Model` properties read their storage directly; this reads through the property,
    /// so the read is also recorded for observation tracking, as reading the property is.
    public func getValue<Value: Decodable>(forKey key: KeyPath<Self, Value>) -> Value { self[keyPath: key] }

    /// The model a non-optional to-one relationship refers to.
    public func getValue<Value: PersistentModel>(forKey key: KeyPath<Self, Value>) -> Value { self[keyPath: key] }

    /// The model a to-one relationship refers to, or `nil`.
    public func getValue<Value: PersistentModel>(forKey key: KeyPath<Self, Value?>) -> Value? { self[keyPath: key] }

    /// The models of a to-many relationship, in their order.
    public func getValue<Value: RelationshipCollection, OtherModel>(forKey key: KeyPath<Self, Value>) -> Value
    where OtherModel == Value.PersistentElement {
        self[keyPath: key]
    }

    /// Sets an attribute, as assigning the property does: the change is tracked, saved by the next
    /// ``ModelContext/save()`` and announced to observers.
    public func setValue<Value: Encodable>(forKey key: KeyPath<Self, Value>, to newValue: Value) {
        assign(newValue, to: key)
    }

    /// Sets a non-optional to-one relationship; its inverse follows, as when assigning the property.
    public func setValue<Value: PersistentModel>(forKey key: KeyPath<Self, Value>, to newValue: Value) {
        assign(newValue, to: key)
    }

    /// Sets a to-one relationship (`nil` clears it); its inverse follows, as when assigning the property.
    public func setValue<Value: PersistentModel>(forKey key: KeyPath<Self, Value?>, to newValue: Value?) {
        assign(newValue, to: key)
    }

    /// Sets the models of a to-many relationship, in this order; inverses follow.
    public func setValue<Value: RelationshipCollection, OtherModel>(forKey key: KeyPath<Self, Value>, to newValue: Value)
    where OtherModel == Value.PersistentElement {
        assign(newValue, to: key)
    }

    private func assign<Value>(_ newValue: Value, to key: KeyPath<Self, Value>) {
        guard let writable = key as? ReferenceWritableKeyPath<Self, Value> else {
            preconditionFailure("\(Self.self): \(key) is not a settable stored property, so setValue(forKey:to:) cannot set it.")
        }
        self[keyPath: writable] = newValue
    }
}
