import Foundation

/// What a store records about the models whose rows it holds, so that a program without those models
/// (the `stowage` command, Stowage Studio) can show and write its rows by their Swift types: each
/// entity's table, each attribute's Swift type and how it is stored, each relationship's destination,
/// inverse, delete rule, ordering and where its links live.
///
/// Stored as JSON (keys sorted) under ``metadataKey`` in the store's metadata, beside the layout a store
/// is opened against (``SchemaLayout``), which it does not take part in: a store whose description is
/// missing (made by an earlier version) or out of date opens as before, and a container that can save
/// writes the current one when it opens it.
package struct StoreDescription: Codable, Hashable, Sendable {
    /// The metadata key of the description.
    package static let metadataKey = "schema_description"
    /// The description's format; a reader refuses a format it does not know.
    package static let currentFormat = 1

    package var format: Int
    /// The schema's version.
    package var version: String
    /// The entities, sorted by name.
    package var entities: [Entity]

    package struct Entity: Codable, Hashable, Sendable {
        /// The model class's name.
        package var name: String
        /// The table holding the entity's rows (its class hierarchy's root's).
        package var table: String
        /// The entity this one's class inherits from.
        package var superentity: String?
        /// For an entity of a class hierarchy: the values of the table's `_entity` column whose rows are
        /// this entity's (its own name and its subentities'). `nil` when the table holds only this entity.
        package var entityColumnValues: [String]?
        /// The stored attributes, inherited ones first, in declaration order.
        package var attributes: [Attribute]
        /// The relationships, inherited ones first, in declaration order.
        package var relationships: [Relationship]
        /// Groups of attribute names whose combined values are unique.
        package var uniqueness: [[String]]
        /// Groups of attribute names indexed together.
        package var indices: [[String]]
    }

    package struct Attribute: Codable, Hashable, Sendable {
        package var name: String
        /// The Swift type without its optional, as Swift prints it (`String`, `Int64`, `Category`,
        /// `Array<String>`).
        package var type: String
        /// How a value of the type is stored and read back.
        package var kind: Kind
        /// For ``Kind/rawValue``: the raw value's type (`String`, `Int`…).
        package var rawType: String?
        /// For a `CaseIterable` enumeration: its cases' raw values, in declaration order.
        package var cases: [Value]?
        /// The column type: `INTEGER`, `REAL`, `TEXT` or `BLOB`.
        package var column: String
        package var isOptional: Bool
        /// Declared with `.unique`.
        package var isUnique: Bool
        /// For `.externalStorage`: the side table holding the values (`_pk`, `value`), else `nil`.
        package var externalTable: String?
        /// `.preserveValueOnDeletion`.
        package var preservesValueOnDeletion: Bool
    }

    /// How an attribute's values are stored.
    package enum Kind: String, Codable, Hashable, Sendable {
        /// `Bool` as 0 or 1.
        case bool
        /// A fixed-width integer (`Int`, `Int8`…`UInt64`) as an integer.
        case integer
        /// `Double` or `Float` as a real number.
        case real
        /// `String` as text, compared by its canonical (NFC) form.
        case string
        /// `Date` as seconds since 2001-01-01 00:00:00 UTC, a real number.
        case date
        /// `UUID` as its 36-character uppercase text.
        case uuid
        /// `URL` as its absolute string.
        case url
        /// `Decimal` as its exact decimal text, compared as numbers.
        case decimal
        /// `Data` as a blob.
        case data
        /// A `RawRepresentable` type (an enumeration) as its raw value, of type ``Attribute/rawType``.
        case rawValue
        /// Any other `Codable` type as JSON text.
        case codable
        /// A value a `ValueTransformer` turned into `Data` (`.transformable(by:)`), as a blob.
        case transformable
    }

    /// A constant of a stored type: a raw value of an enumeration case.
    package enum Value: Codable, Hashable, Sendable {
        case integer(Int64)
        case real(Double)
        case text(String)

        package init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let integer = try? container.decode(Int64.self) { self = .integer(integer) }
            else if let real = try? container.decode(Double.self) { self = .real(real) }
            else { self = .text(try container.decode(String.self)) }
        }

        package func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .integer(let value): try container.encode(value)
            case .real(let value): try container.encode(value)
            case .text(let value): try container.encode(value)
            }
        }
    }

    package struct Relationship: Codable, Hashable, Sendable {
        package var name: String
        package var destination: String
        /// The inverse relationship on the destination, when there is one.
        package var inverse: String?
        /// `nullify`, `cascade`, `deny` or `noAction`.
        package var deleteRule: String
        package var isToMany: Bool
        /// A to-many relationship whose links keep the array's order (a position per link).
        package var isOrdered: Bool
        package var minimumCount: Int?
        package var maximumCount: Int?
        /// `@Relationship(.unique)`: a destination row is related through it to one row at most. Recorded
        /// only when set (`nil` otherwise), so that the descriptions of stores without one are unchanged.
        package var isUnique: Bool?
        /// Where the links live.
        package var storage: Storage
    }

    /// Where a relationship's links are stored.
    package struct Storage: Codable, Hashable, Sendable {
        /// `foreignKey`: a column of the entity's table holds the destination row's `_pk` (and
        /// `positionColumn` this row's place in the inverse array); `inverse`: the inverse
        /// relationship's foreign key holds them; `joinTable`: a table with a row per link.
        package var kind: String
        /// `foreignKey`: the key column; `joinTable`: the join table's column of this side's key.
        package var column: String?
        package var positionColumn: String?
        /// `joinTable`: the table, the other side's key column, and its position column.
        package var table: String?
        package var otherColumn: String?
        package var otherPositionColumn: String?
    }

    /// The description as stored: JSON with sorted keys, so that equal descriptions are equal text.
    package var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Strings, numbers, booleans and arrays: encoding cannot fail.
        return String(decoding: try! encoder.encode(self), as: UTF8.self)
    }

    /// Reads a stored description.
    /// - Throws: `DecodingError` for text that is not one, ``StowageError`` for a format this version
    ///   does not know.
    package init(json: String) throws {
        self = try JSONDecoder().decode(StoreDescription.self, from: Data(json.utf8))
        guard format <= Self.currentFormat else {
            throw StowageError(.schemaMismatch, "The store's description has format \(format); this version of Stowage reads format \(Self.currentFormat) and earlier. Use a newer `stowage`.")
        }
    }

    package init(format: Int = StoreDescription.currentFormat, version: String, entities: [Entity]) {
        self.format = format
        self.version = version
        self.entities = entities
    }

    /// The entity named `name`.
    package func entity(named name: String) -> Entity? { entities.first { $0.name == name } }
}

