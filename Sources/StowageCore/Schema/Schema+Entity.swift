import Foundation

extension Schema {
    /// One model type as the store sees it: a table with a column per attribute.
    public final class Entity: Hashable, CustomStringConvertible {
        /// The entity's name: the model class's name. Also its table's name.
        public let name: String
        /// The stored properties in declaration order.
        public let properties: [any SchemaProperty]
        /// The attributes of the entity.
        public var attributes: Set<Attribute> { Set(attributeList) }
        /// The relationships of the entity.
        public var relationships: Set<Relationship> { Set(relationshipList) }
        /// The stored properties (every property of a Stowage entity is stored).
        public var storedProperties: [any SchemaProperty] { properties }
        /// The properties by name.
        public let storedPropertiesByName: [String: any SchemaProperty]
        /// Groups of property names whose combined values are unique: one group per `.unique` attribute
        /// and one per `#Unique` key-path list.
        public internal(set) var uniquenessConstraints: [[String]]
        /// Groups of property names indexed together: the binary indexes `#Index` declares (its key-path
        /// lists, or its `.binary(...)` indexes), in declaration order. SwiftData documents no such
        /// property; ``Schema/Index`` is the declaration's own form.
        public internal(set) var indices: [[String]]

        let modelType: any PersistentModel.Type
        /// The attributes in column order.
        let attributeList: [Attribute]
        let relationshipList: [Relationship]
        /// Attributes stored in the entity's own table (not external storage), in column order.
        let columnAttributes: [Attribute]
        /// The column of each property, by property index, in a query that reads ``columnAttributes``
        /// (-1 for the others): the layout of a full-row read (see `RowLayout`).
        let fullRowColumns: [Int32]
        /// Attributes kept outside the row (`.externalStorage`).
        let externalAttributes: [Attribute]
        /// Attributes whose values a deletion keeps in the history (`.preserveValueOnDeletion`).
        let preservedAttributes: [Attribute]
        /// `\Model.persistentModelID`, to recognise identifier comparisons in predicates.
        var persistentModelIDKeyPath: AnyKeyPath {
            func keyPath<M: PersistentModel>(_: M.Type) -> AnyKeyPath { \M.persistentModelID }
            return keyPath(modelType)
        }
        /// To-one relationships stored as a foreign key column of this entity's table; set when the schema
        /// is resolved.
        var foreignKeyRelationships: [Relationship] = []
        /// Properties by the key path of their public property or of their storage.
        private var propertyIndexByKeyPath: [AnyKeyPath: Int]
        /// The key path of each property's storage (`\Model._name`), by property index.
        private let storageKeyPaths: [AnyKeyPath]
        /// The translations of this entity's predicates, by shape.
        let predicateTemplates = PredicateTemplateCache()

        init(modelType: any PersistentModel.Type) {
            let metadata = modelType.schemaMetadata()
            self.modelType = modelType
            self.name = String(describing: modelType)
            var properties: [any SchemaProperty] = []
            var attributes: [Attribute] = []
            var relationships: [Relationship] = []
            var byKeyPath: [AnyKeyPath: Int] = [:]
            for (index, entry) in metadata.enumerated() {
                let property = entry.makeProperty()
                if let attribute = property as? Attribute {
                    attribute.index = index
                    attributes.append(attribute)
                } else if let relationship = property as? Relationship {
                    relationship.index = index
                    relationships.append(relationship)
                }
                properties.append(property)
                byKeyPath[entry.keyPath] = index
                byKeyPath[entry.storageKeyPath] = index
            }
            self.properties = properties
            self.attributeList = attributes
            self.relationshipList = relationships
            let columnAttributes = attributes.filter { !$0.isExternalStorage && !$0.options.contains(.ephemeral) }
            self.columnAttributes = columnAttributes
            self.fullRowColumns = RowLayout.columns(of: columnAttributes, propertyCount: properties.count)
            self.externalAttributes = attributes.filter { $0.isExternalStorage && !$0.options.contains(.ephemeral) }
            self.preservedAttributes = attributes.filter { $0.options.contains(.preserveValueOnDeletion) && !$0.options.contains(.ephemeral) }
            self.propertyIndexByKeyPath = byKeyPath
            self.storageKeyPaths = metadata.map(\.storageKeyPath)
            self.storedPropertiesByName = Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })

