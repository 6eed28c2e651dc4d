import Foundation

/// A storage-neutral boolean or value expression over one entity's rows: what a `#Predicate` becomes
/// before a store renders it in its own language. Values are always carried as ``StorageValue``s, so a
/// store binds them as parameters and never splices them into its query text.
///
/// The expressions follow SQL's semantics (NULL propagates); the predicate translator chooses the
/// forms (`IS`, `COALESCE`, `CASE`) that give Swift's answers.
indirect enum QueryExpression: Equatable {
    /// A column of the queried entity.
    case attribute(Schema.Attribute)
    /// The primary key of the queried entity.
    case primaryKey
    /// A constant.
    case value(StorageValue)
    /// The value at this index of the query's ``StoreQuery/parameters``: a value a predicate captured,
    /// kept out of the expression so that one translation (and one SQL text) serves every value.
    case parameter(Int)
    /// `lhs op rhs`; text compares with `collation` (`nil` for values that are not strings).
    /// ``QueryCollation/binary`` is Swift's own `String` comparison (`==`, `<`).
    case comparison(ComparisonOperator, QueryExpression, QueryExpression, collation: QueryCollation?)
    case and([QueryExpression])
    case or([QueryExpression])
    case not(QueryExpression)
    /// `expression IS NULL`.
    case isNull(QueryExpression)
    /// `lhs op rhs` on numbers.
    case arithmetic(ArithmeticOperator, QueryExpression, QueryExpression)
    /// `-operand`.
    case negative(QueryExpression)
    /// A string function evaluated exactly as Foundation evaluates it in Swift.
    case string(StringFunction, [QueryExpression])
    /// `expression IN (values…)`, comparing with `collation` (`nil` for values that are not strings).
    case inList(QueryExpression, [QueryExpression], collation: QueryCollation?)
    /// `condition ? then : else`. Only the chosen branch is evaluated.
    case conditional(QueryExpression, QueryExpression, QueryExpression)
    /// The first non-null value.
    case coalesce([QueryExpression])
    /// The operand, or a failure of the whole query when it is NULL (Swift's `!` on `nil`).
    case unwrap(QueryExpression)
    /// An attribute of the row reached from the current row through a chain of to-one relationships
    /// (`$0.budget?.name`); NULL when a link is missing.
    case relatedAttribute([Schema.Relationship], Schema.Attribute)
    /// The primary key of the row reached through a chain of to-one relationships (empty: the current
    /// row), for `persistentModelID` comparisons; NULL when a link is missing.
    case relatedKey([Schema.Relationship])
    /// The entity name of the row reached through a chain of to-one relationships (empty: the current
    /// row), whose entity is part of a class hierarchy: what `is` and `as?` test in predicates.
    case relatedEntity([Schema.Relationship])
    /// A test over the models of a to-many relationship of the row reached through `owner`: whether one
    /// matches `condition` (`contains(where:)`), whether none does, or how many there are. Inside
    /// `condition`, attributes are those of the related row.
    case toMany(owner: [Schema.Relationship], Schema.Relationship, condition: QueryExpression?, ToManyTest)

    /// What a ``toMany(owner:_:condition:_:)`` expression tests.
    enum ToManyTest: Equatable {
        case exists
        case notExists
        case count
    }

    enum ComparisonOperator: String {
        case equal = "="
        case notEqual = "<>"
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
        /// Equality where NULL equals NULL and differs from any value (Swift's `==` on optionals).
        case `is` = "IS"
        /// The negation of ``is``: never NULL.
        case isNot = "IS NOT"
    }

    enum ArithmeticOperator: String {
        case add = "+"
        case subtract = "-"
        case multiply = "*"
        case divide = "/"
        case remainder = "%"
    }

    /// String operations with Foundation's exact semantics (a store implements them by calling Swift).
    enum StringFunction: String {
        /// `text.contains(other)` (Character-wise, canonical equivalence).
        case contains
        /// `text.starts(with: prefix)` (Character-wise, canonical equivalence).
        case startsWith
        /// `text.localizedStandardContains(other)`.
        case localizedStandardContains
        /// `text.count` (Characters, not bytes or code points).
        case count
        /// `text.caseInsensitiveCompare(other)` as -1, 0 or 1.
        case caseInsensitiveCompare
        /// `text.localizedCompare(other)` as -1, 0 or 1.
        case localizedCompare
    }

    static var `true`: QueryExpression { .value(.integer(1)) }
    static var `false`: QueryExpression { .value(.integer(0)) }

    /// Whether evaluating the expression can fail the query (it contains ``unwrap(_:)``). Such an
    /// expression must only run where Swift would evaluate it, so `&&` / `||` keep their order for it.
    var canFail: Bool {
        switch self {
        case .unwrap: true
        case .attribute, .primaryKey, .value, .parameter, .relatedAttribute, .relatedKey, .relatedEntity: false
        case .toMany(_, _, let condition, _): condition?.canFail ?? false
        case .comparison(_, let l, let r, _), .arithmetic(_, let l, let r): l.canFail || r.canFail
        case .and(let operands), .or(let operands), .coalesce(let operands), .string(_, let operands):
            operands.contains { $0.canFail }
        case .not(let operand), .isNull(let operand), .negative(let operand): operand.canFail
        case .inList(let operand, let values, _): operand.canFail || values.contains { $0.canFail }
        case .conditional(let c, let t, let e): c.canFail || t.canFail || e.canFail
        }
    }

    /// The entities other than the queried one whose rows the expression reads (through relationships),
    /// added to `entities`: what a ``ResultsObserver`` must follow besides its own entity.
    func collectRelatedEntities(into entities: inout Set<String>) {
        func add(_ path: [Schema.Relationship]) {
            for relationship in path {
                // The destination's rows include its subclasses', saved under their own names.
                if let names = relationship.destinationEntity?.entityNamesForFetch { entities.formUnion(names) }
            }
        }
        switch self {
        case .attribute, .primaryKey, .value, .parameter: break
        case .relatedAttribute(let path, _), .relatedKey(let path), .relatedEntity(let path): add(path)
        case .toMany(let owner, let relationship, let condition, _):
            add(owner + [relationship])
            condition?.collectRelatedEntities(into: &entities)
        case .comparison(_, let l, let r, _), .arithmetic(_, let l, let r):
            l.collectRelatedEntities(into: &entities)
            r.collectRelatedEntities(into: &entities)
        case .and(let operands), .or(let operands), .coalesce(let operands), .string(_, let operands):
            for operand in operands { operand.collectRelatedEntities(into: &entities) }
        case .not(let operand), .isNull(let operand), .negative(let operand), .unwrap(let operand):
            operand.collectRelatedEntities(into: &entities)
        case .inList(let operand, let values, _):
            operand.collectRelatedEntities(into: &entities)
            for value in values { value.collectRelatedEntities(into: &entities) }
        case .conditional(let c, let t, let e):
            for operand in [c, t, e] { operand.collectRelatedEntities(into: &entities) }
        }
    }

    /// Whether the expression is NULL whenever `operand` is (SQL's NULL propagation through operators
    /// and Stowage's string functions), so that a `CASE WHEN operand IS NULL` guard is redundant.
    func isNull(whenNull operand: QueryExpression) -> Bool {
        if self == operand { return true }
        switch self {
        case .comparison(let op, let l, let r, _):
            return op != .is && op != .isNot && (l.isNull(whenNull: operand) || r.isNull(whenNull: operand))
        case .arithmetic(_, let l, let r): return l.isNull(whenNull: operand) || r.isNull(whenNull: operand)
        case .negative(let inner): return inner.isNull(whenNull: operand)
        case .string(_, let operands): return operands.contains { $0.isNull(whenNull: operand) }
        default: return false
        }
    }

    /// `a AND b…`, simplified when an operand is a constant boolean.
    static func conjunction(_ operands: [QueryExpression]) -> QueryExpression {
        var kept: [QueryExpression] = []
        for operand in operands {
            if operand == .true { continue }
            if operand == .false && !kept.contains(where: \.canFail) { return .false }
            if case .and(let inner) = operand { kept += inner } else { kept.append(operand) }
        }
        return kept.isEmpty ? .true : kept.count == 1 ? kept[0] : .and(kept)
    }

    /// `a OR b…`, simplified when an operand is a constant boolean.
    static func disjunction(_ operands: [QueryExpression]) -> QueryExpression {
        var kept: [QueryExpression] = []
        for operand in operands {
            if operand == .false { continue }
            if operand == .true && !kept.contains(where: \.canFail) { return .true }
            if case .or(let inner) = operand { kept += inner } else { kept.append(operand) }
        }
        return kept.isEmpty ? .false : kept.count == 1 ? kept[0] : .or(kept)
    }

    /// `NOT a`, simplified for constants and double negations.
    static func negation(_ operand: QueryExpression) -> QueryExpression {
        switch operand {
        case .true: .false
        case .false: .true
        case .not(let inner): inner
        default: .not(operand)
        }
    }
}
