#if !canImport(Darwin)
import Foundation
import SwiftData
import Testing

@Suite("Animals")
struct AnimalsTests {
    typealias Animal = SchemaV1.Animal
    typealias AnimalCategory = SchemaV1.AnimalCategory

    @Test func sampleDataQueriesAndCascade() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("animals-\(UUID().uuidString).store")
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            let context = ModelContext(try setupModelContainer(for: SchemaV1.self, url: url))
            try loadSampleDataSchemaV1(context: context)
        }
        let context = ModelContext(try setupModelContainer(for: SchemaV1.self, url: url))

        // The category list, `@Query(sort: \AnimalCategory.name)`.
        let categories = try context.fetch(FetchDescriptor<AnimalCategory>(sortBy: [SortDescriptor(\.name)]))
        #expect(categories.compactMap(\.name) == ["Amphibian", "Bird", "Fish", "Invertebrate", "Mammal", "Reptile"])
        #expect(categories.first { $0.name == "Mammal" }?.animals?.count == 4)

        // The animal list of a category: `#Predicate<Animal> { $0.category?.name == animalCategoryName }`, sorted by name.
        let animalCategoryName = "Mammal"
        let predicate = #Predicate<Animal> { animal in
            animal.category?.name == animalCategoryName
        }
        let mammals = try context.fetch(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.name)]))
        #expect(mammals.compactMap(\.name) == ["Cat", "Dog", "Red kangaroo", "Southern gibbon"])
        #expect(mammals.first?.diet == .carnivorous)

        // An enum attribute in a predicate.
        let herbivorous = Animal.Diet.herbivorous
        #expect(try context.fetchCount(FetchDescriptor<Animal>(predicate: #Predicate { $0.diet == herbivorous })) == 2)

        // Editing an animal: a new category, saved.
        let newt = try #require(try context.fetch(FetchDescriptor<Animal>(predicate: #Predicate { $0.name == "Newt" })).first)
        newt.category = categories.first { $0.name == "Reptile" }
        try context.save()
        #expect(categories.first { $0.name == "Amphibian" }?.animals?.isEmpty == true)

        // Deleting a category deletes its animals (`.cascade`); "reload sample data" deletes them all.
        context.delete(try #require(categories.first { $0.name == "Mammal" }))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Animal>()) == 2)
        try context.delete(model: AnimalCategory.self)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Animal>()) == 0)
        try loadSampleDataSchemaV1(context: context)
        #expect(try context.fetchCount(FetchDescriptor<Animal>()) == 6)
    }
}
#endif
