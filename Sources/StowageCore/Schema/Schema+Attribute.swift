import Foundation

extension Schema {
    /// A stored property holding a value (as opposed to a ``Relationship``).
    ///
    /// `@Attribute(.unique, originalName: "title")` on a property configures its attribute.
    ///
    /// Not `final`, as in SwiftData: ``Schema/CompositeAttribute`` is one.
    public class Attribute: SchemaProperty {
        /// Options that change how an attribute is stored.
        public struct Option: Hashable, Sendable, CustomStringConvertible {
            let rawValue: String
            /// The transformer of `.transformable(by:)`.
            let transformer: TransformerReference?

            init(rawValue: String, transformer: TransformerReference? = nil) {
                self.rawValue = rawValue
                self.transformer = transformer
            }

            /// The value is unique across all models of the entity; inserting a model whose value matches
            /// a stored one updates that row on save (an upsert).
            public static let unique = Option(rawValue: "unique")
            /// The value (typically large `Data` or text) is kept outside the entity's table, in a side
            /// table loaded only when the property is read.
            public static let externalStorage = Option(rawValue: "externalStorage")
            /// Accepted for SwiftData compatibility; there is no cloud store on this platform.
            public static let allowsCloudEncryption = Option(rawValue: "allowsCloudEncryption")
            /// The value is kept in the store's history when the model is deleted, in the deletion's
            /// tombstone (``HistoryDelete/tombstone``).
            public static let preserveValueOnDeletion = Option(rawValue: "preserveValueOnDeletion")
            /// Accepted for SwiftData compatibility; there is no Spotlight on this platform.
            public static let spotlight = Option(rawValue: "spotlight")
            /// Changes are tracked but the value is not stored.
            public static let ephemeral = Option(rawValue: "ephemeral")
            /// Store the value through its `Codable` representation (JSON text). This is already what
            /// Stowage does for composite types.
            public static let codable = Option(rawValue: "codable")

            /// Store the value as the `Data` an instance of `transformerType` makes of it
            /// (`transformedValue(_:)`), in a BLOB column, and read it back with
            /// `reverseTransformedValue(_:)`. The transformer must allow reverse transformation. For
            /// property types that are not `Codable` (a class such as a color); Stowage stores `Codable`
            /// values itself.
            public static func transformable(by transformerType: ValueTransformer.Type) -> Option {
                Option(rawValue: "transformable", transformer: TransformerReference(type: transformerType))
            }

            /// Like `transformable(by: MyTransformer.self)`, with the transformer registered under
            /// `transformerName` (`ValueTransformer.setValueTransformer(_:forName:)`). Opening a container
            /// fails when no transformer is registered under that name.
            public static func transformable(by transformerName: String) -> Option {
                Option(rawValue: "transformable", transformer: TransformerReference(name: transformerName))
            }

            /// The option's name (`unique`), and the transformer of `transformable`.
            public var description: String {
                transformer.map { "\(rawValue)(by: \($0))" } ?? rawValue
            }
        }

        /// The property's name in Swift, which is also its column's name.
        public let name: String
        /// The name the property had in an earlier version (`@Attribute(originalName:)`), or its name.
        public let originalName: String
        /// The options the attribute was declared with.
        public let options: [Option]
        /// The property's Swift type, without its optional.
        public let valueType: any Any.Type
        /// The value the property is initialised with in its declaration, when it is a literal.
        public let defaultValue: Any?
        /// A string that changes the attribute's version hash without changing its shape.
        public let hashModifier: String?
        /// Whether the property may be `nil`: its column accepts `NULL`.
        public let isOptional: Bool

        /// Always `true`: an attribute is one.
        public var isAttribute: Bool { true }
        /// Always `false`: an attribute is not a relationship.
        public var isRelationship: Bool { false }
        /// Whether the attribute was declared with `.unique`.
        public var isUnique: Bool { options.contains(.unique) }
        /// Whether the value is stored outside the entity's table.
        public var isExternalStorage: Bool { options.contains(.externalStorage) }
        /// Whether the attribute is stored by a value transformer (`.transformable(by:)`). Stowage
        /// stores other composite values as JSON.
        public var isTransformable: Bool { transformer != nil }

