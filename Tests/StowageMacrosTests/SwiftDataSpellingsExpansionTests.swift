import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosGenericTestSupport
import Testing

@testable import StowageMacros

/// SwiftData spellings real code uses: properties without type annotations, `#Index` with index kinds,
/// `@Attribute(.transformable(by:))`.
@Suite struct UntypedPropertyExpansionTests {
    /// The storage `@Model` declares for a property: with a type annotation, its optional;
    /// without one, the type the compiler infers from the initial value, which is not evaluated there.
    static let spellings: [(declaration: String, storage: String)] = [
        ("var sights = [Sight]()", "_sights = Stowage._$emptyStorage(typedAs: { @MainActor in [Sight]() })"),
        ("var animals = [Animal]()", "_animals = Stowage._$emptyStorage(typedAs: { @MainActor in [Animal]() })"),
        ("var count = 0", "_count = Stowage._$emptyStorage(typedAs: { @MainActor in 0 })"),
        ("var name = \"\"", "_name = Stowage._$emptyStorage(typedAs: { @MainActor in \"\" })"),
        ("var ratio = 1.5", "_ratio = Stowage._$emptyStorage(typedAs: { @MainActor in 1.5 })"),
        ("var flag = false", "_flag = Stowage._$emptyStorage(typedAs: { @MainActor in false })"),
        ("var created = Date.now", "_created = Stowage._$emptyStorage(typedAs: { @MainActor in Date.now })"),
        ("var id = UUID()", "_id = Stowage._$emptyStorage(typedAs: { @MainActor in UUID() })"),
        ("var tags = Set<String>()", "_tags = Stowage._$emptyStorage(typedAs: { @MainActor in Set<String>() })"),
        ("var scores = [String: Int]()", "_scores = Stowage._$emptyStorage(typedAs: { @MainActor in [String: Int]() })"),
        ("var kind = Kind.basic", "_kind = Stowage._$emptyStorage(typedAs: { @MainActor in Kind.basic })"),
        ("var levels = Array<Int>()", "_levels = Stowage._$emptyStorage(typedAs: { @MainActor in Array<Int>() })"),
        ("var total = compute()", "_total = Stowage._$emptyStorage(typedAs: { @MainActor in compute() })"),
        ("var pair = [1, 2]", "_pair = Stowage._$emptyStorage(typedAs: { @MainActor in [1, 2] })"),
        ("var kind: Kind = .basic", "_kind: Swift.Optional<Kind> = nil"),
    ]

    @Test(arguments: spellings)
    func storageOfEachSpelling(_ spelling: (declaration: String, storage: String)) throws {
        let declaration = try #require(DeclSyntax("\(raw: spelling.declaration)").as(VariableDeclSyntax.self))
        let property = try #require(StoredProperty(persisted: declaration))
        let storage = ModelMacro.storageDeclaration(for: property)
        #expect(storage == "@exclusivity(unchecked) nonisolated(unsafe) private var \(spelling.storage)")
        // The accessors are the same as for an annotated property of the same name.
        func accessors(of declaration: VariableDeclSyntax) throws -> String {
            try PersistedPropertyMacro.expansion(
                of: AttributeSyntax("@_PersistedProperty"), providingAccessorsOf: declaration, in: BasicMacroExpansionContext()
            ).map(\.description).joined(separator: "\n")
        }
        let annotated = try #require(DeclSyntax("var \(raw: property.name): Int").as(VariableDeclSyntax.self))
        let generated = try accessors(of: declaration)
        #expect(generated == (try accessors(of: annotated)))
        #expect(generated.contains("init(initialValue)") && generated.contains("get {") && generated.contains("set {"))
    }