            func names(_ keyPaths: [AnyKeyPath]) -> [String] {
                keyPaths.compactMap { byKeyPath[$0].map { properties[$0].name } }
            }
            self.uniquenessConstraints = attributes.filter(\.isUnique).map { [$0.name] }
                + modelType._$uniqueConstraints.map(names).filter { !$0.isEmpty }
            self.indices = modelType._$indices.map(names).filter { !$0.isEmpty }
            self.problems = Self.problems(of: name, attributes: attributes, uniqueness: uniquenessConstraints, indices: indices,
                                          properties: storedPropertiesByName)
                + Self.rtreeProblems(of: String(describing: modelType), modelType._$rtreeIndices.map(names))
            for relationship in relationships { relationship.entity = self }
            identityKey = ObjectIdentifier(self)
        }

        /// The R-tree indexes an entity declares, each refused.
        private static func rtreeProblems(of name: String, _ groups: [[String]]) -> [StowageError] {
            groups.map { group in
                StowageError(
                    .invalidSchema,
                    "\(name) declares an R-tree index over \(group.joined(separator: ", ")), which Stowage does not support: SQLite keeps an R*Tree in a virtual table of its own that fetches on the model's table never use. Declare it as a binary index, as in #Index<\(name)>(.binary([\(group.map { "\\.\($0)" }.joined(separator: ", "))])).",
                    entityName: name, propertyName: group.first)
            }
        }

        /// What the entity declares that cannot be stored; opening a container throws the first one.
        let problems: [StowageError]

        // MARK: Inheritance

        /// The entity of the model class this one's class inherits from (SwiftData's class inheritance),
        /// if it is a model.
        public internal(set) unowned(unsafe) var superentity: Entity?
        /// The name of ``superentity``.
        public var superentityName: String? { superentity?.name }
        /// The entities of the model classes that inherit directly from this one's, among the schema's.
        public var subentities: Set<Entity> { Set(subentityList) }
        /// The properties this entity inherits from its ``superentity`` (they come first in
        /// ``properties``).
        public var inheritedProperties: [any SchemaProperty] { Array(properties.prefix(superentity?.properties.count ?? 0)) }
        /// ``inheritedProperties`` by name.
        public var inheritedPropertiesByName: [String: any SchemaProperty] {
            Dictionary(inheritedProperties.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        }

        /// ``subentities`` in schema order.
        var subentityList: [Entity] = []
        /// Every entity below this one, depth first in schema order.
        var descendants: [Entity] { subentityList.flatMap { [$0] + $0.descendants } }
        /// The top of this entity's hierarchy (itself when it has no superentity).
        var rootEntity: Entity { superentity?.rootEntity ?? self }
        /// What identifies the entity's rows in an identity map: its hierarchy's root's.
        private(set) var identityKey = ObjectIdentifier(Entity.self)
        /// Whether the entity shares its table with other entities of a class hierarchy.
        private(set) var isInHierarchy = false
        /// The table holding the entity's rows: its hierarchy's root's, which holds every entity of the
        /// hierarchy (a `_entity` column names each row's).
        private(set) var tableName = ""
        /// The names of this entity and its descendants: the values of `_entity` its fetches match.
        private(set) var entityNamesForFetch: [String] = []
        /// The attributes a fetch of this entity reads: its own columns, then the columns only its
        /// descendants have, so a row of a subclass is read whole.
        private(set) var fetchAttributes: [Attribute] = []
        /// The foreign keys a fetch of this entity reads, likewise.
        private(set) var fetchForeignKeys: [Relationship] = []
        /// This entity and its descendants, by name: the class of each row a fetch returns.
        private(set) var fetchableEntitiesByName: [String: Entity] = [:]

        /// Links the entity into its class hierarchy, once every entity of the schema exists.
        func adopt(superentity: Entity) {
            self.superentity = superentity
            superentity.subentityList.append(self)
            // Inherited properties are found by the superclass's key paths too (its code reads and writes
            // them through `\Superclass.property`).
            for (keyPath, index) in superentity.propertyIndexByKeyPath where propertyIndexByKeyPath[keyPath] == nil {
                propertyIndexByKeyPath[keyPath] = index
            }
            // The hierarchy's table has the root's constraints and indexes, which cover every class's rows
            // (a subclass cannot declare its own: `#Unique` and `#Index` on it are compile errors, `.unique`
            // on its own attributes is refused).
            uniquenessConstraints = superentity.uniquenessConstraints
            indices = superentity.indices
        }

        /// Settles what the hierarchy means for fetching and storing, once every entity is linked.
        func settleHierarchy() {
            tableName = rootEntity.name
            identityKey = ObjectIdentifier(rootEntity)
            isInHierarchy = superentity != nil || !subentityList.isEmpty
            let family = [self] + descendants
            entityNamesForFetch = family.map(\.name)
            fetchableEntitiesByName = Dictionary(family.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
            var attributes = columnAttributes
            var names = Set(attributes.map(\.name))
            var foreignKeys = foreignKeyRelationships
            var keyNames = Set(foreignKeys.map(\.name))
            for entity in descendants {
                for attribute in entity.columnAttributes where names.insert(attribute.name).inserted { attributes.append(attribute) }
                for relationship in entity.foreignKeyRelationships where keyNames.insert(relationship.name).inserted {
                    foreignKeys.append(relationship)
                }
            }
            fetchAttributes = attributes
            fetchForeignKeys = foreignKeys
        }

        /// Whether the table column of `attribute`, one of ``fetchAttributes`` of a hierarchy's root, may
        /// hold `NULL`: an optional attribute, or one that only some classes of the hierarchy have.
        func tableColumnIsOptional(_ attribute: Attribute) -> Bool {
            attribute.isOptional || !columnAttributes.contains { $0 === attribute }
        }

        /// The column naming each row's entity in a hierarchy's table.
        static let entityColumn = "_entity"

        private static func problems(
            of entity: String, attributes: [Attribute], uniqueness: [[String]], indices: [[String]],
            properties: [String: any SchemaProperty]
        ) -> [StowageError] {
            var problems: [StowageError] = []
            func check(_ groups: [[String]], _ what: String) {
                for name in Set(groups.joined()).sorted() {
                    let reason: String
                    switch properties[name] {
                    case let attribute as Attribute where attribute.options.contains(.ephemeral):
                        reason = "is @Attribute(.ephemeral): it is not stored, so no constraint or index can cover it"
                    case let attribute as Attribute where attribute.isExternalStorage:
                        reason = "is @Attribute(.externalStorage): it is kept outside the table, so no constraint or index can cover it"
                    case is Relationship:
                        reason = "is a relationship; #Unique, #Index and .unique take attributes"
                    default:
                        continue
                    }
                    problems.append(StowageError(
                        .invalidSchema, "\(entity).\(name) cannot be \(what): it \(reason).", entityName: entity, propertyName: name))
                }
            }
            for attribute in attributes {
                if let problem = attribute.transformerProblem(entity: entity) { problems.append(problem) }
            }
            check(uniqueness, "unique")
            check(indices, "indexed")
            for attribute in attributes where attribute.options.contains(.ephemeral) && !attribute.isOptional && attribute.defaultValue == nil {
                problems.append(StowageError(
                    .invalidSchema,
                    "\(entity).\(attribute.name) is @Attribute(.ephemeral) and not optional but declares no initial value: a model read from the store would have no value for it. Give it one in its declaration (`= …`), or make it optional.",
                    entityName: entity, propertyName: attribute.name))
            }
            return problems
        }

        /// The index in ``properties`` of the property with this key path (public or storage).
        func propertyIndex(for keyPath: AnyKeyPath) -> Int? { propertyIndexByKeyPath[keyPath] }

        /// The storage key path, of type `StorageKeyPath`, of the property that `keyPath` names. An inherited
        /// property's storage is found by the key path rooted at the class that declares the accessor:
        /// this entity's own storage key paths are rooted at its own class.
        func storageKeyPath<StorageKeyPath: AnyKeyPath>(of keyPath: AnyKeyPath, as type: StorageKeyPath.Type) -> StorageKeyPath? {
            guard let index = propertyIndex(for: keyPath) else { return nil }
            var entity: Entity? = self
            while let current = entity {
                if index < current.storageKeyPaths.count, let storage = current.storageKeyPaths[index] as? StorageKeyPath {
                    return storage
                }
                entity = current.superentity
            }
            return nil
        }

        /// The attribute with this public key path, if it is one.
        func attribute(for keyPath: AnyKeyPath) -> Attribute? {
            propertyIndexByKeyPath[keyPath].flatMap { properties[$0] as? Attribute }
        }

        /// Entities are equal when they are the same object: each schema builds one per model type.
        public static func == (lhs: Entity, rhs: Entity) -> Bool { lhs === rhs }
        /// Hashes the object's identity, consistently with `==`.
        public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

        /// The entity's name with its attributes and relationships, one per line.
        public var description: String {
            var lines = ["entity \(name)"]
            lines += properties.map { "  \($0.description)" }
            lines += uniquenessConstraints.map { "  unique(\($0.joined(separator: ", ")))" }
            lines += indices.map { "  index(\($0.joined(separator: ", ")))" }
            return lines.joined(separator: "\n")
        }
    }

    /// What `@Model` generates for each stored property: its name, key paths, a getter and a setter of
    /// its storage, default value and the options from `@Attribute` or `@Relationship`. The initializer
    /// overload chosen by the property's type decides whether it is an attribute or a relationship.
    ///
    /// `get` and `set` read and write the storage the macro adds for the property (`_name`, `nil` while
    /// not loaded): the engine moves values in and out of models through them rather than through key
    /// paths, which are much slower to project.
    public struct PropertyMetadata {
        /// The property's name.
        public let name: String
        /// The key path of the property.
        public let keyPath: AnyKeyPath
        /// The literal the property is initialised with in its declaration, if any.
        public let defaultValue: Any?
        /// The ``Schema/Attribute`` or ``Schema/Relationship`` declared with the property, if any.
        public let metadata: Any?
        let storageKeyPath: AnyKeyPath
        let makeProperty: () -> any SchemaProperty

        /// An attribute: a `Codable` value (native types, `RawRepresentable` enums, composite structs,
        /// arrays and dictionaries of `Codable` values, and optionals of each).
        ///
        /// Inlinable so that the per-row operations it builds are specialised for `Root` and `Value` in
        /// the model's module.
        @inlinable
        public init<Root: PersistentModel, Value: Codable>(
            name: String, keyPath: ReferenceWritableKeyPath<Root, Value>, storage: ReferenceWritableKeyPath<Root, Value?>,
            get: @escaping (Root) -> Value?, set: @escaping (Root, __owned Value?) -> Void,
            defaultValue: Value? = nil, metadata: Attribute? = nil
        ) {
            let slot = PropertyStorage(get: get, set: set)
            self.init(
                attribute: name, keyPath: keyPath, storage: storage, slot: slot, defaultValue: defaultValue, metadata: metadata,
                operations: { codec in AttributeOperations(keyPath: keyPath, storage: slot, codec: codec) })
        }

        /// An attribute stored through a value transformer: `@Attribute(.transformable(by:))` on a
        /// property of any type (typically a class that is not `Codable`). The transformer turns the
        /// value into `Data`, stored as a BLOB, and back.
        @inlinable
        public init<Root: PersistentModel, Value>(
            transformable name: String, keyPath: ReferenceWritableKeyPath<Root, Value>,
            storage: ReferenceWritableKeyPath<Root, Value?>,
            get: @escaping (Root) -> Value?, set: @escaping (Root, __owned Value?) -> Void,
            defaultValue: Value? = nil, metadata: Attribute? = nil
        ) {
            let slot = PropertyStorage(get: get, set: set)
            self.init(
                attribute: name, keyPath: keyPath, storage: storage, slot: slot, defaultValue: defaultValue, metadata: metadata,
                operations: { codec in AttributeOperations(keyPath: keyPath, storage: slot, codec: codec) })
        }

        @usableFromInline
        init<Root: PersistentModel, Value>(
            attribute name: String, keyPath: ReferenceWritableKeyPath<Root, Value>, storage: ReferenceWritableKeyPath<Root, Value?>,
            slot: PropertyStorage<Root, Value>, defaultValue: Value?, metadata: Attribute?,
            operations: @escaping (AttributeCodec<Value>) -> AttributeOperations
        ) {
            self.name = name
            self.keyPath = keyPath
            self.defaultValue = defaultValue
            self.metadata = metadata
            self.storageKeyPath = storage
            self.makeProperty = {
                let codec: AttributeCodec<Value>? = if let transformer = metadata?.transformer {
                    AttributeCodecs.transformableCodec(for: Value.self, transformer: transformer, property: "\(Root.self).\(name)")
                } else {
                    AttributeCodecs.codec(for: Value.self)
                }
                guard let codec else {
                    preconditionFailure("\(Root.self).\(name): \(Value.self) has no stored form")
                }
                let accessor = TypedAttributeAccessor(keyPath: keyPath, storage: slot, codec: codec, operations: operations(codec))
                return Attribute.reflecting(name: name, declared: metadata, keyPath: keyPath, defaultValue: defaultValue, accessor: accessor)
            }
        }

        /// A to-one relationship.
        public init<Root: PersistentModel, Destination: PersistentModel>(
            name: String, keyPath: ReferenceWritableKeyPath<Root, Destination?>,
            storage: ReferenceWritableKeyPath<Root, Destination??>,
            get: @escaping (Root) -> Destination??, set: @escaping (Root, Destination??) -> Void,
            defaultValue: Destination?? = nil, metadata: Relationship? = nil
        ) {
            self.init(relationship: name, keyPath: keyPath, storage: storage, metadata: metadata, isToOne: true, isOptional: true,
                      destination: Destination.self,
                      accessor: ToOneAccessor(keyPath: keyPath, storage: PropertyStorage(get: get, set: set)))
        }

        /// A to-many relationship.
        public init<Root: PersistentModel, Destination: PersistentModel>(
            name: String, keyPath: ReferenceWritableKeyPath<Root, [Destination]>,
            storage: ReferenceWritableKeyPath<Root, [Destination]?>,
            get: @escaping (Root) -> [Destination]?, set: @escaping (Root, [Destination]?) -> Void,
            defaultValue: [Destination]? = nil, metadata: Relationship? = nil
        ) {
            self.init(relationship: name, keyPath: keyPath, storage: storage, metadata: metadata, isToOne: false, isOptional: false,
                      destination: Destination.self,
                      accessor: ToManyAccessor(keyPath: keyPath, storage: PropertyStorage(get: get, set: set)))
        }

        /// A to-many relationship declared optional, as CloudKit-synced SwiftData models do:
        /// `var transactions: [Transaction]? = []`. Stored exactly like a non-optional one; `nil` reads
        /// back as empty.
        public init<Root: PersistentModel, Destination: PersistentModel>(
            name: String, keyPath: ReferenceWritableKeyPath<Root, [Destination]?>,
            storage: ReferenceWritableKeyPath<Root, [Destination]??>,
            get: @escaping (Root) -> [Destination]??, set: @escaping (Root, [Destination]??) -> Void,
            defaultValue: [Destination]?? = nil, metadata: Relationship? = nil
        ) {
            self.init(relationship: name, keyPath: keyPath, storage: storage, metadata: metadata, isToOne: false, isOptional: true,
                      destination: Destination.self,
                      accessor: OptionalToManyAccessor(keyPath: keyPath, storage: PropertyStorage(get: get, set: set)))
        }

        /// The metadata of a relationship of any shape: its accessor knows how the property is stored.
        private init<Root: PersistentModel, Value, Destination: PersistentModel>(
            relationship name: String, keyPath: ReferenceWritableKeyPath<Root, Value>, storage: AnyKeyPath,
            metadata: Relationship?, isToOne: Bool, isOptional: Bool, destination: Destination.Type,
            accessor: any RelationshipAccessor
        ) {
            self.name = name
            self.keyPath = keyPath
            self.defaultValue = nil
            self.metadata = metadata
            self.storageKeyPath = storage
            self.makeProperty = {
                Relationship(
                    name: name, declared: metadata, keyPath: keyPath, isToOne: isToOne, isOptional: isOptional,
                    valueType: Value.self, destinationType: Destination.self, accessor: accessor)
            }
        }
    }
}

/// Builds a model's metadata, which `@Model` forms in a closure isolated to the main actor so that it may
/// name the key paths of a `@MainActor` model's properties (a target whose default isolation is
/// `MainActor` makes every model one), from a nonisolated context: the schema is built on any thread.
///
/// The closure only forms key paths and closures over the macro's `nonisolated(unsafe)` storage; it
/// reads and writes no state of any actor, so running it off the main actor is safe. A main-actor
/// function type has the representation of a nonisolated one; the cast only drops the isolation.
public func _$nonisolatedMetadata(
    _ make: @escaping @MainActor () -> [Schema.PropertyMetadata]
) -> [Schema.PropertyMetadata] {
    unsafeBitCast(make, to: (() -> [Schema.PropertyMetadata]).self)()
}

/// The empty storage `@Model` declares for a property written without a type annotation
/// (`var count = 0`): `nil`, of the optional of the type `initialValue` returns, so that the storage has
/// the type the compiler infers for the property. `initialValue` (the property's initial value) is never
/// called; the property's init accessor stores that value when an instance is created.
@inlinable
public func _$emptyStorage<Value>(typedAs initialValue: @MainActor () throws -> Value) -> Value? {
    nil
}
