import Foundation

// Arithmetic: `+ - *`, integer `/` and `%`, floating-point `/`, unary minus.
//
// Integers compute in SQLite's 64-bit integers (division truncates toward zero and `%` takes the sign
// of the dividend, as in Swift); doubles in IEEE double precision, as in Swift. Where Swift traps
// (overflow, integer division by a zero that is only known per row) SQL yields a value or NULL instead.

extension TranslationState {
    mutating func arithmetic<E: PredicateExpression>(
        _ op: QueryExpression.ArithmeticOperator, _ lhs: Any, _ rhs: Any, valueType: Any.Type, node: E
    ) throws -> TranslatedOperand {
        let left = try translate(lhs)
        let right = try translate(rhs)
        // Named only when translation fails (the name is built from the type's description).
        var name: String { Self.name(of: node) }
        if op == .divide || op == .remainder, case .constant(let divisor) = right, Self.isZero(divisor.value) {
            throw UntranslatableNode(node: name, reason: "division by zero: Swift evaluates it (and traps or gives infinity)")
        }
        if case .constant = left, case .constant = right { return try fold(node) }
        if let problem = TypeTraits.arithmeticProblem(valueType) { throw UntranslatableNode(node: name, reason: problem) }
        if op == .divide, TypeTraits.unwrapped(valueType) == Double.self, case .expression = right {
            throw UntranslatableNode(
                node: name, reason: "a divisor that may be zero gives ±infinity or NaN in Swift but NULL in SQL")
        }
        let leftSQL: SQLOperand
        let rightSQL: SQLOperand
        if case .expression(let l) = left {
            leftSQL = l
            rightSQL = try sql(right, like: l, node: node)
        } else {
            rightSQL = try sql(right, like: nil, node: node)
            leftSQL = try sql(left, like: rightSQL, node: node)
        }
        // An integer division by a divisor computed per row is NULL in SQL when it is zero.
        let nullable = leftSQL.isNullable || rightSQL.isNullable || ((op == .divide || op == .remainder) && !(right.isConstant))
        return .expression(SQLOperand(
            .arithmetic(op, leftSQL.sql, rightSQL.sql), attribute: Self.arithmeticAttribute(leftSQL, rightSQL),
            valueType: valueType, isNullable: nullable))
    }

    /// The attribute whose encoding constants meeting an arithmetic result use: a native number column's.
    private static func arithmeticAttribute(_ lhs: SQLOperand, _ rhs: SQLOperand) -> Schema.Attribute? {
        for attribute in [lhs.attribute, rhs.attribute] {
            if let attribute, attribute.accessor.codecKind == .native { return attribute }
        }
        return nil
    }

    private static func isZeroInteger<I: BinaryInteger>(_ number: I) -> Bool { number == .zero }

    private static func isZero(_ value: Any) -> Bool {
        switch value {
        case let number as any BinaryInteger: return isZeroInteger(number)
        case let number as Double: return number == 0
        case let number as Float: return number == 0
        default: return false
        }
    }
}

extension TranslatedOperand {
    var isConstant: Bool {
        if case .constant = self { return true }
        return false
    }
}

extension PredicateExpressions.Arithmetic: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        let op: QueryExpression.ArithmeticOperator = switch self.op {
        case .add: .add
        case .subtract: .subtract
        case .multiply: .multiply
        }
        return try state.arithmetic(op, lhs, rhs, valueType: Output.self, node: self)
    }
}

extension PredicateExpressions.IntDivision: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        try state.arithmetic(.divide, lhs, rhs, valueType: Output.self, node: self)
    }
}

extension PredicateExpressions.IntRemainder: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        try state.arithmetic(.remainder, lhs, rhs, valueType: Output.self, node: self)
    }
}

extension PredicateExpressions.FloatDivision: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        try state.arithmetic(.divide, lhs, rhs, valueType: Output.self, node: self)
    }
}

extension PredicateExpressions.UnaryMinus: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        switch try state.translate(wrapped) {
        case .constant: return try state.fold(self)
        case .model: throw UntranslatableNode(node: "UnaryMinus", reason: "a model is not a number")
        case .expression(let operand):
            if let problem = TypeTraits.arithmeticProblem(Output.self) {
                throw UntranslatableNode(node: "UnaryMinus", reason: problem)
            }
            var negated = operand
            negated.sql = .negative(operand.sql)
            return .expression(negated)
        }
    }
}
