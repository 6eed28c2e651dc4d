import Foundation
import Logging

/// The result of translating a `#Predicate` for SQL.
struct PredicateTranslation {
    /// The condition SQL applies, or `nil` when no part of the predicate could be translated.
    var filter: QueryExpression?
    /// Whether `filter` is the whole predicate. When `false`, `filter` keeps a superset of the matching
    /// rows (the translatable conjuncts) and the whole predicate is evaluated in Swift on those rows.
    var isComplete: Bool
}

/// A predicate node that cannot be expressed in SQL.
struct UntranslatableNode: Error {
    let node: String
    let reason: String
}

/// What a predicate sub-expression becomes: an SQL expression, or a constant folded in Swift (a
/// captured value or a variable-free subtree), bound as a parameter when it meets a column.
enum TranslatedOperand {
    case expression(QueryExpression, attribute: Schema.Attribute?)
    case constant(Any)
}

/// The state threaded (inout) through the translation of one predicate.
struct TranslationState {
    let entity: Schema.Entity
    var variable: PredicateExpressions.VariableID?

    /// Translates a child expression, or throws ``UntranslatableNode`` naming it.
    mutating func translate(_ expression: Any) throws -> TranslatedOperand {
        guard let translatable = expression as? any SQLTranslatable else {
            throw UntranslatableNode(node: Self.name(of: expression), reason: "Stowage has no SQL translation for this node")
        }
        return try translatable.translate(&self)
    }

    /// Translates a child that must be a boolean condition.
    mutating func condition(_ expression: Any) throws -> QueryExpression {
        switch try translate(expression) {
        case .expression(let sql, _): return sql
        case .constant(let value):
            guard let bool = value as? Bool else {
                throw UntranslatableNode(node: Self.name(of: expression), reason: "not a boolean")
            }
            return bool ? .true : .false
        }
    }

    /// The SQL form of an operand; a constant is encoded like `attribute` when one is known, so enums,
    /// dates and UUIDs compare in their stored form.
    func sql(_ operand: TranslatedOperand, like attribute: Schema.Attribute?) throws -> QueryExpression {
        switch operand {
        case .expression(let expression, _): return expression
        case .constant(let value): return .value(try Self.encode(value, like: attribute))
        }
    }

    static func encode(_ value: Any, like attribute: Schema.Attribute?) throws -> StorageValue {
        if let attribute, let encoded = try attribute.accessor.encode(constant: value) { return encoded }
        if let optional = value as? any OptionalProtocol, optionalIsNil(optional) { return .null }
        guard let codec = AttributeCodecs.anyCodec(for: type(of: value)) else {
            throw UntranslatableNode(node: "\(type(of: value))", reason: "the value has no stored form")
        }
        return try codec.encode(value)
    }

    private static func optionalIsNil<O: OptionalProtocol>(_ optional: O) -> Bool { optional.wrappedValue == nil }

    static func name(of expression: Any) -> String {
        let full = String(describing: type(of: expression))
        return full.split(separator: "<").first.map(String.init) ?? full
    }
}

/// A `PredicateExpressions` node that can be expressed in SQL. One conformance per node type, in
/// `PredicateTranslator+Nodes.swift`.
protocol SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand
}

/// Translates Foundation `#Predicate`s into storage-neutral ``QueryExpression``s.
enum PredicateTranslator {
    static let logger = Logger(label: "Stowage.Predicate")

    /// Translates `predicate` for `entity`.
    ///
    /// A top-level conjunction is split: conjuncts that translate run in SQL, the others in Swift (with a
    /// warning naming the node). In strict mode an untranslatable node throws instead.
    static func translate<T: PersistentModel>(_ predicate: Predicate<T>, entity: Schema.Entity, strict: Bool) throws -> PredicateTranslation {
        var state = TranslationState(entity: entity, variable: predicate.variable.key)
        var untranslated: [UntranslatableNode] = []
        var conjuncts: [QueryExpression] = []
        for part in conjunctsOf(predicate.expression) {
            do {
                conjuncts.append(try state.condition(part))
            } catch let node as UntranslatableNode {
                untranslated.append(node)
            }
        }
        if let first = untranslated.first {
            let message = "The predicate node \(first.node) cannot run in SQL (\(first.reason))"
            if strict {
                throw StowageError(.unsupportedPredicate, message + "; strict mode is on, so the fetch fails.", entityName: entity.name)
            }
            logger.warning("\(message); Stowage evaluates the predicate in Swift over the rows SQL narrowed.", metadata: ["entity": "\(entity.name)"])
        }
        let filter: QueryExpression? = conjuncts.isEmpty ? nil : conjuncts.count == 1 ? conjuncts[0] : .and(conjuncts)
        return PredicateTranslation(filter: filter, isComplete: untranslated.isEmpty)
    }

    /// The operands of a chain of `&&` at the top of a predicate.
    private static func conjunctsOf(_ expression: Any) -> [Any] {
        if let conjunction = expression as? any ConjunctionNode { return conjunction.operands.flatMap(conjunctsOf) }
        return [expression]
    }
}

/// Lets the translator split `&&` chains without knowing their generic parameters.
protocol ConjunctionNode {
    var operands: [Any] { get }
}

extension PredicateExpressions.Conjunction: ConjunctionNode {
    var operands: [Any] { [lhs, rhs] }
}

/// Translates `SortDescriptor`s into ORDER BY terms.
enum SortTranslator {
    /// The ORDER BY terms, or `nil` when a descriptor cannot be sorted in SQL (the fetch then sorts in
    /// Swift with Foundation's `SortDescriptor`, or throws in strict mode).
    static func translate<T: PersistentModel>(_ descriptors: [SortDescriptor<T>], entity: Schema.Entity, strict: Bool) throws -> [QuerySortTerm]? {
        var terms: [QuerySortTerm] = []
        for descriptor in descriptors {
            guard let keyPath = descriptor.keyPath, let attribute = entity.attribute(for: keyPath),
                  attribute.accessor.codecKind != .json
            else {
                let message = "The sort \(descriptor.keyPath.map { "\($0)" } ?? "with a custom comparator") cannot run in SQL"
                if strict { throw StowageError(.unsupportedPredicate, message + ".", entityName: entity.name) }
                PredicateTranslator.logger.warning("\(message); Stowage sorts in Swift.", metadata: ["entity": "\(entity.name)"])
                return nil
            }
            var collation: QueryCollation? = nil
            if attribute.storageType == .text && attribute.accessor.codecKind == .native && isString(attribute.valueType) {
                collation = collationOf(descriptor.stringComparator)
            }
            terms.append(QuerySortTerm(expression: .attribute(attribute), ascending: descriptor.order == .forward, collation: collation))
        }
        return terms
    }

    private static func isString(_ type: Any.Type) -> Bool { type == String.self || type == String?.self }

    /// SwiftData sorts strings with `.localizedStandard` unless told otherwise. On Linux a key-path
    /// `SortDescriptor` on a `String` has no comparator (`nil`): Stowage applies SwiftData's default.
    static func collationOf(_ comparator: String.StandardComparator?) -> QueryCollation {
        guard let comparator else { return .localizedStandard }
        if comparator == .lexical { return .binary }
        let probe = String.StandardComparator(comparator, order: .forward)
        let numeric = probe.compare("a2", "a10") == .orderedAscending
        let caseless = probe.compare("a", "A") == .orderedSame
        if numeric { return .localizedStandard }
        if caseless { return .caseInsensitive }
        return .localized
    }
}
