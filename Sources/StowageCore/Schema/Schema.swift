import Foundation

/// The set of entities (model types) a container stores, with a version.
///
/// ```swift
/// let schema = Schema([Budget.self])   // Transaction is included: Budget refers to it
/// let container = try ModelContainer(for: schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
/// ```
///
/// Types reachable through relationships of the listed types are included as well, as in SwiftData.
public final class Schema: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: a schema is fully built in `init` and never mutated afterwards.

    /// A semantic version for a schema.
    public struct Version: Codable, Hashable, Comparable, Sendable, CustomStringConvertible {
        /// The major version: raise it for changes that existing stores need a migration stage for.
        public let major: Int
        /// The minor version.
        public let minor: Int
        /// The patch version.
        public let patch: Int

        /// Creates a version.
        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }

        /// Orders versions by major, then minor, then patch number.
        public static func < (lhs: Self, rhs: Self) -> Bool {
            (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }

        /// The version as `major.minor.patch`.
        public var description: String { "\(major).\(minor).\(patch)" }
    }

    /// The entities of the schema, one per model type, in the order the types were given (reachable
    /// types follow the type that refers to them).
    public let entities: [Entity]
    /// The entities by name.
    public let entitiesByName: [String: Entity]
    /// The version of the schema.
    public let version: Version

    private let entitiesByType: [ObjectIdentifier: Entity]

    /// Creates a schema from model types and the types reachable from them.
    public convenience init(_ types: any PersistentModel.Type..., version: Version = Version(1, 0, 0)) {
        self.init(types, version: version)
    }

    /// Creates a schema from model types and the types reachable from them.
    public init(_ types: [any PersistentModel.Type], version: Version = Version(1, 0, 0)) {
        var entities: [Entity] = []
        var byType: [ObjectIdentifier: Entity] = [:]
        var queue = types.map { $0 as any PersistentModel.Type }
        while !queue.isEmpty {
            let type = queue.removeFirst()
            guard byType[ObjectIdentifier(type)] == nil else { continue }
            let entity = Entity(modelType: type)
            byType[ObjectIdentifier(type)] = entity
            entities.append(entity)
            // A model's superclass, when it is a model, is part of the schema with it.
            if let superclass = Self.modelSuperclass(of: type) { queue.append(superclass) }
            // In declaration order: a `Set`'s order would change with the objects' addresses.
            queue.append(contentsOf: entity.relationshipList.compactMap(\.destinationType))
        }
        // Superclasses first: a class inherits its superclass's key paths, which include the ones it inherited.
        func depth(_ type: any PersistentModel.Type) -> Int { Self.modelSuperclass(of: type).map { depth($0) + 1 } ?? 0 }
        for entity in entities.sorted(by: { depth($0.modelType) < depth($1.modelType) }) {
            if let superclass = Self.modelSuperclass(of: entity.modelType), let superentity = byType[ObjectIdentifier(superclass)] {
                entity.adopt(superentity: superentity)
            }
        }
        self.entities = entities
        self.entitiesByType = byType
        self.entitiesByName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.version = version
        let problems = entities.flatMap(\.problems) + Self.resolveRelationships(of: entities, byType: byType)
        for entity in entities { entity.settleHierarchy() }
        self.problems = problems + Self.hierarchyProblems(entities)
    }

    /// The superclass of a model class, if it is a model class too.
    static func modelSuperclass(of type: any PersistentModel.Type) -> (any PersistentModel.Type)? {
        Swift._getSuperclass(type) as? any PersistentModel.Type
    }

    /// Two classes of one hierarchy that declare a property of the same name would share its column.
    private static func hierarchyProblems(_ entities: [Entity]) -> [StowageError] {
        var problems: [StowageError] = []
        for root in entities where root.superentity == nil && !root.subentityList.isEmpty {
            var owners: [String: String] = [:]
            for entity in [root] + root.descendants {
                for property in entity.properties.dropFirst(entity.superentity?.properties.count ?? 0) {
                    if entity.superentity != nil, property.isUnique {
                        problems.append(StowageError(
                            .invalidSchema,
                            "\(entity.name).\(property.name) is unique, but a subclass cannot declare a uniqueness constraint: the classes of a hierarchy share the table \(root.name), whose constraints come from its root class. Declare it on \(root.name).",
                            entityName: entity.name, propertyName: property.name))
                    }
                    if let other = owners[property.name] {
                        problems.append(StowageError(
                            .invalidSchema,
                            "\(entity.name).\(property.name) and \(other).\(property.name) would share the column \(property.name) of table \(root.name), which holds every class of the hierarchy. Give one of them another name.",
                            entityName: entity.name, propertyName: property.name))
                    } else {
                        owners[property.name] = entity.name
                    }
                }
            }
        }
        return problems
    }

    /// A schema with `base`'s entities that also accepts the model types of `others` whose entity
    /// stores the same columns and relationships as `base`'s entity of that name (uniqueness and
    /// indexes may differ): a migration stage's contexts, where a version's code may name another
    /// version's class of the same model.
    init(_ base: Schema, accepting others: [Schema]) {
        var byType = base.entitiesByType
        for other in others where other !== base {
            for entity in other.entities {
                let type = entity.modelType
                guard byType[ObjectIdentifier(type)] == nil,
                      let own = base.entitiesByName[entity.name]
                else { continue }
                let mine = SchemaLayout.Entity(own), theirs = SchemaLayout.Entity(entity)
                guard mine.columns == theirs.columns, mine.externalColumns == theirs.externalColumns,
                      mine.relationships == theirs.relationships
                else { continue }
                byType[ObjectIdentifier(type)] = entity
            }
        }
        entities = base.entities
        entitiesByName = base.entitiesByName
        entitiesByType = byType
        version = base.version
        problems = base.problems
    }

    /// Problems found while building the schema (an ambiguous inverse…); opening a container throws the
    /// first one.
    let problems: [StowageError]

    /// The entity of a model type, if the type is part of this schema.
    public func entity<T: PersistentModel>(for type: T.Type) -> Entity? {
        entitiesByType[ObjectIdentifier(type)]
    }

    func entity(forType type: any PersistentModel.Type) -> Entity? {
        entitiesByType[ObjectIdentifier(type)]
    }

    /// The stored shape of the schema in canonical form (see ``SchemaLayout``).
    var layout: SchemaLayout { SchemaLayout(self) }

    /// A fingerprint of the stored shape of the schema (tables, columns, types, constraints), the same
    /// whatever the order the models were listed in.
    var fingerprint: String { layout.fingerprint }

    /// Every entity of the schema with its properties.
    public var description: String {
        entities.map(\.description).joined(separator: "\n")
    }
}

/// A property of an entity: an ``Schema/Attribute`` or a ``Schema/Relationship``.
public protocol SchemaProperty: AnyObject, Hashable, CustomStringConvertible {
    /// The property's name in Swift and its column's name.
    var name: String { get }
    /// The name the property had in an earlier version of the schema, or the name itself.
    var originalName: String { get }
    /// The Swift type of the property.
    var valueType: any Any.Type { get }
    /// Whether the property is an attribute.
    var isAttribute: Bool { get }
    /// Whether the property is a relationship.
    var isRelationship: Bool { get }
    /// Whether the property may be `nil`.
    var isOptional: Bool { get }
    /// Whether the property's value is unique across all models of the entity.
    var isUnique: Bool { get }
    /// Whether the property is transient (never stored). Always `false`: `@Transient` properties are not
    /// part of the schema.
    var isTransient: Bool { get }
}

extension SchemaProperty {
    /// Always `false`: `@Transient` properties are not part of a schema.
    public var isTransient: Bool { false }
    /// Properties are equal when they are the same object.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs === rhs }
    /// Hashes the object's identity, consistently with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
