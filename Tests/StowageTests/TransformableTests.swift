import Foundation
import GRDB
import Stowage
@testable import StowageCore
import Testing

/// A color that is not `Codable`: what `.transformable(by:)` is for.
final class Swatch: NSObject {
    let red: UInt8, green: UInt8, blue: UInt8

    init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? Swatch else { return false }
        return (red, green, blue) == (other.red, other.green, other.blue)
    }

    override var hash: Int { Int(red) << 16 | Int(green) << 8 | Int(blue) }
}

/// Stores a swatch as its three bytes.
final class SwatchTransformer: ValueTransformer {
    override class func transformedValueClass() -> AnyClass { NSData.self }
    override class func allowsReverseTransformation() -> Bool { true }

    override func transformedValue(_ value: Any?) -> Any? {
        guard let swatch = value as? Swatch else { return nil }
        return Data([swatch.red, swatch.green, swatch.blue])
    }

    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let data = value as? Data, data.count == 3 else { return nil }
        return Swatch(red: data[data.startIndex], green: data[data.startIndex + 1], blue: data[data.startIndex + 2])
    }
}

/// A transformer that cannot read its output back.
final class OneWayTransformer: ValueTransformer {
    override func transformedValue(_ value: Any?) -> Any? { Data() }
}

/// A transformer whose output is not `Data`.
final class TextTransformer: ValueTransformer {
    override class func allowsReverseTransformation() -> Bool { true }
    override func transformedValue(_ value: Any?) -> Any? { "not data" }
}

let swatchTransformerName = NSValueTransformerName("StowageTestsSwatchTransformer")

/// Registers the named transformer the models below use (idempotent).
func registerSwatchTransformer() {
    ValueTransformer.setValueTransformer(SwatchTransformer(), forName: swatchTransformerName)
}

@Model final class Palette {
    var name: String
    @Attribute(.transformable(by: SwatchTransformer.self)) var main: Swatch
    @Attribute(.transformable(by: "StowageTestsSwatchTransformer")) var accent: Swatch?

    init(name: String, main: Swatch, accent: Swatch? = nil) {
        self.name = name
        self.main = main
        self.accent = accent
    }
}

@Model final class UnregisteredPalette {
    @Attribute(.transformable(by: "StowageTestsNoSuchTransformer")) var main: Swatch?
    init() {}
}

@Model final class OneWayPalette {
    @Attribute(.transformable(by: OneWayTransformer.self)) var main: Swatch?
    init() {}
}

@Model final class TextPalette {
    var name = ""
    @Attribute(.transformable(by: TextTransformer.self)) var main: Swatch?
    init(name: String, main: Swatch) {
        self.name = name
        self.main = main
    }
}

@Model final class NativePalette {
    @Attribute(.transformable(by: SwatchTransformer.self)) var label: String = ""
    init() {}
}

@Suite struct TransformableTests {
    @Test func theSchemaDescribesTheTransformer() throws {
        registerSwatchTransformer()
        let entity = try #require(Schema([Palette.self]).entitiesByName["Palette"])
        let main = try #require(entity.attributeList.first { $0.name == "main" })
        #expect(main.isTransformable && main.storageType == .blob && !main.isOptional)
        let accent = try #require(entity.attributeList.first { $0.name == "accent" })
        #expect(accent.isTransformable && accent.isOptional)
        #expect(entity.attributeList.first { $0.name == "name" }?.isTransformable == false)
        #expect(ValueTransformer(forName: swatchTransformerName) is SwatchTransformer)
        #expect(ValueTransformer(forName: NSValueTransformerName("StowageTestsNoSuchTransformer")) == nil)
    }

    @Test func valuesRoundTripThroughTheTransformerAndAFreshContainer() throws {
        registerSwatchTransformer()
        try withFileStore([Palette.self]) { url, open in
            do {
                let context = ModelContext(try open())
                context.insert(Palette(name: "sea", main: Swatch(red: 0, green: 90, blue: 200), accent: Swatch(red: 1, green: 2, blue: 3)))
                context.insert(Palette(name: "plain", main: Swatch(red: 9, green: 9, blue: 9)))
                try context.save()
            }
            // Stored as the transformer's Data, in BLOB columns; nil as NULL.
            let raw = try rawRead(url) { db in
                try GRDB.Row.fetchAll(db, sql: "SELECT name, main, accent FROM Palette ORDER BY name")
                    .map { ($0["name"] as String, $0["main"] as Data?, $0["accent"] as Data?) }
            }
            #expect(raw.map(\.0) == ["plain", "sea"])
            #expect(raw.map(\.1) == [Data([9, 9, 9]), Data([0, 90, 200])])
            #expect(raw.map(\.2) == [nil, Data([1, 2, 3])])

            let context = ModelContext(try open())
            let palettes = try context.fetch(FetchDescriptor<Palette>(sortBy: [SortDescriptor(\.name)]))
            #expect(palettes.map(\.main) == [Swatch(red: 9, green: 9, blue: 9), Swatch(red: 0, green: 90, blue: 200)])
            #expect(palettes.map(\.accent) == [nil, Swatch(red: 1, green: 2, blue: 3)])
            // Comparing with nil is SQL's IS NULL on the BLOB column.
            #expect(try context.fetchCount(FetchDescriptor<Palette>(predicate: #Predicate { $0.accent != nil })) == 1)
            // Changes are saved through the transformer too.
            palettes[0].accent = Swatch(red: 7, green: 7, blue: 7)
            try context.save()
            let reread = try ModelContext(try open()).fetch(FetchDescriptor<Palette>(predicate: #Predicate { $0.name == "plain" }))
            #expect(reread.first?.accent == Swatch(red: 7, green: 7, blue: 7))
        }
    }

    @Test func anUnregisteredTransformerNameIsRefusedWhenTheContainerOpens() {
        let error = stowageError { _ = try inMemoryContainer(UnregisteredPalette.self) }
        #expect(error?.code == .invalidSchema)
        #expect(error?.message.contains("no value transformer is registered under that name") == true, "\(String(describing: error))")
        #expect(error?.propertyName == "main")
    }

    @Test func aTransformerThatCannotReverseIsRefusedWhenTheContainerOpens() {
        let error = stowageError { _ = try inMemoryContainer(OneWayPalette.self) }
        #expect(error?.code == .invalidSchema)
        #expect(error?.message.contains("does not allow reverse transformation") == true, "\(String(describing: error))")
    }

    @Test func aNativelyStoredTypeIsRefusedWhenTheContainerOpens() {
        let error = stowageError { _ = try inMemoryContainer(NativePalette.self) }
        #expect(error?.code == .invalidSchema)
        #expect(error?.message.contains("which Stowage stores natively") == true, "\(String(describing: error))")
    }

    @Test func aTransformerThatDoesNotMakeDataFailsTheSaveAndWritesNothing() throws {
        try withFileStore([TextPalette.self]) { _, open in
            let container = try open()
            let context = ModelContext(container)
            context.insert(TextPalette(name: "a", main: Swatch(red: 1, green: 1, blue: 1)))
            let error = stowageError { try context.save() }
            #expect(error?.code == .invalidValue)
            #expect(error?.message.contains("instead of Data") == true, "\(String(describing: error))")
            #expect(error?.propertyName == "main")
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<TextPalette>()) == 0)
        }
    }
}
