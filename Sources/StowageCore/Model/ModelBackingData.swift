import Foundation

/// The persistence state of one model object: which context holds it, its identifier, and which of its
/// properties changed since it was last saved.
///
/// `@Model` gives every model one of these. Its methods are called by the accessors the macro
/// generates; you do not call them yourself.
public final class ModelBackingData {
    enum State: Equatable {
        /// Not inserted in any context: a plain object.
        case detached
        /// Inserted, not saved yet.
        case inserted
        /// Stored, registered in a context (possibly with unsaved changes).
        case persisted
        /// Stored, deleted in its context, the deletion not saved yet.
        case deleted
        /// Its deletion was saved: the object no longer has a row.
        case removed
    }

    // The hot fields below are read on every property access or change of a model and written once per row:
    // their dynamic exclusivity checks would cost a runtime call each and could only catch a data race,
    // which they do not reliably catch anyway (models are not Sendable).

    /// The link to the context holding the model (see ``ModelContextLink``): the model does not keep its
    /// context alive, so a context released with unsaved changes goes away with them, and models related
    /// to each other both ways do not keep the context, the container and its store open.
    @exclusivity(unchecked) var link: ModelContextLink?
    /// The context holding the model, while it exists.
    var context: ModelContext? { link?.context }
    @exclusivity(unchecked) var entity: Schema.Entity?
    @exclusivity(unchecked) var key: PersistentIdentifier.Key?
    // The one-byte fields follow the key, in the bytes its alignment would leave empty: every fetched
    // row allocates one of these, and below 128 bytes glibc keeps freed blocks in its fast bins.
    @exclusivity(unchecked) var state: State = .detached
    @exclusivity(unchecked) var membership: Membership = []
    /// Whether a property of the model has been read. Observers register by reading (observation
    /// tracking records reads), so the generated setters notify the observation registrar only once
    /// this is `true`.
    @exclusivity(unchecked) var isObserved = false
    /// Another context deleted the model's row while this model had unsaved changes or a pending
    /// deletion: when those are rolled back or undone, the model is removed.
    var rowDeletedElsewhere = false
    @exclusivity(unchecked) var storeIdentifier: String?
    /// Indices (in the entity's properties) of properties changed since the last save.
    @exclusivity(unchecked) var changedProperties = PropertySet()
    /// Values of changed properties as they were before the first change, for rollback.
    @exclusivity(unchecked) var snapshot = PropertySnapshots()
    /// The stored foreign keys of to-one relationships (by property index), read with the row and
    /// resolved into objects on first access.
    @exclusivity(unchecked) var foreignKeys: [Int: Int64] = Dictionary()
    /// Set on the probe models that find out what a key path reads (see `KeyPathProbe`).
    var probe: KeyPathProbe?

    /// The change sets of its context the model is in (see `ModelSet`).
    struct Membership: OptionSet {
        let rawValue: UInt8
        static let inserted = Membership(rawValue: 1)
        static let changed = Membership(rawValue: 2)
        static let deleted = Membership(rawValue: 4)
    }

    /// Whether a property of the model has been read (see ``_$noteRead()``). A computed property: a
    /// client module writing a stored property of this class directly would check exclusivity at run
    /// time (`@exclusivity(unchecked)` does not carry across modules), on every property access.
    public var _$isObserved: Bool { isObserved }

    /// Called by the generated getters: a property of the model was read.
    public func _$noteRead() { isObserved = true }

    /// Whether the generated setter of an attribute must call ``willSet(_:_:to:)``: only when the
    /// context must hear of the write (the model is inserted, stored or deleted, or its row is gone and
    /// the change cannot be saved). A setter that skips it creates no key path.
    public func _$tracksWrites<Value>(of newValue: Value) -> Bool {
        state != .detached
    }

    /// Relationship setters always call ``willSet(_:_:to:)``: it keeps the inverse in step, even between
    /// models that are not inserted.
    public func _$tracksWrites<Destination: PersistentModel>(of newValue: Destination?) -> Bool { true }

    /// Relationship setters always call ``willSet(_:_:to:)`` (to-many).
    public func _$tracksWrites<Destination: PersistentModel>(of newValue: [Destination]) -> Bool { true }

    /// Relationship setters always call ``willSet(_:_:to:)`` (optional to-many).
    public func _$tracksWrites<Destination: PersistentModel>(of newValue: [Destination]?) -> Bool { true }

    /// Creates the state of a model not inserted anywhere.
    public init() {}