    /// The whole `@Model` expansion of a SwiftData-style model: each untyped property is persisted, and
    /// the literal initial values are schema defaults, as with annotations.
    @Test func modelWithUntypedProperties() {
        assertExpansion(
            #"""
            @Model
            final class Destination {
                var sights = [Sight]()
                var count = 0
                var created = Date.now
            }
            """#,
            expandedSource: #"""
            final class Destination {
                @Stowage._PersistedProperty
                var sights = [Sight]()
                @Stowage._PersistedProperty
                var count = 0
                @Stowage._PersistedProperty
                var created = Date.now

                @exclusivity(unchecked) nonisolated(unsafe) private var _sights = Stowage._$emptyStorage(typedAs: { @MainActor in [Sight]() })

                @exclusivity(unchecked) nonisolated(unsafe) private var _count = Stowage._$emptyStorage(typedAs: { @MainActor in 0 })

                @exclusivity(unchecked) nonisolated(unsafe) private var _created = Stowage._$emptyStorage(typedAs: { @MainActor in Date.now })

                @exclusivity(unchecked) nonisolated(unsafe) private var _$backingDataStorage = Stowage.ModelBackingData.Storage()

                nonisolated public var persistentBackingData: Stowage.ModelBackingData {
                    get { Stowage.ModelBackingData(self, &_$backingDataStorage) }
                    set { _$backingDataStorage = newValue.storageValue }
                }

                nonisolated public static func schemaMetadata() -> [Stowage.Schema.PropertyMetadata] {
                    Stowage._$nonisolatedMetadata { @MainActor in
                        [
                            Stowage.Schema.PropertyMetadata(name: "sights", keyPath: \Destination.sights, storage: \Destination._sights, get: { $0._sights }, set: { $0._sights = $1 }),
                            Stowage.Schema.PropertyMetadata(name: "count", keyPath: \Destination.count, storage: \Destination._count, get: { $0._count }, set: { $0._count = $1 }, defaultValue: 0),
                            Stowage.Schema.PropertyMetadata(name: "created", keyPath: \Destination.created, storage: \Destination._created, get: { $0._created }, set: { $0._created = $1 })
                        ]
                    }
                }

                nonisolated public init(backingData: Stowage.ModelBackingData.Storage) {
                    self._$backingDataStorage = backingData
                    self._sights = nil
                    self._count = nil
                    self._created = nil
                }

                nonisolated public static func _$load(_ reader: inout Stowage.ModelRowReader, into object: AnyObject) throws {
                    let model = unsafeDowncast(object, to: Self.self)
                    reader.loadState(into: &model._$backingDataStorage)
                    try reader.load(&model._sights)
                    try reader.load(&model._count)
                    try reader.load(&model._created)
                }

                nonisolated public static func _$store(_ writer: inout Stowage.ModelRowWriter, from object: AnyObject) throws {
                    let model = unsafeDowncast(object, to: Self.self)
                    try writer.store(model._sights)
                    try writer.store(model._count)
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

            extension Destination: nonisolated Stowage.PersistentModel {}
            """#)
    }

    @Test func typeShownByAnInitialValue() throws {
        let cases: [(String, String?)] = [
            ("0", "Int"), ("-1", "Int"), ("1.5", "Double"), ("true", "Bool"), ("\"a\"", "String"),
            ("Date()", "Date"), ("Date.now", "Date"), ("Kind.basic", "Kind"), ("Set<String>()", "Set<String>"),
            ("[Sight]()", "[Sight]"), ("[String: Int]()", "[String: Int]"), ("Array<Int>()", "Array<Int>"),
            ("compute()", nil), ("other.value", nil), ("[1, 2]", nil),
        ]
        for (source, expected) in cases {
            #expect(StoredProperty.typeShown(by: ExprSyntax("\(raw: source)"))?.trimmedDescription == expected, "\(source)")
        }
    }
}

@Suite struct IndexTypeExpansionTests {
    @Test func binaryIndexes() {
        assertExpansion(
            #"""
            @Model
            final class Trip {
                #Index<Trip>(.binary([\.name, \.startDate]), .binary([\.endDate]))
                var name: String
            }
            """#,
            unexpanded: ["Model"],
            expandedSource: #"""
            @Model
            final class Trip {
                public static var _$indices: [[Swift.AnyKeyPath]] {
                    Stowage.Schema.Index<Trip>([.binary([\.name, \.startDate]), .binary([\.endDate])])._$binaryKeyPaths
                }
                public static var _$rtreeIndices: [[Swift.AnyKeyPath]] {
                    Stowage.Schema.Index<Trip>([.binary([\.name, \.startDate]), .binary([\.endDate])])._$rtreeKeyPaths
                }
                var name: String
            }
            """#)
    }

    @Test func rtreeIndexIsAnError() {
        assertExpansion(
            #"""
            @Model
            final class Trip {
                #Index<Trip>(.binary([\.name]), .rtree([\.latitude, \.longitude]))
                var name: String
            }
            """#,
            unexpanded: ["Model"],
            expandedSource: #"""
            @Model
            final class Trip {
                var name: String
            }
            """#,
            diagnostics: [
                DiagnosticSpec(
                    message: #"Stowage cannot create an R-tree index: SQLite keeps an R*Tree in a virtual table of its own, which fetches on the model's table never use. Declare a binary index over the same properties instead: '.binary([\.latitude, \.longitude])'."#,
                    line: 3, column: 38, fixIts: [FixItSpec(message: "Replace '.rtree' with '.binary'")]),
            ],
            fixedSource: #"""
            @Model
            final class Trip {
                #Index<Trip>(.binary([\.name]), .binary([\.latitude, \.longitude]))
                var name: String
            }
            """#)
    }
}

@Suite struct TransformableExpansionTests {
    @Test func transformableAttributeUsesTheTransformableMetadata() {
        assertExpansion(
            #"""
            @Model
            final class Palette {
                @Attribute(.transformable(by: ColorTransformer.self)) var color: Color
                @Attribute(.transformable(by: "Named")) var accent: Color?
            }
            """#,
            expandedSource: #"""
            final class Palette {
                @Stowage._PersistedProperty var color: Color
                @Stowage._PersistedProperty var accent: Color?

                @exclusivity(unchecked) nonisolated(unsafe) private var _color: Swift.Optional<Color> = nil

                @exclusivity(unchecked) nonisolated(unsafe) private var _accent: Swift.Optional<Color?> = nil

                @exclusivity(unchecked) nonisolated(unsafe) private var _$backingDataStorage = Stowage.ModelBackingData.Storage()

                nonisolated public var persistentBackingData: Stowage.ModelBackingData {
                    get { Stowage.ModelBackingData(self, &_$backingDataStorage) }
                    set { _$backingDataStorage = newValue.storageValue }
                }

                nonisolated public static func schemaMetadata() -> [Stowage.Schema.PropertyMetadata] {
                    Stowage._$nonisolatedMetadata { @MainActor in
                        [
                            Stowage.Schema.PropertyMetadata(transformable: "color", keyPath: \Palette.color, storage: \Palette._color, get: { $0._color }, set: { $0._color = $1 }, metadata: Stowage.Schema.Attribute(.transformable(by: ColorTransformer.self))),
                            Stowage.Schema.PropertyMetadata(transformable: "accent", keyPath: \Palette.accent, storage: \Palette._accent, get: { $0._accent }, set: { $0._accent = $1 }, metadata: Stowage.Schema.Attribute(.transformable(by: "Named")))
                        ]
                    }
                }

                nonisolated public init(backingData: Stowage.ModelBackingData.Storage) {
                    self._$backingDataStorage = backingData
                    self._color = nil
                    self._accent = nil
                }

                nonisolated public static func _$load(_ reader: inout Stowage.ModelRowReader, into object: AnyObject) throws {
                    let model = unsafeDowncast(object, to: Self.self)
                    reader.loadState(into: &model._$backingDataStorage)
                    try reader.load(&model._color)
                    try reader.load(&model._accent)
                }

                nonisolated public static func _$store(_ writer: inout Stowage.ModelRowWriter, from object: AnyObject) throws {
                    let model = unsafeDowncast(object, to: Self.self)
                    try writer.store(model._color)
                    try writer.store(model._accent)
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

            extension Palette: nonisolated Stowage.PersistentModel {}
            """#)
    }
}
