import Foundation
import Logging

/// The result of translating a `#Predicate` for SQL.
struct PredicateTranslation {
    /// The condition SQL applies, or `nil` when no part of the predicate could be translated (or the
    /// predicate is always true).
    var filter: QueryExpression?
    /// The values of `filter`'s ``QueryExpression/parameter(_:)`` expressions.
    var parameters: [StorageValue] = []
    /// The cached translation this one comes from or was stored as (see ``PredicateTemplate``).
    var template: PredicateTemplate?
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
    case constant(KnownValue)
    /// A model (or, through a to-many relationship, a collection of models) a predicate reaches: only
    /// its key paths and collection tests can be used.
    case model(ModelReference)
}

/// A value the translator knows before the query runs: a value the predicate captured (a
/// `PredicateExpressions.Value`, numbered by ``slot``) or one it computed (a folded subtree, a literal).
///
/// A translation that only binds its captured values as parameters is the same for every value, and
/// is cached (``PredicateTemplate``). Reading ``value`` for anything else (folding, choosing a branch,
/// expanding a collection…) tells the translation's ``TranslationTrace`` that it depends on the values.
struct KnownValue {
    private let storedValue: Any
    /// The position of the captured value among the predicate's, in the order the translator meets
    /// them (``PredicateShape`` lists them in the same order); `nil` for a computed value.
    let slot: Int?
    private let trace: TranslationTrace?

    init(_ value: Any) {
        storedValue = value
        slot = nil
        trace = nil
    }

    init(captured value: Any, slot: Int, trace: TranslationTrace) {
        storedValue = value
        self.slot = slot
        self.trace = trace
    }

    /// The value. Reading it makes the translation depend on it when it was captured.
    var value: Any {
        if slot != nil { trace?.dependsOnValues = true }
        return storedValue
    }

    /// Whether the value is a floating-point NaN. Only a NaN makes the translation depend on the value:
    /// a cached translation is only reused for values that are not NaN (see ``PredicateTemplate``).
    var isNaN: Bool {
        let nan = TypeTraits.isNaN(storedValue)
        if nan, slot != nil { trace?.dependsOnValues = true }
        return nan
    }

    /// The value, for binding it as the query parameter `parameterForm` describes: no dependency.
    fileprivate var valueForParameter: Any { storedValue }
}

/// What one translation did with the predicate's captured values: how many it met, which it bound as
/// parameters (and encoded how), and whether anything else read them.
final class TranslationTrace {
    /// The captured values met so far (the next one's slot).
    var capturedCount = 0
    /// Whether the translation read a captured value for something other than binding it.
    var dependsOnValues = false
    /// How each parameter is made from a captured value, by parameter index.
    var parameterRecipes: [PredicateTemplate.Parameter] = []
    /// The parameters' values, by parameter index.
    var parameters: [StorageValue] = []
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
    /// The condition under which the model exists: `trip as? BusinessTrip` is a model only for rows of
    /// that class (`nil`: always).
    var condition: QueryExpression?
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
    /// What the translation does with the predicate's captured values.
    let trace = TranslationTrace()

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
        case .constant(let known):
            guard let bool = known.value as? Bool else {
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
        if case .constant(let known) = operand, let typed = known.value as? V {
            constantBindings[variable] = typed
        }
        return try body(&self)
    }

    /// Evaluates a node whose children are all constants, in Swift, once.
    func fold<E: PredicateExpression>(_ expression: E) throws -> TranslatedOperand {
        // The result depends on the captured values the subtree holds.
        trace.dependsOnValues = true
        do {
            return .constant(KnownValue(try expression.evaluate(constantBindings)))
        } catch {
            throw UntranslatableNode(node: Self.name(of: expression), reason: "evaluating it in Swift fails: \(error)")
        }
    }

