import Foundation

extension Schema {
    /// A stored property referring to other models: to-one (`Budget?`) or to-many (`[Transaction]`).
    public final class Relationship: SchemaProperty {
        /// What happens to related models when a model is deleted.
        public enum DeleteRule: String, Hashable, Codable, Sendable {
            /// Clear the references to the deleted model (the default).
            case nullify
            /// Delete the related models too.
            case cascade
            /// Refuse to delete a model that still has related models: the save fails.
            case deny
            /// Leave the related models untouched.
            case noAction
        }

        /// Options that change how a relationship is stored.
        public struct Option: Hashable, Sendable {
            let rawValue: String
            /// The related model is unique across models of the entity.
            public static let unique = Option(rawValue: "unique")
        }

        /// The property's name in Swift.
        public let name: String
        /// The name the property had in an earlier version (`@Relationship(originalName:)`), or its name.
        public let originalName: String
        /// The options the relationship was declared with.
        public let options: [Option]
        /// What happens to related models when the owner is deleted.
        public let deleteRule: DeleteRule
        /// The minimum number of related models, validated on save (0: no minimum).
        public let minimumModelCount: Int?
        /// The maximum number of related models, validated on save (0: no maximum).
        public let maximumModelCount: Int?
        /// A string that changes the relationship's version hash without changing its shape.
        public let hashModifier: String?
        /// The key path of the inverse relationship as declared, if one was.
        public let inverseKeyPath: AnyKeyPath?
        /// The name of the inverse relationship, declared or inferred, once the schema is built.
        public var inverseName: String? { inverse?.name }
        /// The name of the destination entity.
        public let destination: String
        /// Whether the relationship refers to at most one model.
        public let isToOneRelationship: Bool
        /// The key path of the property.
        public let keypath: AnyKeyPath
        /// The property's Swift type: the destination model, optional, or an array of it.
        public let valueType: any Any.Type
        /// Whether the property may be `nil`: a to-one relationship is optional.
        public let isOptional: Bool

        /// Always `false`: a relationship is not an attribute.
        public var isAttribute: Bool { false }
        /// Always `true`: a relationship is one.
        public var isRelationship: Bool { true }
        /// Whether the relationship was declared with `.unique`.
        public var isUnique: Bool { options.contains(.unique) }

        let destinationType: (any PersistentModel.Type)?
        let accessor: (any RelationshipAccessor)?
        var index = 0
        /// The entity declaring the relationship; set when the entity is built.
        unowned(unsafe) var entity: Entity?
        /// The destination entity; set when the schema is resolved.
        unowned(unsafe) var destinationEntity: Entity?
        /// The inverse relationship, declared or inferred; set when the schema is resolved.
        unowned(unsafe) var inverse: Relationship?
        /// Where the links live; set when the schema is resolved.
        var storage: RelationshipStorage = .foreignKey(column: "", positionColumn: nil)
        /// For a to-one relationship that several relationships of its destination declare as their
        /// inverse (`Backyard.leadingPlants` and `Backyard.trailingPlants` both `inverse: \Plant.backyard`):
        /// those relationships, in declaration order. ``inverse`` is the first of them. Empty otherwise.
        var sharingRelationships: [UnownedRelationship] = []

        /// The relationships whose links mirror this one's: the inverse, or every relationship sharing
        /// this one as their inverse.
        var inverses: [Relationship] {
            if !sharingRelationships.isEmpty { return sharingRelationships.map(\.value) }
            return inverse.map { [$0] } ?? []
        }

        /// Whether this relationship's inverse is shared with other relationships, or others share this
        /// one as theirs: each side then stores its links on its own (see ``Schema/resolveRelationships(of:byType:)``).
        var hasSharedInverse: Bool {
            !sharingRelationships.isEmpty || inverse?.sharingRelationships.isEmpty == false
        }

        /// Options as written in `@Relationship(...)`. The macro turns each `@Relationship` into this
        /// initializer; the remaining details come from the property itself.
        public init(
            _ options: Option..., deleteRule: DeleteRule = .nullify, minimumModelCount: Int? = 0,
            maximumModelCount: Int? = 0, originalName: String? = nil, inverse: AnyKeyPath? = nil,
            hashModifier: String? = nil
        ) {
            self.name = ""
            self.originalName = originalName ?? ""
            self.options = options
            self.deleteRule = deleteRule
            self.minimumModelCount = minimumModelCount
            self.maximumModelCount = maximumModelCount
            self.hashModifier = hashModifier
            self.inverseKeyPath = inverse
            self.destination = ""
            self.isToOneRelationship = false
            self.keypath = \Relationship.name
            self.valueType = Void.self
            self.isOptional = true
            self.destinationType = nil
            self.accessor = nil
        }

        /// The seed's early-SwiftData spelling, `@Relationship(.cascade)`.
        public convenience init(_ deleteRule: DeleteRule, inverse: AnyKeyPath? = nil) {
            self.init(deleteRule: deleteRule, inverse: inverse)
        }

