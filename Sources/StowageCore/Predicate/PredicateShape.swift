import Foundation

// Translating a predicate costs far more than running the SQL of a lookup by key: a fetch in a loop
// (`#Predicate { $0.email == email }` with a new `email` each time) would spend most of its time in the
// translator. A predicate's translation depends on its *shape* — its type (which spells out every node),
// the key paths, operators and variables in it — and on its captured values only through the parameters
// they are bound as, unless the translator reads them for something else (folding, choosing a branch,
// expanding a collection, a NULL or a NaN). Translations that only bind their captured values are kept
// per shape (`PredicateTemplate`), and a fetch of the same shape reads the predicate's captured values
// (`PredicateShape`) and binds them, without translating again. The SQL text is kept per template too
// (`SQLiteStore`).

/// The shape of a predicate and the values it captured, read without translating it.
struct PredicateShape {
    /// Everything a translation depends on apart from the captured values.
    struct Key: Hashable {
        let expressionType: ObjectIdentifier
        let tokens: [Token]

        /// The expression type and the number of tokens: hashing key paths walks their components,
        /// which would cost more than the lookup saves. Keys that differ only by their tokens are few
        /// (the same node types over other properties) and are told apart by `==`.
        func hash(into hasher: inout Hasher) {
            hasher.combine(expressionType)
            hasher.combine(tokens.count)
        }
    }

    /// What a node holds besides its children and its type: key paths, operators, variables.
    enum Token: Hashable {
        case keyPath(AnyKeyPath)
        /// A variable, numbered in the order the predicate declares them (the model is 0): each
        /// `#Predicate` makes new variable identifiers, which must not make a new shape.
        case variable(Int)
        /// An operator.
        case code(Int)
    }

    let key: Key
    /// The predicate's `PredicateExpressions.Value`s, in the order the translator meets them.
    let capturedValues: [Any]

    /// Reads the shape of `expression`, whose model variable is `variable`; `nil` when a node has no
    /// ``PredicateShapeNode`` conformance (such a predicate is translated every time).
    init?(_ expression: any StandardPredicateExpression<Bool>, variable: PredicateExpressions.VariableID) {
        guard let node = Self.nodeType(type(of: expression)) else { return nil }
        var reader = PredicateShapeReader(variable: variable)
        // The expression opened at its concrete type, which `node` is: no dynamic cast of the root.
        func describe<Root>(_ root: Root) {
            withUnsafePointer(to: root) { node.describe(at: UnsafeRawPointer($0), into: &reader) }
        }
        describe(expression)
        key = Key(expressionType: ObjectIdentifier(type(of: expression)), tokens: reader.tokens)
        capturedValues = reader.values
    }

    private static let nodeTypes = TypeMemo<(any PredicateShapeNode.Type)?>()

    private static func nodeType(_ type: Any.Type) -> (any PredicateShapeNode.Type)? {
        nodeTypes.answer(for: type) { $0 as? any PredicateShapeNode.Type }
    }
}

/// Collects a predicate's shape tokens and captured values (see ``PredicateShapeNode``).
struct PredicateShapeReader {
    fileprivate(set) var tokens: [PredicateShape.Token] = []
    fileprivate(set) var values: [Any] = []
    private var variables: [PredicateExpressions.VariableID]

    fileprivate init(variable: PredicateExpressions.VariableID) { variables = [variable] }

    mutating func variable(_ id: PredicateExpressions.VariableID) {
        if let index = variables.firstIndex(of: id) {
            tokens.append(.variable(index))
        } else {
            tokens.append(.variable(variables.count))
            variables.append(id)
        }
    }

    mutating func keyPath(_ keyPath: AnyKeyPath) { tokens.append(.keyPath(keyPath)) }

    mutating func code(_ code: Int) { tokens.append(.code(code)) }

    mutating func value(_ value: Any) { values.append(value) }
}

/// A predicate node whose shape and captured values can be read. Conformances require their children
/// to conform, so a predicate's whole tree is read with static calls once its root type is known; a
/// node describes its children in the order its ``SQLTranslatable`` translation visits them, so that
/// the values' positions are the translator's slots (``KnownValue/slot``).
protocol PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader)
}