    /// The SQL form of an operand; a constant is encoded like `other` (the operand it meets), so enums,
    /// dates and UUIDs compare in their stored form.
    func sql(_ operand: TranslatedOperand, like other: SQLOperand?, node: Any) throws -> SQLOperand {
        switch operand {
        case .expression(let expression): return expression
        case .constant(let known):
            let value = known.valueForParameter
            let stored = try Self.encode(value, like: other?.attribute, storeIdentifier: storeIdentifier)
            let type = other?.valueType ?? Swift.type(of: value)
            // A captured value is bound as a parameter, so that the translation serves other values;
            // unless it is NULL or NaN, which change the SQL (`IS NULL`, a constant result).
            if let slot = known.slot, PredicateTemplate.isParameterValue(stored) {
                let index = trace.parameters.count
                trace.parameters.append(stored)
                trace.parameterRecipes.append(PredicateTemplate.Parameter(slot: slot, attribute: other?.attribute))
                return SQLOperand(.parameter(index), attribute: other?.attribute, valueType: type, isNullable: false)
            }
            _ = known.value
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

    /// Translates a predicate (its expression, whose model variable is `variable`) for `entity`.
    ///
    /// A top-level conjunction is split: conjuncts that translate run in SQL, the others in Swift (with a
    /// warning naming the node). In strict mode an untranslatable node throws instead.
    ///
    /// - Throws: ``StowageError`` with code ``StowageError/Code/unsupportedPredicate`` in strict mode.
    static func translate(
        _ expression: any StandardPredicateExpression<Bool>, variable: PredicateExpressions.VariableID, entity: Schema.Entity,
        storeIdentifier: String? = nil, strict: Bool
    ) throws -> PredicateTranslation {
        let translation = cachedTranslation(expression, variable: variable, entity: entity, storeIdentifier: storeIdentifier)
        if let first = translation.untranslated.first {
            let message = "The predicate node \(first.node) cannot run in SQL (\(first.reason))"
            if strict {
                throw StowageError(.unsupportedPredicate, message + "; strict mode is on, so the fetch fails.", entityName: entity.name)
            }
            logger.warning("\(message); Stowage evaluates the predicate in Swift over the rows SQL narrowed.", metadata: ["entity": "\(entity.name)"])
        }
        return translation
    }

    /// Translates a predicate's expression whose variable is `variable`, reusing the translation of an
    /// earlier predicate of the same shape (see ``PredicateShape``) when there is one, and keeping this
    /// one for the next when it does not depend on the captured values.
    static func cachedTranslation(
        _ expression: any StandardPredicateExpression<Bool>, variable: PredicateExpressions.VariableID, entity: Schema.Entity, storeIdentifier: String?
    ) -> PredicateTranslation {
        guard let shape = PredicateShape(expression, variable: variable) else {
            return translate(expression, variable: variable, entity: entity, storeIdentifier: storeIdentifier)
        }
        if let template = entity.predicateTemplates[shape.key] {
            guard let parameters = template.parameterValues(for: shape.capturedValues, storeIdentifier: storeIdentifier) else {
                // A NULL or NaN where the template has a parameter: translated for these values.
                return translate(expression, variable: variable, entity: entity, storeIdentifier: storeIdentifier)
            }
            let translation = PredicateTranslation(filter: template.filter, parameters: parameters, template: template, isComplete: true)
            assert({
                let fresh = translate(expression, variable: variable, entity: entity, storeIdentifier: storeIdentifier)
                return translation.filter == fresh.filter && translation.parameters == fresh.parameters
            }(), "Stowage internal error: a cached predicate translation differs from the predicate's own")
            return translation
        }
        var (translation, trace) = traced(expression, variable: variable, entity: entity, storeIdentifier: storeIdentifier)
        guard translation.isComplete, !trace.dependsOnValues, trace.capturedCount == shape.capturedValues.count else { return translation }
        let template = PredicateTemplate(filter: translation.filter, parameters: trace.parameterRecipes)
        entity.predicateTemplates.store(template, for: shape.key)
        translation.template = template
        return translation
    }

    /// Translates a predicate's expression whose variable is `variable`, without logging.
    static func translate(
        _ expression: Any, variable: PredicateExpressions.VariableID, entity: Schema.Entity, storeIdentifier: String? = nil
    ) -> PredicateTranslation {
        traced(expression, variable: variable, entity: entity, storeIdentifier: storeIdentifier).translation
    }

    private static func traced(
        _ expression: Any, variable: PredicateExpressions.VariableID, entity: Schema.Entity, storeIdentifier: String?
    ) -> (translation: PredicateTranslation, trace: TranslationTrace) {
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
        let translation = PredicateTranslation(
            filter: filter == .true ? nil : filter, parameters: state.trace.parameters, isComplete: untranslated.isEmpty,
            untranslated: untranslated)
        return (translation, state.trace)
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