        /// The transformer named by `.transformable(by:)`, if any.
        var transformer: TransformerReference? { options.lazy.compactMap(\.transformer).first }

        /// The declared column type.
        public var storageType: StorageType { accessor.storageType }

        /// Whether the attribute holds Swift `String`s, which compare by canonical equivalence: the
        /// store keys its uniqueness constraints, indexes and comparisons on the text's NFC form (see
        /// `SwiftTextKey`), so they agree with Swift's `==` and `<`.
        let comparesAsSwiftString: Bool

        let keyPath: AnyKeyPath
        let accessor: any AttributeAccessor
        /// Position of the property in ``Schema/Entity/properties``; set when the entity is built.
        var index = 0

        /// Options and names as written in `@Attribute(...)`. The macro turns each `@Attribute` into this
        /// initializer; the remaining details come from the property itself.
        public init(_ options: Option..., originalName: String? = nil, hashModifier: String? = nil) {
            self.name = ""
            self.originalName = originalName ?? ""
            self.options = options
            self.valueType = Void.self
            self.defaultValue = nil
            self.hashModifier = hashModifier
            self.isOptional = false
            self.keyPath = \Attribute.name
            self.accessor = UnboundAttributeAccessor(valueType: Void.self, isOptional: true)
            self.comparesAsSwiftString = false
        }

        /// Describes an attribute from its parts, as SwiftData's initializer of the same shape: for
        /// reflection (the attribute belongs to no entity and reads or writes no model). An optional
        /// `valueType` (`String?`) makes an optional attribute.
        public init(
            name: String, originalName: String? = nil, options: [Option] = [], valueType: any Any.Type,
            defaultValue: Any? = nil, hashModifier: String? = nil
        ) {
            let isOptional = valueType is any OptionalProtocol.Type
            self.name = name
            self.originalName = originalName.flatMap { $0.isEmpty ? nil : $0 } ?? name
            self.options = options
            self.valueType = valueType
            self.defaultValue = defaultValue
            self.hashModifier = hashModifier
            self.isOptional = isOptional
            self.keyPath = \Attribute.name
            self.accessor = UnboundAttributeAccessor(valueType: valueType, isOptional: isOptional)
            self.comparesAsSwiftString = TypeTraits.isString(valueType)
        }

        init(name: String, declared: Attribute?, keyPath: AnyKeyPath, defaultValue: Any?, accessor: any AttributeAccessor) {
            self.name = name
            let original = declared?.originalName ?? ""
            self.originalName = original.isEmpty ? name : original
            self.options = declared?.options ?? []
            self.valueType = accessor.valueType
            self.defaultValue = defaultValue
            self.hashModifier = declared?.hashModifier
            self.isOptional = accessor.isOptional
            self.keyPath = keyPath
            self.accessor = accessor
            self.comparesAsSwiftString = TypeTraits.isString(accessor.valueType)
        }

        /// The attribute's name, type, column type, options and earlier name, on one line.
        public var description: String {
            var parts = ["\(name): \(valueType)", storageType.rawValue]
            if !isOptional { parts.append("NOT NULL") }
            parts.append(contentsOf: options.map(\.description).sorted())
            if originalName != name { parts.append("originalName=\(originalName)") }
            if let hashModifier { parts.append("hashModifier=\(hashModifier)") }
            return parts.joined(separator: " ")
        }
    }
}

