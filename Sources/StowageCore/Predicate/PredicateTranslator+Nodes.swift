import Foundation

// One SQL translation per `PredicateExpressions` node: values, key paths, comparisons, logic and
// conditionals. Arithmetic, optionals and collections are in the other `PredicateTranslator+` files.

extension PredicateExpressions.Variable: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        guard let value = state.value(of: key) else {
            throw UntranslatableNode(node: "Variable", reason: "the variable is not bound")
        }
        return value
    }
}

extension PredicateExpressions.KeyPath: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        switch try state.translate(root) {
        case .constant:
            return try state.fold(self)
        case .model(let reference):
            return try member(of: reference, &state)
        case .expression(let operand):
            return try member(of: operand)
        }
    }

    /// A property of a model: an attribute (of the fetched row or of a row reached through to-one
    /// relationships), `persistentModelID`, a relationship to follow, or `isEmpty` / `count` of a to-many.
    private func member(of reference: ModelReference, _ state: inout TranslationState) throws -> TranslatedOperand {
        // Described only when translation fails: a key path's description is expensive.
        var node: String { "KeyPath \(keyPath)" }
        let entity = reference.entity
        if let relationship = reference.toMany {
            let owner = reference.path
            if keyPath as AnyKeyPath == relationship.accessor?.isEmptyKeyPath {
                return .expression(.condition(.toMany(owner: owner, relationship, condition: nil, .notExists)))
            }
            if keyPath as AnyKeyPath == relationship.accessor?.countKeyPath {
                return .expression(SQLOperand(.toMany(owner: owner, relationship, condition: nil, .count), valueType: Int.self, isNullable: false))
            }
            throw UntranslatableNode(node: node, reason: "only isEmpty, count, contains(where:) and allSatisfy of a to-many relationship run in SQL")
        }
        guard reference.scope == state.scope else {
            throw UntranslatableNode(node: node, reason: "a closure over a to-many relationship refers to an outer model")
        }
        let nullable = !reference.path.isEmpty
        if let attribute = entity.attribute(for: keyPath) {
            guard !attribute.isExternalStorage else {
                throw UntranslatableNode(node: node, reason: "the attribute is kept in external storage")
            }
            guard !attribute.options.contains(.ephemeral) else {
                throw UntranslatableNode(node: node, reason: "the attribute is ephemeral (not stored)")
            }
            let sql: QueryExpression = reference.path.isEmpty ? .attribute(attribute) : .relatedAttribute(reference.path, attribute)
            return .expression(SQLOperand(sql, attribute: attribute, valueType: Output.self, isNullable: attribute.isOptional || nullable))
        }
        if keyPath as AnyKeyPath == entity.persistentModelIDKeyPath {
            return .expression(SQLOperand(.relatedKey(reference.path), valueType: PersistentIdentifier.self, isNullable: nullable))
        }
        if let index = entity.propertyIndex(for: keyPath), let relationship = entity.properties[index] as? Schema.Relationship,
           let destination = relationship.destinationEntity {
            if relationship.isToOneRelationship {
                return .model(ModelReference(entity: destination, path: reference.path + [relationship], scope: reference.scope))
            }
            return .model(ModelReference(entity: destination, path: reference.path, scope: reference.scope, toMany: relationship))
        }
        throw UntranslatableNode(node: node, reason: "not a stored property of \(entity.name)")
    }

    /// A property of a value SQL computes: the raw value of an enum, a string's `count` or `isEmpty`…
    private func member(of operand: SQLOperand) throws -> TranslatedOperand {
        // Described only when translation fails: a key path's description is expensive.
        var node: String { "KeyPath \(keyPath)" }
        let path = keyPath as AnyKeyPath
        let nullable = operand.isNullable
        let isNative = operand.attribute?.accessor.codecKind == .native
        if let raw = operand.valueType as? any RawRepresentable.Type, operand.attribute?.accessor.codecKind == .rawValue,
           isRawValue(path, of: raw) {
            // Enums are stored as their raw value: `.rawValue` is the column itself.
            return .expression(SQLOperand(operand.sql, valueType: Output.self, isNullable: nullable))
        }
        if path == \String.count as AnyKeyPath {
            return .expression(SQLOperand(.string(.count, [operand.sql]), valueType: Int.self, isNullable: nullable))
        }
        if path == \String.isEmpty as AnyKeyPath {
            return .expression(.condition(.comparison(.equal, operand.sql, .value(.text("")), collation: nil), isNullable: nullable))
        }
        if isNative, path == \UUID.uuidString as AnyKeyPath {
            return .expression(SQLOperand(operand.sql, valueType: String.self, isNullable: nullable))
        }
        if isNative, path == \Date.timeIntervalSinceReferenceDate as AnyKeyPath {
            return .expression(SQLOperand(operand.sql, valueType: Double.self, isNullable: nullable))
        }
        if isNative, path == \Date.timeIntervalSince1970 as AnyKeyPath {
            let seconds = QueryExpression.arithmetic(.add, operand.sql, .value(.real(Date.timeIntervalBetween1970AndReferenceDate)))
            return .expression(SQLOperand(seconds, valueType: Double.self, isNullable: nullable))
        }
        throw UntranslatableNode(node: node, reason: "SQL has no equivalent of this property of \(operand.valueType)")
    }
}