extension PredicateShapeNode {
    /// Describes the node at `pointer`, a value of this very type.
    static func describe(at pointer: UnsafeRawPointer, into reader: inout PredicateShapeReader) {
        pointer.assumingMemoryBound(to: Self.self).pointee.describe(into: &reader)
    }
}

/// A cached translation: the filter with ``QueryExpression/parameter(_:)`` where captured values go,
/// and how each parameter is made from a captured value. Immutable.
final class PredicateTemplate: @unchecked Sendable {  // Sendable: immutable after init.
    /// How one parameter is made: the captured value at `slot`, encoded like `attribute`.
    struct Parameter {
        let slot: Int
        let attribute: Schema.Attribute?
    }

    let filter: QueryExpression?
    let parameters: [Parameter]

    init(filter: QueryExpression?, parameters: [Parameter]) {
        self.filter = filter
        self.parameters = parameters
    }

    /// The parameters for another predicate of the same shape, or `nil` when one of its values cannot
    /// be a parameter of this template (see ``isParameterValue(_:)``) and the predicate must be
    /// translated.
    func parameterValues(for captured: [Any], storeIdentifier: String?) -> [StorageValue]? {
        var values: [StorageValue] = []
        values.reserveCapacity(parameters.count)
        for parameter in parameters {
            guard parameter.slot < captured.count,
                  let stored = try? TranslationState.encode(captured[parameter.slot], like: parameter.attribute, storeIdentifier: storeIdentifier),
                  Self.isParameterValue(stored)
            else { return nil }
            values.append(stored)
        }
        return values
    }

    /// Whether a value is bound as a parameter. NULL and NaN are not: they change the translation
    /// (`IS NULL`, a comparison known to be false).
    static func isParameterValue(_ value: StorageValue) -> Bool {
        switch value {
        case .null: false
        case .real(let number): !number.isNaN
        default: true
        }
    }
}

/// The templates of one entity's predicates, by shape. Bounded: when full it starts again empty (an
/// app has a few dozen predicate shapes; only generated predicates would fill it).
final class PredicateTemplateCache: @unchecked Sendable {  // Sendable: the dictionary is behind the lock.
    static let capacity = 256
    private let templates = Locked<[PredicateShape.Key: PredicateTemplate]>([:])

    subscript(key: PredicateShape.Key) -> PredicateTemplate? {
        templates.withLock { $0[key] }
    }

    func store(_ template: PredicateTemplate, for key: PredicateShape.Key) {
        templates.withLock {
            if $0.count >= Self.capacity { $0.removeAll(keepingCapacity: true) }
            $0[key] = template
        }
    }
}

// MARK: - Node shapes

extension PredicateExpressions.Variable: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) { reader.variable(key) }
}

extension PredicateExpressions.KeyPath: PredicateShapeNode where Root: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) {
        root.describe(into: &reader)
        reader.keyPath(keyPath)
    }
}

extension PredicateExpressions.Value: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) { reader.value(value) }
}

extension PredicateExpressions.NilLiteral: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) {}
}

extension PredicateExpressions.Equal: PredicateShapeNode where LHS: PredicateShapeNode, RHS: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) {
        lhs.describe(into: &reader)
        rhs.describe(into: &reader)
    }
}

extension PredicateExpressions.NotEqual: PredicateShapeNode where LHS: PredicateShapeNode, RHS: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) {
        lhs.describe(into: &reader)
        rhs.describe(into: &reader)
    }
}

extension PredicateExpressions.Comparison: PredicateShapeNode where LHS: PredicateShapeNode, RHS: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) {
        lhs.describe(into: &reader)
        rhs.describe(into: &reader)
        let code = switch op {
        case .lessThan: 0
        case .lessThanOrEqual: 1
        case .greaterThan: 2
        case .greaterThanOrEqual: 3
        }
        reader.code(code)
    }
}

extension PredicateExpressions.Conjunction: PredicateShapeNode where LHS: PredicateShapeNode, RHS: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) {
        lhs.describe(into: &reader)
        rhs.describe(into: &reader)
    }
}

extension PredicateExpressions.Disjunction: PredicateShapeNode where LHS: PredicateShapeNode, RHS: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) {
        lhs.describe(into: &reader)
        rhs.describe(into: &reader)
    }
}

extension PredicateExpressions.Negation: PredicateShapeNode where Wrapped: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) { wrapped.describe(into: &reader) }
}

