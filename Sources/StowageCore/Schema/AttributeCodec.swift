import Foundation

/// How one Swift type converts to and from its stored form. Built once per attribute, at schema time,
/// by looking at the type: a ``StorageRepresentable`` type converts natively, an `Optional` wraps the
/// codec of its `Wrapped`, a `RawRepresentable` type stores its raw value, anything else `Codable` is
/// JSON text (composite attributes, arrays and dictionaries).
/// How a type is stored: natively, as its raw value, as JSON text, or as the `Data` a value transformer
/// makes (`.transformable(by:)`).
enum AttributeCodecKind: Equatable { case native, rawValue, json, transformable }

@usableFromInline
struct AttributeCodec<Value> {
    typealias Kind = AttributeCodecKind

    let storageType: StorageType
    let isOptional: Bool
    let kind: Kind
    @usableFromInline let encode: (Value) throws -> StorageValue
    @usableFromInline let decode: (StorageValue) throws -> Value

    /// `decode`, with the common native types converted inline. In code specialised for a concrete
    /// `Value` the type tests fold away, leaving one `switch` on the stored value.
    @inlinable @inline(__always)
    func decodeValue(_ stored: StorageValue) throws -> Value {
        if let value = FastStorage.decode(stored, as: Value.self) { return value }
        return try decode(stored)
    }

    /// The value of the attribute at `index` of a row: the common native types are read typed from the
    /// row (no ``StorageValue`` in between), the others decoded from the row's stored value.
    @inlinable @inline(__always)
    func decodeColumn(_ row: StoreRow, at index: Int) throws -> Value {
        if let value = FastStorage.read(row, at: index, as: Value.self) { return value }
        return try decode(row.value(at: index))
    }

    /// `encode`, with the common native types converted inline.
    @inlinable @inline(__always)
    func encodeValue(_ value: Value) throws -> StorageValue {
        if let stored = FastStorage.encode(value) { return stored }
        return try encode(value)
    }
}

/// Inline conversions for the types most attributes have: `Int`, `Double`, `String`, `Bool`, `Date`,
/// `Data` and their optionals. Each gives exactly what the type's ``StorageRepresentable`` conformance
/// gives, and returns `nil` for anything else (another type, or a stored value that needs the full
/// conversion or its error), which then goes through the attribute's ``AttributeCodec``.
@usableFromInline
enum FastStorage {
    @inlinable @inline(__always)
    static func decode<Value>(_ stored: StorageValue, as type: Value.Type) -> Value? {
        switch stored {
        case .integer(let v):
            if Value.self == Int.self || Value.self == Int?.self {
                guard let int = Int(exactly: v) else { return nil }
                return Value.self == Int.self ? unsafeBitCast(int, to: Value.self) : unsafeBitCast(Int?(int), to: Value.self)
            }
            if Value.self == Bool.self { return unsafeBitCast(v != 0, to: Value.self) }
            if Value.self == Bool?.self { return unsafeBitCast(Bool?(v != 0), to: Value.self) }
        case .real(let v):
            if Value.self == Double.self { return unsafeBitCast(v, to: Value.self) }
            if Value.self == Double?.self { return unsafeBitCast(Double?(v), to: Value.self) }
            if Value.self == Date.self { return unsafeBitCast(Date(timeIntervalSinceReferenceDate: v), to: Value.self) }
            if Value.self == Date?.self { return unsafeBitCast(Date?(Date(timeIntervalSinceReferenceDate: v)), to: Value.self) }
        case .text(let v):
            if Value.self == String.self { return unsafeBitCast(v, to: Value.self) }
            if Value.self == String?.self { return unsafeBitCast(String?(v), to: Value.self) }
        case .blob(let v):
            if Value.self == Data.self { return unsafeBitCast(v, to: Value.self) }
            if Value.self == Data?.self { return unsafeBitCast(Data?(v), to: Value.self) }
        case .null:
            if Value.self == Int?.self { return unsafeBitCast(Int?.none, to: Value.self) }
            if Value.self == Double?.self { return unsafeBitCast(Double?.none, to: Value.self) }
            if Value.self == String?.self { return unsafeBitCast(String?.none, to: Value.self) }
            if Value.self == Bool?.self { return unsafeBitCast(Bool?.none, to: Value.self) }
            if Value.self == Date?.self { return unsafeBitCast(Date?.none, to: Value.self) }
            if Value.self == Data?.self { return unsafeBitCast(Data?.none, to: Value.self) }
        }
        return nil
    }

