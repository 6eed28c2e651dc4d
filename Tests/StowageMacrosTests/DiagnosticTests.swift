import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// Misuse of the macros: each diagnostic, where it points, and what its fix-its do to the source.
@Suite struct ModelDiagnosticTests {
    /// The classes of a hierarchy share one table: its indexes and constraints are the root class's.
    @Test func indexOnASubclass() {
        assertExpansion(
            #"""
            @Model
            class BusinessTrip: Trip {
                #Index<BusinessTrip>([\.name])
            }
            """#,
            unexpanded: ["Index"],
            modelConformances: [],
            expandedSource: #"""
            class BusinessTrip: Trip {
                #Index<BusinessTrip>([\.name])

                nonisolated public override class func schemaMetadata() -> [Stowage.Schema.PropertyMetadata] {
                    _$properties(BusinessTrip.self)
                }

                nonisolated public static func _$properties<Root: BusinessTrip>(_ root: Root.Type) -> [Stowage.Schema.PropertyMetadata] {
                    Trip._$properties(root) + Stowage._$nonisolatedMetadata { @MainActor in
                        []
                    }
                }

                nonisolated public required init(backingData: Stowage.ModelBackingData.Storage) {
                    super.init(backingData: backingData)
                }

                nonisolated public override class func _$load(_ reader: inout Stowage.ModelRowReader, into object: AnyObject) throws {
                    try super._$load(&reader, into: object)
                }

                nonisolated public override class func _$store(_ writer: inout Stowage.ModelRowWriter, from object: AnyObject) throws {
                    try super._$store(&writer, from: object)
                }
            }
            """#,
            diagnostics: [
                DiagnosticSpec(
                    message: #"#Index cannot be declared on a subclass of the model 'Trip': the classes of a hierarchy share one table, whose indexes and constraints come from the root class. Declare it there, over the properties the root class has."#,
                    line: 3, column: 5),
            ])
    }

    @Test func modelOnAStruct() {
        assertExpansion(
            #"""
            @Model
            struct Budget {
                var name: String
            }
            """#,
            expandedSource: #"""
            struct Budget {
                var name: String
            }
            """#,
            diagnostics: [
                DiagnosticSpec(
                    message: #"@Model can only be applied to a class, not a struct: models are reference types that a context tracks. Declare 'Budget' as a 'final class'."#,
                    line: 2, column: 1, fixIts: [FixItSpec(message: "Replace 'struct' with 'final class'")]),
            ],
            fixedSource: #"""
            @Model
            final class Budget {
                var name: String
            }
            """#)
    }

    @Test func modelOnAnEnum() {
        assertExpansion(
            #"""
            @Model enum Kind {
                case a
            }
            """#,
            expandedSource: #"""
            enum Kind {
                case a
            }
            """#,
            diagnostics: [
                DiagnosticSpec(
                    message: #"@Model can only be applied to a class, not an enum: models are reference types that a context tracks. Declare 'Kind' as a 'final class'."#,
                    line: 1, column: 8, fixIts: [FixItSpec(message: "Replace 'enum' with 'final class'")]),
            ],
            fixedSource: #"""
            @Model final class Kind {
                case a
            }
            """#)
    }

    @Test func modelOnAnActor() {
        assertExpansion(
            #"""
            @Model
            public actor Ledger {
                var total: Double = 0
            }
            """#,
            expandedSource: #"""
            public actor Ledger {
                var total: Double = 0
            }
            """#,
            diagnostics: [
                DiagnosticSpec(
                    message: #"@Model can only be applied to a class, not an actor: models are reference types that a context tracks. Declare 'Ledger' as a 'final class'."#,
                    line: 2, column: 8, fixIts: [FixItSpec(message: "Replace 'actor' with 'final class'")]),
            ],
            fixedSource: #"""
            @Model
            public final class Ledger {
                var total: Double = 0
            }
            """#)
    }

    @Test func letProperty() {
        assertExpansion(
            #"""
            @Model
            final class Recipe {
                let name: String
                private let secret: String
            }
            """#,
            expandedSource: #"""
            final class Recipe {
                let name: String
                private let secret: String

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

            extension Recipe: nonisolated Stowage.PersistentModel {}
            """#,
            diagnostics: [
                DiagnosticSpec(
                    message: #"@Model cannot persist the constant 'name': every persisted property gets accessors, and a 'let' cannot have them. Declare it 'private(set) var' to keep it read-only outside the class, or 'var'."#,
                    line: 3, column: 5, fixIts: [FixItSpec(message: "Replace 'let' with 'private(set) var'"), FixItSpec(message: "Replace 'let' with 'var'")]),
                DiagnosticSpec(
                    message: #"@Model cannot persist the constant 'secret': every persisted property gets accessors, and a 'let' cannot have them. Declare it 'private(set) var' to keep it read-only outside the class, or 'var'."#,
                    line: 4, column: 13, fixIts: [FixItSpec(message: "Replace 'let' with 'var'")]),
            ],
            fixedSource: #"""
            @Model
            final class Recipe {
                private(set) var name: String
                private var secret: String
            }
            """#)
    }

    /// What an initial value cannot give a type for: nothing, `nil`, or a value that cannot be stored
    /// (a closure, a tuple); and `@Relationship` on a value an initial value shows the type of.
    @Test func untypedPropertiesThatCannotBePersisted() {
        assertExpansion(
            #"""
            @Model
            final class Counter {
                var nothing
                var missing = nil
                var handler = { print("changed") }
                var point = (1, 2)
                @Relationship var tags = [String]()
            }
            """#,
            expandedSource: #"""
            final class Counter {
                var nothing
                var missing = nil
                var handler = { print("changed") }
                var point = (1, 2)
                var tags = [String]()

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

            extension Counter: nonisolated Stowage.PersistentModel {}
            """#,
            diagnostics: [
                DiagnosticSpec(
                    message: #"@Model needs the type of 'nothing' to persist it: write a type annotation, as in 'nothing: TypeName', or an initial value the type can be inferred from."#,
                    line: 3, column: 9, fixIts: []),
                DiagnosticSpec(
                    message: #"'missing' starts as 'nil', which does not say what it holds: add a type annotation with an optional type, as in 'missing: TypeName? = nil'."#,
                    line: 4, column: 19, fixIts: [FixItSpec(message: "Add a type annotation ': TypeName?'")]),
                DiagnosticSpec(
                    message: #"@Model cannot store 'handler', whose initial value is a closure: a closure cannot be stored. Use a Codable type (a struct, an enum, an array or dictionary of Codable values) or another @Model class, or mark the property @Transient."#,
                    line: 5, column: 19, fixIts: [FixItSpec(message: "Mark 'handler' @Transient")]),
                DiagnosticSpec(
                    message: #"@Model cannot store 'point', whose initial value is a tuple: a tuple is not Codable; declare a Codable struct instead. Use a Codable type (a struct, an enum, an array or dictionary of Codable values) or another @Model class, or mark the property @Transient."#,
                    line: 6, column: 17, fixIts: [FixItSpec(message: "Mark 'point' @Transient")]),
                DiagnosticSpec(
                    message: #"@Relationship applies to properties holding other models (such as 'Budget?' or '[Transaction]'), but 'tags' has type '[String]'. Remove @Relationship; use @Attribute to configure how a value is stored."#,
                    line: 7, column: 5, fixIts: [FixItSpec(message: "Remove '@Relationship'")]),
            ],
            fixedSource: #"""
            @Model
            final class Counter {
                var nothing
                var missing: TypeName? = nil
                @Transient var handler = { print("changed") }
                @Transient var point = (1, 2)
                var tags = [String]()
            }
            """#)
    }

    @Test func unsupportedTypes() {
        assertExpansion(
            #"""
            @Model
            final class Widget {
                var onChange: () -> Void
                var handler: (() -> Void)?
                var point: (x: Int, y: Int)
                var value: Any
                var kind: Any.Type
                var shape: any Shape
                var both: Codable & Hashable
                var info: [String: Any] = [:]
                var opaque: some Codable
            }
            """#,
            expandedSource: #"""
            final class Widget {
                var onChange: () -> Void
                var handler: (() -> Void)?
                var point: (x: Int, y: Int)
                var value: Any
                var kind: Any.Type
                var shape: any Shape
                var both: Codable & Hashable
                var info: [String: Any] = [:]
                var opaque: some Codable

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

            extension Widget: nonisolated Stowage.PersistentModel {}
            """#,
            diagnostics: [
                DiagnosticSpec(
                    message: #"@Model cannot store 'onChange' of type '() -> Void': a closure cannot be stored. Use a Codable type (a struct, an enum, an array or dictionary of Codable values) or another @Model class, or mark the property @Transient."#,
                    line: 3, column: 19, fixIts: []),
                DiagnosticSpec(
                    message: #"@Model cannot store 'handler' of type '(() -> Void)?': a closure cannot be stored. Use a Codable type (a struct, an enum, an array or dictionary of Codable values) or another @Model class, or mark the property @Transient."#,
                    line: 4, column: 19, fixIts: [FixItSpec(message: "Mark 'handler' @Transient")]),
                DiagnosticSpec(
                    message: #"@Model cannot store 'point' of type '(x: Int, y: Int)': a tuple is not Codable; declare a Codable struct instead. Use a Codable type (a struct, an enum, an array or dictionary of Codable values) or another @Model class, or mark the property @Transient."#,
                    line: 5, column: 16, fixIts: []),
                DiagnosticSpec(
                    message: #"@Model cannot store 'value' of type 'Any': the concrete type of an existential is unknown when the value is read back. Use a Codable type (a struct, an enum, an array or dictionary of Codable values) or another @Model class, or mark the property @Transient."#,
                    line: 6, column: 16, fixIts: []),
                DiagnosticSpec(
                    message: #"@Model cannot store 'kind' of type 'Any.Type': a metatype cannot be stored. Use a Codable type (a struct, an enum, an array or dictionary of Codable values) or another @Model class, or mark the property @Transient."#,
                    line: 7, column: 15, fixIts: []),
                DiagnosticSpec(
                    message: #"@Model cannot store 'shape' of type 'any Shape': the concrete type of an existential is unknown when the value is read back. Use a Codable type (a struct, an enum, an array or dictionary of Codable values) or another @Model class, or mark the property @Transient."#,
                    line: 8, column: 16, fixIts: []),
                DiagnosticSpec(
                    message: #"@Model cannot store 'both' of type 'Codable & Hashable': the concrete type of an existential is unknown when the value is read back. Use a Codable type (a struct, an enum, an array or dictionary of Codable values) or another @Model class, or mark the property @Transient."#,
                    line: 9, column: 15, fixIts: []),
                DiagnosticSpec(
                    message: #"@Model cannot store 'info' of type '[String: Any]': the concrete type of an existential is unknown when the value is read back. Use a Codable type (a struct, an enum, an array or dictionary of Codable values) or another @Model class, or mark the property @Transient."#,
                    line: 10, column: 24, fixIts: [FixItSpec(message: "Mark 'info' @Transient")]),
                DiagnosticSpec(
                    message: #"@Model cannot store 'opaque' of type 'some Codable': an opaque type cannot be stored. Use a Codable type (a struct, an enum, an array or dictionary of Codable values) or another @Model class, or mark the property @Transient."#,
                    line: 11, column: 17, fixIts: []),
            ],
            fixedSource: #"""
            @Model
            final class Widget {
                var onChange: () -> Void
                @Transient var handler: (() -> Void)?
                var point: (x: Int, y: Int)
                var value: Any
                var kind: Any.Type
                var shape: any Shape
                var both: Codable & Hashable
                @Transient var info: [String: Any] = [:]
                var opaque: some Codable
            }
            """#)
    }

    @Test func propertyObserversAndLazy() {
        assertExpansion(
            #"""
            @Model
            final class Budget {
                var name: String = "" {
                    didSet { print(name) }
                }
                lazy var summary: String = "\(name)"
            }
            """#,
            expandedSource: #"""
            final class Budget {
                var name: String = "" {
                    didSet { print(name) }
                }
                lazy var summary: String = "\(name)"

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

            extension Budget: nonisolated Stowage.PersistentModel {}
            """#,
            diagnostics: [
                DiagnosticSpec(
                    message: #"@Model cannot persist 'name' because it has willSet/didSet observers, which cannot be combined with the accessors @Model generates. Move that code into a method that sets the property, or mark the property @Transient."#,
                    line: 3, column: 9, fixIts: [FixItSpec(message: "Mark 'name' @Transient")]),
                DiagnosticSpec(
                    message: #"@Model cannot persist the lazy property 'summary'. Mark it @Transient to keep it as a cache that is not stored, or remove 'lazy' to store it."#,
                    line: 6, column: 5, fixIts: [FixItSpec(message: "Mark 'summary' @Transient"), FixItSpec(message: "Remove 'lazy'")]),
            ],
            fixedSource: #"""
            @Model
            final class Budget {
                @Transient var name: String = "" {
                    didSet { print(name) }
                }
                @Transient lazy var summary: String = "\(name)"
            }
            """#)
    }

    @Test func severalPropertiesInOneDeclaration() {
        assertExpansion(
            #"""
            @Model
            final class Point {
                var x, y: Double
            }
            """#,
            expandedSource: #"""
            final class Point {
                var x, y: Double

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

            extension Point: nonisolated Stowage.PersistentModel {}
            """#,
            diagnostics: [
                DiagnosticSpec(
                    message: #"@Model persists properties declared one per 'var': declare 'x', 'y' each with its own 'var' and type annotation."#,
                    line: 3, column: 9, fixIts: []),
            ])
    }

    @Test func transientProblems() {
        assertExpansion(
            #"""
            @Model
            final class Budget {
                @Transient var scratch: [String]
                @Transient var note: String?
                @Transient @Attribute(.unique) var flag: Bool = false
            }
            """#,
            expandedSource: #"""
            final class Budget {
                var scratch: [String]
                var note: String?
                var flag: Bool = false

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

            extension Budget: nonisolated Stowage.PersistentModel {}
            """#,
            diagnostics: [
                DiagnosticSpec(
                    message: #"The @Transient property 'scratch' needs a default value: models fetched from a store are created without calling your initializers. Add a default value (as in '= 0'), or make its type optional."#,
                    line: 3, column: 20, fixIts: []),
                DiagnosticSpec(
                    message: #"'flag' is marked both @Transient and @Attribute, but a transient property is not stored. Remove @Attribute, or remove @Transient to store the property."#,
                    line: 5, column: 16, fixIts: [FixItSpec(message: "Remove '@Attribute'")]),
            ],
            fixedSource: #"""
            @Model
            final class Budget {
                @Transient var scratch: [String]
                @Transient var note: String?
                @Transient var flag: Bool = false
            }
            """#)
    }

    @Test func relationshipOnAValueOrANonOptionalModel() {
        assertExpansion(
            #"""
            @Model
            final class Transaction {
                @Relationship(deleteRule: .cascade) var note: String
                @Relationship(inverse: \Budget.transactions) var budget: Budget
            }
            """#,
            expandedSource: #"""
            final class Transaction {
                var note: String
                var budget: Budget

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

            extension Transaction: nonisolated Stowage.PersistentModel {}
            """#,
            diagnostics: [
                DiagnosticSpec(
                    message: #"@Relationship applies to properties holding other models (such as 'Budget?' or '[Transaction]'), but 'note' has type 'String'. Remove @Relationship; use @Attribute to configure how a value is stored."#,
                    line: 3, column: 5, fixIts: [FixItSpec(message: "Remove '@Relationship'")]),
                DiagnosticSpec(
                    message: #"The to-one relationship 'budget' must be optional: a model has no related model until one is set, and loses it when that model is deleted. Declare it 'Budget?'."#,
                    line: 4, column: 62, fixIts: [FixItSpec(message: "Make the type 'Budget?'")]),
            ],
            fixedSource: #"""
            @Model
            final class Transaction {
                var note: String
                @Relationship(inverse: \Budget.transactions) var budget: Budget?
            }
            """#)
    }
}

@Suite struct MarkerDiagnosticTests {
    @Test func attributeOutsideAModel() {
        assertExpansion(
            #"""
            final class Plain {
                @Attribute(.unique) var name: String = ""
                @Transient var cache: Int = 0
            }
            """#,
            expandedSource: #"""
            final class Plain {
                var name: String = ""
                var cache: Int = 0
            }
            """#,
            diagnostics: [
                DiagnosticSpec(
                    message: #"@Attribute has no effect here: it configures a stored property of a @Model class. Attach @Model to the class, or remove @Attribute."#,
                    line: 2, column: 5, severity: .warning, fixIts: [FixItSpec(message: "Remove '@Attribute'")]),
                DiagnosticSpec(
                    message: #"@Transient has no effect here: it configures a stored property of a @Model class. Attach @Model to the class, or remove @Transient."#,
                    line: 3, column: 5, severity: .warning, fixIts: [FixItSpec(message: "Remove '@Transient'")]),
            ],
            fixedSource: #"""
            final class Plain {
                var name: String = ""
                var cache: Int = 0
            }
            """#)
    }

    @Test func attributeOnComputedOrStaticProperty() {
        assertExpansion(
            #"""
            @Model
            final class Budget {
                @Attribute(.unique) var total: Double { 0 }
                @Relationship static var shared: [Budget] = []
            }
            """#,
            unexpanded: ["Model"],
            expandedSource: #"""
            @Model
            final class Budget {
                var total: Double { 0 }
                static var shared: [Budget] = []
            }
            """#,
            diagnostics: [
                DiagnosticSpec(
                    message: #"@Attribute has no effect on a computed property: only stored instance properties are persisted. Remove @Attribute."#,
                    line: 3, column: 5, severity: .warning, fixIts: [FixItSpec(message: "Remove '@Attribute'")]),
                DiagnosticSpec(
                    message: #"@Relationship has no effect on a static property: only stored instance properties are persisted. Remove @Relationship."#,
                    line: 4, column: 5, severity: .warning, fixIts: [FixItSpec(message: "Remove '@Relationship'")]),
            ],
            fixedSource: #"""
            @Model
            final class Budget {
                var total: Double { 0 }
                static var shared: [Budget] = []
            }
            """#)
    }
}

@Suite struct UniqueIndexDiagnosticTests {
    @Test func uniqueWithoutGenericArgument() {
        assertExpansion(
            #"""
            @Model
            final class Person {
                #Unique([\.email])
                var email: String
            }
            """#,
            unexpanded: ["Model"],
            expandedSource: #"""
            @Model
            final class Person {
                var email: String
            }
            """#,
            diagnostics: [
                DiagnosticSpec(
                    message: #"#Unique needs the model type as its generic argument: write '#Unique<Person>([\.property])'."#,
                    line: 3, column: 5, fixIts: [FixItSpec(message: "Insert '<Person>'")]),
            ],
            fixedSource: #"""
            @Model
            final class Person {
                #Unique<Person>([\.email])
                var email: String
            }
            """#)
    }

    @Test func uniqueAndIndexOutsideAModelClass() {
        assertExpansion(
            #"""
            struct Person {
                #Unique<Person>([\.email])
                var email: String
            }
            #Index<Person>([\.email])
            """#,
            expandedSource: #"""
            struct Person {
                var email: String
            }
            """#,
            diagnostics: [
                DiagnosticSpec(
                    message: #"#Unique declares uniqueness constraints of a model, so it must be written in the body of a @Model class. Move it into the class."#,
                    line: 2, column: 5, fixIts: []),
                DiagnosticSpec(
                    message: #"#Index declares indexes of a model, so it must be written in the body of a @Model class. Move it into the class."#,
                    line: 5, column: 1, fixIts: []),
            ])
    }

    @Test func genericArgumentNamesAnotherModel() {
        assertExpansion(
            #"""
            @Model
            final class Person {
                #Index<Budget>([\.name])
                var name: String
            }
            """#,
            unexpanded: ["Model"],
            expandedSource: #"""
            @Model
            final class Person {
                var name: String
            }
            """#,
            diagnostics: [
                DiagnosticSpec(
                    message: #"#Index<Budget> is written in the body of 'Person' and applies to it: write '#Index<Person>'."#,
                    line: 3, column: 12, fixIts: [FixItSpec(message: "Replace 'Budget' with 'Person'")]),
            ],
            fixedSource: #"""
            @Model
            final class Person {
                #Index<Person>([\.name])
                var name: String
            }
            """#)
    }

    @Test func noKeyPaths() {
        assertExpansion(
            #"""
            @Model
            final class Person {
                #Unique<Person>()
                var email: String
            }
            """#,
            unexpanded: ["Model"],
            expandedSource: #"""
            @Model
            final class Person {
                var email: String
            }
            """#,
            diagnostics: [
                DiagnosticSpec(
                    message: #"#Unique needs at least one array of key paths, as in '#Unique<Person>([\.property])'."#,
                    line: 3, column: 5, fixIts: []),
            ])
    }
}
