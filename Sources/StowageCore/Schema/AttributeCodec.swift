import Foundation

/// How one Swift type converts to and from its stored form. Built once per attribute, at schema time,
/// by looking at the type: a ``StorageRepresentable`` type converts natively, an `Optional` wraps the
/// codec of its `Wrapped`, a `RawRepresentable` type stores its raw value, anything else `Codable` is
/// JSON text (composite attributes, arrays and dictionaries).
/// How a type is stored: natively, as its raw value, or as JSON text.
enum AttributeCodecKind: Equatable { case native, rawValue, json }

struct AttributeCodec<Value> {
    typealias Kind = AttributeCodecKind

    let storageType: StorageType
    let isOptional: Bool
    let kind: Kind
    let encode: (Value) throws -> StorageValue
    let decode: (StorageValue) throws -> Value
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

enum AttributeCodecs {
    private static let cache = Locked<[ObjectIdentifier: Any]>([:])

    /// The codec for `Value`, or `nil` when `Value` has no stored form (not `Codable`).
    static func codec<Value>(for type: Value.Type) -> AttributeCodec<Value>? {
        let key = ObjectIdentifier(type)
        if let cached = cache.withLock({ $0[key] }) { return cached as? AttributeCodec<Value> }
        guard let made = make(type) else { return nil }
        cache.withLock { $0[key] = made }
        return made
    }

    /// The codec for a type known only at run time.
    static func anyCodec(for type: Any.Type) -> AnyAttributeCodec? {
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
