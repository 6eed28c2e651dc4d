import Foundation

/// A model's state as a snapshot reads it: its identifier and the values of its properties.
///
/// ``DataStoreSnapshot/init(from:relatedBackingDatas:)`` receives one for each model a save writes. A
/// snapshot type of your own reads the model's properties with ``getValue(forKey:)``.
public protocol BackingData<Model> {
    /// The model type.
    associatedtype Model: PersistentModel
    /// The identifier of the model: a temporary one before its first save.
    var persistentModelID: PersistentIdentifier? { get }
    /// The current value of one of the model's properties.
    func getValue<Value>(forKey key: KeyPath<Model, Value>) -> Value
}

/// The backing data a context gives snapshots: the model, and what Stowage knows of its storage.
struct SnapshotBackingData<Model: PersistentModel>: BackingData {
    let model: Model
    let persistentModelID: PersistentIdentifier?
    /// The model's stored values, by property name (what ``DefaultSnapshot`` keeps).
    let values: [String: SnapshotValue]

    func getValue<Value>(forKey key: KeyPath<Model, Value>) -> Value { model[keyPath: key] }
}

/// Snapshots of models, as a save hands them to a data store.
enum ModelSnapshots {
    /// The backing data a snapshot is made from: the model's attributes and relationships as they are
    /// now, and those it has not loaded as `stored` has them.
    static func backingData(of model: any PersistentModel, entity: Schema.Entity, stored: DefaultSnapshot?) throws -> any BackingData {
        var values: [String: SnapshotValue] = [:]
        for attribute in entity.attributeList where !attribute.options.contains(.ephemeral) {
            if attribute.accessor.isLoaded(model) {
                let isDate = attribute.accessor.valueType == Date.self || attribute.accessor.valueType == Date?.self
                values[attribute.name] = SnapshotValue(try attribute.storableValue(of: model), isDate: isDate)
            } else if let value = stored?.values[attribute.name] {
                values[attribute.name] = value
            }
        }
        for relationship in entity.relationshipList {
            guard let accessor = relationship.accessor else { continue }
            if accessor.isLoaded(model) {
                let ids = accessor.related(model).map { ($0 as! any PersistentModel).persistentModelID }
                values[relationship.name] = relationship.isToOneRelationship ? .reference(ids.first) : .references(ids)
            } else if let value = stored?.values[relationship.name] {
                values[relationship.name] = value
            } else if model.persistentBackingData.state != .persisted {
                values[relationship.name] = relationship.isToOneRelationship ? .reference(nil) : .references([])
            }
        }
        func make<M: PersistentModel>(_ model: M) -> any BackingData {
            SnapshotBackingData(model: model, persistentModelID: model.persistentModelID, values: values)
        }
        return make(model)
    }
}

/// What ``DefaultSnapshot`` reads out of any backing data Stowage makes.
protocol SnapshotValuesProviding {
    var persistentModelID: PersistentIdentifier? { get }
    var values: [String: SnapshotValue] { get }
}

extension SnapshotBackingData: SnapshotValuesProviding {}

/// The value of one property in a snapshot: an attribute as stored, or the identifiers of related models.
enum SnapshotValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
    /// A `Date` attribute, written with the encoder's date strategy.
    case date(Date)
    /// A to-one relationship.
    case reference(PersistentIdentifier?)
    /// A to-many relationship, in order.
    case references([PersistentIdentifier])

    init(_ stored: StorageValue, isDate: Bool) {
        switch stored {
        case .null: self = .null
        case .integer(let value): self = .integer(value)
        case .real(let value): self = isDate ? .date(Date(timeIntervalSinceReferenceDate: value)) : .real(value)
        case .text(let value): self = .text(value)
        case .blob(let value): self = .blob(value)
        }
    }

    /// The attribute value as a store keeps it; `nil` for a relationship.
    var storageValue: StorageValue? {
        switch self {
        case .null: .null
        case .integer(let value): .integer(value)
        case .real(let value): .real(value)
        case .text(let value): .text(value)
        case .blob(let value): .blob(value)
        case .date(let date): .real(date.timeIntervalSinceReferenceDate)
        case .reference, .references: nil
        }
    }

    func remapped(_ map: [PersistentIdentifier: PersistentIdentifier]) -> SnapshotValue {
        switch self {
        case .reference(let id?): .reference(map[id] ?? id)
        case .references(let ids): .references(ids.map { map[$0] ?? $0 })
        default: self
        }
    }
}

extension SnapshotValue: Codable {
    // Text is a JSON string and `nil` is null; every other value is an object with one key naming its
    // kind, so that an integer never reads back as a real, nor a reference as text.
    private enum Kind: String, CodingKey { case integer, real, blob, date, reference, references }