extension StoreDescription {
    /// The description of `schema`'s models.
    init(_ schema: Schema) {
        self.init(version: schema.version.description, entities: schema.entities.map(Entity.init).sorted { $0.name < $1.name })
    }
}

extension StoreDescription.Entity {
    init(_ entity: Schema.Entity) {
        name = entity.name
        table = entity.tableName
        superentity = entity.superentity?.name
        entityColumnValues = entity.isInHierarchy ? entity.entityNamesForFetch : nil
        attributes = entity.attributeList.filter { !$0.options.contains(.ephemeral) }.map { attribute in
            StoreDescription.Attribute(attribute, externalTable: attribute.isExternalStorage ? SQLiteSchema.externalTableName(entity, attribute) : nil)
        }
        relationships = entity.relationshipList.map(StoreDescription.Relationship.init)
        uniqueness = entity.uniquenessConstraints
        indices = entity.indices
    }
}

extension StoreDescription.Attribute {
    init(_ attribute: Schema.Attribute, externalTable: String?) {
        // The bound accessor's type of an optional attribute is the `Optional`.
        var valueType = attribute.valueType
        while let optional = valueType as? any OptionalProtocol.Type { valueType = optional.wrappedType }
        name = attribute.name
        type = String(describing: valueType)
        column = attribute.storageType.rawValue
        isOptional = attribute.isOptional
        isUnique = attribute.isUnique
        self.externalTable = externalTable
        preservesValueOnDeletion = attribute.options.contains(.preserveValueOnDeletion)
        rawType = nil
        cases = nil
        switch attribute.accessor.codecKind {
        case .transformable:
            kind = .transformable
        case .json:
            kind = .codable
        case .rawValue:
            kind = .rawValue
            if let representable = valueType as? any RawRepresentable.Type {
                rawType = String(describing: rawValueType(of: representable))
            }
            if let iterable = valueType as? any CaseIterable.Type {
                cases = allCases(of: iterable).compactMap { value in
                    switch try? attribute.accessor.encode(constant: value) {
                    case .integer(let number)?: .integer(number)
                    case .real(let number)?: .real(number)
                    case .text(let text)?: .text(text)
                    default: nil
                    }
                }
            }
        case .native:
            kind = Self.nativeKind(valueType, storage: attribute.storageType)
        }
    }

