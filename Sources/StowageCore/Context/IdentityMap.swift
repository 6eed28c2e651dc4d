/// A row of an entity, as the identity map keys it.
struct RowKey: Equatable {
    let entity: ObjectIdentifier
    let primaryKey: Int64

    init(entity: Schema.Entity, primaryKey: Int64) {
        self.init(entity: ObjectIdentifier(entity), primaryKey: primaryKey)
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
/// probing and a multiplicative hash of the key (`Dictionary` hashes with SipHash and checks uniqueness
/// and exclusivity on each access: about 1,700 instructions per fetched row against about 200 here).
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

    private func home(of key: RowKey) -> Int {
        let mixed = UInt64(bitPattern: key.primaryKey) &+ UInt64(UInt(bitPattern: key.entity)) &* 0x2545_F491_4F6C_DD1D
        return Int(truncatingIfNeeded: (mixed &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The slot holding `key`, or the empty slot where it would go.
    private func find(_ key: RowKey) -> (index: Int, found: Bool) {
        var index = home(of: key)
        while true {
            let slot = slots[index]
            if slot.entry == nil { return (index, false) }
            if slot.key == key { return (index, true) }
            index = (index + 1) & mask
        }
    }

    subscript(key: RowKey) -> RegisteredModel? {
        let (index, found) = find(key)
        return found ? slots[index].entry : nil
    }

    /// Registers `entry` for `key`, replacing any entry it had.
    func insert(_ entry: RegisteredModel, for key: RowKey) {
        let (index, found) = find(key)
        slots[index] = Slot(key: key, entry: entry)
        if found { return }
        count += 1
        if count * 2 > mask + 1 { grow() }
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

    /// Backward-shift deletion: entries after the hole that probed past it move back, so lookups never
    /// need tombstones.
    private func remove(at index: Int) {
        var hole = index
        var next = index
        while true {
            next = (next + 1) & mask
            guard slots[next].entry != nil else { break }
            let ideal = home(of: slots[next].key)
            // The entry at `next` stays if its home lies cyclically in (hole, next].
            let stays = hole <= next ? (hole < ideal && ideal <= next) : (hole < ideal || ideal <= next)
            if stays { continue }
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
            slots[find(key).index] = Slot(key: key, entry: entry)
        }
        oldSlots.deinitialize(count: oldCapacity)
        oldSlots.deallocate()
    }
}
