import Foundation

#if !canImport(Darwin)
/// The name a ``ValueTransformer`` is registered under (Foundation's `NSValueTransformerName`).
///
/// swift-corelibs-foundation has no value transformers; Stowage declares this type and
/// ``ValueTransformer`` on platforms without Darwin's Foundation, so that SwiftData code using
/// `@Attribute(.transformable(by:))` compiles unchanged. On Apple platforms Foundation's own are used.
public struct NSValueTransformerName: RawRepresentable, Hashable, Sendable {
    /// The name.
    public let rawValue: String
    /// A transformer name.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A transformer name.
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// Converts a value to another representation and, when it allows it, back: Foundation's
/// `ValueTransformer`, which swift-corelibs-foundation lacks, with the same API.
///
/// `@Attribute(.transformable(by: MyTransformer.self))` stores the value `transformedValue(_:)` returns
/// (which must be `Data`) and reads the property back through `reverseTransformedValue(_:)`.
/// Register an instance under a name with ``setValueTransformer(_:forName:)`` to refer to it as
/// `.transformable(by: "Name")`.
open class ValueTransformer {
    /// A transformer. Subclasses override ``transformedValue(_:)`` and ``reverseTransformedValue(_:)``.
    /// Required: `.transformable(by: MyTransformer.self)` creates its transformer with it.
    public required init() {}

    /// The class of the values ``transformedValue(_:)`` returns. `NSObject` unless overridden.
    open class func transformedValueClass() -> AnyClass { NSObject.self }

    /// Whether ``reverseTransformedValue(_:)`` is supported. `false` unless overridden; Stowage needs
    /// `true` to read a stored value back.
    open class func allowsReverseTransformation() -> Bool { false }

    /// The transformed form of `value`. Returns `value` unless overridden.
    open func transformedValue(_ value: Any?) -> Any? { value }

    /// The value `transformedValue(_:)` was given, from its result. Returns `value` unless overridden.
    open func reverseTransformedValue(_ value: Any?) -> Any? { value }

    /// Registers `transformer` under `name` (or removes the registration for `nil`).
    open class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        registry.withLock { $0[name.rawValue] = transformer.map(Registered.init) }
    }

    /// The names transformers are registered under.
    open class func valueTransformerNames() -> [NSValueTransformerName] {
        registry.withLock { $0.keys.sorted().map(NSValueTransformerName.init(rawValue:)) }
    }

    /// The transformer registered under `name`, if any.
    static func registered(_ name: String) -> ValueTransformer? {
        registry.withLock { $0[name]?.transformer }
    }

    private struct Registered: @unchecked Sendable {  // Sendable: the registry hands out what it was given.
        let transformer: ValueTransformer
    }

    private static let registry = Locked<[String: Registered]>([:])
}

/// How `ValueTransformer(forName:)` returns the registered instance: only a protocol extension's
/// initializer may assign `self` in a class.
public protocol _ValueTransformerLookup {}

extension ValueTransformer: _ValueTransformerLookup {}

extension _ValueTransformerLookup {
    /// The transformer registered under `name`, or `nil` when none is (or it is not of this class).
    public init?(forName name: NSValueTransformerName) {
        guard let registered = ValueTransformer.registered(name.rawValue) as? Self else { return nil }
        self = registered
    }
}
#else
extension ValueTransformer {
    static func registered(_ name: String) -> ValueTransformer? {
        ValueTransformer(forName: NSValueTransformerName(name))
    }
}
#endif
