import Foundation

extension AttributeCodecs {
    /// The codec of an attribute declared `.transformable(by:)`: the value goes through the transformer's
    /// `transformedValue(_:)`, which must return `Data` (stored as a BLOB), and comes back through
    /// `reverseTransformedValue(_:)`, which must return a value of the property's type. `nil` is stored
    /// as `NULL` without calling the transformer. A transformer that cannot be found (see
    /// ``Schema/Attribute/transformerProblem(entity:)``, which opening a container reports first) makes
    /// every conversion throw.
    static func transformableCodec<Value>(
        for type: Value.Type, transformer reference: TransformerReference, property: String
    ) -> AttributeCodec<Value> {
        if let optional = type as? any OptionalProtocol.Type {
            return optionalTransformableCodec(optional, reference: reference, property: property) as! AttributeCodec<Value>
        }
        let transformer = reference.make()
        return AttributeCodec<Value>(
            storageType: .blob, isOptional: false, kind: .transformable,
            encode: { value in
                guard let transformer else { throw missingTransformer(reference, property: property) }
                let transformed = transformer.transformedValue(value)
                guard let data = transformed as? Data else {
                    throw StowageError(
                        .invalidValue,
                        "\(property) is stored through \(Swift.type(of: transformer)), whose transformedValue(_:) returned \(transformed.map { "a \(Swift.type(of: $0))" } ?? "nil") instead of Data: a transformable attribute is stored as the Data its transformer makes.")
                }
                return .blob(data)
            },
            decode: { stored in
                guard let transformer else { throw missingTransformer(reference, property: property) }
                guard case .blob(let data) = stored else { throw invalidStoredValue(stored, as: Value.self) }
                let value = transformer.reverseTransformedValue(data)
                guard let typed = value as? Value else {
                    throw StowageError(
                        .invalidStoredValue,
                        "\(property) is read back through \(Swift.type(of: transformer)), whose reverseTransformedValue(_:) returned \(value.map { "a \(Swift.type(of: $0))" } ?? "nil") instead of a \(Value.self).")
                }
                return typed
            })
    }

    private static func optionalTransformableCodec<O: OptionalProtocol>(
        _: O.Type, reference: TransformerReference, property: String
    ) -> Any {
        let inner = transformableCodec(for: O.Wrapped.self, transformer: reference, property: property)
        return AttributeCodec<O>(
            storageType: .blob, isOptional: true, kind: .transformable,
            encode: { value in try value.wrappedValue.map(inner.encode) ?? .null },
            decode: { stored in stored == .null ? O(wrapping: nil) : O(wrapping: try inner.decode(stored)) })
    }

    private static func missingTransformer(_ reference: TransformerReference, property: String) -> StowageError {
        StowageError(
            .invalidSchema,
            "\(property) is stored through the value transformer \(reference), which is not registered. Register it with ValueTransformer.setValueTransformer(_:forName:) before opening the container.")
    }
}

extension Schema.Attribute {
    /// Why this attribute's `.transformable(by:)` cannot work, checked when the container opens: no
    /// transformer registered under the name, a transformer that cannot reverse its transformation, or
    /// a property type Stowage stores natively (its fast paths would bypass the transformer).
    func transformerProblem(entity: String) -> StowageError? {
        guard let reference = transformer else { return nil }
        let property = "\(entity).\(name)"
        func problem(_ message: String) -> StowageError {
            StowageError(.invalidSchema, message, entityName: entity, propertyName: name)
        }
        guard let instance = reference.make() else {
            let registered = ValueTransformer.valueTransformerNames().map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            return problem(
                "\(property) is @Attribute(.transformable(by: \(reference))), but no value transformer is registered under that name (registered: \(registered.isEmpty ? "none" : registered)). Call ValueTransformer.setValueTransformer(_:forName:) before opening the container, or name the transformer's class: .transformable(by: MyTransformer.self).")
        }
        if !type(of: instance).allowsReverseTransformation() {
            return problem(
                "\(property) is stored through \(type(of: instance)), which does not allow reverse transformation: the stored Data could not be read back. Override allowsReverseTransformation() to return true and implement reverseTransformedValue(_:).")
        }
        if TypeTraits.isNativelyStored(valueType) {
            return problem(
                "\(property) is a \(valueType), which Stowage stores natively: .transformable(by:) applies to other types (such as a class that is not Codable). Remove the option, or store a type of your own.")
        }
        return nil
    }
}