    /// The value at `index` of a row, read with the row's typed accessors, for the types ``decode(_:as:)``
    /// converts from an integer, a real or a text: `nil` for other types and other storage classes (a
    /// `NULL`, a value needing the full conversion or its error), which go through the attribute's codec.
    @inlinable @inline(__always)
    static func read<Value>(_ row: StoreRow, at index: Int, as type: Value.Type) -> Value? {
        if Value.self == Int.self || Value.self == Int?.self || Value.self == Bool.self || Value.self == Bool?.self {
            return row.integer(at: index).flatMap { decode(.integer($0), as: Value.self) }
        }
        if Value.self == Double.self || Value.self == Double?.self || Value.self == Date.self || Value.self == Date?.self {
            return row.real(at: index).flatMap { decode(.real($0), as: Value.self) }
        }
        if Value.self == String.self || Value.self == String?.self {
            return row.text(at: index).flatMap { decode(.text($0), as: Value.self) }
        }
        return nil
    }

    @inlinable @inline(__always)
    static func encode<Value>(_ value: Value) -> StorageValue? {
        if Value.self == Int.self { return .integer(Int64(unsafeBitCast(value, to: Int.self))) }
        if Value.self == Double.self { return .real(unsafeBitCast(value, to: Double.self)) }
        if Value.self == String.self { return .text(unsafeBitCast(value, to: String.self)) }
        if Value.self == Bool.self { return .integer(unsafeBitCast(value, to: Bool.self) ? 1 : 0) }
        if Value.self == Date.self { return .real(unsafeBitCast(value, to: Date.self).timeIntervalSinceReferenceDate) }
        if Value.self == Data.self { return .blob(unsafeBitCast(value, to: Data.self)) }
        if Value.self == Int?.self { return unsafeBitCast(value, to: Int?.self).map { .integer(Int64($0)) } ?? .null }
        if Value.self == Double?.self { return unsafeBitCast(value, to: Double?.self).map { .real($0) } ?? .null }
        if Value.self == String?.self { return unsafeBitCast(value, to: String?.self).map { .text($0) } ?? .null }
        if Value.self == Bool?.self { return unsafeBitCast(value, to: Bool?.self).map { .integer($0 ? 1 : 0) } ?? .null }
        if Value.self == Date?.self { return unsafeBitCast(value, to: Date?.self).map { .real($0.timeIntervalSinceReferenceDate) } ?? .null }
        if Value.self == Data?.self { return unsafeBitCast(value, to: Data?.self).map { .blob($0) } ?? .null }
        return nil
    }
}

/// A type-erased codec, for values whose type is only known at run time (captured predicate values).
struct AnyAttributeCodec {
    let storageType: StorageType
    let isOptional: Bool
    let kind: AttributeCodecKind
    let encode: (Any) throws -> StorageValue
    let decode: (StorageValue) throws -> Any
}

/// Lets generic code see through `Optional` without knowing its `Wrapped` type statically.
protocol OptionalProtocol {
    associatedtype Wrapped
    static var wrappedType: Any.Type { get }
    var wrappedValue: Wrapped? { get }
    init(wrapping: Wrapped?)
}

extension Optional: OptionalProtocol {
    static var wrappedType: Any.Type { Wrapped.self }
    var wrappedValue: Wrapped? { self }
    init(wrapping: Wrapped?) { self = wrapping }
}

@usableFromInline
enum AttributeCodecs {
    private static let cache = Locked<[ObjectIdentifier: Any]>([:])

    /// The codec for `Value`, or `nil` when `Value` has no stored form (not `Codable`).
    @usableFromInline
    static func codec<Value>(for type: Value.Type) -> AttributeCodec<Value>? {
        let key = ObjectIdentifier(type)
        if let cached = cache.withLock({ $0[key] }) { return cached as? AttributeCodec<Value> }
        guard let made = make(type) else { return nil }
        cache.withLock { $0[key] = made }
        return made
    }

