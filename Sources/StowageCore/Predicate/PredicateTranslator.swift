import Foundation
import Logging

/// The result of translating a `#Predicate` for SQL.
struct PredicateTranslation {
    /// The condition SQL applies, or `nil` when no part of the predicate could be translated (or the
    /// predicate is always true).
    var filter: QueryExpression?
    /// Whether `filter` is the whole predicate. When `false`, `filter` keeps a superset of the matching
    /// rows (the translatable conjuncts) and the whole predicate is evaluated in Swift on those rows.
    var isComplete: Bool
    /// The nodes that could not be translated (empty when ``isComplete``).
    var untranslated: [UntranslatableNode] = []
}

/// A predicate node that cannot be expressed in SQL, and why.
struct UntranslatableNode: Error, CustomStringConvertible {
    let node: String
    let reason: String

    var description: String { "\(node) (\(reason))" }
}

/// A predicate sub-expression translated for SQL.
enum TranslatedOperand {
    /// A value computed by SQL for each row.
    case expression(SQLOperand)
    /// A value known before the query runs (a captured value or a subtree that does not depend on the
    /// row), bound as a parameter in the stored form of what it meets.
    case constant(Any)
    /// A model (or, through a to-many relationship, a collection of models) a predicate reaches: only
    /// its key paths and collection tests can be used.
    case model(ModelReference)
}

/// A model a predicate reaches: the fetched row or a row of a nested closure (`contains(where:)`),
/// possibly followed through to-one relationships, possibly ending in a to-many relationship.
struct ModelReference {
    /// The entity of the model (the destination of ``toMany`` when there is one).
    let entity: Schema.Entity
    /// The to-one relationships followed from the scope's row.
    var path: [Schema.Relationship] = []
    /// The nesting level of the row the path starts from (0: the fetched row).
    var scope: Int
    /// A to-many relationship at the end of the path: the reference stands for its models.
    var toMany: Schema.Relationship?
}

/// An SQL expression with what the translator knows about its values.
struct SQLOperand {
    var sql: QueryExpression
    /// The attribute whose Swift type and stored form the values have: constants compared with the
    /// expression are encoded like it (enums as raw values, dates as seconds…).
    var attribute: Schema.Attribute?
    /// The Swift type of the values, optionals unwrapped.
    var valueType: Any.Type
    /// Whether SQL can yield NULL (a Swift `nil`).
    var isNullable: Bool

    init(_ sql: QueryExpression, attribute: Schema.Attribute? = nil, valueType: Any.Type, isNullable: Bool) {
        self.sql = sql
        self.attribute = attribute
        self.valueType = TypeTraits.unwrapped(valueType)
        self.isNullable = isNullable
    }

    /// A boolean SQL expression.
    static func condition(_ sql: QueryExpression, isNullable: Bool = false) -> SQLOperand {
        SQLOperand(sql, valueType: Bool.self, isNullable: isNullable)
    }
}

/// The state threaded (inout) through the translation of one predicate: the entity, what each
/// predicate variable stands for, and the values of variables bound to constants (for folding).
struct TranslationState {
    let entity: Schema.Entity
    /// What each variable in scope stands for: the model, a constant element, or an SQL expression (the
    /// unwrapped value inside `flatMap`).
    private(set) var variables: [PredicateExpressions.VariableID: TranslatedOperand] = [:]
    /// The variables bound to constants, for evaluating variable-free subtrees in Swift.
    private(set) var constantBindings = PredicateBindings()
    /// The nesting level of the row attributes currently refer to (0: the fetched row; each to-many
    /// closure opens a level).
    private(set) var scope = 0

    /// The identifier of the store the query runs on: an identifier issued by another store matches no
    /// row (`nil`: identifiers are compared by primary key alone).
    let storeIdentifier: String?

    init(entity: Schema.Entity, storeIdentifier: String? = nil) {
        self.entity = entity
        self.storeIdentifier = storeIdentifier
    }

    /// The most elements a captured collection may have to be expanded in SQL.
    static let maximumListCount = 10_000

    /// Translates a child expression, or throws ``UntranslatableNode`` naming it.
    mutating func translate(_ expression: Any) throws -> TranslatedOperand {
        guard let translatable = NodeConformances.translatable(type(of: expression)) else {
            throw UntranslatableNode(node: Self.name(of: expression), reason: "Stowage has no SQL translation for this node")
        }
        return try translatable.translate(node: expression, &self)
    }

    /// Translates a child that must be a boolean condition.
    mutating func condition(_ expression: Any) throws -> QueryExpression {
        try condition(of: translate(expression), node: expression)
    }

    func condition(of operand: TranslatedOperand, node: Any) throws -> QueryExpression {
        switch operand {
        case .expression(let sql): return sql.sql
        case .constant(let value):
            guard let bool = value as? Bool else {
                throw UntranslatableNode(node: Self.name(of: node), reason: "not a boolean")
            }
            return bool ? .true : .false
        case .model:
            throw UntranslatableNode(node: Self.name(of: node), reason: "a model is not a condition")
        }
    }

