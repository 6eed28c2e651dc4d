import Foundation

#if !canImport(Darwin)
extension PredicateExpressions {
    /// `string.localizedStandardContains(other)` in a `#Predicate`: case- and diacritic-insensitive,
    /// locale-aware search.
    ///
    /// Foundation on Linux lacks this node: `#Predicate` expands `localizedStandardContains` into a call to
    /// `PredicateExpressions.build_localizedStandardContains`, which Stowage supplies. It runs in SQL
    /// (through a function that calls Foundation's own `localizedStandardContains`) and in Swift.
    public struct StringLocalizedStandardContains<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression, Sendable
    where Root.Output: StringProtocol, Other.Output: StringProtocol, Root: Sendable, Other: Sendable {
        /// The expression evaluates to whether the string contains the other.
        public typealias Output = Bool
        /// The expression of the string searched.
        public let root: Root
        /// The expression of the string searched for.
        public let other: Other

        /// The expression `root.localizedStandardContains(other)`.
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// Evaluates both strings and compares them with Foundation's `localizedStandardContains`.
        public func evaluate(_ bindings: PredicateBindings) throws -> Bool {
            try root.evaluate(bindings).localizedStandardContains(other.evaluate(bindings))
        }
    }

    /// Builds the `localizedStandardContains` node (called by the `#Predicate` macro).
    public static func build_localizedStandardContains<Root, Other>(_ root: Root, _ other: Other) -> StringLocalizedStandardContains<Root, Other> {
        StringLocalizedStandardContains(root: root, other: other)
    }
}

extension PredicateExpressions.StringLocalizedStandardContains: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}

extension PredicateExpressions.StringLocalizedStandardContains: Codable where Root: Codable, Other: Codable {}

extension PredicateExpressions.StringLocalizedStandardContains: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        try state.stringFunction(
            .localizedStandardContains, root, other,
            areStrings: Root.Output.self == String.self && Other.Output.self == String.self, resultType: Bool.self, node: self)
    }
}
#endif
