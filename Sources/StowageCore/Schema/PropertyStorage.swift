import Foundation

/// Reads and writes the storage `@Model` generates for one property (`_name`, `nil` while the value
/// is not loaded), through a getter and a setter the macro writes in the model's own module.
///
/// The engine never projects key paths to move values in and out of models: a key path projection
/// goes through the runtime (about 1,500 instructions per write), a generated closure is a field
/// access. Key paths stay the property's identity (predicates, sorts, observation).
@usableFromInline
struct PropertyStorage<Root: AnyObject, Value> {
    @usableFromInline let get: (Root) -> Value?
    @usableFromInline let set: (Root, __owned Value?) -> Void

    @inlinable
    init(get: @escaping (Root) -> Value?, set: @escaping (Root, __owned Value?) -> Void) {
        self.get = get
        self.set = set
    }

    /// The storage of `model`, which must be a `Root`.
    @inlinable
    subscript(model: AnyObject) -> Value? {
        get { get(unsafeDowncast(model, to: Root.self)) }
        nonmutating set { set(unsafeDowncast(model, to: Root.self), newValue) }
    }
}

/// The operations a fetch or a save runs for every attribute of every row, as closures built in the
/// model's module: `PropertyMetadata`'s attribute initializer is `@inlinable`, so the compiler
/// specialises these closures for the concrete model and value types (no generic metadata look-ups,
/// no boxing), and the fast paths of ``AttributeCodec`` fold to the one that applies.
@usableFromInline
struct AttributeOperations {
    /// Whether the model's storage holds a value.
    @usableFromInline let isLoaded: (AnyObject) -> Bool
    /// The stored form of the model's current value (which must be loaded).
    @usableFromInline let read: (AnyObject) throws -> StorageValue
    /// Sets the storage from a stored value, without observation or change tracking.
    @usableFromInline let load: (StorageValue, AnyObject) throws -> Void
    /// Sets the storage from a stored value, notifying observers when the value changed.
    @usableFromInline let refresh: (StorageValue, AnyObject) throws -> Void
    /// The model's current storage boxed for rollback: the value, or ``NotLoadedSnapshot`` (boxing it
    /// here, specialised, stores an `Int` or a `Double` inline; in generic code it went through the
    /// value's metadata, ~600 instructions per first change of a property).
    @usableFromInline let snapshot: (AnyObject) -> Any
    @inlinable
    init<Root: PersistentModel, Value>(
        keyPath: KeyPath<Root, Value>, storage: PropertyStorage<Root, Value>, codec: AttributeCodec<Value>
    ) {
        let get = storage.get
        let set = storage.set
        isLoaded = { model in get(unsafeDowncast(model, to: Root.self)) != nil }
        read = { model in
            guard let value = get(unsafeDowncast(model, to: Root.self)) else {
                preconditionFailure("Stowage internal error: reading \(Root.self).\(keyPath) before it was loaded")
            }
            return try codec.encodeValue(value)
        }
        load = { stored, model in
            set(unsafeDowncast(model, to: Root.self), try codec.decodeValue(stored))
        }
        snapshot = { model in
            if let value = get(unsafeDowncast(model, to: Root.self)) { return value }
            return NotLoadedSnapshot()
        }
        refresh = { stored, model in
            let object = unsafeDowncast(model, to: Root.self)
            let decoded = try codec.decodeValue(stored)
            // Byte for byte: a canonically equivalent string that another save stored is still news.
            if let current = get(object), (try? codec.encodeValue(current))?.isIdentical(to: stored) == true { return }
            object._$withMutation(keyPath: keyPath) { set(object, decoded) }
        }
    }
}
