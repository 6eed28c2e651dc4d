#if !canImport(Darwin)
// Apple's "Adding and editing persistent data in your app" sample (SwiftDataAnimals), in the version
// with a SchemaMigrationPlan: models nested in a `VersionedSchema` enum, an enum attribute, a cascading
// to-many relationship with an inverse, the sample data and the queries of its views. Version 2 (whose
// `AnimalCategory` declares `var animals = [Animal]()`, without a type annotation), the migration plan
// and Apple's own top-level models (same spelling) are in RelationshipSpellings.swift.
import Foundation
import SwiftData

enum SchemaV1: VersionedSchema {
    static var versionIdentifier = Schema.Version(1, 0, 0)

    static var models: [any PersistentModel.Type] {
        [Animal.self, AnimalCategory.self]
    }
}

extension SchemaV1 {
    @Model
    final class Animal {
        var name: String?
        var diet: Diet?
        var category: AnimalCategory?

        init(name: String, diet: Diet) {
            self.name = name
            self.diet = diet
        }

        enum Diet: String, CaseIterable, Codable {
            case herbivorous = "Herbivore"
            case carnivorous = "Carnivore"
            case omnivorous = "Omnivore"
        }
    }

    @Model
    final class AnimalCategory {
        var name: String?
        // `.cascade` tells SwiftData to delete all animals contained in the
        // category when deleting it.
        @Relationship(deleteRule: .cascade, inverse: \Animal.category)
        var animals: [Animal]? = []

        init(name: String) {
            self.name = name
        }
    }
}

func setupModelContainer(for versionedSchema: VersionedSchema.Type = SchemaV1.self, url: URL? = nil) throws -> ModelContainer {
    let schema = Schema(versionedSchema: versionedSchema)
    var config: ModelConfiguration
    if let url = url {
        config = ModelConfiguration(schema: schema, url: url)
    } else {
        config = ModelConfiguration(schema: schema, isStoredInMemoryOnly: true)
    }
    return try ModelContainer(for: schema, configurations: [config])
}

// MARK: Sample Data

func loadSampleDataSchemaV1(context: ModelContext) throws {
    typealias AnimalCategory = SchemaV1.AnimalCategory
    typealias Animal = SchemaV1.Animal

    // Add the animal categories to the model context.

    let amphibian = AnimalCategory(name: "Amphibian")
    let bird = AnimalCategory(name: "Bird")
    let fish = AnimalCategory(name: "Fish")
    let invertebrate = AnimalCategory(name: "Invertebrate")
    let mammal = AnimalCategory(name: "Mammal")
    let reptile = AnimalCategory(name: "Reptile")

    context.insert(amphibian)
    context.insert(bird)
    context.insert(fish)
    context.insert(invertebrate)
    context.insert(mammal)
    context.insert(reptile)

    // Add the animals to the model context.

    let dog = Animal(name: "Dog", diet: .carnivorous)
    let cat = Animal(name: "Cat", diet: .carnivorous)
    let kangaroo = Animal(name: "Red kangaroo", diet: .herbivorous)
    let gibbon = Animal(name: "Southern gibbon", diet: .herbivorous)
    let sparrow = Animal(name: "House sparrow", diet: .omnivorous)
    let newt = Animal(name: "Newt", diet: .carnivorous)

    context.insert(dog)
    context.insert(cat)
    context.insert(kangaroo)
    context.insert(gibbon)
    context.insert(sparrow)
    context.insert(newt)

    // Set the category for each animal.

    dog.category = mammal
    cat.category = mammal
    kangaroo.category = mammal
    gibbon.category = mammal
    sparrow.category = bird
    newt.category = amphibian

    try context.save()
}
#endif
