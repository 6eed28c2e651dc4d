import Foundation

/// Fills a new model's storage from a row: what the `_$load(_:into:)` that `@Model` generates calls,
/// once per stored property in declaration order. You do not use it yourself.
///
/// The generated function runs in the model's module with the model and property types known, so each
/// ``load(_:)`` is specialised: a column of a common type (`Int`, `Double`, `String`, `Bool`, `Date`
/// and their optionals) is read typed from the row and stored straight into the property, with no
/// closure, no ``StorageValue`` and no dynamic cast between them. The reader knows, per property,
/// which column of the row holds it: a property the query did not read (a relationship, an ephemeral
/// or externally stored attribute, a partial fetch) is left unloaded.
public struct ModelRowReader {
    @usableFromInline let row: StoreRow
    /// The column of each property (by index in the entity's properties), or -1 for none.
    @usableFromInline let columns: UnsafePointer<Int32>
    @usableFromInline unowned(unsafe) let entity: Schema.Entity
    /// The property the next ``load(_:)`` is for.
    @usableFromInline var property = 0
    /// The context the new model is registered in.
    private unowned(unsafe) let link: ModelContextLink
    private let storeIdentifier: String
    /// Each to-one relationship read, as (property index, column).
    private let foreignKeys: [(index: Int, column: Int)]

    init(
        row: StoreRow, columns: UnsafePointer<Int32>, entity: Schema.Entity, link: ModelContextLink, storeIdentifier: String,
        foreignKeys: [(index: Int, column: Int)]
    ) {
        self.row = row
        self.columns = columns
        self.entity = entity
        self.link = link
        self.storeIdentifier = storeIdentifier
        self.foreignKeys = foreignKeys
    }

    /// Makes `state`, a new model's, the state of a stored model of this row: called first by the
    /// `_$load(_:into:)` of a root model class, on the model's own storage (no copy of it is made).
    public func loadState(into state: inout ModelBackingData.Storage) {
        state.link = link
        state.entity = entity
        state.key = .row(row.primaryKey)
        state.storeIdentifier = storeIdentifier
        state.state = .persisted
        for (index, column) in foreignKeys {
            guard let key = row.integer(at: column) else { continue }
            if state.foreignKeys == nil { state.foreignKeys = [:] }
            state.foreignKeys![index] = key
        }
    }

    /// Loads the next property from its column, if the row has one for it.
    @inlinable
    public mutating func load<Value>(_ storage: inout Value?) throws {
        let column = Int(columns[property])
        if column >= 0 {
            if let value = FastStorage.read(row, at: column, as: Value.self) {
                storage = value
            } else {
                storage = try decode(Value.self, at: column)
            }
        }
        property += 1
    }

    /// The value of a column that is not of a common type, or not in its usual storage class (a `NULL`,
    /// a value needing conversion), decoded by the attribute's codec. An error names the property.
    @usableFromInline
    func decode<Value>(_ type: Value.Type, at column: Int) throws -> Value {
        let attribute = entity.properties[property] as! Schema.Attribute
        let stored = row.value(at: column)
        if let value = FastStorage.decode(stored, as: Value.self) { return value }
        do {
            return try attribute.accessor.decode(stored) as! Value
        } catch var error as StowageError {
            error.propertyName = attribute.name
            throw error
        }
    }
}
