import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// Whole-source snapshots of `@Model` expansions. The test harness expands the macros it is given by
/// their plain names, so the `@Stowage._PersistedProperty` that `@Model` attaches to each property stays
/// as written here; ``PersistedPropertyExpansionTests`` covers its own expansion.
@Suite struct ModelExpansionTests {
    @Test func seedBudget() {
        assertExpansion(
            #"""
            @Model
            final class Budget {
                var name: String
                var limit: Double

                init(name: String, limit: Double) {
                    self.name = name
                    self.limit = limit
                }
            }
            """#,
            expandedSource: #"""
            final class Budget {
                @Stowage._PersistedProperty
                var name: String
                @Stowage._PersistedProperty
                var limit: Double

                init(name: String, limit: Double) {
                    self.name = name
                    self.limit = limit
                }

                @exclusivity(unchecked) nonisolated(unsafe) private var _name: Swift.Optional<String> = nil

                @exclusivity(unchecked) nonisolated(unsafe) private var _limit: Swift.Optional<Double> = nil

                @exclusivity(unchecked) nonisolated(unsafe) private var _$backingDataStorage = Stowage.ModelBackingData.Storage()

                nonisolated public var persistentBackingData: Stowage.ModelBackingData {
                    get { Stowage.ModelBackingData(self, &_$backingDataStorage) }
                    set { _$backingDataStorage = newValue.storageValue }
                }

                nonisolated public static func schemaMetadata() -> [Stowage.Schema.PropertyMetadata] {
                    Stowage._$nonisolatedMetadata { @MainActor in
                        [
                            Stowage.Schema.PropertyMetadata(name: "name", keyPath: \Budget.name, storage: \Budget._name, get: { $0._name }, set: { $0._name = $1 }),
                            Stowage.Schema.PropertyMetadata(name: "limit", keyPath: \Budget.limit, storage: \Budget._limit, get: { $0._limit }, set: { $0._limit = $1 })
                        ]
                    }
                }

                nonisolated public init(backingData: Stowage.ModelBackingData.Storage) {
                    self._$backingDataStorage = backingData
                    self._name = nil
                    self._limit = nil
                }

                nonisolated public static func _$load(_ reader: inout Stowage.ModelRowReader, into object: AnyObject) throws {
                    let model = unsafeDowncast(object, to: Self.self)
                    reader.loadState(into: &model._$backingDataStorage)
                    try reader.load(&model._name)
                    try reader.load(&model._limit)
                }

                nonisolated public static func _$store(_ writer: inout Stowage.ModelRowWriter, from object: AnyObject) throws {
                    let model = unsafeDowncast(object, to: Self.self)
                    try writer.store(model._name)
                    try writer.store(model._limit)
                }

                @exclusivity(unchecked) nonisolated(unsafe) private var _$observationRegistrarStorage: Observation.ObservationRegistrar? = nil

                nonisolated public var _$observationRegistrar: Observation.ObservationRegistrar {
                    if let registrar = _$observationRegistrarStorage {
                        return registrar
                    }
                    let registrar = Observation.ObservationRegistrar()
                    _$observationRegistrarStorage = registrar
                    return registrar
                }

                deinit {
                    _$backingDataStorage._$modelWillDeinit(ObjectIdentifier(self))
                }
            }

            extension Budget: nonisolated Stowage.PersistentModel {}
            """#)
    }

    /// A class with its own deinitializer gets no second one: the call that takes a released model out
    /// of the identity map goes first in its own (`@_ModelDeinit`, a body macro).
    @Test func ownDeinitializer() {
        assertExpansion(
            #"""
            @Model
            final class Session {
                var token: String

                init(token: String) {
                    self.token = token
                }

                deinit {
                    print("closing", token)
                }
            }
            """#,
            expandedSource: #"""
            final class Session {
                @Stowage._PersistedProperty
                var token: String

                init(token: String) {
                    self.token = token
                }
                @Stowage._ModelDeinit

                deinit {
                    print("closing", token)
                }

                @exclusivity(unchecked) nonisolated(unsafe) private var _token: Swift.Optional<String> = nil

                @exclusivity(unchecked) nonisolated(unsafe) private var _$backingDataStorage = Stowage.ModelBackingData.Storage()

                nonisolated public var persistentBackingData: Stowage.ModelBackingData {
                    get { Stowage.ModelBackingData(self, &_$backingDataStorage) }
                    set { _$backingDataStorage = newValue.storageValue }
                }

                nonisolated public static func schemaMetadata() -> [Stowage.Schema.PropertyMetadata] {
                    Stowage._$nonisolatedMetadata { @MainActor in
                        [
                            Stowage.Schema.PropertyMetadata(name: "token", keyPath: \Session.token, storage: \Session._token, get: { $0._token }, set: { $0._token = $1 })
                        ]
                    }
                }

                nonisolated public init(backingData: Stowage.ModelBackingData.Storage) {
                    self._$backingDataStorage = backingData
                    self._token = nil
                }

                nonisolated public static func _$load(_ reader: inout Stowage.ModelRowReader, into object: AnyObject) throws {
                    let model = unsafeDowncast(object, to: Self.self)
                    reader.loadState(into: &model._$backingDataStorage)
                    try reader.load(&model._token)
                }

                nonisolated public static func _$store(_ writer: inout Stowage.ModelRowWriter, from object: AnyObject) throws {
                    let model = unsafeDowncast(object, to: Self.self)
                    try writer.store(model._token)
                }

                @exclusivity(unchecked) nonisolated(unsafe) private var _$observationRegistrarStorage: Observation.ObservationRegistrar? = nil

                nonisolated public var _$observationRegistrar: Observation.ObservationRegistrar {
                    if let registrar = _$observationRegistrarStorage {
                        return registrar
                    }
                    let registrar = Observation.ObservationRegistrar()
                    _$observationRegistrarStorage = registrar
                    return registrar
                }
            }

            extension Session: nonisolated Stowage.PersistentModel {}
            """#)
    }

    /// What `@_ModelDeinit` makes of a deinitializer: the model leaves the identity map first, its state
    /// left whole for the statements that follow.
    @Test func modelDeinitBody() {
        assertExpansion(
            #"""
            final class Session {
                @_ModelDeinit
                deinit {
                    print("closing")
                }
            }
            """#,
            expandedSource: #"""
            final class Session {
                deinit {
                    _$backingDataStorage._$leaveIdentityMap(ObjectIdentifier(self))
                    print("closing")
                }
            }
            """#)
    }

    @Test func defaultValuesAndOptionals() {
        assertExpansion(
            #"""
            @Model
            final class Transaction {
                var note: String
                var amount: Double = 0
                var hasReceipt: Bool = false
                var memo: String?
                var tags: [String] = []
                var category: Category = .general
                var created: Date = Date()

                init(note: String) {
                    self.note = note
                }
            }
            """#,
            expandedSource: #"""
            final class Transaction {
                @Stowage._PersistedProperty
                var note: String
                @Stowage._PersistedProperty
                var amount: Double = 0
                @Stowage._PersistedProperty
                var hasReceipt: Bool = false
                @Stowage._PersistedProperty
                var memo: String?
                @Stowage._PersistedProperty
                var tags: [String] = []
                @Stowage._PersistedProperty
                var category: Category = .general
                @Stowage._PersistedProperty
                var created: Date = Date()

                init(note: String) {
                    self.note = note
                }

                @exclusivity(unchecked) nonisolated(unsafe) private var _note: Swift.Optional<String> = nil

                @exclusivity(unchecked) nonisolated(unsafe) private var _amount: Swift.Optional<Double> = nil

                @exclusivity(unchecked) nonisolated(unsafe) private var _hasReceipt: Swift.Optional<Bool> = nil

                @exclusivity(unchecked) nonisolated(unsafe) private var _memo: Swift.Optional<String?> = nil

                @exclusivity(unchecked) nonisolated(unsafe) private var _tags: Swift.Optional<[String]> = nil

                @exclusivity(unchecked) nonisolated(unsafe) private var _category: Swift.Optional<Category> = nil

                @exclusivity(unchecked) nonisolated(unsafe) private var _created: Swift.Optional<Date> = nil

                @exclusivity(unchecked) nonisolated(unsafe) private var _$backingDataStorage = Stowage.ModelBackingData.Storage()

                nonisolated public var persistentBackingData: Stowage.ModelBackingData {
                    get { Stowage.ModelBackingData(self, &_$backingDataStorage) }
                    set { _$backingDataStorage = newValue.storageValue }
                }

                nonisolated public static func schemaMetadata() -> [Stowage.Schema.PropertyMetadata] {
                    Stowage._$nonisolatedMetadata { @MainActor in
                        [
                            Stowage.Schema.PropertyMetadata(name: "note", keyPath: \Transaction.note, storage: \Transaction._note, get: { $0._note }, set: { $0._note = $1 }),
                            Stowage.Schema.PropertyMetadata(name: "amount", keyPath: \Transaction.amount, storage: \Transaction._amount, get: { $0._amount }, set: { $0._amount = $1 }, defaultValue: 0),
                            Stowage.Schema.PropertyMetadata(name: "hasReceipt", keyPath: \Transaction.hasReceipt, storage: \Transaction._hasReceipt, get: { $0._hasReceipt }, set: { $0._hasReceipt = $1 }, defaultValue: false),
                            Stowage.Schema.PropertyMetadata(name: "memo", keyPath: \Transaction.memo, storage: \Transaction._memo, get: { $0._memo }, set: { $0._memo = $1 }),
                            Stowage.Schema.PropertyMetadata(name: "tags", keyPath: \Transaction.tags, storage: \Transaction._tags, get: { $0._tags }, set: { $0._tags = $1 }, defaultValue: []),
                            Stowage.Schema.PropertyMetadata(name: "category", keyPath: \Transaction.category, storage: \Transaction._category, get: { $0._category }, set: { $0._category = $1 }, defaultValue: .general),
                            Stowage.Schema.PropertyMetadata(name: "created", keyPath: \Transaction.created, storage: \Transaction._created, get: { $0._created }, set: { $0._created = $1 })
                        ]
                    }
                }

                nonisolated public init(backingData: Stowage.ModelBackingData.Storage) {
                    self._$backingDataStorage = backingData
                    self._note = nil
                    self._amount = nil
                    self._hasReceipt = nil
                    self._memo = nil
                    self._tags = nil
                    self._category = nil
                    self._created = nil
                }

                nonisolated public static func _$load(_ reader: inout Stowage.ModelRowReader, into object: AnyObject) throws {
                    let model = unsafeDowncast(object, to: Self.self)
                    reader.loadState(into: &model._$backingDataStorage)
                    try reader.load(&model._note)
                    try reader.load(&model._amount)
                    try reader.load(&model._hasReceipt)
                    try reader.load(&model._memo)
                    try reader.load(&model._tags)
                    try reader.load(&model._category)
                    try reader.load(&model._created)
                }

                nonisolated public static func _$store(_ writer: inout Stowage.ModelRowWriter, from object: AnyObject) throws {
                    let model = unsafeDowncast(object, to: Self.self)
                    try writer.store(model._note)
                    try writer.store(model._amount)
                    try writer.store(model._hasReceipt)
                    try writer.store(model._memo)
                    try writer.store(model._tags)
                    try writer.store(model._category)
                    try writer.store(model._created)
                }

                @exclusivity(unchecked) nonisolated(unsafe) private var _$observationRegistrarStorage: Observation.ObservationRegistrar? = nil

                nonisolated public var _$observationRegistrar: Observation.ObservationRegistrar {
                    if let registrar = _$observationRegistrarStorage {
                        return registrar
                    }
                    let registrar = Observation.ObservationRegistrar()
                    _$observationRegistrarStorage = registrar
                    return registrar
                }

                deinit {
                    _$backingDataStorage._$modelWillDeinit(ObjectIdentifier(self))
                }
            }

            extension Transaction: nonisolated Stowage.PersistentModel {}
            """#)
    }

    @Test func attributeOptions() {
        assertExpansion(
            #"""
            @Model
            final class Photo {
                @Attribute(.unique) var slug: String
                @Attribute(.externalStorage, originalName: "x") var image: Data
                @Attribute(.spotlight, .preserveValueOnDeletion, hashModifier: "v2") var caption: String = "none"

                init(slug: String, image: Data) {
                    self.slug = slug
                    self.image = image
                }
            }
            """#,
            expandedSource: #"""
            final class Photo {
                @Stowage._PersistedProperty var slug: String
                @Stowage._PersistedProperty var image: Data
                @Stowage._PersistedProperty var caption: String = "none"

                init(slug: String, image: Data) {
                    self.slug = slug
                    self.image = image
                }

                @exclusivity(unchecked) nonisolated(unsafe) private var _slug: Swift.Optional<String> = nil

                @exclusivity(unchecked) nonisolated(unsafe) private var _image: Swift.Optional<Data> = nil

                @exclusivity(unchecked) nonisolated(unsafe) private var _caption: Swift.Optional<String> = nil

                @exclusivity(unchecked) nonisolated(unsafe) private var _$backingDataStorage = Stowage.ModelBackingData.Storage()

                nonisolated public var persistentBackingData: Stowage.ModelBackingData {
                    get { Stowage.ModelBackingData(self, &_$backingDataStorage) }
                    set { _$backingDataStorage = newValue.storageValue }
                }

                nonisolated public static func schemaMetadata() -> [Stowage.Schema.PropertyMetadata] {
                    Stowage._$nonisolatedMetadata { @MainActor in
                        [
                            Stowage.Schema.PropertyMetadata(name: "slug", keyPath: \Photo.slug, storage: \Photo._slug, get: { $0._slug }, set: { $0._slug = $1 }, metadata: Stowage.Schema.Attribute(.unique)),
                            Stowage.Schema.PropertyMetadata(name: "image", keyPath: \Photo.image, storage: \Photo._image, get: { $0._image }, set: { $0._image = $1 }, metadata: Stowage.Schema.Attribute(.externalStorage, originalName: "x")),
                            Stowage.Schema.PropertyMetadata(name: "caption", keyPath: \Photo.caption, storage: \Photo._caption, get: { $0._caption }, set: { $0._caption = $1 }, defaultValue: "none", metadata: Stowage.Schema.Attribute(.spotlight, .preserveValueOnDeletion, hashModifier: "v2"))
                        ]
                    }
                }

                nonisolated public init(backingData: Stowage.ModelBackingData.Storage) {
                    self._$backingDataStorage = backingData
                    self._slug = nil
                    self._image = nil
                    self._caption = nil
                }

                nonisolated public static func _$load(_ reader: inout Stowage.ModelRowReader, into object: AnyObject) throws {
                    let model = unsafeDowncast(object, to: Self.self)
                    reader.loadState(into: &model._$backingDataStorage)
                    try reader.load(&model._slug)
                    try reader.load(&model._image)
                    try reader.load(&model._caption)
                }

                nonisolated public static func _$store(_ writer: inout Stowage.ModelRowWriter, from object: AnyObject) throws {
                    let model = unsafeDowncast(object, to: Self.self)
                    try writer.store(model._slug)
                    try writer.store(model._image)
                    try writer.store(model._caption)
                }

                @exclusivity(unchecked) nonisolated(unsafe) private var _$observationRegistrarStorage: Observation.ObservationRegistrar? = nil

                nonisolated public var _$observationRegistrar: Observation.ObservationRegistrar {
                    if let registrar = _$observationRegistrarStorage {
                        return registrar
                    }
                    let registrar = Observation.ObservationRegistrar()
                    _$observationRegistrarStorage = registrar
                    return registrar
                }

                deinit {
                    _$backingDataStorage._$modelWillDeinit(ObjectIdentifier(self))
                }
            }

            extension Photo: nonisolated Stowage.PersistentModel {}
            """#)
    }

    @Test func relationships() {
        assertExpansion(
            #"""
            @Model
            final class Budget {
                var name: String
                @Relationship(deleteRule: .cascade, inverse: \Transaction.budget)
                var transactions: [Transaction] = []
                @Relationship(.cascade)
                var archived: [Transaction] = []
                var owner: Person?

                init(name: String) {
                    self.name = name
                }
            }
            """#,
            expandedSource: #"""
            final class Budget {
                @Stowage._PersistedProperty
                var name: String
                @Stowage._PersistedProperty
                var transactions: [Transaction] = []
                @Stowage._PersistedProperty
                var archived: [Transaction] = []
                @Stowage._PersistedProperty
                var owner: Person?

                init(name: String) {
                    self.name = name
                }

                @exclusivity(unchecked) nonisolated(unsafe) private var _name: Swift.Optional<String> = nil

                @exclusivity(unchecked) nonisolated(unsafe) private var _transactions: Swift.Optional<[Transaction]> = nil

                @exclusivity(unchecked) nonisolated(unsafe) private var _archived: Swift.Optional<[Transaction]> = nil

                @exclusivity(unchecked) nonisolated(unsafe) private var _owner: Swift.Optional<Person?> = nil

                @exclusivity(unchecked) nonisolated(unsafe) private var _$backingDataStorage = Stowage.ModelBackingData.Storage()

                nonisolated public var persistentBackingData: Stowage.ModelBackingData {
                    get { Stowage.ModelBackingData(self, &_$backingDataStorage) }
                    set { _$backingDataStorage = newValue.storageValue }
                }

                nonisolated public static func schemaMetadata() -> [Stowage.Schema.PropertyMetadata] {
                    Stowage._$nonisolatedMetadata { @MainActor in
                        [
                            Stowage.Schema.PropertyMetadata(name: "name", keyPath: \Budget.name, storage: \Budget._name, get: { $0._name }, set: { $0._name = $1 }),
                            Stowage.Schema.PropertyMetadata(name: "transactions", keyPath: \Budget.transactions, storage: \Budget._transactions, get: { $0._transactions }, set: { $0._transactions = $1 }, metadata: Stowage.Schema.Relationship(deleteRule: .cascade, inverse: \Transaction.budget)),
                            Stowage.Schema.PropertyMetadata(name: "archived", keyPath: \Budget.archived, storage: \Budget._archived, get: { $0._archived }, set: { $0._archived = $1 }, metadata: Stowage.Schema.Relationship(.cascade)),
                            Stowage.Schema.PropertyMetadata(name: "owner", keyPath: \Budget.owner, storage: \Budget._owner, get: { $0._owner }, set: { $0._owner = $1 })
                        ]
                    }
                }

                nonisolated public init(backingData: Stowage.ModelBackingData.Storage) {
                    self._$backingDataStorage = backingData
                    self._name = nil
                    self._transactions = nil
                    self._archived = nil
                    self._owner = nil
                }

                nonisolated public static func _$load(_ reader: inout Stowage.ModelRowReader, into object: AnyObject) throws {
                    let model = unsafeDowncast(object, to: Self.self)
                    reader.loadState(into: &model._$backingDataStorage)
                    try reader.load(&model._name)
                    try reader.load(&model._transactions)
                    try reader.load(&model._archived)
                    try reader.load(&model._owner)
                }

                nonisolated public static func _$store(_ writer: inout Stowage.ModelRowWriter, from object: AnyObject) throws {
                    let model = unsafeDowncast(object, to: Self.self)
                    try writer.store(model._name)
                    try writer.store(model._transactions)
                    try writer.store(model._archived)
                    try writer.store(model._owner)
                }

                @exclusivity(unchecked) nonisolated(unsafe) private var _$observationRegistrarStorage: Observation.ObservationRegistrar? = nil

                nonisolated public var _$observationRegistrar: Observation.ObservationRegistrar {
                    if let registrar = _$observationRegistrarStorage {
                        return registrar
                    }
                    let registrar = Observation.ObservationRegistrar()
                    _$observationRegistrarStorage = registrar
                    return registrar
                }

                deinit {
                    _$backingDataStorage._$modelWillDeinit(ObjectIdentifier(self))
                }
            }

            extension Budget: nonisolated Stowage.PersistentModel {}
            """#)
    }

    @Test func transientComputedAndStaticPropertiesAreLeftAlone() {
        assertExpansion(
            #"""
            @Model
            final class Budget {
                var limit: Double
                @Transient var isSelected = false
                @Transient var cache: [String: Double]?
                var total: Double { limit * 2 }
                var doubled: Double {
                    get { limit * 2 }
                    set { limit = newValue / 2 }
                }
                static var all: [Budget] = []
                static let entityName = "Budget"
                class var kind: String { "budget" }

                init(limit: Double) {
                    self.limit = limit
                }
            }
            """#,
            expandedSource: #"""
            final class Budget {
                @Stowage._PersistedProperty
                var limit: Double
                var isSelected = false
                var cache: [String: Double]?
                var total: Double { limit * 2 }
                var doubled: Double {
                    get { limit * 2 }
                    set { limit = newValue / 2 }
                }
                static var all: [Budget] = []
                static let entityName = "Budget"
                class var kind: String { "budget" }

                init(limit: Double) {
                    self.limit = limit
                }

                @exclusivity(unchecked) nonisolated(unsafe) private var _limit: Swift.Optional<Double> = nil

                @exclusivity(unchecked) nonisolated(unsafe) private var _$backingDataStorage = Stowage.ModelBackingData.Storage()

                nonisolated public var persistentBackingData: Stowage.ModelBackingData {
                    get { Stowage.ModelBackingData(self, &_$backingDataStorage) }
                    set { _$backingDataStorage = newValue.storageValue }
                }

                nonisolated public static func schemaMetadata() -> [Stowage.Schema.PropertyMetadata] {
                    Stowage._$nonisolatedMetadata { @MainActor in
                        [
                            Stowage.Schema.PropertyMetadata(name: "limit", keyPath: \Budget.limit, storage: \Budget._limit, get: { $0._limit }, set: { $0._limit = $1 })
                        ]
                    }
                }

                nonisolated public init(backingData: Stowage.ModelBackingData.Storage) {
                    self._$backingDataStorage = backingData
                    self._limit = nil
                }

                nonisolated public static func _$load(_ reader: inout Stowage.ModelRowReader, into object: AnyObject) throws {
                    let model = unsafeDowncast(object, to: Self.self)
                    reader.loadState(into: &model._$backingDataStorage)
                    try reader.load(&model._limit)
                }

                nonisolated public static func _$store(_ writer: inout Stowage.ModelRowWriter, from object: AnyObject) throws {
                    let model = unsafeDowncast(object, to: Self.self)
                    try writer.store(model._limit)
                }

                @exclusivity(unchecked) nonisolated(unsafe) private var _$observationRegistrarStorage: Observation.ObservationRegistrar? = nil

                nonisolated public var _$observationRegistrar: Observation.ObservationRegistrar {
                    if let registrar = _$observationRegistrarStorage {
                        return registrar
                    }
                    let registrar = Observation.ObservationRegistrar()
                    _$observationRegistrarStorage = registrar
                    return registrar
                }

                deinit {
                    _$backingDataStorage._$modelWillDeinit(ObjectIdentifier(self))
                }
            }

            extension Budget: nonisolated Stowage.PersistentModel {}
            """#)
    }

    @Test func privateSetAndUserIdentifier() {
        assertExpansion(
            #"""
            @Model
            public final class Account {
                public var id: UUID
                public private(set) var balance: Decimal = 0

                public init(id: UUID = UUID()) {
                    self.id = id
                }
            }
            """#,
            expandedSource: #"""
            public final class Account {
                @Stowage._PersistedProperty
                public var id: UUID
                @Stowage._PersistedProperty
                public private(set) var balance: Decimal = 0

                public init(id: UUID = UUID()) {
                    self.id = id
                }

                @exclusivity(unchecked) nonisolated(unsafe) private var _id: Swift.Optional<UUID> = nil

                @exclusivity(unchecked) nonisolated(unsafe) private var _balance: Swift.Optional<Decimal> = nil

                @exclusivity(unchecked) nonisolated(unsafe) private var _$backingDataStorage = Stowage.ModelBackingData.Storage()

                nonisolated public var persistentBackingData: Stowage.ModelBackingData {
                    get { Stowage.ModelBackingData(self, &_$backingDataStorage) }
                    set { _$backingDataStorage = newValue.storageValue }
                }

                nonisolated public static func schemaMetadata() -> [Stowage.Schema.PropertyMetadata] {
                    Stowage._$nonisolatedMetadata { @MainActor in
                        [
                            Stowage.Schema.PropertyMetadata(name: "id", keyPath: \Account.id, storage: \Account._id, get: { $0._id }, set: { $0._id = $1 }),
                            Stowage.Schema.PropertyMetadata(name: "balance", keyPath: \Account.balance, storage: \Account._balance, get: { $0._balance }, set: { $0._balance = $1 }, defaultValue: 0)
                        ]
                    }
                }

                nonisolated public init(backingData: Stowage.ModelBackingData.Storage) {
                    self._$backingDataStorage = backingData
                    self._id = nil
                    self._balance = nil
                }

                nonisolated public static func _$load(_ reader: inout Stowage.ModelRowReader, into object: AnyObject) throws {
                    let model = unsafeDowncast(object, to: Self.self)
                    reader.loadState(into: &model._$backingDataStorage)
                    try reader.load(&model._id)
                    try reader.load(&model._balance)
                }

                nonisolated public static func _$store(_ writer: inout Stowage.ModelRowWriter, from object: AnyObject) throws {
                    let model = unsafeDowncast(object, to: Self.self)
                    try writer.store(model._id)
                    try writer.store(model._balance)
                }

                @exclusivity(unchecked) nonisolated(unsafe) private var _$observationRegistrarStorage: Observation.ObservationRegistrar? = nil

                nonisolated public var _$observationRegistrar: Observation.ObservationRegistrar {
                    if let registrar = _$observationRegistrarStorage {
                        return registrar
                    }
                    let registrar = Observation.ObservationRegistrar()
                    _$observationRegistrarStorage = registrar
                    return registrar
                }

                deinit {
                    _$backingDataStorage._$modelWillDeinit(ObjectIdentifier(self))
                }
            }

            extension Account: nonisolated Stowage.PersistentModel {}
            """#)
    }

    @Test func nonFinalClassHasRequiredInit() {
        assertExpansion(
            #"""
            @Model
            class Trip {
                var name: String

                init(name: String) {
                    self.name = name
                }
            }
            """#,
            expandedSource: #"""
            class Trip {
                @Stowage._PersistedProperty
                var name: String

                init(name: String) {
                    self.name = name
                }

                @exclusivity(unchecked) nonisolated(unsafe) private var _name: Swift.Optional<String> = nil

                @exclusivity(unchecked) nonisolated(unsafe) final var _$backingDataStorage = Stowage.ModelBackingData.Storage()

                nonisolated public final var persistentBackingData: Stowage.ModelBackingData {
                    get { Stowage.ModelBackingData(self, &_$backingDataStorage) }
                    set { _$backingDataStorage = newValue.storageValue }
                }

                nonisolated public class func schemaMetadata() -> [Stowage.Schema.PropertyMetadata] {
                    _$properties(Trip.self)
                }

                nonisolated public static func _$properties<Root: Trip>(_ root: Root.Type) -> [Stowage.Schema.PropertyMetadata] {
                    Stowage._$nonisolatedMetadata { @MainActor in
                        [
                            Stowage.Schema.PropertyMetadata(name: "name", keyPath: \Root.name, storage: \Root._name, get: { $0._name }, set: { $0._name = $1 })
                        ]
                    }
                }

                nonisolated public required init(backingData: Stowage.ModelBackingData.Storage) {
                    self._$backingDataStorage = backingData
                    self._name = nil
                }

                nonisolated public class func _$load(_ reader: inout Stowage.ModelRowReader, into object: AnyObject) throws {
                    let model = unsafeDowncast(object, to: Self.self)
                    reader.loadState(into: &model._$backingDataStorage)
                    try reader.load(&model._name)
                }

                nonisolated public class func _$store(_ writer: inout Stowage.ModelRowWriter, from object: AnyObject) throws {
                    let model = unsafeDowncast(object, to: Self.self)
                    try writer.store(model._name)
                }

                @exclusivity(unchecked) nonisolated(unsafe) private var _$observationRegistrarStorage: Observation.ObservationRegistrar? = nil

                nonisolated public var _$observationRegistrar: Observation.ObservationRegistrar {
                    if let registrar = _$observationRegistrarStorage {
                        return registrar
                    }
                    let registrar = Observation.ObservationRegistrar()
                    _$observationRegistrarStorage = registrar
                    return registrar
                }

                deinit {
                    _$backingDataStorage._$modelWillDeinit(ObjectIdentifier(self))
                }
            }

            extension Trip: nonisolated Stowage.PersistentModel {}
            """#)
    }

    /// A subclass of a model (SwiftData's class inheritance): the compiler reports that the class
    /// already conforms to `PersistentModel` (no conformance to add), and the macro extends its
    /// superclass's metadata, loading and storing instead of adding backing data of its own.
    @Test func subclassOfAModelExtendsItsSuperclass() {
        assertExpansion(
            #"""
            @Model
            class BusinessTrip: Trip {
                var perdiem: Double = 0

                init(name: String, perdiem: Double) {
                    self.perdiem = perdiem
                    super.init(name: name)
                }
            }
            """#,
            modelConformances: [],
            expandedSource: #"""
            class BusinessTrip: Trip {
                @Stowage._PersistedProperty
                var perdiem: Double = 0

                init(name: String, perdiem: Double) {
                    self.perdiem = perdiem
                    super.init(name: name)
                }

                @exclusivity(unchecked) nonisolated(unsafe) private var _perdiem: Swift.Optional<Double> = nil

                nonisolated public override class func schemaMetadata() -> [Stowage.Schema.PropertyMetadata] {
                    _$properties(BusinessTrip.self)
                }

                nonisolated public static func _$properties<Root: BusinessTrip>(_ root: Root.Type) -> [Stowage.Schema.PropertyMetadata] {
                    Trip._$properties(root) + Stowage._$nonisolatedMetadata { @MainActor in
                        [
                            Stowage.Schema.PropertyMetadata(name: "perdiem", keyPath: \Root.perdiem, storage: \Root._perdiem, get: { $0._perdiem }, set: { $0._perdiem = $1 }, defaultValue: 0)
                        ]
                    }
                }

                nonisolated public required init(backingData: Stowage.ModelBackingData.Storage) {
                    self._perdiem = nil
                    super.init(backingData: backingData)
                }

                nonisolated public override class func _$load(_ reader: inout Stowage.ModelRowReader, into object: AnyObject) throws {
                    try super._$load(&reader, into: object)
                    let model = unsafeDowncast(object, to: Self.self)
                    try reader.load(&model._perdiem)
                }

                nonisolated public override class func _$store(_ writer: inout Stowage.ModelRowWriter, from object: AnyObject) throws {
                    try super._$store(&writer, from: object)
                    let model = unsafeDowncast(object, to: Self.self)
                    try writer.store(model._perdiem)
                }
            }
            """#)
    }

    @Test func modelNestedInAnEnum() {
        assertExpansion(
            #"""
            enum SpendTrackerSchemaV1 {
                @Model
                final class Budget {
                    var name: String
                    var limit: Double

                    @Relationship(.cascade)
                    var transactions: [Transaction] = []

                    init(name: String, limit: Double) {
                        self.name = name
                        self.limit = limit
                    }
                }
            }
            """#,
            expandedSource: #"""
            enum SpendTrackerSchemaV1 {
                final class Budget {
                    @Stowage._PersistedProperty
                    var name: String
                    @Stowage._PersistedProperty
                    var limit: Double
                    @Stowage._PersistedProperty
                    var transactions: [Transaction] = []

                    init(name: String, limit: Double) {
                        self.name = name
                        self.limit = limit
                    }

                    @exclusivity(unchecked) nonisolated(unsafe) private var _name: Swift.Optional<String> = nil

                    @exclusivity(unchecked) nonisolated(unsafe) private var _limit: Swift.Optional<Double> = nil

                    @exclusivity(unchecked) nonisolated(unsafe) private var _transactions: Swift.Optional<[Transaction]> = nil

                    @exclusivity(unchecked) nonisolated(unsafe) private var _$backingDataStorage = Stowage.ModelBackingData.Storage()

                    nonisolated public var persistentBackingData: Stowage.ModelBackingData {
                        get { Stowage.ModelBackingData(self, &_$backingDataStorage) }
                        set { _$backingDataStorage = newValue.storageValue }
                    }

                    nonisolated public static func schemaMetadata() -> [Stowage.Schema.PropertyMetadata] {
                        Stowage._$nonisolatedMetadata { @MainActor in
                            [
                                Stowage.Schema.PropertyMetadata(name: "name", keyPath: \Budget.name, storage: \Budget._name, get: { $0._name }, set: { $0._name = $1 }),
                                Stowage.Schema.PropertyMetadata(name: "limit", keyPath: \Budget.limit, storage: \Budget._limit, get: { $0._limit }, set: { $0._limit = $1 }),
                                Stowage.Schema.PropertyMetadata(name: "transactions", keyPath: \Budget.transactions, storage: \Budget._transactions, get: { $0._transactions }, set: { $0._transactions = $1 }, metadata: Stowage.Schema.Relationship(.cascade))
                            ]
                        }
                    }

                    nonisolated public init(backingData: Stowage.ModelBackingData.Storage) {
                        self._$backingDataStorage = backingData
                        self._name = nil
                        self._limit = nil
                        self._transactions = nil
                    }

                    nonisolated public static func _$load(_ reader: inout Stowage.ModelRowReader, into object: AnyObject) throws {
                        let model = unsafeDowncast(object, to: Self.self)
                        reader.loadState(into: &model._$backingDataStorage)
                        try reader.load(&model._name)
                        try reader.load(&model._limit)
                        try reader.load(&model._transactions)
                    }

                    nonisolated public static func _$store(_ writer: inout Stowage.ModelRowWriter, from object: AnyObject) throws {
                        let model = unsafeDowncast(object, to: Self.self)
                        try writer.store(model._name)
                        try writer.store(model._limit)
                        try writer.store(model._transactions)
                    }

                    @exclusivity(unchecked) nonisolated(unsafe) private var _$observationRegistrarStorage: Observation.ObservationRegistrar? = nil

                    nonisolated public var _$observationRegistrar: Observation.ObservationRegistrar {
                        if let registrar = _$observationRegistrarStorage {
                            return registrar
                        }
                        let registrar = Observation.ObservationRegistrar()
                        _$observationRegistrarStorage = registrar
                        return registrar
                    }

                    deinit {
                        _$backingDataStorage._$modelWillDeinit(ObjectIdentifier(self))
                    }
                }
            }

            extension SpendTrackerSchemaV1.Budget: nonisolated Stowage.PersistentModel {}
            """#)
    }

    @Test func emptyModel() {
        assertExpansion(
            #"""
            @Model
            final class Marker {
                init() {}
            }
            """#,
            expandedSource: #"""
            final class Marker {
                init() {}

                @exclusivity(unchecked) nonisolated(unsafe) private var _$backingDataStorage = Stowage.ModelBackingData.Storage()

                nonisolated public var persistentBackingData: Stowage.ModelBackingData {
                    get { Stowage.ModelBackingData(self, &_$backingDataStorage) }
                    set { _$backingDataStorage = newValue.storageValue }
                }

                nonisolated public static func schemaMetadata() -> [Stowage.Schema.PropertyMetadata] {
                    Stowage._$nonisolatedMetadata { @MainActor in
                        []
                    }
                }

                nonisolated public init(backingData: Stowage.ModelBackingData.Storage) {
                    self._$backingDataStorage = backingData
                }

                nonisolated public static func _$load(_ reader: inout Stowage.ModelRowReader, into object: AnyObject) throws {
                    let model = unsafeDowncast(object, to: Self.self)
                    reader.loadState(into: &model._$backingDataStorage)
                }

                nonisolated public static func _$store(_ writer: inout Stowage.ModelRowWriter, from object: AnyObject) throws {
                }

                @exclusivity(unchecked) nonisolated(unsafe) private var _$observationRegistrarStorage: Observation.ObservationRegistrar? = nil

                nonisolated public var _$observationRegistrar: Observation.ObservationRegistrar {
                    if let registrar = _$observationRegistrarStorage {
                        return registrar
                    }
                    let registrar = Observation.ObservationRegistrar()
                    _$observationRegistrarStorage = registrar
                    return registrar
                }

                deinit {
                    _$backingDataStorage._$modelWillDeinit(ObjectIdentifier(self))
                }
            }

            extension Marker: nonisolated Stowage.PersistentModel {}
            """#)
    }

    /// The harness misplaces member attributes when a class holds both `@Model` and freestanding
    /// declaration macros, so `@Model` stays unexpanded here (the compiler expands each separately).
    @Test func uniqueAndIndexInsideAModel() {
        assertExpansion(
            #"""
            @Model
            final class Person {
                #Unique<Person>([\.email], [\.first, \.last])
                #Index<Person>([\.last])

                var email: String
                var first: String
                var last: String
            }
            """#,
            unexpanded: ["Model"],
            expandedSource: #"""
            @Model
            final class Person {
                public static var _$uniqueConstraints: [[Swift.AnyKeyPath]] {
                    let groups: [[Swift.PartialKeyPath<Person>]] = [[\.email], [\.first, \.last]]
                    return groups
                }
                public static var _$indices: [[Swift.AnyKeyPath]] {
                    let groups: [[Swift.PartialKeyPath<Person>]] = [[\.last]]
                    return groups
                }

                var email: String
                var first: String
                var last: String
            }
            """#)
    }

    @Test func uniqueWithQualifiedModelName() {
        assertExpansion(
            #"""
            enum SchemaV2 {
                @Model
                final class Budget {
                    #Unique<SchemaV2.Budget>([\.name])
                    var name: String
                }
            }
            """#,
            unexpanded: ["Model"],
            expandedSource: #"""
            enum SchemaV2 {
                @Model
                final class Budget {
                    public static var _$uniqueConstraints: [[Swift.AnyKeyPath]] {
                        let groups: [[Swift.PartialKeyPath<SchemaV2.Budget>]] = [[\.name]]
                        return groups
                    }
                    var name: String
                }
            }
            """#)
    }
}

/// Snapshots of `@_PersistedProperty`, which `@Model` attaches to each persisted property.
@Suite struct PersistedPropertyExpansionTests {
    @Test func plainProperty() {
        assertExpansion(
            #"""
            final class Budget {
                @_PersistedProperty
                var name: String
            }
            """#,
            expandedSource: #"""
            final class Budget {
                var name: String {
                @storageRestrictions(initializes: _name)
                init(initialValue) {
                    _name = initialValue
                }
                get {
                    _$backingDataStorage._$noteRead()
                    return _$get(\.name, _name)
                }
                set {
                    if _$backingDataStorage._$storesDirectly(newValue) {
                        _name = newValue
                    } else {
                        _$set(\.name, \._name, newValue)
                    }
                }
                }
            }
            """#)
    }

    @Test func propertyWithDefaultValue() {
        assertExpansion(
            #"""
            final class Transaction {
                @_PersistedProperty
                var hasReceipt: Bool = false
            }
            """#,
            expandedSource: #"""
            final class Transaction {
                var hasReceipt: Bool {
                @storageRestrictions(initializes: _hasReceipt)
                init(initialValue) {
                    _hasReceipt = initialValue
                }
                get {
                    _$backingDataStorage._$noteRead()
                    return _$get(\.hasReceipt, _hasReceipt)
                }
                set {
                    if _$backingDataStorage._$storesDirectly(newValue) {
                        _hasReceipt = newValue
                    } else {
                        _$set(\.hasReceipt, \._hasReceipt, newValue)
                    }
                }
                }
            }
            """#)
    }

    @Test func optionalProperty() {
        assertExpansion(
            #"""
            final class Transaction {
                @_PersistedProperty
                var budget: Budget?
            }
            """#,
            expandedSource: #"""
            final class Transaction {
                var budget: Budget? {
                @storageRestrictions(initializes: _budget)
                init(initialValue) {
                    _budget = initialValue
                }
                get {
                    _$backingDataStorage._$noteRead()
                    return _$get(\.budget, _budget)
                }
                set {
                    if _$backingDataStorage._$storesDirectly(newValue) {
                        _budget = newValue
                    } else {
                        _$set(\.budget, \._budget, newValue)
                    }
                }
                }
            }
            """#)
    }

    @Test func privateSetProperty() {
        assertExpansion(
            #"""
            final class Account {
                @_PersistedProperty
                public private(set) var balance: Decimal = 0
            }
            """#,
            expandedSource: #"""
            final class Account {
                public private(set) var balance: Decimal {
                @storageRestrictions(initializes: _balance)
                init(initialValue) {
                    _balance = initialValue
                }
                get {
                    _$backingDataStorage._$noteRead()
                    return _$get(\.balance, _balance)
                }
                set {
                    if _$backingDataStorage._$storesDirectly(newValue) {
                        _balance = newValue
                    } else {
                        _$set(\.balance, \._balance, newValue)
                    }
                }
                }
            }
            """#)
    }
}