    init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer() {
            if single.decodeNil() { self = .null; return }
            if let text = try? single.decode(String.self) { self = .text(text); return }
        }
        let container = try decoder.container(keyedBy: Kind.self)
        guard let kind = container.allKeys.first, container.allKeys.count == 1 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "A snapshot value is text, null, or an object with one of the keys integer, real, blob, date, reference, references"))
        }
        switch kind {
        case .integer: self = .integer(try container.decode(Int64.self, forKey: kind))
        case .real: self = .real(try container.decode(Double.self, forKey: kind))
        case .blob: self = .blob(try container.decode(Data.self, forKey: kind))
        case .date: self = .date(try container.decode(Date.self, forKey: kind))
        case .reference: self = .reference(try container.decodeIfPresent(PersistentIdentifier.self, forKey: kind))
        case .references: self = .references(try container.decode([PersistentIdentifier].self, forKey: kind))
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .text(let text):
            var single = encoder.singleValueContainer()
            try single.encode(text)
        case .integer(let value):
            var container = encoder.container(keyedBy: Kind.self)
            try container.encode(value, forKey: .integer)
        case .real(let value):
            var container = encoder.container(keyedBy: Kind.self)
            try container.encode(value, forKey: .real)
        case .blob(let value):
            var container = encoder.container(keyedBy: Kind.self)
            try container.encode(value, forKey: .blob)
        case .date(let value):
            var container = encoder.container(keyedBy: Kind.self)
            try container.encode(value, forKey: .date)
        case .reference(let id):
            var container = encoder.container(keyedBy: Kind.self)
            if let id { try container.encode(id, forKey: .reference) } else { try container.encodeNil(forKey: .reference) }
        case .references(let ids):
            var container = encoder.container(keyedBy: Kind.self)
            try container.encode(ids, forKey: .references)
        }
    }
}

/// The snapshot type of most stores: a model's identifier and the values of its properties, `Codable`
/// as one object keyed by property name.
///
/// A store keeps snapshots as they are (encoded to a file, sent to a service) and returns them from
/// ``DataStore/fetch(_:)``. Attributes are written as their stored form: text as a string, numbers,
/// Booleans and data under a key naming their kind (`{"integer": 3}`), dates under `date` with the
/// encoder's date strategy; relationships as the identifiers of the related models.
public struct DefaultSnapshot: DataStoreSnapshot, Hashable {
    /// The identifier of the model.
    public let persistentIdentifier: PersistentIdentifier
    /// The values of the model's properties, by name.
    let values: [String: SnapshotValue]

    init(persistentIdentifier: PersistentIdentifier, values: [String: SnapshotValue]) {
        self.persistentIdentifier = persistentIdentifier
        self.values = values
    }

    /// The snapshot of a model a context is saving.
    public init(from backingData: any BackingData, relatedBackingDatas: inout [PersistentIdentifier: any BackingData]) {
        guard let source = backingData as? any SnapshotValuesProviding, let identifier = source.persistentModelID else {
            preconditionFailure("DefaultSnapshot(from:relatedBackingDatas:) takes the backing data a ModelContext gives a data store's snapshots.")
        }
        self.init(persistentIdentifier: identifier, values: source.values)
    }

    /// Decodes a snapshot ``encode(to:)`` wrote.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: DataStoreSnapshotCodingKey.self)
        var identifier: PersistentIdentifier?
        var values: [String: SnapshotValue] = [:]
        for key in container.allKeys {
            switch key {
            case .persistentIdentifier: identifier = try container.decode(PersistentIdentifier.self, forKey: key)
            case .modeledProperty(let name): values[name] = try container.decode(SnapshotValue.self, forKey: key)
            }
        }
        guard let identifier else {
            throw DecodingError.keyNotFound(DataStoreSnapshotCodingKey.persistentIdentifier, .init(codingPath: decoder.codingPath, debugDescription: "A snapshot without its identifier"))
        }
        self.init(persistentIdentifier: identifier, values: values)
    }

    /// Encodes the identifier and each property's value under the property's name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: DataStoreSnapshotCodingKey.self)
        try container.encode(persistentIdentifier, forKey: .persistentIdentifier)
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            try container.encode(value, forKey: .modeledProperty(name))
        }
    }

    /// The same values under `persistentIdentifier`, with every related model's identifier found in
    /// `remappedIdentifiers` replaced by its new one.
    public func copy(persistentIdentifier: PersistentIdentifier, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]? = [:]) -> DefaultSnapshot {
        guard let map = remappedIdentifiers, !map.isEmpty else {
            return DefaultSnapshot(persistentIdentifier: persistentIdentifier, values: values)
        }
        return DefaultSnapshot(persistentIdentifier: persistentIdentifier, values: values.mapValues { $0.remapped(map) })
    }
}