    /// What `variable` stands for.
    func value(of variable: PredicateExpressions.VariableID) -> TranslatedOperand? { variables[variable] }

    /// Binds the root variable of a predicate to the fetched model.
    mutating func bindModel(_ variable: PredicateExpressions.VariableID) {
        variables[variable] = .model(ModelReference(entity: entity, scope: 0))
    }

    /// Translates the test of a to-many closure (`contains(where:)`, `allSatisfy`) with its variable
    /// standing for a row of the relationship's destination, one level deeper.
    mutating func nestedCondition<V>(
        _ variable: PredicateExpressions.Variable<V>, over reference: ModelReference, _ test: Any
    ) throws -> QueryExpression {
        let saved = scope
        scope += 1
        defer { scope = saved }
        let row = ModelReference(entity: reference.entity, scope: scope)
        return try with(variable, boundTo: .model(row)) { try $0.condition(test) }
    }

    /// Runs `body` with `variable` standing for `operand` (a closure parameter of `flatMap`,
    /// `contains(where:)`…).
    mutating func with<V, R>(
        _ variable: PredicateExpressions.Variable<V>, boundTo operand: TranslatedOperand, _ body: (inout TranslationState) throws -> R
    ) rethrows -> R {
        let savedVariables = variables
        let savedBindings = constantBindings
        defer {
            variables = savedVariables
            constantBindings = savedBindings
        }
        variables[variable.key] = operand
        if case .constant(let value) = operand, let typed = value as? V {
            constantBindings[variable] = typed
        }
        return try body(&self)
    }

    /// Evaluates a node whose children are all constants, in Swift, once.
    func fold<E: PredicateExpression>(_ expression: E) throws -> TranslatedOperand {
        do {
            return .constant(try expression.evaluate(constantBindings))
        } catch {
            throw UntranslatableNode(node: Self.name(of: expression), reason: "evaluating it in Swift fails: \(error)")
        }
    }

    /// The SQL form of an operand; a constant is encoded like `other` (the operand it meets), so enums,
    /// dates and UUIDs compare in their stored form.
    func sql(_ operand: TranslatedOperand, like other: SQLOperand?, node: Any) throws -> SQLOperand {
        switch operand {
        case .expression(let expression): return expression
        case .constant(let value):
            let stored = try Self.encode(value, like: other?.attribute, storeIdentifier: storeIdentifier)
            let type = other?.valueType ?? Swift.type(of: value)
            return SQLOperand(.value(stored), attribute: other?.attribute, valueType: type, isNullable: stored == .null)
        case .model:
            throw UntranslatableNode(
                node: Self.name(of: node),
                reason: "comparing models themselves is not supported in SQL; compare one of their attributes")
        }
    }

    static func encode(_ value: Any, like attribute: Schema.Attribute?, storeIdentifier: String?) throws -> StorageValue {
        // Identifiers compare by primary key; a temporary identifier, or one another store issued,
        // matches no stored row.
        func key(_ identifier: PersistentIdentifier) -> StorageValue {
            guard let primaryKey = identifier.primaryKey, storeIdentifier == nil || identifier.storeIdentifier == storeIdentifier else {
                return .integer(-1)
            }
            return .integer(primaryKey)
        }
        // Compared with an attribute: its own codec (the common case, and no existential casts).
        if let attribute, attribute.accessor.codecKind != .json, let encoded = try attribute.accessor.encode(constant: value) {
            return encoded
        }
        if let identifier = value as? PersistentIdentifier { return key(identifier) }
        if let model = value as? any PersistentModel { return key(model.persistentModelID) }
        if let optional = value as? any OptionalProtocol, optionalIsNil(optional) { return .null }
        guard let codec = AttributeCodecs.anyCodec(for: type(of: value)), codec.kind != .json else {
            throw UntranslatableNode(node: "\(type(of: value))", reason: "the value has no stored form SQL can compare")
        }
        return try codec.encode(value)
    }

    private static func optionalIsNil<O: OptionalProtocol>(_ optional: O) -> Bool { optional.wrappedValue == nil }

    /// The node's type name without generic arguments (`Equal`, `KeyPath`…).
    static func name(of expression: Any) -> String {
        let full = String(describing: type(of: expression))
        return full.split(separator: "<").first.map(String.init) ?? full
    }
}

/// A `PredicateExpressions` node that can be expressed in SQL. One conformance per node type, in
/// the `PredicateTranslator+….swift` files.
protocol SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand
}

extension SQLTranslatable {
    /// Translates `node`, a value of this very type (see ``NodeConformances``).
    static func translate(node: Any, _ state: inout TranslationState) throws -> TranslatedOperand {
        // A cast to the concrete type compares type metadata: no conformance lookup.
        try (node as! Self).translate(&state)
    }
}