/// Reads and writes one attribute of a model object, converting between its Swift value and its stored
/// form. One instance per attribute, built at schema time.
protocol AttributeAccessor: AnyObject {
    var valueType: any Any.Type { get }
    var storageType: StorageType { get }
    var isOptional: Bool { get }
    var codecKind: AttributeCodecKind { get }
    /// Whether the model's storage holds a value (it is `nil` for a property not loaded yet).
    func isLoaded(_ model: AnyObject) -> Bool
    /// The stored form of the model's current value.
    func read(_ model: AnyObject) throws -> StorageValue
    /// Sets the model's storage from a stored value, without observation or change tracking.
    func load(_ value: StorageValue, into model: AnyObject) throws
    /// Sets the model's storage from a stored value and notifies observers when the value changed.
    func refresh(_ value: StorageValue, into model: AnyObject) throws
    /// Sets the property through its setter, as code assigning it does (tracked, observed).
    func assign(_ value: StorageValue, to model: AnyObject) throws
    /// Forgets the model's value, so that the next read loads it again.
    func unload(_ model: AnyObject)
    /// The model's current storage, for rollback.
    func snapshot(_ model: AnyObject) -> Any
    /// A stored value decoded to the attribute's type, boxed: what a new model's property is set to
    /// (see `ModelRowReader`), and in the form of ``snapshot(_:)`` what rollback restores once another
    /// save changed the row under an unsaved change.
    func decode(_ value: StorageValue) throws -> Any
    /// Restores a snapshot and notifies observers.
    func restore(_ snapshot: Any, into model: AnyObject)
    /// The stored form of a Swift value of this attribute's type (a predicate constant), or `nil` when
    /// `value` is not of that type.
    func encode(constant value: Any) throws -> StorageValue?
    /// A recognisable value of the attribute's type, for key path probes; `nil` when none can be made.
    var probeValue: Any? { get }
    /// A stored value decoded, as a history tombstone holds it; `nil` for a `nil` value.
    func tombstoneValue(_ stored: StorageValue) throws -> (any Sendable)?
}

/// Stored values a probe tries to decode, per storage type, until one makes a value of the type.
let probeCandidates: [StorageType: [StorageValue]] = [
    .integer: [.integer(0x5EED)],
    .real: [.real(5_437.25)],
    .text: [.text("\u{1}stowage-probe"), .text("5EED5EED-0000-4000-8000-00000000BEEF"), .text("stowage://probe")],
    .blob: [.blob(Data([0x5E, 0xED]))],
]

/// The snapshot of an attribute that was not loaded: restoring it unloads the property again.
@usableFromInline
struct NotLoadedSnapshot {
    @inlinable init() {}
}

final class TypedAttributeAccessor<Root: PersistentModel, Value>: AttributeAccessor {
    let keyPath: KeyPath<Root, Value>
    let storage: PropertyStorage<Root, Value>
    let codec: AttributeCodec<Value>
    /// The per-row operations, specialised in the model's module.
    let operations: AttributeOperations

    init(keyPath: KeyPath<Root, Value>, storage: PropertyStorage<Root, Value>, codec: AttributeCodec<Value>,
         operations: AttributeOperations) {
        self.keyPath = keyPath
        self.storage = storage
        self.codec = codec
        self.operations = operations
        self.probeValue = Self.makeProbeValue(codec)
    }

    var valueType: any Any.Type { Value.self }
    var storageType: StorageType { codec.storageType }
    var isOptional: Bool { codec.isOptional }
    var codecKind: AttributeCodecKind { codec.kind }

    func isLoaded(_ model: AnyObject) -> Bool { operations.isLoaded(model) }
    func read(_ model: AnyObject) throws -> StorageValue { try operations.read(model) }
    func load(_ value: StorageValue, into model: AnyObject) throws { try operations.load(value, model) }
    func refresh(_ value: StorageValue, into model: AnyObject) throws { try operations.refresh(value, model) }

    func unload(_ model: AnyObject) { storage[model] = nil }

    /// The value boxed as `Value` (not as the storage's `Value?`, whose metadata boxing would look up),
    /// or ``NotLoadedSnapshot`` for a property not loaded; boxed in the model's module (``AttributeOperations``).
    func snapshot(_ model: AnyObject) -> Any { operations.snapshot(model) }

    func decode(_ value: StorageValue) throws -> Any { try codec.decodeValue(value) }

