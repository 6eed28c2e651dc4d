import Foundation

// Strings and collections: `contains` / `starts(with:)` on strings, `contains(_:)`,
// `contains(where:)` and `allSatisfy` on captured collections, `contains` on ranges.

extension TranslationState {
    /// A string function of two strings (`contains`, `starts(with:)`…), evaluated in SQL by the same
    /// Foundation code Swift runs.
    mutating func stringFunction<E: PredicateExpression>(
        _ function: QueryExpression.StringFunction, _ lhs: Any, _ rhs: Any, areStrings: Bool, resultType: Any.Type, node: E
    ) throws -> TranslatedOperand {
        let left = try translate(lhs)
        let right = try translate(rhs)
        if case .constant = left, case .constant = right { return try fold(node) }
        guard areStrings else {
            throw UntranslatableNode(node: Self.name(of: node), reason: "only strings are searched in SQL; collections are stored as JSON")
        }
        let l = try sql(left, like: nil, node: node)
        let r = try sql(right, like: nil, node: node)
        return .expression(SQLOperand(.string(function, [l.sql, r.sql]), valueType: resultType, isNullable: l.isNullable || r.isNullable))
    }

    /// The elements of a captured collection, or `nil` when the collection is computed per row.
    func elements<S: Sequence>(of operand: TranslatedOperand, as type: S.Type, node: Any) throws -> [S.Element]? {
        guard case .constant(let known) = operand else { return nil }
        guard let sequence = known.value as? S else { return nil }
        var elements: [S.Element] = []
        for element in sequence {
            elements.append(element)
            if elements.count > Self.maximumListCount {
                throw UntranslatableNode(node: Self.name(of: node), reason: "the collection has more than \(Self.maximumListCount) elements")
            }
        }
        return elements
    }
}

extension PredicateExpressions.CollectionContainsCollection: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        try state.stringFunction(
            .contains, base, other, areStrings: Base.Output.self == String.self && Other.Output.self == String.self,
            resultType: Bool.self, node: self)
    }
}

extension PredicateExpressions.SequenceStartsWith: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        try state.stringFunction(
            .startsWith, base, prefix, areStrings: Base.Output.self == String.self && Prefix.Output.self == String.self,
            resultType: Bool.self, node: self)
    }
}

extension PredicateExpressions.SequenceContains: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        let collection = try state.translate(sequence)
        let member = try state.translate(element)
        if case .constant = collection, case .constant = member { return try state.fold(self) }
        guard let values = try state.elements(of: collection, as: LHS.Output.self, node: self) else {
            throw UntranslatableNode(node: "SequenceContains", reason: "only captured collections are searched in SQL; stored ones are JSON")
        }
        if let problem = TypeTraits.equalityProblem(RHS.Output.self) {
            throw UntranslatableNode(node: "SequenceContains", reason: problem)
        }
        guard case .expression(let operand) = member else {
            throw UntranslatableNode(node: "SequenceContains", reason: "comparing models themselves is not supported in SQL")
        }
        var list: [QueryExpression] = []
        var containsNil = false
        for value in values where !TypeTraits.isNaN(value) {
            let stored = try TranslationState.encode(value, like: operand.attribute, storeIdentifier: state.storeIdentifier)
            if stored == .null { containsNil = true } else { list.append(.value(stored)) }
        }
        let collation = TypeTraits.collation(for: RHS.Output.self)
        let inList: QueryExpression = list.isEmpty ? .false : .inList(operand.sql, list, collation: collation)
        guard operand.isNullable else { return .expression(.condition(inList)) }
        // `nil` is in the collection only if the collection holds nil (SQL's IN is NULL for NULL).
        let sql: QueryExpression = containsNil
            ? .disjunction([.isNull(operand.sql), inList])
            : .conjunction([.not(.isNull(operand.sql)), inList])
        return .expression(.condition(sql))
    }
}

extension PredicateExpressions.SequenceContainsWhere: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        let collection = try state.translate(sequence)
        if case .model(let reference) = collection, let relationship = reference.toMany {
            let condition = try state.nestedCondition(variable, over: reference, test)
            return .expression(.condition(.toMany(owner: reference.path, relationship, condition: condition, .exists)))
        }
        guard let values = try state.elements(of: collection, as: LHS.Output.self, node: self) else {
            throw UntranslatableNode(node: "SequenceContainsWhere", reason: "only captured collections are searched in SQL; stored ones are JSON")
        }
        // `contains(where:)` is the first element that passes, in order: an ordered OR.
        var result: QueryExpression = .false
        for value in values {
            let condition = try state.with(variable, boundTo: .constant(KnownValue(value))) { try $0.condition(test) }
            result = PredicateTranslator.orderedOr(result, condition)
            if result == .true { break }
        }
        if result == .true || result == .false { return .constant(KnownValue(result == .true)) }
        return .expression(.condition(result))
    }
}