/// Whether `keyPath` reads the raw value of `R`'s values. The key path `#Predicate` builds for
/// `.rawValue` names the enum's own property, which differs from the protocol's `\R.rawValue`, so the
/// key path is checked on the enum's values: every case when `R` is `CaseIterable`, else the values
/// made from small integer raw values. When no value can be checked, the key path is not trusted.
private func isRawValue<R: RawRepresentable>(_ keyPath: AnyKeyPath, of type: R.Type) -> Bool {
    if keyPath == \R.rawValue as AnyKeyPath { return true }
    var samples: [R] = []
    if let iterable = R.self as? any CaseIterable.Type {
        samples = allCases(of: iterable).compactMap { $0 as? R }
    } else if let integer = R.RawValue.self as? any BinaryInteger.Type {
        samples = (0..<256).compactMap { makeInteger(integer, $0).flatMap { R(rawValue: $0) } }
    }
    return !samples.isEmpty && samples.allSatisfy { sample in
        guard let value = sample[keyPath: keyPath] as? R.RawValue else { return false }
        return StorageValueProbe.same(value, sample.rawValue)
    }
}

private func allCases<C: CaseIterable>(of type: C.Type) -> [Any] { C.allCases.map { $0 as Any } }

private func makeInteger<I: BinaryInteger, Raw>(_ type: I.Type, _ value: Int) -> Raw? { I(exactly: value) as? Raw }

/// Compares two raw values through their stored form (raw values are storable, not always Equatable
/// at run time without their static type).
private enum StorageValueProbe {
    static func same(_ lhs: Any, _ rhs: Any) -> Bool {
        guard let codec = AttributeCodecs.anyCodec(for: type(of: rhs)), let a = try? codec.encode(lhs), let b = try? codec.encode(rhs) else {
            return false
        }
        return a == b
    }
}

extension PredicateExpressions.Value: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        let slot = state.trace.capturedCount
        state.trace.capturedCount += 1
        return .constant(KnownValue(captured: value, slot: slot, trace: state.trace))
    }
}

extension PredicateExpressions.NilLiteral: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand { .constant(KnownValue(Output.none as Any)) }
}

/// The kinds of comparison a predicate makes.
enum ComparisonKind {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
}

extension TranslationState {
    /// `lhs op rhs` with Swift's semantics: optionals compare with `IS` (`nil == nil`), strings with
    /// Swift's canonical equivalence, constants in the stored form of the other side.
    mutating func compare<E: PredicateExpression>(
        _ kind: ComparisonKind, _ lhs: Any, _ rhs: Any, valueType: Any.Type, node: E
    ) throws -> TranslatedOperand {
        var left = try translate(lhs)
        var right = try translate(rhs)
        if case .constant = left, case .constant = right { return try fold(node) }
        // Named only when translation fails (the name is built from the type's description).
        var name: String { Self.name(of: node) }
        let isEquality = kind == .equal || kind == .notEqual
        var valueType = valueType
        // Models compare by identity: their primary keys (`$0.budget == nil`, `$0.budget == budget`).
        func modelKey(_ side: inout TranslatedOperand) throws {
            guard case .model(let reference) = side else { return }
            guard isEquality, reference.toMany == nil, reference.scope == scope else {
                throw UntranslatableNode(node: name, reason: "models are only compared for equality in SQL")
            }
            side = .expression(SQLOperand(
                .relatedKey(reference.path), valueType: PersistentIdentifier.self, isNullable: !reference.path.isEmpty))
            valueType = PersistentIdentifier.self
        }
        try modelKey(&left)
        try modelKey(&right)
        if let problem = isEquality ? TypeTraits.equalityProblem(valueType) : TypeTraits.orderingProblem(valueType) {
            throw UntranslatableNode(node: name, reason: problem)
        }
        // NaN is stored as NULL by SQLite; it equals nothing and orders with nothing.
        if TypeTraits.isFloatingPoint(valueType) {
            for side in [left, right] {
                if case .constant(let known) = side, known.isNaN {
                    return .constant(KnownValue(kind == .notEqual))
                }
            }
        }
        var leftSQL: SQLOperand
        var rightSQL: SQLOperand
        if case .expression(let l) = left {
            leftSQL = l
            rightSQL = try sql(right, like: l, node: node)
        } else {
            rightSQL = try sql(right, like: nil, node: node)
            leftSQL = try sql(left, like: rightSQL, node: node)
        }
        if case .expression = right, case .expression = left, leftSQL.attribute == nil { leftSQL.attribute = rightSQL.attribute }
        let collation = TypeTraits.collation(for: valueType)
        let nullable = leftSQL.isNullable || rightSQL.isNullable
        let (l, r) = (leftSQL.sql, rightSQL.sql)
        switch kind {
        case .equal, .notEqual:
            let equal = kind == .equal
            if r == .value(.null) { return .expression(.condition(equal ? .isNull(l) : .not(.isNull(l)))) }
            if l == .value(.null) { return .expression(.condition(equal ? .isNull(r) : .not(.isNull(r)))) }
            let op: QueryExpression.ComparisonOperator = nullable ? (equal ? .is : .isNot) : (equal ? .equal : .notEqual)
            return .expression(.condition(.comparison(op, l, r, collation: collation)))
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            let op: QueryExpression.ComparisonOperator = switch kind {
            case .less: .less
            case .lessOrEqual: .lessOrEqual
            case .greater: .greater
            default: .greaterOrEqual
            }
            return .expression(.condition(.comparison(op, l, r, collation: collation), isNullable: nullable))
        }
    }
}