    private static func nativeKind(_ type: any Any.Type, storage: StorageType) -> StoreDescription.Kind {
        switch type {
        case is Bool.Type: .bool
        case is String.Type: .string
        case is Date.Type: .date
        case is UUID.Type: .uuid
        case is URL.Type: .url
        case is Decimal.Type: .decimal
        case is Data.Type: .data
        default:
            switch storage {
            case .integer: .integer
            case .real: .real
            case .text: .string
            case .blob: .data
            }
        }
    }
}

private func rawValueType<T: RawRepresentable>(of type: T.Type) -> any Any.Type { T.RawValue.self }
private func allCases<T: CaseIterable>(of type: T.Type) -> [Any] { T.allCases.map { $0 } }

extension StoreDescription.Relationship {
    init(_ relationship: Schema.Relationship) {
        name = relationship.name
        destination = relationship.destination
        inverse = relationship.inverseName
        deleteRule = relationship.deleteRule.rawValue
        isToMany = !relationship.isToOneRelationship
        minimumCount = relationship.minimumModelCount
        maximumCount = relationship.maximumModelCount
        isUnique = relationship.isUnique ? true : nil
        switch relationship.storage {
        case .foreignKey(let column, let position):
            storage = StoreDescription.Storage(kind: "foreignKey", column: column, positionColumn: position)
            isOrdered = false
        case .inverseForeignKey:
            storage = StoreDescription.Storage(kind: "inverse")
            var ordered = false
            for inverse in relationship.inverses {
                if case .foreignKey(_, let position?) = inverse.storage, !position.isEmpty { ordered = true }
            }
            isOrdered = isToMany && ordered
        case .joinTable(let table, let own, let other, let ownPosition, let otherPosition):
            storage = StoreDescription.Storage(
                kind: "joinTable", column: own, positionColumn: ownPosition, table: table, otherColumn: other, otherPositionColumn: otherPosition)
            isOrdered = isToMany
        }
    }
}

extension Schema {
    /// What a store records about the schema: its version, layout and description, by metadata key.
    var metadataRows: [(key: String, value: String)] {
        let layout = self.layout
        return [
            ("schema_version", version.description),
            ("schema_layout", layout.json),
            ("schema_fingerprint", layout.fingerprint),
            (StoreDescription.metadataKey, StoreDescription(self).json),
        ]
    }
}

extension StoreDescription {
    /// A description made from the layout a store made by an earlier version recorded (``SchemaLayout``):
    /// column types, optionality, the links a row holds itself and the constraints, without Swift types
    /// (each attribute gets its column type's closest one).
    package init(layout json: String, version: String) throws {
        let layout = try SchemaLayout(json: json)
        self.init(version: version, entities: layout.entities.map { entity in
            let attributes = entity.columns.filter { $0.name != Schema.Entity.entityColumn }.map { column in
                let kind: Kind = switch column.type {
                case "INTEGER": .integer
                case "REAL": .real
                case "TEXT": column.collation == nil ? .codable : .string
                default: .data
                }
                return Attribute(
                    name: column.name, type: kind == .integer ? "Int" : kind == .real ? "Double" : kind == .string ? "String" : column.type,
                    kind: kind, rawType: nil, cases: nil, column: column.type, isOptional: column.isOptional,
                    isUnique: entity.uniqueness.contains([column.name]), externalTable: nil, preservesValueOnDeletion: false)
            }
            let relationships = entity.relationships.compactMap { link -> Relationship? in
                // "foreignKey(column[, position]) onDelete=…": the links a row holds itself.
                guard link.storage.hasPrefix("foreignKey("), let close = link.storage.firstIndex(of: ")") else { return nil }
                let inner = link.storage[link.storage.index(link.storage.startIndex, offsetBy: 11)..<close]
                    .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                return Relationship(
                    name: link.name, destination: link.destination, inverse: nil, deleteRule: "nullify", isToMany: link.isToMany,
                    isOrdered: false, minimumCount: nil, maximumCount: nil,
                    storage: Storage(kind: "foreignKey", column: inner.first, positionColumn: inner.count > 1 ? inner[1] : nil))
            }
            return Entity(
                name: entity.name, table: entity.name, superentity: nil, entityColumnValues: nil, attributes: attributes,
                relationships: relationships, uniqueness: entity.uniqueness, indices: entity.indices)
        })
    }
}