        init(name: String, declared: Relationship?, keyPath: AnyKeyPath, isToOne: Bool, isOptional: Bool,
             valueType: any Any.Type, destinationType: any PersistentModel.Type, accessor: any RelationshipAccessor) {
            self.name = name
            let original = declared?.originalName ?? ""
            self.originalName = original.isEmpty ? name : original
            self.options = declared?.options ?? []
            self.deleteRule = declared?.deleteRule ?? .nullify
            self.minimumModelCount = declared?.minimumModelCount
            self.maximumModelCount = declared?.maximumModelCount
            self.hashModifier = declared?.hashModifier
            self.inverseKeyPath = declared?.inverseKeyPath
            self.destination = String(describing: destinationType)
            self.isToOneRelationship = isToOne
            self.keypath = keyPath
            self.valueType = valueType
            self.isOptional = isOptional
            self.destinationType = destinationType
            self.accessor = accessor
        }

        /// What deleting the related row does to this relationship's foreign key column: the inverse's
        /// delete rule, applied in SQL too, so no sequence of operations can leave a dangling reference
        /// (cascade deletes, deny refuses at commit, nullify and noAction clear the reference).
        var foreignKeyDeleteAction: String {
            if !sharingRelationships.isEmpty {
                // The context applies each sharing relationship's rule; SQL only cascades when they all do.
                return sharingRelationships.allSatisfy { $0.value.deleteRule == .cascade } ? "CASCADE" : "SET NULL"
            }
            switch inverse?.deleteRule {
            case .cascade?: return "CASCADE"
            case .deny?: return "NO ACTION"
            default: return "SET NULL"
            }
        }

        /// The relationship's name, destination, delete rule, inverse and counts, on one line.
        public var description: String {
            var parts = ["\(name): \(isToOneRelationship ? destination + "?" : "[" + destination + "]")", deleteRule.rawValue]
            if let inverse { parts.append("inverse=\(inverse.name)") }
            switch storage {
            case .foreignKey(let column, let position): parts.append("column=\(column)" + (position.map { "," + $0 } ?? ""))
            case .inverseForeignKey: parts.append("stored-by-inverse")
            case .joinTable(let table, _, _, _, _): parts.append("table=\(table)")
            }
            return parts.joined(separator: " ")
        }
    }
}

/// A relationship held without retaining it (relationships of one schema refer to each other).
struct UnownedRelationship {
    unowned(unsafe) let value: Schema.Relationship
}

/// Where the links of a relationship are stored.
enum RelationshipStorage: Equatable {
    /// A column of this entity's table holding the related row's primary key, and, when the inverse is
    /// to-many, a column holding this row's position in the inverse array (ordered to-many).
    case foreignKey(column: String, positionColumn: String?)
    /// The inverse relationship's foreign key column, on the destination's table.
    case inverseForeignKey
    /// A join table with one row per link: this side's key column, the other side's key column, and
    /// the position of the link in each side's array.
    case joinTable(table: String, ownColumn: String, otherColumn: String, ownPosition: String, otherPosition: String)
}

/// Reads and writes one relationship of a model object, type-erased so the context can maintain
/// inverses and load links without knowing the model types. One instance per relationship.
protocol RelationshipAccessor: AnyObject {
    /// Whether the model's storage holds the relationship (it is `nil` until loaded).
    func isLoaded(_ model: AnyObject) -> Bool
    func unload(_ model: AnyObject)
    func snapshot(_ model: AnyObject) -> Any
    func restore(_ snapshot: Any, into model: AnyObject)
    /// The related objects currently held (empty when not loaded).
    func related(_ model: AnyObject) -> [AnyObject]
    /// Replaces the related objects and notifies observers (a to-one keeps the first or `nil`).
    func setRelated(_ objects: [AnyObject], in model: AnyObject)
    /// Sets the related objects as loaded from the store, without notifying observers.
    func load(_ objects: [AnyObject], into model: AnyObject)
    /// Sets the relationship through the model's setter, as code assigning it does (inverses kept in
    /// step, the change tracked and observed).
    func assign(_ objects: [AnyObject], to model: AnyObject)
    /// `\[Destination].isEmpty`, to recognise it in predicates (`nil` for to-one relationships).
    var isEmptyKeyPath: AnyKeyPath? { get }
    /// `\[Destination].count`, to recognise it in predicates (`nil` for to-one relationships).
    var countKeyPath: AnyKeyPath? { get }
}

extension RelationshipAccessor {
    var isEmptyKeyPath: AnyKeyPath? { nil }
    var countKeyPath: AnyKeyPath? { nil }

    /// Forgets the loaded relationship so that the next read loads it again, notifying observers.
    func invalidate(_ model: AnyObject) {
        guard isLoaded(model) else { return }
        let current = related(model)
        setRelated(current, in: model)  // notifies observers of the change to come
        unload(model)
    }
}

final class ToOneAccessor<Root: PersistentModel, Destination: PersistentModel>: RelationshipAccessor {
    let keyPath: KeyPath<Root, Destination?>
    let storage: PropertyStorage<Root, Destination?>

    init(keyPath: KeyPath<Root, Destination?>, storage: PropertyStorage<Root, Destination?>) {
        self.keyPath = keyPath
        self.storage = storage
    }