    private static let anyCache = Locked<[ObjectIdentifier: AnyAttributeCodec]>([:])

    /// The codec for a type known only at run time (cached: predicate translation asks for it on every
    /// comparison).
    static func anyCodec(for type: Any.Type) -> AnyAttributeCodec? {
        let key = ObjectIdentifier(type)
        if let cached = anyCache.withLock({ $0[key] }) { return cached }
        guard let made = makeAnyCodec(for: type) else { return nil }
        anyCache.withLock { $0[key] = made }
        return made
    }

    private static func makeAnyCodec(for type: Any.Type) -> AnyAttributeCodec? {
        func open<T>(_: T.Type) -> AnyAttributeCodec? {
            guard let codec = codec(for: T.self) else { return nil }
            return AnyAttributeCodec(
                storageType: codec.storageType, isOptional: codec.isOptional, kind: codec.kind,
                encode: { try codec.encode($0 as! T) }, decode: { try codec.decode($0) })
        }
        return _openExistential(type, do: open)
    }

    private static func make<Value>(_ type: Value.Type) -> AttributeCodec<Value>? {
        if let optional = type as? any OptionalProtocol.Type {
            return optionalCodec(optional) as? AttributeCodec<Value>
        }
        if let native = type as? any StorageRepresentable.Type {
            return nativeCodec(native) as? AttributeCodec<Value>
        }
        if let raw = type as? any RawRepresentable.Type, let codec = rawValueCodec(raw) as? AttributeCodec<Value> {
            return codec
        }
        if let codable = type as? any Codable.Type {
            return jsonCodec(codable) as? AttributeCodec<Value>
        }
        return nil
    }

    private static func nativeCodec<T: StorageRepresentable>(_: T.Type) -> Any {
        AttributeCodec<T>(
            storageType: T.storageType, isOptional: false, kind: .native,
            encode: { $0.storageValue }, decode: { try T(storageValue: $0) })
    }

    private static func optionalCodec<O: OptionalProtocol>(_: O.Type) -> Any? {
        guard let inner = codec(for: O.Wrapped.self) else { return nil }
        return AttributeCodec<O>(
            storageType: inner.storageType, isOptional: true, kind: inner.kind,
            encode: { (value: O) throws -> StorageValue in
                guard let wrapped = value.wrappedValue else { return .null }
                return try inner.encode(wrapped)
            },
            decode: { (stored: StorageValue) throws -> O in
                stored == .null ? O(wrapping: nil) : O(wrapping: try inner.decode(stored))
            })
    }

    private static func rawValueCodec<R: RawRepresentable>(_: R.Type) -> Any? {
        guard R.RawValue.self is any StorageRepresentable.Type, let raw = codec(for: R.RawValue.self) else { return nil }
        return AttributeCodec<R>(
            storageType: raw.storageType, isOptional: false, kind: .rawValue,
            encode: { try raw.encode($0.rawValue) },
            decode: { stored in
                guard let value = R(rawValue: try raw.decode(stored)) else {
                    throw StowageError(.invalidStoredValue, "The stored value \(stored) is not a raw value of \(R.self).")
                }
                return value
            })
    }

    private static func jsonCodec<C: Codable>(_: C.Type) -> Any {
        AttributeCodec<C>(
            storageType: .text, isOptional: false, kind: .json,
            encode: { value in
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                do {
                    return .text(String(decoding: try encoder.encode(value), as: UTF8.self))
                } catch {
                    throw StowageError(.invalidValue, "A value of \(C.self) cannot be encoded as JSON: \(error)", underlying: error)
                }
            },
            decode: { stored in
                let data: Data
                switch stored {
                case .text(let text): data = Data(text.utf8)
                case .blob(let blob): data = blob
                default: throw invalidStoredValue(stored, as: C.self)
                }
                do { return try JSONDecoder().decode(C.self, from: data) } catch {
                    throw StowageError(.invalidStoredValue, "The stored JSON cannot be decoded as \(C.self).", underlying: error)
                }
            })
    }
}
