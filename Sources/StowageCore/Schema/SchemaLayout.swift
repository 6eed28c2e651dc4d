import Foundation

/// The stored shape of a schema in canonical form: what its tables, columns, constraints, indexes and
/// relationship links look like, independent of the order the models were listed or discovered in and
/// of any hashing order.
///
/// A store records the layout it was created with (as JSON, keys sorted) and a container opening it
/// compares that layout with its models' layout, element by element, so that the error names each
/// difference. Only what changes the stored shape is part of it: a property's Swift type (beyond its
/// column type), `originalName`, `hashModifier`, relationship counts and ephemeral attributes are not.
struct SchemaLayout: Codable, Hashable, Sendable {
    /// The entities, sorted by name.
    var entities: [Entity]

    struct Entity: Codable, Hashable, Sendable {
        var name: String
        /// Attributes stored in the entity's table, sorted by name.
        var columns: [Column]
        /// Attributes stored in side tables (`.externalStorage`), sorted by name.
        var externalColumns: [Column]
        /// Relationships, sorted by name.
        var relationships: [Link]
        /// Uniqueness constraints: each group's names sorted (a group is a set), groups sorted.
        var uniqueness: [[String]]
        /// Indexes: each group in its declared order (it decides what the index serves), groups sorted.
        var indices: [[String]]
        /// For the root of a class hierarchy: the entities below it, sorted (their rows share its table).
        /// Absent for other entities, so their layout is what it was before hierarchies existed.
        var subentities: [String]?
    }

    struct Column: Codable, Hashable, Sendable {
        var name: String
        /// The column type: `INTEGER`, `REAL`, `TEXT` or `BLOB`.
        var type: String
        var isOptional: Bool
        /// How text compares: `swift` for `String` attributes (canonical equivalence, see
        /// `Schema.Attribute.comparesAsSwiftString`), `nil` for byte order.
        var collation: String?
    }

    struct Link: Codable, Hashable, Sendable {
        var name: String
        var destination: String
        var isToMany: Bool
        /// Where the links live (see ``RelationshipStorage``), with the foreign key's delete action.
        var storage: String
    }

    /// One entry per table: a class hierarchy is one entry, its root's.
    init(_ schema: Schema) {
        entities = schema.entities.filter { $0.superentity == nil }.map(Entity.init).sorted { $0.name < $1.name }
    }

    /// The layout as stored in a store's metadata: JSON with sorted keys, so equal layouts are equal text.
    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding plain strings, booleans and arrays cannot fail.
        return String(decoding: try! encoder.encode(self), as: UTF8.self)
    }

    init(json: String) throws {
        self = try JSONDecoder().decode(SchemaLayout.self, from: Data(json.utf8))
    }

    /// A 64-bit FNV-1a hash of ``json``, in hexadecimal.
    var fingerprint: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in json.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    /// What differs from `stored` (the layout of an existing store) to this layout, one sentence each,
    /// in a stable order. Empty when the layouts are equal.
    func differences(from stored: SchemaLayout) -> [String] {
        var differences: [String] = []
        let old = Dictionary(stored.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let new = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for entity in entities {
            guard let previous = old[entity.name] else {
                differences.append("the store has no table for entity \(entity.name)")
                continue
            }
            differences += entity.differences(from: previous)
        }
        for entity in stored.entities where new[entity.name] == nil {
            differences.append("the store has a table \(entity.name) that no model in the schema describes")
        }
        return differences
    }
}

