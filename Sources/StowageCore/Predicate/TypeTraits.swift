import Foundation

/// What SQL can do with values of a Swift type and give Swift's answer.
enum TypeTraits {
    /// `type` with any levels of `Optional` removed.
    static func unwrapped(_ type: Any.Type) -> Any.Type {
        unwrappedTypes.answer(for: type) { type in
            var current = type
            while let optional = current as? any OptionalProtocol.Type { current = optional.wrappedType }
            return current
        }
    }

    private static let unwrappedTypes = TypeMemo<Any.Type>()
    private static let equalityProblems = TypeMemo<String?>()
    private static let orderingProblems = TypeMemo<String?>()

    /// Whether values of `type` are Swift `String`s, which compare with canonical equivalence (Swift's
    /// own `==` and `<`), not byte by byte.
    static func isString(_ type: Any.Type) -> Bool { unwrapped(type) == String.self }

    /// Whether `type` (or its optional) is one of the types the row readers and writers convert inline
    /// (`FastStorage`), bypassing an attribute's codec.
    static func isNativelyStored(_ type: Any.Type) -> Bool {
        let type = unwrapped(type)
        return type == Int.self || type == Double.self || type == String.self || type == Bool.self || type == Date.self
            || type == Data.self
    }

    /// Why `==` / `!=` on `type` cannot run in SQL, or `nil` when it can.
    static func equalityProblem(_ type: Any.Type) -> String? {
        equalityProblems.answer(for: type, findEqualityProblem)
    }

    private static func findEqualityProblem(_ type: Any.Type) -> String? {
        let type = unwrapped(type)
        if type == PersistentIdentifier.self { return nil }
        guard let codec = AttributeCodecs.anyCodec(for: type) else { return "\(type) has no stored form" }
        if codec.kind == .json { return "\(type) is stored as JSON, whose text does not follow its ==" }
        if type == URL.self { return "URL equality compares more than the stored absolute string" }
        return nil
    }

    /// Why `<`, `<=`, `>`, `>=` on `type` cannot run in SQL, or `nil` when they can.
    static func orderingProblem(_ type: Any.Type) -> String? {
        orderingProblems.answer(for: type, findOrderingProblem)
    }

    private static func findOrderingProblem(_ type: Any.Type) -> String? {
        if let problem = equalityProblem(type) { return problem }
        let type = unwrapped(type)
        if type == PersistentIdentifier.self { return "identifiers are compared for equality only" }
        if type == UInt64.self || type == UInt.self {
            return "64-bit unsigned integers above Int64.max are stored with their bit pattern and order differently"
        }
        if type is any StorageRepresentableInteger.Type || type == Double.self || type == Float.self || type == Date.self
            || type == String.self || type == UUID.self || type == Decimal.self {
            return nil
        }
        return "\(type)'s order is its own Comparable conformance, not the order of its stored form"
    }

    /// Why `+`, `-`, `*`, `/`, `%` on `type` cannot run in SQL, or `nil` when they can.
    static func arithmeticProblem(_ type: Any.Type) -> String? {
        let type = unwrapped(type)
        if type == Double.self { return nil }
        if type == Float.self { return "Float arithmetic rounds to single precision; SQL computes in double precision" }
        if type == UInt64.self || type == UInt.self { return "64-bit unsigned integers do not fit SQLite's signed integers" }
        if type is any StorageRepresentableInteger.Type { return nil }
        return "SQL has no arithmetic for \(type)"
    }

    /// How SQL compares values of `type` as Swift does: strings by their text keys, decimals with the
    /// `decimal` collation; `nil` for types whose stored form compares as they do.
    static func collation(for type: Any.Type) -> QueryCollation? {
        let type = unwrapped(type)
        return type == String.self ? .binary : type == Decimal.self ? .decimal : nil
    }

    /// Whether values of `type` (optional or not) can be NaN.
    static func isFloatingPoint(_ type: Any.Type) -> Bool {
        let type = unwrapped(type)
        return type == Double.self || type == Float.self
    }

    /// Whether `value` is a floating-point NaN, which never equals anything.
    static func isNaN(_ value: Any) -> Bool {
        switch value {
        case let double as Double: return double.isNaN
        case let float as Float: return float.isNaN
        case let optional as Double?: return optional?.isNaN ?? false
        case let optional as Float?: return optional?.isNaN ?? false
        default: return false
        }
    }
}