/// The node protocols each `PredicateExpressions` type conforms to, looked up once per type.
///
/// Casting a node to `any SQLTranslatable` asks the runtime's conformance lookup, which costs ~15k
/// instructions for these deeply generic types on every cast (measured with callgrind: ~70% of the
/// ~72k instructions a one-comparison predicate took to translate). The metatypes found are kept per
/// type; a node is then cast to its own concrete type, which compares metadata pointers.
enum NodeConformances {
    private static let translatables = TypeMemo<(any SQLTranslatable.Type)?>()
    private static let conjunctions = TypeMemo<(any ConjunctionNode.Type)?>()

    static func translatable(_ type: Any.Type) -> (any SQLTranslatable.Type)? {
        translatables.answer(for: type) { $0 as? any SQLTranslatable.Type }
    }

    static func conjunction(_ type: Any.Type) -> (any ConjunctionNode.Type)? {
        conjunctions.answer(for: type) { $0 as? any ConjunctionNode.Type }
    }
}

/// Translates Foundation `#Predicate`s into storage-neutral ``QueryExpression``s.
enum PredicateTranslator {
    static let logger = Logger(label: "Stowage.Predicate")

    /// Translates `predicate` for `entity`.
    ///
    /// A top-level conjunction is split: conjuncts that translate run in SQL, the others in Swift (with a
    /// warning naming the node). In strict mode an untranslatable node throws instead.
    ///
    /// - Throws: ``StowageError`` with code ``StowageError/Code/unsupportedPredicate`` in strict mode.
    static func translate<T: PersistentModel>(
        _ predicate: Predicate<T>, entity: Schema.Entity, storeIdentifier: String? = nil, strict: Bool
    ) throws -> PredicateTranslation {
        let translation = translate(predicate.expression, variable: predicate.variable.key, entity: entity, storeIdentifier: storeIdentifier)
        if let first = translation.untranslated.first {
            let message = "The predicate node \(first.node) cannot run in SQL (\(first.reason))"
            if strict {
                throw StowageError(.unsupportedPredicate, message + "; strict mode is on, so the fetch fails.", entityName: entity.name)
            }
            logger.warning("\(message); Stowage evaluates the predicate in Swift over the rows SQL narrowed.", metadata: ["entity": "\(entity.name)"])
        }
        return translation
    }

    /// Translates a predicate's expression whose variable is `variable`, without logging.
    static func translate(
        _ expression: Any, variable: PredicateExpressions.VariableID, entity: Schema.Entity, storeIdentifier: String? = nil
    ) -> PredicateTranslation {
        var state = TranslationState(entity: entity, storeIdentifier: storeIdentifier)
        state.bindModel(variable)
        var untranslated: [UntranslatableNode] = []
        var conjuncts: [QueryExpression] = []
        for part in conjunctsOf(expression) {
            do {
                let condition = try state.condition(part)
                // A conjunct that can fail (a force unwrap) only runs where Swift would evaluate it: after
                // every earlier conjunct held, which SQL cannot promise once one of them is left to Swift.
                if condition.canFail && !untranslated.isEmpty {
                    throw UntranslatableNode(node: TranslationState.name(of: part), reason: "it can fail and follows a condition evaluated in Swift")
                }
                conjuncts.append(condition)
            } catch let node as UntranslatableNode {
                untranslated.append(node)
            } catch {
                untranslated.append(UntranslatableNode(node: TranslationState.name(of: part), reason: "\(error)"))
            }
        }
        let filter = conjuncts.isEmpty ? nil : conjuncts.dropFirst().reduce(conjuncts[0]) { orderedAnd($0, $1) }
        return PredicateTranslation(filter: filter == .true ? nil : filter, isComplete: untranslated.isEmpty, untranslated: untranslated)
    }

    /// `lhs AND rhs`, keeping Swift's short-circuit order when `rhs` can fail.
    static func orderedAnd(_ lhs: QueryExpression, _ rhs: QueryExpression) -> QueryExpression {
        guard rhs.canFail, lhs != .true else { return .conjunction([lhs, rhs]) }
        return .conditional(lhs, rhs, .false)
    }

    /// `lhs OR rhs`, keeping Swift's short-circuit order when `rhs` can fail.
    static func orderedOr(_ lhs: QueryExpression, _ rhs: QueryExpression) -> QueryExpression {
        guard rhs.canFail, lhs != .false else { return .disjunction([lhs, rhs]) }
        return .conditional(lhs, .true, rhs)
    }

    /// The operands of a chain of `&&` at the top of a predicate.
    private static func conjunctsOf(_ expression: Any) -> [Any] {
        if let conjunction = NodeConformances.conjunction(type(of: expression)) {
            return conjunction.operands(of: expression).flatMap(conjunctsOf)
        }
        return [expression]
    }
}

/// Lets the translator split `&&` chains without knowing their generic parameters.
protocol ConjunctionNode {
    var operands: [Any] { get }
}

extension ConjunctionNode {
    /// The operands of `node`, a value of this very type (see ``NodeConformances``).
    static func operands(of node: Any) -> [Any] { (node as! Self).operands }
}

extension PredicateExpressions.Conjunction: ConjunctionNode {
    var operands: [Any] { [lhs, rhs] }
}
