import Foundation

// Class inheritance: `model is Subclass` and `model as? Subclass` test the `_entity` column of the
// hierarchy's table (see `Schema.Entity.tableName`).

extension PredicateExpressions.TypeCheck: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        switch try state.translate(input) {
        case .constant: return try state.fold(self)
        case .expression: throw UntranslatableNode(node: "TypeCheck", reason: "only a model's class is known to SQL")
        case .model(let reference):
            guard reference.toMany == nil else {
                throw UntranslatableNode(node: "TypeCheck", reason: "a to-many relationship is not a model")
            }
            return .expression(.condition(try classTest(reference, desired: Desired.self)))
        }
    }
}

extension PredicateExpressions.ConditionalCast: SQLTranslatable {
    func translate(_ state: inout TranslationState) throws -> TranslatedOperand {
        switch try state.translate(input) {
        case .constant: return try state.fold(self)
        case .expression: throw UntranslatableNode(node: "ConditionalCast", reason: "only a model's class is known to SQL")
        case .model(let reference):
            guard reference.toMany == nil else {
                throw UntranslatableNode(node: "ConditionalCast", reason: "a to-many relationship is not a model")
            }
            guard let target = entity(of: Desired.self, near: reference.entity) else {
                throw UntranslatableNode(node: "ConditionalCast", reason: "\(Desired.self) is not a model of \(reference.entity.name)'s hierarchy")
            }
            var cast = ModelReference(entity: target, path: reference.path, scope: reference.scope)
            let test = try classTest(reference, desired: Desired.self)
            cast.condition = [reference.condition, test == .true ? nil : test].compactMap { $0 }.reduce(nil) { combined, next in
                combined.map { .and([$0, next]) } ?? next
            }
            return .model(cast)
        }
    }
}

/// The entity of model class `type` in the hierarchy of `entity`, if it is one of its classes.
private func entity(of type: Any.Type, near entity: Schema.Entity) -> Schema.Entity? {
    let root = entity.rootEntity
    return ([root] + root.descendants).first { ObjectIdentifier($0.modelType) == ObjectIdentifier(type) }
}

/// Whether the model `reference` stands for is a `desired`: true for the reference's class and its
/// superclasses, a test of `_entity` for its subclasses, false for any other type.
private func classTest(_ reference: ModelReference, desired: Any.Type) throws -> QueryExpression {
    guard let target = entity(of: desired, near: reference.entity) else { return .false }
    var ancestor: Schema.Entity? = reference.entity
    while let current = ancestor {
        if current === target { return reference.path.isEmpty ? .true : .not(.isNull(.relatedKey(reference.path))) }
        ancestor = current.superentity
    }
    let test = QueryExpression.inList(.relatedEntity(reference.path), target.entityNamesForFetch.map { .value(.text($0)) }, collation: nil)
    // A missing link is no model at all: not of any class.
    return reference.path.isEmpty ? test : .coalesce([test, .false])
}