extension SchemaLayout.Entity {
    init(_ entity: Schema.Entity) {
        name = entity.name
        // A subclass's column records its attribute's own optionality (the table lets it hold NULL for
        // the other classes' rows), so that a change of it is a change of the layout.
        var columns = entity.fetchAttributes.map(SchemaLayout.Column.init)
        var external = entity.externalAttributes
        var relationships = entity.relationshipList
        if entity.isInHierarchy {
            columns.append(SchemaLayout.Column(name: Schema.Entity.entityColumn, type: "TEXT", isOptional: false, collation: nil))
            for subentity in entity.descendants {
                let inherited = subentity.superentity?.properties.count ?? 0
                relationships += subentity.relationshipList.filter { $0.index >= inherited }
                external += subentity.externalAttributes.filter { $0.index >= inherited }
            }
            subentities = entity.descendants.map(\.name).sorted()
        }
        self.columns = columns.sorted { $0.name < $1.name }
        externalColumns = external.map(SchemaLayout.Column.init).sorted { $0.name < $1.name }
        self.relationships = relationships.map(SchemaLayout.Link.init).sorted { $0.name < $1.name }
        uniqueness = entity.uniquenessConstraints.map { $0.sorted() }.sorted { $0.lexicographicallyPrecedes($1) }
        indices = entity.indices.sorted { $0.lexicographicallyPrecedes($1) }
    }

    func differences(from stored: Self) -> [String] {
        var differences: [String] = []
        func compare<Element>(
            _ kind: String, _ new: [Element], _ old: [Element], name: (Element) -> String, describe: (Element) -> String
        ) where Element: Equatable {
            let oldByName = Dictionary(old.map { (name($0), $0) }, uniquingKeysWith: { a, _ in a })
            let newNames = Set(new.map(name))
            for element in new {
                guard let previous = oldByName[name(element)] else {
                    differences.append("\(self.name).\(name(element)) is \(kind) of the model but not of the store")
                    continue
                }
                if previous != element {
                    differences.append("\(self.name).\(name(element)) is stored as \(describe(previous)) but the model needs \(describe(element))")
                }
            }
            for element in old where !newNames.contains(name(element)) {
                differences.append("\(self.name).\(name(element)) is \(kind) of the store but not of the model")
            }
        }
        compare("a column", columns, stored.columns, name: \.name, describe: \.summary)
        compare("an externally stored attribute", externalColumns, stored.externalColumns, name: \.name, describe: \.summary)
        compare("a relationship", relationships, stored.relationships, name: \.name, describe: \.summary)
        func groups(_ groups: [[String]]) -> String {
            groups.isEmpty ? "none" : groups.map { "(\($0.joined(separator: ", ")))" }.joined(separator: ", ")
        }
        if uniqueness != stored.uniqueness {
            differences.append("\(name) has the uniqueness constraints \(groups(stored.uniqueness)) in the store but \(groups(uniqueness)) in the model")
        }
        if indices != stored.indices {
            differences.append("\(name) has the indexes \(groups(stored.indices)) in the store but \(groups(indices)) in the model")
        }
        if subentities != stored.subentities {
            func list(_ names: [String]?) -> String { names.map { $0.joined(separator: ", ") } ?? "none" }
            differences.append("\(name)'s table holds the subclasses \(list(stored.subentities)) in the store but \(list(subentities)) in the model")
        }
        return differences
    }
}

extension SchemaLayout.Column {
    init(_ attribute: Schema.Attribute) {
        name = attribute.name
        type = attribute.storageType.rawValue
        isOptional = attribute.isOptional
        collation = attribute.comparesAsSwiftString ? "swift" : nil
    }

    var summary: String {
        type + (isOptional ? "" : " NOT NULL") + (collation.map { " compared as \($0) text" } ?? "")
    }
}

extension SchemaLayout.Link {
    init(_ relationship: Schema.Relationship) {
        name = relationship.name
        destination = relationship.destination
        isToMany = !relationship.isToOneRelationship
        switch relationship.storage {
        case .foreignKey(let column, let position):
            storage = "foreignKey(\(column)\(position.map { ", " + $0 } ?? "")) onDelete=\(relationship.foreignKeyDeleteAction)"
        case .inverseForeignKey:
            storage = "inverseForeignKey"
        case .joinTable(let table, let own, let other, let ownPosition, let otherPosition):
            storage = "joinTable \(table)(\(own), \(other), \(ownPosition), \(otherPosition))"
        }
    }

    var summary: String { "\(isToMany ? "[\(destination)]" : "\(destination)?") \(storage)" }
}
