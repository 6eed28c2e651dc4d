import Observation

// What the accessors `@Model` generates for each stored property call: one function per getter and
// per setter, so that the generated code stays small (it is compiled with every model, in every debug
// build). An optimized build specialises them for the model and the value and inlines them into each
// accessor, as if they were written there; what a setter does beyond storing stays out of line.

extension PersistentModel {
    /// The generated getter of the stored property `property`, whose storage holds `value` (`nil` while
    /// not loaded), after `ModelBackingData.Storage._$noteRead()`: records the read for observation
    /// and loads the value if needed.
    @inlinable @inline(__always)
    public func _$get<Value>(_ property: KeyPath<Self, Value>, _ value: Value?) -> Value {
        _$observationRegistrar.access(self, keyPath: property)
        if let value { return value }
        return persistentBackingData.load(self, property: property)
    }

    /// The generated setter of an attribute, when the value is not stored directly (see
    /// `ModelBackingData.Storage._$storesDirectly(_:)`): the context hears of the write when
    /// the model is inserted, stored or deleted, and observers once a property of the model was read.
    @inlinable @inline(__always)
    public func _$set<Value>(
        _ property: KeyPath<Self, Value>, _ storage: ReferenceWritableKeyPath<Self, Value?>, _ newValue: Value
    ) {
        let observed = _$attributeWillChange(property, storage, to: newValue)
        self[keyPath: storage] = newValue
        if observed { _$observationRegistrar.didSet(self, keyPath: property) }
    }

    /// The generated setter of a to-one relationship: the context always hears of it, as it keeps the
    /// inverse in step even between models that are not inserted.
    @inlinable @inline(__always)
    public func _$set<Destination: PersistentModel>(
        _ property: KeyPath<Self, Destination?>, _ storage: ReferenceWritableKeyPath<Self, Destination??>,
        _ newValue: Destination?
    ) {
        let observed = _$relationshipWillChange(property, storage, to: newValue.map { [$0] } ?? [])
        self[keyPath: storage] = newValue
        if observed { _$observationRegistrar.didSet(self, keyPath: property) }
    }

    /// The generated setter of a to-many relationship (see the to-one variant).
    @inlinable @inline(__always)
    public func _$set<Destination: PersistentModel>(
        _ property: KeyPath<Self, [Destination]>, _ storage: ReferenceWritableKeyPath<Self, [Destination]?>,
        _ newValue: [Destination]
    ) {
        let observed = _$relationshipWillChange(property, storage, to: newValue)
        self[keyPath: storage] = newValue
        if observed { _$observationRegistrar.didSet(self, keyPath: property) }
    }

    /// The generated setter of an optional to-many relationship (`[T]?`).
    @inlinable @inline(__always)
    public func _$set<Destination: PersistentModel>(
        _ property: KeyPath<Self, [Destination]?>, _ storage: ReferenceWritableKeyPath<Self, [Destination]??>,
        _ newValue: [Destination]?
    ) {
        let observed = _$relationshipWillChange(property, storage, to: newValue ?? [])
        self[keyPath: storage] = newValue
        if observed { _$observationRegistrar.didSet(self, keyPath: property) }
    }

    // What a setter does before it stores, out of line so that the setter stays small (and the store,
    // through a key path the optimizer sees, stays a plain store): tells the context and the observers.
    // Returns whether observers were told, and must hear of the change once it is stored.

    @inlinable @inline(never)
    func _$attributeWillChange<Value>(
        _ property: KeyPath<Self, Value>, _ storage: ReferenceWritableKeyPath<Self, Value?>, to newValue: Value
    ) -> Bool {
        let data = persistentBackingData
        if data.storage.pointee.state != .detached { data.willSet(self, storage, to: newValue) }
        return _$observersWillHear(of: property, data)
    }

    @inlinable @inline(never)
    func _$relationshipWillChange<Value>(
        _ property: KeyPath<Self, Value>, _ storage: AnyKeyPath, to newObjects: [AnyObject]
    ) -> Bool {
        let data = persistentBackingData
        data.relationshipWillChange(self, storage: storage, to: newObjects)
        return _$observersWillHear(of: property, data)
    }

    /// Tells the observation registrar that `property` will change, once a property of the model was
    /// read: a model never read has no observers, and costs no registrar call.
    @inlinable @inline(__always)
    func _$observersWillHear<Value>(of property: KeyPath<Self, Value>, _ data: ModelBackingData) -> Bool {
        guard data.storage.pointee.isObserved else { return false }
        _$observationRegistrar.willSet(self, keyPath: property)
        return true
    }
}
