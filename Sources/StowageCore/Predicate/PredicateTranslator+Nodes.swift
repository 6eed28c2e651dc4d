import Foundation

// One SQL translation per `PredicateExpressions` node.

extension PredicateExpressions.Variable: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        throw UntranslatableNode(node: "Variable", reason: "a model itself is not a value SQL can compare")
    }
}

extension PredicateExpressions.KeyPath: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        if root is PredicateExpressions.Variable<Root.Output>, let attribute = state.entity.attribute(for: keyPath) {
            guard !attribute.isExternalStorage else {
                throw UntranslatableNode(node: "KeyPath \(keyPath)", reason: "the attribute is kept in external storage")
            }
            return .expression(.attribute(attribute), attribute: attribute)
        }
        throw UntranslatableNode(node: "KeyPath \(keyPath)", reason: "not a stored attribute of \(state.entity.name)")
    }
}

extension PredicateExpressions.Value: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand { .constant(value) }
}

/// Builds a comparison, binding a constant in the stored form of the attribute on the other side.
private func compare(_ op: QueryExpression.ComparisonOperator, _ lhs: Any, _ rhs: Any, _ state: inout TranslationState) throws -> TranslatedOperand {
    let left = try state.translate(lhs)
    let right = try state.translate(rhs)
    var attribute: Schema.Attribute?
    if case .expression(_, let a) = left { attribute = a }
    if attribute == nil, case .expression(_, let a) = right { attribute = a }
    let l = try state.sql(left, like: attribute)
    let r = try state.sql(right, like: attribute)
    if attribute?.storageType == .text, attribute?.valueType is Decimal.Type || attribute?.valueType is Decimal?.Type {
        throw UntranslatableNode(node: "Comparison", reason: "decimal attributes compare in Swift")
    }
    // `== nil` / `!= nil` become IS NULL tests.
    if case .value(.null) = r, op == .equal || op == .notEqual {
        return .expression(op == .equal ? .isNull(l) : .not(.isNull(l)), attribute: nil)
    }
    if case .value(.null) = l, op == .equal || op == .notEqual {
        return .expression(op == .equal ? .isNull(r) : .not(.isNull(r)), attribute: nil)
    }
    var comparison = QueryExpression.comparison(op, l, r, collation: nil)
    // `!=` in Swift is true when one side is nil and the other is not; SQL's `<>` is NULL then.
    if op == .notEqual, attribute?.isOptional == true {
        comparison = .or([comparison, .and([.isNull(l), .not(.isNull(r))]), .and([.not(.isNull(l)), .isNull(r)])])
    }
    return .expression(comparison, attribute: nil)
}

extension PredicateExpressions.Equal: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        try compare(.equal, lhs, rhs, &state)
    }
}

extension PredicateExpressions.NotEqual: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        try compare(.notEqual, lhs, rhs, &state)
    }
}

extension PredicateExpressions.Comparison: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        let op: QueryExpression.ComparisonOperator = switch self.op {
        case .lessThan: .less
        case .lessThanOrEqual: .lessOrEqual
        case .greaterThan: .greater
        case .greaterThanOrEqual: .greaterOrEqual
        }
        return try compare(op, lhs, rhs, &state)
    }
}

extension PredicateExpressions.Conjunction: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        .expression(.and([try state.condition(lhs), try state.condition(rhs)]), attribute: nil)
    }
}

extension PredicateExpressions.Disjunction: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        .expression(.or([try state.condition(lhs), try state.condition(rhs)]), attribute: nil)
    }
}

extension PredicateExpressions.Negation: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        .expression(.not(try state.condition(wrapped)), attribute: nil)
    }
}

extension PredicateExpressions.CollectionContainsCollection: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        let text = try state.translate(base)
        let pattern = try state.translate(other)
        guard case .expression(_, let attribute?) = text, attribute.valueType is String.Type || attribute.valueType is String?.Type else {
            throw UntranslatableNode(node: "CollectionContainsCollection", reason: "only string attributes are searched in SQL")
        }
        return .expression(
            .textSearch(.contains, text: try state.sql(text, like: nil), pattern: try state.sql(pattern, like: nil), caseInsensitive: false),
            attribute: nil)
    }
}
