import Foundation

// SwiftData's reflection of a schema: the empty schema, a schema from entities, an entity's attributes
// and relationships by name, and composite attributes.

extension Schema {
    /// An empty schema: no entities, version 1.0.0 (SwiftData's `Schema()`).
    public convenience init() {
        self.init([any PersistentModel.Type](), version: Version(1, 0, 0))
    }

    /// A schema of these entities (and the entities reachable from them through relationships), as
    /// SwiftData's `Schema(_:version:)` taking entities.
    ///
    /// Stowage builds every entity from its model class: the entities are those of another schema
    /// (`Schema(other.entities...)`), and the new schema makes its own entity objects for the same
    /// model classes (an entity records its schema's resolved relationships, so it is not shared).
    public convenience init(_ entities: Entity..., version: Version = Version(1, 0, 0)) {
        self.init(entities.map(\.modelType), version: version)
    }
}

extension Schema.Entity {
    /// The entity's attributes by name.
    public var attributesByName: [String: Schema.Attribute] {
        Dictionary(attributeList.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The entity's relationships by name.
    public var relationshipsByName: [String: Schema.Relationship] {
        Dictionary(relationshipList.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }
}

extension Schema {
    /// An attribute whose value is made of other attributes: what SwiftData reports for a property
    /// whose type is a `Codable` struct (`var address: Address`), with one attribute per property of
    /// the struct in ``properties`` (a struct inside it is a composite attribute of its own).
    ///
    /// Stowage stores the value as its `Codable` form in one column, as for every composite value (see
    /// <doc:ModelsAndAttributes>); the composite attribute describes its shape. The properties are the
    /// keys the type's `init(from:)` decodes, in that order, each with the type it decodes (optional when
    /// it uses `decodeIfPresent`); a type whose decoding cannot be followed reports no properties.
    public final class CompositeAttribute: Attribute {
        /// The attributes the composite is made of.
        public var properties: [Schema.Attribute]

        /// Describes a composite attribute from its parts, with no properties yet (set ``properties``).
        public override init(
            name: String, originalName: String? = nil, options: [Option] = [], valueType: any Any.Type,
            defaultValue: Any? = nil, hashModifier: String? = nil
        ) {
            properties = []
            super.init(
                name: name, originalName: originalName, options: options, valueType: valueType,
                defaultValue: defaultValue, hashModifier: hashModifier)
        }

        init(name: String, declared: Attribute?, keyPath: AnyKeyPath, defaultValue: Any?, accessor: any AttributeAccessor,
             properties: [Schema.Attribute]) {
            self.properties = properties
            super.init(name: name, declared: declared, keyPath: keyPath, defaultValue: defaultValue, accessor: accessor)
        }

        /// The attribute's description followed by its properties in braces.
        public override var description: String {
            super.description + " { " + properties.map(\.description).joined(separator: "; ") + " }"
        }
    }
}

extension Schema.Attribute {
    /// The attribute of a stored property: a ``Schema/CompositeAttribute`` for a value stored through its
    /// `Codable` form whose decoding reads keys (a struct), a plain attribute otherwise.
    static func reflecting(
        name: String, declared: Schema.Attribute?, keyPath: AnyKeyPath, defaultValue: Any?, accessor: any AttributeAccessor
    ) -> Schema.Attribute {
        if accessor.codecKind == .json, let properties = CompositeProbe.properties(of: accessor.valueType) {
            return Schema.CompositeAttribute(
                name: name, declared: declared, keyPath: keyPath, defaultValue: defaultValue, accessor: accessor,
                properties: properties)
        }
        return Schema.Attribute(name: name, declared: declared, keyPath: keyPath, defaultValue: defaultValue, accessor: accessor)
    }
}

/// Finds the shape of a `Codable` type by decoding a value of it from a decoder that records the keys and
/// types asked for and answers each with a sample value. Runs once per attribute, when a schema is built.
enum CompositeProbe {
    /// The attributes of `type`'s keyed form, or `nil` when it is not decoded from keys (an array, a
    /// single value, a dictionary, an enum with associated values) or its decoding fails on the samples.
    static func properties(of type: any Any.Type) -> [Schema.Attribute]? {
        guard let decodable = type as? any Decodable.Type else { return nil }
        func shape<T: Decodable>(_: T.Type) -> ProbeDecoder.Shape? {
            let decoder = ProbeDecoder()
            guard (try? T(from: decoder)) != nil else { return nil }
            return decoder.shape
        }
        // A dictionary decodes from keys too, none of which the probe's empty container has.
        guard case .keyed(let fields)? = shape(decodable), !fields.isEmpty else { return nil }
        return attributes(fields)
    }

    private static func attributes(_ fields: [ProbeDecoder.Field]) -> [Schema.Attribute] {
        fields.map { field in
            guard case .keyed(let nested) = field.shape, !nested.isEmpty else {
                return Schema.Attribute(name: field.name, valueType: field.valueType)
            }
            let composite = Schema.CompositeAttribute(name: field.name, valueType: field.valueType)
            composite.properties = attributes(nested)
            return composite
        }
    }

    /// A value of `T` and the shape of its decoding: a sample for a type stored natively (numbers, text,
    /// dates, identifiers, enums with raw values), the decoding followed for the others.
    static func sample<T: Decodable>(_ type: T.Type, depth: Int) throws -> (T, ProbeDecoder.Shape) {
        // A type that contains itself (through an optional) would be followed forever.
        guard depth < 16 else { throw ProbeDecoder.unsupported }
        if let codec = AttributeCodecs.codec(for: T.self), codec.kind != .json {
            if let iterable = T.self as? any CaseIterable.Type, let first = firstCase(iterable) as? T { return (first, .value) }
            for candidate in probeCandidates[codec.storageType] ?? [] {
                if let value = try? codec.decode(candidate) { return (value, .value) }
            }
            return (try T(from: ProbeDecoder(depth: depth + 1)), .value)
        }
        let decoder = ProbeDecoder(depth: depth + 1)
        let value = try T(from: decoder)
        return (value, decoder.shape)
    }

    private static func firstCase<C: CaseIterable>(_: C.Type) -> Any? { C.allCases.first }
}

/// The decoder of ``CompositeProbe``.
final class ProbeDecoder: Decoder {
    /// How a value was decoded.
    indirect enum Shape {
        /// From a single value.
        case value
        /// From keys: the fields in the order they were decoded.
        case keyed([Field])
        /// From a list.
        case unkeyed
    }

    /// One key decoded from a keyed container.
    struct Field {
        let name: String
        let valueType: any Any.Type
        let shape: Shape
    }

    private(set) var shape: Shape = .value
    /// How many values encloses this one.
    let depth: Int
    private var fields: [Field] = []
    /// The keys asked about with `decodeNil(forKey:)`: what `decodeIfPresent` does before decoding.
    private var optionalKeys: Set<String> = []

    init(depth: Int = 0) { self.depth = depth }

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        shape = .keyed(fields)
        return KeyedDecodingContainer(Keyed<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        shape = .unkeyed
        return Unkeyed()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { Single(decoder: self) }

    fileprivate func noteOptional(_ key: String) { optionalKeys.insert(key) }

    fileprivate func record<T>(_ key: String, _: T.Type, _ shape: Shape) {
        let type: any Any.Type = optionalKeys.contains(key) ? Optional<T>.self : T.self
        fields.append(Field(name: key, valueType: type, shape: shape))
        self.shape = .keyed(fields)
    }

    /// A single value decoded through this decoder: its shape is the value's (an optional's wrapped
    /// struct is keyed).
    fileprivate func adopt(_ shape: Shape) { self.shape = shape }

    private struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: ProbeDecoder
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { [] }
        func contains(_ key: Key) -> Bool { true }
        func decodeNil(forKey key: Key) throws -> Bool {
            decoder.noteOptional(key.stringValue)
            return false
        }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            let (value, shape) = try CompositeProbe.sample(T.self, depth: decoder.depth)
            decoder.record(key.stringValue, T.self, shape)
            return value
        }
        private func leaf<T>(_ value: T, _ key: Key) -> T {
            decoder.record(key.stringValue, T.self, .value)
            return value
        }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { leaf(false, key) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { leaf("", key) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { leaf(0, key) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { leaf(0, key) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { leaf(0, key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { leaf(0, key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { leaf(0, key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { leaf(0, key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { leaf(0, key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { leaf(0, key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { leaf(0, key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { leaf(0, key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { leaf(0, key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { leaf(0, key) }
        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            throw ProbeDecoder.unsupported
        }
        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw ProbeDecoder.unsupported }
        func superDecoder() throws -> any Decoder { throw ProbeDecoder.unsupported }
        func superDecoder(forKey key: Key) throws -> any Decoder { throw ProbeDecoder.unsupported }
    }

    /// An empty list.
    private struct Unkeyed: UnkeyedDecodingContainer {
        var codingPath: [any CodingKey] { [] }
        var count: Int? { 0 }
        var isAtEnd: Bool { true }
        var currentIndex: Int { 0 }
        mutating func decodeNil() throws -> Bool { true }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { throw ProbeDecoder.unsupported }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
            throw ProbeDecoder.unsupported
        }
        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { throw ProbeDecoder.unsupported }
        mutating func superDecoder() throws -> any Decoder { throw ProbeDecoder.unsupported }
    }

    private struct Single: SingleValueDecodingContainer {
        let decoder: ProbeDecoder
        var codingPath: [any CodingKey] { [] }
        func decodeNil() -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let (value, shape) = try CompositeProbe.sample(T.self, depth: decoder.depth)
            decoder.adopt(shape)
            return value
        }
        func decode(_ type: Bool.Type) throws -> Bool { false }
        func decode(_ type: String.Type) throws -> String { "" }
        func decode(_ type: Double.Type) throws -> Double { 0 }
        func decode(_ type: Float.Type) throws -> Float { 0 }
        func decode(_ type: Int.Type) throws -> Int { 0 }
        func decode(_ type: Int8.Type) throws -> Int8 { 0 }
        func decode(_ type: Int16.Type) throws -> Int16 { 0 }
        func decode(_ type: Int32.Type) throws -> Int32 { 0 }
        func decode(_ type: Int64.Type) throws -> Int64 { 0 }
        func decode(_ type: UInt.Type) throws -> UInt { 0 }
        func decode(_ type: UInt8.Type) throws -> UInt8 { 0 }
        func decode(_ type: UInt16.Type) throws -> UInt16 { 0 }
        func decode(_ type: UInt32.Type) throws -> UInt32 { 0 }
        func decode(_ type: UInt64.Type) throws -> UInt64 { 0 }
    }

    static let unsupported = DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not followed by the schema probe"))
}

extension Schema {
    /// The name of the entity of a model type: the class's name.
    public static func entityName(for type: any PersistentModel.Type) -> String {
        String(describing: type)
    }
}
