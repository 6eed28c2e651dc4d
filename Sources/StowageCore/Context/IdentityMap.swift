/// A row of an entity, as the identity map keys it.
struct RowKey: Equatable {
    let entity: ObjectIdentifier
    let primaryKey: Int64

    /// The row of `entity`: the entities of a class hierarchy share their table, so they share keys.
    init(entity: Schema.Entity, primaryKey: Int64) {
        self.init(entity: entity.identityKey, primaryKey: primaryKey)
    }

    init(entity: ObjectIdentifier, primaryKey: Int64) {
        self.entity = entity
        self.primaryKey = primaryKey
    }
}

/// An identity-map entry. It does not retain the model: the model's backing data removes the entry
/// when the model is released.
struct RegisteredModel {
    unowned(unsafe) let model: any PersistentModel
    /// The model's backing data, compared by the model's deinitialisation without touching the model.
    unowned(unsafe) let data: ModelBackingData

    init(model: any PersistentModel, data: ModelBackingData) {
        self.model = model
        self.data = data
    }
}

/// A context's identity map: one entry per stored row with a live object.
///
/// Every fetched row is looked up and registered here, and unregistered when its model is released, so
/// this is on the path of every row a fetch returns. It is an open-addressing table with linear
/// probing in Robin Hood order (along a cluster, entries are sorted by their home slot), so a lookup
/// stops at the first entry that lives closer to its home than the key would, and a removal shifts back
/// only the entries displaced from their homes. (`Dictionary` hashes with SipHash and checks uniqueness
/// and exclusivity on each access: about 1,700 instructions per fetched row against about 200 here.)
/// A class, so that the context mutates it through a `let` without copy-on-write checks.
final class IdentityMap {
    private struct Slot {
        var key: RowKey
        /// `nil` for an empty slot.
        var entry: RegisteredModel?
    }

    private var slots: UnsafeMutablePointer<Slot>
    /// `capacity - 1`; the capacity is a power of two.
    private var mask: Int
    /// `64 - log2(capacity)`: the hash keeps the top bits of the product (Fibonacci hashing).
    private var shift: UInt64
    private(set) var count = 0

    init() {
        (slots, mask, shift) = Self.allocate(capacity: 16)
    }

    deinit {
        slots.deinitialize(count: mask + 1)
        slots.deallocate()
    }

    private static func allocate(capacity: Int) -> (UnsafeMutablePointer<Slot>, Int, UInt64) {
        let slots = UnsafeMutablePointer<Slot>.allocate(capacity: capacity)
        let empty = Slot(key: RowKey(entity: ObjectIdentifier(IdentityMap.self), primaryKey: 0), entry: nil)
        slots.initialize(repeating: empty, count: capacity)
        return (slots, capacity - 1, UInt64(64 - capacity.trailingZeroBitCount))
    }

    /// Keys are hashed by runs of ``runLength`` consecutive primary keys: a run's place in the table is
    /// scattered (a multiplicative hash of the run's number and the entity), and its keys take
    /// consecutive slots there. Fetches return rows in primary-key order by default and models are
    /// mostly released in the order they were made, so registering and unregistering a result walks
    /// the table a few cache lines at a time instead of missing the cache on every row (with a fully
    /// scattered hash, the slot's load was the most expensive instruction of materialising a
    /// 100,000-row result and of releasing it). Strided keys stay spread: runs are aligned, so keys
    /// `runLength` apart fall in different runs, each placed on its own.
    static let runLength: UInt64 = 1 << 4

    /// `log2(runLength)`.
    private static let runShift: UInt64 = 4

    @inline(__always)
    private func home(of key: RowKey) -> Int {
        let primaryKey = UInt64(bitPattern: key.primaryKey)
        let run = (primaryKey / Self.runLength) &+ UInt64(UInt(bitPattern: key.entity)) &* 0x2545_F491_4F6C_DD1D
        // The top bits of the product choose the run's place; `>>` yields 0 when the table holds one run.
        let place = ((run &* 0x9E37_79B9_7F4A_7C15) >> (shift + Self.runShift)) << Self.runShift
        return Int(truncatingIfNeeded: place | (primaryKey % Self.runLength))
    }

    /// How far the entry in slot `index` lives from its home. (Its home is hashed again rather than kept
    /// in the slot: 8 more bytes per slot cost more memory than the few instructions save.)
    @inline(__always)
    private func distance(at index: Int) -> Int {
        (index &- home(of: slots[index].key)) & mask
    }

    /// The slot holding `key`, or else the slot where it belongs (empty, or holding an entry closer to
    /// its home than `key` would be there).
    @inline(__always)
    private func find(_ key: RowKey) -> (index: Int, found: Bool) {
        var index = home(of: key)
        var distance = 0
        while true {
            let slot = slots[index]
            if slot.entry == nil { return (index, false) }
            if slot.key == key { return (index, true) }
            if self.distance(at: index) < distance { return (index, false) }
            index = (index + 1) & mask
            distance += 1
        }
    }

    subscript(key: RowKey) -> RegisteredModel? {
        let (index, found) = find(key)
        return found ? slots[index].entry : nil
    }

    /// Registers `entry` for `key`, replacing any entry it had.
    func insert(_ entry: RegisteredModel, for key: RowKey) {
        let (index, found) = find(key)
        if found {
            slots[index].entry = entry
            return
        }
        place(Slot(key: key, entry: entry), at: index)
        count += 1
        if count * 2 > mask + 1 { grow() }
    }

    /// Puts `slot` at `index`, where it belongs, moving the entries from there up to the next empty slot
    /// one slot on (each of them is at least as close to its home as `slot`, so the order holds).
    private func place(_ slot: Slot, at index: Int) {
        var carried = slot
        var index = index
        while slots[index].entry != nil {
            swap(&carried, &slots[index])
            index = (index + 1) & mask
        }
        slots[index] = carried
    }

    /// Removes the entry of `key`, if any.
    func removeValue(forKey key: RowKey) {
        let (index, found) = find(key)
        if found { remove(at: index) }
    }

    /// Removes the entry of `key` if it is the one of `data` (another model may have replaced it).
    func removeValue(forKey key: RowKey, ifBackedBy data: ModelBackingData) {
        let (index, found) = find(key)
        if found, slots[index].entry?.data === data { remove(at: index) }
    }

    /// The registered models, retained: iterating them while some are released stays safe.
    var models: [any PersistentModel] {
        var models: [any PersistentModel] = []
        models.reserveCapacity(count)
        for index in 0...mask {
            if let entry = slots[index].entry { models.append(entry.model) }
        }
        return models
    }

    /// Backward-shift deletion: the entries after the hole that are away from their homes move back one
    /// slot, up to an empty slot or an entry at its home (no entry after that one can belong before it).
    private func remove(at index: Int) {
        var hole = index
        while true {
            let next = (hole + 1) & mask
            guard slots[next].entry != nil, distance(at: next) > 0 else { break }
            slots[hole] = slots[next]
            hole = next
        }
        slots[hole].entry = nil
        count -= 1
    }

    private func grow() {
        let (oldSlots, oldCapacity) = (slots, mask + 1)
        (slots, mask, shift) = Self.allocate(capacity: oldCapacity * 2)
        for index in 0..<oldCapacity {
            guard let entry = oldSlots[index].entry else { continue }
            let key = oldSlots[index].key
            place(Slot(key: key, entry: entry), at: find(key).index)
        }
        oldSlots.deinitialize(count: oldCapacity)
        oldSlots.deallocate()
    }
}