    func assign(_ value: StorageValue, to model: AnyObject) throws {
        guard let writable = keyPath as? ReferenceWritableKeyPath<Root, Value> else { return }
        unsafeDowncast(model, to: Root.self)[keyPath: writable] = try codec.decodeValue(value)
    }

    func restore(_ snapshot: Any, into model: AnyObject) {
        let object = unsafeDowncast(model, to: Root.self)
        let value: Value? = snapshot is NotLoadedSnapshot ? nil : (snapshot as! Value)
        object._$withMutation(keyPath: keyPath) { storage[object] = value }
    }

    func encode(constant value: Any) throws -> StorageValue? {
        guard let typed = value as? Value else { return nil }
        return try codec.encode(typed)
    }

    func tombstoneValue(_ stored: StorageValue) throws -> (any Sendable)? {
        if stored == .null { return nil }
        // Attribute values are plain data (Codable values, not references to live state): a decoded copy
        // is the tombstone's own.
        return unsafeBitCast(try codec.decodeValue(stored) as Any, to: (any Sendable).self)
    }

    /// Computed once, at schema time, so that the shared accessor stays immutable.
    let probeValue: Any?

    private static func makeProbeValue(_ codec: AttributeCodec<Value>) -> Any? {
        if let iterable = Value.self as? any CaseIterable.Type, let first = firstCase(of: iterable) as? Value { return first }
        for candidate in probeCandidates[codec.storageType] ?? [] {
            if let value = try? codec.decode(candidate) { return value }
        }
        return nil
    }
}

private func firstCase<C: CaseIterable>(of type: C.Type) -> Any? { C.allCases.first }

/// The accessor of an `Attribute` created from `@Attribute(...)` arguments, before it is bound to a
/// property. Never used to read or write.
private final class UnboundAttributeAccessor: AttributeAccessor {
    let valueType: any Any.Type
    let isOptional: Bool
    init(valueType: any Any.Type, isOptional: Bool) {
        self.valueType = valueType
        self.isOptional = isOptional
    }
    var storageType: StorageType { AttributeCodecs.anyCodec(for: valueType)?.storageType ?? .blob }
    var codecKind: AttributeCodecKind { .native }
    func isLoaded(_ model: AnyObject) -> Bool { false }
    func read(_ model: AnyObject) throws -> StorageValue { .null }
    func load(_ value: StorageValue, into model: AnyObject) throws {}
    func refresh(_ value: StorageValue, into model: AnyObject) throws {}
    func assign(_ value: StorageValue, to model: AnyObject) throws {}
    func unload(_ model: AnyObject) {}
    func snapshot(_ model: AnyObject) -> Any { () }
    func decode(_ value: StorageValue) throws -> Any { () }
    func restore(_ snapshot: Any, into model: AnyObject) {}
    func encode(constant value: Any) throws -> StorageValue? { nil }
    var probeValue: Any? { nil }
    func tombstoneValue(_ stored: StorageValue) throws -> (any Sendable)? { nil }
}

/// The transformer `.transformable(by:)` names: a `ValueTransformer` subclass, instantiated for each
/// schema, or the name of a registered instance.
struct TransformerReference: Hashable, @unchecked Sendable {  // Sendable: a metatype and a string.
    let type: ValueTransformer.Type?
    let name: String?

    init(type: ValueTransformer.Type) {
        self.type = type
        self.name = nil
    }

    init(name: String) {
        self.type = nil
        self.name = name
    }

    /// A transformer to use: a new instance of the type, or the one registered under the name.
    func make() -> ValueTransformer? {
        if let type { return type.init() }
        return name.flatMap(ValueTransformer.registered)
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.type.map(ObjectIdentifier.init) == rhs.type.map(ObjectIdentifier.init) && lhs.name == rhs.name
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(type.map(ObjectIdentifier.init))
        hasher.combine(name)
    }
}

extension TransformerReference: CustomStringConvertible {
    var description: String { type.map { "\($0)" } ?? "\"\(name ?? "")\"" }
}