extension PredicateExpressions.Conditional: PredicateShapeNode
where Test: PredicateShapeNode, If: PredicateShapeNode, Else: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) {
        test.describe(into: &reader)
        trueBranch.describe(into: &reader)
        falseBranch.describe(into: &reader)
    }
}

extension PredicateExpressions.Arithmetic: PredicateShapeNode where LHS: PredicateShapeNode, RHS: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) {
        lhs.describe(into: &reader)
        rhs.describe(into: &reader)
        let code = switch op {
        case .add: 0
        case .subtract: 1
        case .multiply: 2
        }
        reader.code(code)
    }
}

extension PredicateExpressions.IntDivision: PredicateShapeNode where LHS: PredicateShapeNode, RHS: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) {
        lhs.describe(into: &reader)
        rhs.describe(into: &reader)
    }
}

extension PredicateExpressions.IntRemainder: PredicateShapeNode where LHS: PredicateShapeNode, RHS: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) {
        lhs.describe(into: &reader)
        rhs.describe(into: &reader)
    }
}

extension PredicateExpressions.FloatDivision: PredicateShapeNode where LHS: PredicateShapeNode, RHS: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) {
        lhs.describe(into: &reader)
        rhs.describe(into: &reader)
    }
}

extension PredicateExpressions.UnaryMinus: PredicateShapeNode where Wrapped: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) { wrapped.describe(into: &reader) }
}

extension PredicateExpressions.OptionalFlatMap: PredicateShapeNode where LHS: PredicateShapeNode, RHS: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) {
        wrapped.describe(into: &reader)
        reader.variable(variable.key)
        transform.describe(into: &reader)
    }
}

extension PredicateExpressions.NilCoalesce: PredicateShapeNode where LHS: PredicateShapeNode, RHS: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) {
        lhs.describe(into: &reader)
        rhs.describe(into: &reader)
    }
}

extension PredicateExpressions.ForcedUnwrap: PredicateShapeNode where Inner: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) { inner.describe(into: &reader) }
}

extension PredicateExpressions.TypeCheck: PredicateShapeNode where Input: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) { input.describe(into: &reader) }
}

extension PredicateExpressions.ConditionalCast: PredicateShapeNode where Input: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) { input.describe(into: &reader) }
}

extension PredicateExpressions.CollectionContainsCollection: PredicateShapeNode where Base: PredicateShapeNode, Other: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) {
        base.describe(into: &reader)
        other.describe(into: &reader)
    }
}

extension PredicateExpressions.SequenceStartsWith: PredicateShapeNode where Base: PredicateShapeNode, Prefix: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) {
        base.describe(into: &reader)
        prefix.describe(into: &reader)
    }
}

extension PredicateExpressions.SequenceContains: PredicateShapeNode where LHS: PredicateShapeNode, RHS: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) {
        sequence.describe(into: &reader)
        element.describe(into: &reader)
    }
}

extension PredicateExpressions.SequenceContainsWhere: PredicateShapeNode where LHS: PredicateShapeNode, RHS: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) {
        sequence.describe(into: &reader)
        reader.variable(variable.key)
        test.describe(into: &reader)
    }
}

extension PredicateExpressions.SequenceAllSatisfy: PredicateShapeNode where LHS: PredicateShapeNode, RHS: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) {
        sequence.describe(into: &reader)
        reader.variable(variable.key)
        test.describe(into: &reader)
    }
}

extension PredicateExpressions.RangeExpressionContains: PredicateShapeNode where RangeExpression: PredicateShapeNode, Element: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) {
        range.describe(into: &reader)
        element.describe(into: &reader)
    }
}

extension PredicateExpressions.ClosedRange: PredicateShapeNode where LHS: PredicateShapeNode, RHS: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) {
        lower.describe(into: &reader)
        upper.describe(into: &reader)
    }
}

extension PredicateExpressions.Range: PredicateShapeNode where LHS: PredicateShapeNode, RHS: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) {
        lower.describe(into: &reader)
        upper.describe(into: &reader)
    }
}

#if !canImport(Darwin)
extension PredicateExpressions.StringLocalizedStandardContains: PredicateShapeNode where Root: PredicateShapeNode, Other: PredicateShapeNode {
    func describe(into reader: inout PredicateShapeReader) {
        root.describe(into: &reader)
        other.describe(into: &reader)
    }
}
#endif