    /// Creates the state of a model read from a row of `entity`, registered in the context of `link`.
    init(link: ModelContextLink, entity: Schema.Entity, primaryKey: Int64, storeIdentifier: String) {
        self.link = link
        self.entity = entity
        self.key = .row(primaryKey)
        self.storeIdentifier = storeIdentifier
        self.state = .persisted
    }

    deinit {
        // Through the link, which holds the identity map: no need to reach the context (a weak load).
        if state == .persisted, let link, let entity, case .row(let pk)? = key {
            link.registered.removeValue(forKey: RowKey(entity: entity, primaryKey: pk), ifBackedBy: self)
        }
    }

    /// The context that loads the model's unloaded properties: its own, or, once that context was
    /// released, a new one of the same container. SwiftData traps there ("detached from a context
    /// without resolving attribute faults"); a Stowage model stays readable as long as it is held. Models
    /// such a load creates belong to that short-lived context: they are new objects, not the ones the
    /// released context held.
    var loadingContext: ModelContext? {
        guard let link else { return nil }
        return link.context ?? ModelContext(link.container)
    }

    /// `nil` for an optional type, `[]` for an array of models.
    static func emptyValue<Value>(of type: Value.Type) -> Value? {
        if let optional = type as? any OptionalProtocol.Type {
            func none<O: OptionalProtocol>(_: O.Type) -> Any { O(wrapping: nil) }
            return none(optional) as? Value
        }
        if let array = type as? any EmptyInitializable.Type { return array.init() as? Value }
        return nil
    }

    var hasChanges: Bool {
        switch state {
        case .inserted, .deleted: return true
        case .persisted: return !changedProperties.isEmpty
        case .detached, .removed: return false
        }
    }

    var isDeleted: Bool { state == .deleted || state == .removed }

    func persistentModelID(for type: any PersistentModel.Type) -> PersistentIdentifier {
        let key = self.key ?? {
            let temporary = PersistentIdentifier.nextTemporaryKey()
            self.key = temporary
            return temporary
        }()
        return PersistentIdentifier(
            entityName: entity?.name ?? String(describing: type), storeIdentifier: storeIdentifier, key: key)
    }

    /// Called by the generated setter of every stored property, before the storage changes.
    public func willSet<Model: PersistentModel, Value>(
        _ model: Model, _ storage: ReferenceWritableKeyPath<Model, Value?>, to newValue: Value
    ) {
        switch state {
        case .persisted, .deleted: context?.propertyWillChange(model, self, storage: storage)
        case .inserted: context?.insertedModelDidChange()
        case .removed: context?.removedModelWillChange(model, self, storage: storage)
        case .detached: break
        }
    }

    /// Called by the generated getter when a property's storage is empty: the property was not loaded
    /// with the row (partial fetch, external storage, refreshed after another context's save).
    public func load<Model: PersistentModel, Value>(
        _ model: Model, _ storage: ReferenceWritableKeyPath<Model, Value?>
    ) -> Value {
        if let probe { return probe.answer(model, self, storage) }
        if let entity, let index = entity.propertyIndex(for: storage), let attribute = entity.properties[index] as? Schema.Attribute,
           attribute.options.contains(.ephemeral) {
            // Not stored: a model made from a row starts with the declared initial value (a container
            // refuses a non-optional ephemeral attribute without one).
            guard let value = attribute.defaultValue as? Value ?? Self.emptyValue(of: Value.self) else {
                preconditionFailure("\(Model.self).\(attribute.name) is ephemeral and has no initial value.")
            }
            model[keyPath: storage] = value
            return value
        }
        guard case .row? = key, state != .detached else {
            // No row: an optional declared without an initial value starts as nil, a relationship empty.
            if let empty = Self.emptyValue(of: Value.self) {
                model[keyPath: storage] = empty
                return empty
            }
            preconditionFailure("\(Model.self): a property has no value; initialize every stored property in init.")
        }
        guard state != .removed else {
            preconditionFailure("\(Model.self): a property of a deleted model was read (its row was deleted, or its identifier belongs to another store); check isDeleted first.")
        }
        guard let context = loadingContext else {
            preconditionFailure("Stowage internal error: a stored \(Model.self) has no link to a context or container to load a property through.")
        }
        do {
            try context.retryingOutOfMemory { try context.loadProperty(of: model, backingData: self, storage: storage) }
        } catch {
            preconditionFailure("\(Model.self): loading a property failed: \(error)")
        }
        guard let value = model[keyPath: storage] else {
            preconditionFailure("\(Model.self): the row of this model no longer exists (it was deleted in another context).")
        }
        return value
    }
}