    func isLoaded(_ model: AnyObject) -> Bool { storage[model] != nil }
    func unload(_ model: AnyObject) { storage[model] = nil }
    func snapshot(_ model: AnyObject) -> Any { storage[model] as Any }
    func restore(_ snapshot: Any, into model: AnyObject) {
        let object = unsafeDowncast(model, to: Root.self)
        object._$withMutation(keyPath: keyPath) { storage[object] = snapshot as! Destination?? }
    }
    func related(_ model: AnyObject) -> [AnyObject] {
        guard case .some(.some(let value)) = storage[model] else { return [] }
        return [value]
    }
    func setRelated(_ objects: [AnyObject], in model: AnyObject) {
        let object = unsafeDowncast(model, to: Root.self)
        let value = objects.first.map { unsafeDowncast($0, to: Destination.self) }
        object._$withMutation(keyPath: keyPath) { storage[object] = .some(value) }
    }
    func load(_ objects: [AnyObject], into model: AnyObject) {
        storage[model] = .some(objects.first.map { unsafeDowncast($0, to: Destination.self) })
    }
    func assign(_ objects: [AnyObject], to model: AnyObject) {
        guard let writable = keyPath as? ReferenceWritableKeyPath<Root, Destination?> else { return }
        unsafeDowncast(model, to: Root.self)[keyPath: writable] = objects.first.map { unsafeDowncast($0, to: Destination.self) }
    }
}

final class ToManyAccessor<Root: PersistentModel, Destination: PersistentModel>: RelationshipAccessor {
    var isEmptyKeyPath: AnyKeyPath? { \[Destination].isEmpty }
    var countKeyPath: AnyKeyPath? { \[Destination].count }
    let keyPath: KeyPath<Root, [Destination]>
    let storage: PropertyStorage<Root, [Destination]>

    init(keyPath: KeyPath<Root, [Destination]>, storage: PropertyStorage<Root, [Destination]>) {
        self.keyPath = keyPath
        self.storage = storage
    }

    func isLoaded(_ model: AnyObject) -> Bool { storage[model] != nil }
    func unload(_ model: AnyObject) { storage[model] = nil }
    func snapshot(_ model: AnyObject) -> Any { storage[model] as Any }
    func restore(_ snapshot: Any, into model: AnyObject) {
        let object = unsafeDowncast(model, to: Root.self)
        object._$withMutation(keyPath: keyPath) { storage[object] = snapshot as! [Destination]? }
    }
    func related(_ model: AnyObject) -> [AnyObject] { storage[model] ?? [] }
    func setRelated(_ objects: [AnyObject], in model: AnyObject) {
        let object = unsafeDowncast(model, to: Root.self)
        let value = objects.map { unsafeDowncast($0, to: Destination.self) }
        object._$withMutation(keyPath: keyPath) { storage[object] = value }
    }
    func load(_ objects: [AnyObject], into model: AnyObject) {
        storage[model] = objects.map { unsafeDowncast($0, to: Destination.self) }
    }
    func assign(_ objects: [AnyObject], to model: AnyObject) {
        guard let writable = keyPath as? ReferenceWritableKeyPath<Root, [Destination]> else { return }
        unsafeDowncast(model, to: Root.self)[keyPath: writable] = objects.map { unsafeDowncast($0, to: Destination.self) }
    }
}

final class OptionalToManyAccessor<Root: PersistentModel, Destination: PersistentModel>: RelationshipAccessor {
    let keyPath: KeyPath<Root, [Destination]?>
    let storage: PropertyStorage<Root, [Destination]?>

    init(keyPath: KeyPath<Root, [Destination]?>, storage: PropertyStorage<Root, [Destination]?>) {
        self.keyPath = keyPath
        self.storage = storage
    }

    func isLoaded(_ model: AnyObject) -> Bool { storage[model] != nil }
    func unload(_ model: AnyObject) { storage[model] = nil }
    func snapshot(_ model: AnyObject) -> Any { storage[model] as Any }
    func restore(_ snapshot: Any, into model: AnyObject) {
        let object = unsafeDowncast(model, to: Root.self)
        object._$withMutation(keyPath: keyPath) { storage[object] = snapshot as! [Destination]?? }
    }
    func related(_ model: AnyObject) -> [AnyObject] {
        guard case .some(.some(let value)) = storage[model] else { return [] }
        return value
    }
    func setRelated(_ objects: [AnyObject], in model: AnyObject) {
        let object = unsafeDowncast(model, to: Root.self)
        let value = objects.map { unsafeDowncast($0, to: Destination.self) }
        object._$withMutation(keyPath: keyPath) { storage[object] = .some(value) }
    }
    func load(_ objects: [AnyObject], into model: AnyObject) {
        storage[model] = .some(objects.map { unsafeDowncast($0, to: Destination.self) })
    }
    func assign(_ objects: [AnyObject], to model: AnyObject) {
        guard let writable = keyPath as? ReferenceWritableKeyPath<Root, [Destination]?> else { return }
        unsafeDowncast(model, to: Root.self)[keyPath: writable] = objects.map { unsafeDowncast($0, to: Destination.self) }
    }
}
