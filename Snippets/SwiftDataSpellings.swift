// snippet.hide
// Models and attributes: SwiftData code as Apple's samples write it, unchanged.
import Stowage

// snippet.show
// snippet.untyped
@Model
final class Animal {
    var name = ""
    var diet = Diet.herbivorous
    var category: AnimalCategory?
    init(name: String) { self.name = name }
}

@Model
final class AnimalCategory {
    var name = ""
    @Relationship(deleteRule: .cascade, inverse: \Animal.category)
    var animals = [Animal]()                       // a to-many relationship, as `[Animal] = []` is
    init(name: String) { self.name = name }
}

enum Diet: String, Codable { case herbivorous, carnivorous, omnivorous }
// snippet.end

// snippet.indexes
@Model
final class Trip {
    #Index<Trip>(.binary([\.name, \.startDate]), .binary([\.endDate]))

    var name = ""
    var startDate = Date.now
    var endDate = Date.now
    init(name: String) { self.name = name }
}
// snippet.end

// snippet.transformable
final class Swatch {                                // not Codable
    let red, green, blue: UInt8
    init(red: UInt8, green: UInt8, blue: UInt8) { (self.red, self.green, self.blue) = (red, green, blue) }
}

final class SwatchTransformer: ValueTransformer {
    override class func allowsReverseTransformation() -> Bool { true }
    override func transformedValue(_ value: Any?) -> Any? {
        (value as? Swatch).map { Data([$0.red, $0.green, $0.blue]) }
    }
    override func reverseTransformedValue(_ value: Any?) -> Any? {
        guard let bytes = (value as? Data).map(Array.init), bytes.count == 3 else { return nil }
        return Swatch(red: bytes[0], green: bytes[1], blue: bytes[2])
    }
}

@Model
final class Theme {
    var name = ""
    @Attribute(.transformable(by: SwatchTransformer.self)) var tint: Swatch
    init(name: String, tint: Swatch) {
        self.name = name
        self.tint = tint
    }
}
// snippet.end
// snippet.hide

let container = try ModelContainer(
    for: AnimalCategory.self, Trip.self, Theme.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
let context = ModelContext(container)
let mammals = AnimalCategory(name: "Mammal")
context.insert(mammals)
mammals.animals.append(Animal(name: "Giraffe"))
context.insert(Trip(name: "Alps"))
context.insert(Theme(name: "Sea", tint: Swatch(red: 0, green: 90, blue: 200)))
try context.save()
let fresh = ModelContext(container)
let categories = try fresh.fetch(FetchDescriptor<AnimalCategory>())
precondition(categories.count == 1 && categories[0].animals.map(\.name) == ["Giraffe"], "[Animal]() is a relationship")
let themes = try fresh.fetch(FetchDescriptor<Theme>())
precondition(themes.first?.tint.blue == 200, "the transformer stores the swatch")
precondition(container.schema.entitiesByName["Trip"]?.indices == [["name", "startDate"], ["endDate"]], "binary indexes")