/// A small set of property indices: a bit mask for the first 64 properties, a set beyond.
struct PropertySet: Equatable, Sequence {
    private var bits: UInt64 = 0
    private var overflow = Set<Int>()

    var isEmpty: Bool { bits == 0 && overflow.isEmpty }

    func contains(_ index: Int) -> Bool {
        index < 64 ? bits & (1 << UInt64(index)) != 0 : overflow.contains(index)
    }

    mutating func insert(_ index: Int) {
        if index < 64 { bits |= 1 << UInt64(index) } else { overflow.insert(index) }
    }

    mutating func removeAll() {
        bits = 0
        overflow = []
    }

    func makeIterator() -> IndexingIterator<[Int]> {
        var indices: [Int] = []
        var remaining = bits
        while remaining != 0 {
            let index = remaining.trailingZeroBitCount
            indices.append(index)
            remaining &= remaining - 1
        }
        indices.append(contentsOf: overflow.sorted())
        return indices.makeIterator()
    }
}

/// The values of a model's changed properties as they were before their first change, by property
/// index. They live in a box that the model's first change takes: the models a fetch makes never
/// change, for most of them, and stay small without it. A save or a rollback gives the box back to its
/// context (``recycle(into:)``), whose next changed models reuse it (``record(_:at:reusing:)``), so a
/// loop changing rows and saving every few thousand allocates no box after the first save. The box keeps
/// the first two values inline, so a model changed in one or two properties (the common case) allocates
/// nothing more; a dictionary holds the others.
struct PropertySnapshots {
    /// Its fields are only reached through the backing data's `snapshot`, on its model's context: a
    /// dynamic exclusivity check per access (a runtime call, a fifth of a change's cost) would find nothing.
    final class Box {
        @exclusivity(unchecked) fileprivate var first: (index: Int, value: Any) = (-1, ())
        @exclusivity(unchecked) fileprivate var second: (index: Int, value: Any) = (-1, ())
        @exclusivity(unchecked) fileprivate var others: [Int: Any]?
    }

    /// How many emptied boxes a context keeps for reuse.
    static let poolLimit = 4_096

    private var box: Box?

    subscript(index: Int) -> Any? {
        get {
            guard let box else { return nil }
            if index == box.first.index { return box.first.value }
            if index == box.second.index { return box.second.value }
            return box.others?[index]
        }
        set {
            guard let box = box ?? newValue.map({ _ in Box() }) else { return }
            self.box = box
            Self.set(newValue, at: index, in: box)
        }
    }

    /// Records the value of a property before its first change, taking the box from `pool` if the
    /// model has none.
    mutating func record(_ value: Any, at index: Int, reusing pool: inout [Box]) {
        let box = self.box ?? pool.popLast() ?? Box()
        self.box = box
        Self.store(value, at: index, in: box)
    }

    private static func set(_ newValue: Any?, at index: Int, in box: Box) {
        if let newValue {
            store(newValue, at: index, in: box)
        } else if index == box.first.index {
            box.first = (-1, ())
        } else if index == box.second.index {
            box.second = (-1, ())
        } else if box.others != nil {
            box.others![index] = nil
        }
    }

    /// Stores a value without wrapping it in an optional: every first change of a property comes here,
    /// and copying an `Any?` goes through its value witnesses (about a third of a change's tracking).
    private static func store(_ value: Any, at index: Int, in box: Box) {
        if index == box.first.index {
            box.first.value = value
        } else if index == box.second.index {
            box.second.value = value
        } else if box.first.index < 0, box.others?[index] == nil {
            box.first = (index, value)
        } else if box.second.index < 0, box.others?[index] == nil {
            box.second = (index, value)
        } else {
            if box.others == nil { box.others = [:] }
            box.others![index] = value
        }
    }

    /// Forgets every value and gives the box to `pool`, unless it is full.
    mutating func recycle(into pool: inout [Box]) {
        guard let box else { return }
        self.box = nil
        if box.first.index >= 0 || box.second.index >= 0 || box.others != nil {
            (box.first, box.second, box.others) = ((-1, ()), (-1, ()), nil)
        }
        if pool.count < Self.poolLimit { pool.append(box) }
    }
}

/// Collections that start empty (to-many relationships).
protocol EmptyInitializable { init() }
extension Array: EmptyInitializable {}