extension PredicateExpressions.SequenceAllSatisfy: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        let collection = try state.translate(sequence)
        if case .model(let reference) = collection, let relationship = reference.toMany {
            // Every related model passes: none fails (a NULL test counts as failing, as `false`).
            let condition = try state.nestedCondition(variable, over: reference, test)
            let fails = QueryExpression.not(.coalesce([condition, .false]))
            return .expression(.condition(.toMany(owner: reference.path, relationship, condition: fails, .notExists)))
        }
        guard let values = try state.elements(of: collection, as: LHS.Output.self, node: self) else {
            throw UntranslatableNode(node: "SequenceAllSatisfy", reason: "only captured collections are searched in SQL; stored ones are JSON")
        }
        var result: QueryExpression = .true
        for value in values {
            let condition = try state.with(variable, boundTo: .constant(KnownValue(value))) { try $0.condition(test) }
            result = PredicateTranslator.orderedAnd(result, condition)
            if result == .false { break }
        }
        if result == .true || result == .false { return .constant(KnownValue(result == .true)) }
        return .expression(.condition(result))
    }
}

/// The bounds of a range value, whatever its kind (`a...b`, `a..<b`, `a...`, `...b`, `..<b`).
protocol RangeBounds {
    var lowerBoundValue: Any? { get }
    var upperBoundValue: Any? { get }
    var includesUpperBound: Bool { get }
}

extension ClosedRange: RangeBounds {
    var lowerBoundValue: Any? { lowerBound }
    var upperBoundValue: Any? { upperBound }
    var includesUpperBound: Bool { true }
}

extension Range: RangeBounds {
    var lowerBoundValue: Any? { lowerBound }
    var upperBoundValue: Any? { upperBound }
    var includesUpperBound: Bool { false }
}

extension PartialRangeFrom: RangeBounds {
    var lowerBoundValue: Any? { lowerBound }
    var upperBoundValue: Any? { nil }
    var includesUpperBound: Bool { false }
}

extension PartialRangeThrough: RangeBounds {
    var lowerBoundValue: Any? { nil }
    var upperBoundValue: Any? { upperBound }
    var includesUpperBound: Bool { true }
}

extension PartialRangeUpTo: RangeBounds {
    var lowerBoundValue: Any? { nil }
    var upperBoundValue: Any? { upperBound }
    var includesUpperBound: Bool { false }
}

extension PredicateExpressions.RangeExpressionContains: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        let range = try state.translate(self.range)
        let member = try state.translate(element)
        if case .constant = range, case .constant = member { return try state.fold(self) }
        guard case .constant(let known) = range, let bounds = known.value as? any RangeBounds else {
            throw UntranslatableNode(node: "RangeExpressionContains", reason: "only ranges known before the query are translated")
        }
        var conditions: [TranslatedOperand] = []
        if let lower = bounds.lowerBoundValue {
            conditions.append(try state.compare(.greaterOrEqual, element, lower, Element.Output.self, node: self))
        }
        if let upper = bounds.upperBoundValue {
            let kind: ComparisonKind = bounds.includesUpperBound ? .lessOrEqual : .less
            conditions.append(try state.compare(kind, element, upper, Element.Output.self, node: self))
        }
        return .expression(.condition(.conjunction(try conditions.map { try state.condition(of: $0, node: self) })))
    }
}

extension TranslationState {
    /// `element op bound` for a range's bound (a constant).
    fileprivate mutating func compare<E: PredicateExpression>(
        _ kind: ComparisonKind, _ element: Any, _ bound: Any, _ valueType: Any.Type, node: E
    ) throws -> TranslatedOperand {
        try compare(kind, element, BoundValue(value: bound), valueType: valueType, node: node)
    }
}

/// A range bound as a predicate operand (a constant).
private struct BoundValue: SQLTranslatable {
    let value: Any
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand { .constant(KnownValue(value)) }
}

extension PredicateExpressions.ClosedRange: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        guard case .constant = try state.translate(lower), case .constant = try state.translate(upper) else {
            throw UntranslatableNode(node: "ClosedRange", reason: "only ranges known before the query are translated")
        }
        return try state.fold(self)
    }
}

extension PredicateExpressions.Range: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        guard case .constant = try state.translate(lower), case .constant = try state.translate(upper) else {
            throw UntranslatableNode(node: "Range", reason: "only ranges known before the query are translated")
        }
        return try state.fold(self)
    }
}
