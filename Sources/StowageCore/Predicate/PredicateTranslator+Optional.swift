import Foundation

// Optionals: `?.` / `flatMap`, `??` and `!`. SQL's NULL is Swift's nil.

extension PredicateExpressions.OptionalFlatMap: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        let input = try state.translate(wrapped)
        let operand: SQLOperand
        switch input {
        case .constant: return try state.fold(self)
        case .model(let reference):
            // `$0.budget?.name`: inside the closure the variable is the related model; a missing link
            // makes every attribute reached through it NULL, which is the `nil` of the chain.
            let output = try state.with(variable, boundTo: .model(reference)) { try $0.translate(transform) }
            switch output {
            case .model: return output
            case .constant: return try state.fold(self)
            case .expression(let result):
                // A cast model (`(trip as? BusinessTrip)?.perdiem`) is nil for the rows of other classes.
                let sql = reference.condition.map { QueryExpression.conditional($0, result.sql, .value(.null)) } ?? result.sql
                return .expression(SQLOperand(sql, attribute: result.attribute, valueType: Result.self, isNullable: true))
            }
        case .expression(let value): operand = value
        }
        // Inside the closure the value is not nil: the result is NULL when the input is.
        var unwrapped = operand
        unwrapped.isNullable = false
        let output = try state.with(variable, boundTo: .expression(unwrapped)) { try $0.translate(transform) }
        let result = try state.sql(output, like: nil, node: self)
        let sql: QueryExpression = result.sql.isNull(whenNull: operand.sql) || !operand.isNullable
            ? result.sql
            : .conditional(.isNull(operand.sql), .value(.null), result.sql)
        return .expression(SQLOperand(sql, attribute: result.attribute, valueType: Result.self, isNullable: operand.isNullable || result.isNullable))
    }
}

extension PredicateExpressions.NilCoalesce: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        let left = try state.translate(lhs)
        if case .constant(let known) = left {
            // A constant optional chooses its side in advance; the other side is never evaluated.
            if let optional = known.value as? any OptionalProtocol, !Self.isNil(optional) { return try state.fold(self) }
            return try state.translate(rhs)
        }
        guard case .expression(let l) = left else {
            throw UntranslatableNode(node: "NilCoalesce", reason: "a model is not optional")
        }
        let right = try state.sql(try state.translate(rhs), like: l, node: self)
        guard l.isNullable else { return .expression(l) }
        return .expression(SQLOperand(
            .coalesce([l.sql, right.sql]), attribute: l.attribute ?? right.attribute, valueType: Output.self,
            isNullable: right.isNullable))
    }

    private static func isNil<O: OptionalProtocol>(_ optional: O) -> Bool { optional.wrappedValue == nil }
}

extension PredicateExpressions.ForcedUnwrap: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        switch try state.translate(inner) {
        case .constant: return try state.fold(self)
        case .model: throw UntranslatableNode(node: "ForcedUnwrap", reason: "a model is not optional")
        case .expression(var operand):
            // Swift's `!` on nil fails the evaluation; in SQL it fails the query the same way.
            if operand.isNullable { operand.sql = .unwrap(operand.sql) }
            operand.isNullable = false
            return .expression(operand)
        }
    }
}
