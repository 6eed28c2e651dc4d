import Foundation

/// Binds a model's stored properties as the parameters of a row to write: what the
/// `_$store(_:from:)` that `@Model` generates calls, once per stored property in declaration order (the
/// counterpart of ``ModelRowReader``). You do not use it yourself.
///
/// The generated function runs in the model's module with the model and property types known, so each
/// ``store(_:)`` is specialised: a value of a common type (`Int`, `Double`, `String`, `Bool`, `Date`,
/// `Data` and their optionals) is bound from the property's storage with no closure and no dynamic cast
/// between them. Other types go through the attribute's codec, as before. The writer knows, per
/// property, which parameter of the row takes it: a property the row does not write (a relationship, an
/// ephemeral or externally stored attribute) is skipped.
public struct ModelRowWriter {
    @usableFromInline let statement: OpaquePointer
    /// The column of each property in the row (by index in the entity's properties), or -1 for none.
    @usableFromInline let columns: UnsafePointer<Int32>
    /// The parameter index of the row's first column.
    @usableFromInline let firstParameter: Int32
    @usableFromInline unowned(unsafe) let entity: Schema.Entity
    @usableFromInline unowned(unsafe) let model: AnyObject
    /// The property the next ``store(_:)`` is for.
    @usableFromInline var property = 0

    init(statement: OpaquePointer, columns: UnsafePointer<Int32>, firstParameter: Int32, entity: Schema.Entity, model: AnyObject) {
        self.statement = statement
        self.columns = columns
        self.firstParameter = firstParameter
        self.entity = entity
        self.model = model
    }

    /// Binds the next property, if the row has a column for it.
    @inlinable
    public mutating func store<Value>(_ storage: Value?) throws {
        let column = columns[property]
        if column >= 0 {
            guard let value = storage else { notLoaded() }
            if let stored = FastStorage.encode(value) {
                try bind(stored, at: column)
            } else {
                try bindThroughCodec(at: column)
            }
        }
        property += 1
    }

    /// Binds a value to the parameter of `column`, refusing NaN (SQLite would store it as NULL).
    @usableFromInline
    func bind(_ value: StorageValue, at column: Int32) throws {
        if case .real(let number) = value, number.isNaN {
            throw Schema.Attribute.nanError(property: entity.properties[property].name)
        }
        SQLiteStatement.bind(value, at: firstParameter + column, in: statement)
    }

    /// Binds a value of a type without a fast path, encoded by the attribute's codec (which refuses NaN).
    @usableFromInline
    func bindThroughCodec(at column: Int32) throws {
        let attribute = entity.properties[property] as! Schema.Attribute
        SQLiteStatement.bind(try attribute.storableValue(of: model), at: firstParameter + column, in: statement)
    }

    @usableFromInline
    func notLoaded() -> Never {
        preconditionFailure("Stowage internal error: writing \(entity.name).\(entity.properties[property].name) before it was loaded")
    }
}

extension Schema.Attribute {
    /// The stored form of this attribute's current value in `model`, through its codec. An error names
    /// the attribute; NaN is refused (SQLite would store it as NULL).
    func storableValue(of model: AnyObject) throws -> StorageValue {
        do {
            let value = try accessor.read(model)
            if case .real(let number) = value, number.isNaN { throw Self.nanError(property: name) }
            return value
        } catch var error as StowageError {
            if error.propertyName == nil { error.propertyName = name }
            throw error
        }
    }

    /// The error for a NaN in `property`.
    static func nanError(property: String) -> StowageError {
        StowageError(
            .invalidValue,
            "\(property) is NaN, which SQLite cannot store (it would read back as NULL). Store another value, or nil in an optional property.",
            propertyName: property)
    }
}