extension PredicateExpressions.Equal: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        try state.compare(.equal, lhs, rhs, valueType: LHS.Output.self, node: self)
    }
}

extension PredicateExpressions.NotEqual: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        try state.compare(.notEqual, lhs, rhs, valueType: LHS.Output.self, node: self)
    }
}

extension PredicateExpressions.Comparison: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        let kind: ComparisonKind = switch op {
        case .lessThan: .less
        case .lessThanOrEqual: .lessOrEqual
        case .greaterThan: .greater
        case .greaterThanOrEqual: .greaterOrEqual
        }
        return try state.compare(kind, lhs, rhs, valueType: LHS.Output.self, node: self)
    }
}

extension PredicateExpressions.Conjunction: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        let left = try state.translate(lhs)
        // `false && x` is false without evaluating x, as in Swift.
        if case .constant(let known) = left, let bool = known.value as? Bool, !bool { return .constant(KnownValue(false)) }
        let l = try state.condition(of: left, node: lhs)
        let r = try state.condition(rhs)
        return .expression(.condition(PredicateTranslator.orderedAnd(l, r)))
    }
}

extension PredicateExpressions.Disjunction: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        let left = try state.translate(lhs)
        // `true || x` is true without evaluating x, as in Swift.
        if case .constant(let known) = left, let bool = known.value as? Bool, bool { return .constant(KnownValue(true)) }
        let l = try state.condition(of: left, node: lhs)
        let r = try state.condition(rhs)
        return .expression(.condition(PredicateTranslator.orderedOr(l, r)))
    }
}

extension PredicateExpressions.Negation: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        let operand = try state.translate(wrapped)
        if case .constant(let known) = operand, let value = known.value as? Bool { return .constant(KnownValue(!value)) }
        return .expression(.condition(.negation(try state.condition(of: operand, node: wrapped))))
    }
}

extension PredicateExpressions.Conditional: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        let condition = try state.translate(test)
        // A test known in advance chooses its branch, and only that branch is translated (as in Swift,
        // the other one is never evaluated).
        if case .constant(let known) = condition, let value = known.value as? Bool {
            return try state.translate(value ? trueBranch : falseBranch)
        }
        let testSQL = try state.condition(of: condition, node: test)
        let yes = try state.translate(trueBranch)
        let no = try state.translate(falseBranch)
        var yesSQL: SQLOperand
        var noSQL: SQLOperand
        if case .expression(let operand) = yes {
            yesSQL = operand
            noSQL = try state.sql(no, like: operand, node: self)
        } else if case .expression(let operand) = no {
            noSQL = operand
            yesSQL = try state.sql(yes, like: operand, node: self)
        } else {
            yesSQL = try state.sql(yes, like: nil, node: self)
            noSQL = try state.sql(no, like: nil, node: self)
        }
        return .expression(SQLOperand(
            .conditional(testSQL, yesSQL.sql, noSQL.sql), attribute: yesSQL.attribute ?? noSQL.attribute,
            valueType: Output.self, isNullable: yesSQL.isNullable || noSQL.isNullable))
    }
}
