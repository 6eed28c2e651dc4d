import Foundation
import Stowage
@testable import StowageCore
import Testing

/// Item 8: unique constraints make inserts upserts.
@Suite struct UniqueTests {
    private func tags(_ container: ModelContainer) throws -> [(String, String, Int)] {
        try ModelContext(container).fetch(FetchDescriptor<Tag>(sortBy: [SortDescriptor(\.code)])).map { ($0.code, $0.label, $0.uses) }
    }

    @Test func insertingAStoredUniqueValueUpdatesTheRow() throws {
        let container = try inMemoryContainer(Tag.self)
        let context = ModelContext(container)
        context.insert(Tag(code: "food", label: "Food", uses: 1))
        context.insert(Tag(code: "rent", label: "Rent", uses: 1))
        try context.save()
        let stored = try #require(try context.fetch(FetchDescriptor<Tag>(predicate: #Predicate { $0.code == "food" })).first)
        let storedID = stored.persistentModelID

        let later = ModelContext(container)
        let duplicate = Tag(code: "food", label: "Groceries", uses: 5)
        later.insert(duplicate)
        try later.save()

        let rows = try tags(container)
        #expect(rows.count == 2)
        #expect(rows.first { $0.0 == "food" }.map { [$0.1, String($0.2)] } == ["Groceries", "5"])
        #expect(duplicate.persistentModelID == storedID)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Tag>()) == 2)
        // The first context sees the upserted values after the other context's save.
        context.processPendingChanges()
        #expect(stored.label == "Groceries")
    }

    @Test func upsertInTheContextThatHoldsTheStoredRow() throws {
        let container = try inMemoryContainer(Tag.self)
        let context = ModelContext(container)
        let original = Tag(code: "a", label: "first")
        context.insert(original)
        try context.save()
        context.insert(Tag(code: "a", label: "second", uses: 2))
        try context.save()
        #expect(try tags(container).map(\.1) == ["second"])
        #expect(original.label == "second" && original.uses == 2)
        let fetched = try context.fetch(FetchDescriptor<Tag>())
        #expect(fetched.count == 1)
        #expect(fetched.first === original)
    }

    @Test func bothModelsNewInTheSameContext() throws {
        let container = try inMemoryContainer(Tag.self)
        let context = ModelContext(container)
        context.insert(Tag(code: "dup", label: "one", uses: 1))
        context.insert(Tag(code: "dup", label: "two", uses: 2))
        context.insert(Tag(code: "other", label: "three", uses: 3))
        try context.save()
        let rows = try tags(container)
        #expect(rows.count == 2)
        #expect(rows.first { $0.0 == "dup" }?.1 == "two")
        #expect(rows.first { $0.0 == "dup" }?.2 == 2)
        #expect(try context.fetchCount(FetchDescriptor<Tag>()) == 2)
        #expect(try context.fetch(FetchDescriptor<Tag>()).count == 2)
    }

    @Test func uniqueTupleUpsert() throws {
        let container = try inMemoryContainer(Person.self)
        let context = ModelContext(container)
        context.insert(Person(firstName: "Ada", lastName: "Lovelace", age: 30))
        context.insert(Person(firstName: "Ada", lastName: "Byron", age: 20))
        try context.save()

        let later = ModelContext(container)
        later.insert(Person(firstName: "Ada", lastName: "Lovelace", age: 36))
        later.insert(Person(firstName: "Charles", lastName: "Lovelace", age: 40))
        try later.save()

        let people = try ModelContext(container).fetch(FetchDescriptor<Person>(sortBy: [SortDescriptor(\.lastName), SortDescriptor(\.firstName)]))
        #expect(people.map { "\($0.firstName) \($0.lastName) \($0.age)" } == ["Ada Byron 20", "Ada Lovelace 36", "Charles Lovelace 40"])
    }

    @Test func changingAUniqueValueToAStoredOneFailsTheSave() throws {
        let container = try inMemoryContainer(Tag.self)
        let context = ModelContext(container)
        context.insert(Tag(code: "a", label: "A"))
        let b = Tag(code: "b", label: "B")
        context.insert(b)
        try context.save()
        b.code = "a"
        let error = stowageError { try context.save() }
        #expect(error?.code == .constraintViolation)
        #expect(error?.entityName == "Tag")
        #expect(context.hasChanges)
        #expect(try tags(container).map(\.0) == ["a", "b"])
    }
}
