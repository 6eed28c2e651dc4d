import Foundation
import Stowage
import Testing

/// The `@Model` expansions compiled against the real runtime: plain objects, observation, schema
/// metadata, identity, and a round trip through a store.
@Suite struct ModelTests {
    /// The seed's domain test: a model is a plain object until it is inserted.
    @Test func budgetTotalWithoutAContainer() {
        let budget = Budget(name: "Budget 1", limit: 100)
        budget.addTransaction(Transaction(note: "Note 1", amount: 100, date: Date()))
        budget.addTransaction(Transaction(note: "Note 2", amount: 50, date: Date()))
        budget.addTransaction(Transaction(note: "Note 3", amount: 100, date: Date()))

        #expect(budget.total == 250)
        #expect(budget.name == "Budget 1")
        #expect(budget.modelContext == nil)
        #expect(!budget.hasChanges)
        #expect(!budget.isDeleted)
    }

    @Test func defaultValuesAndPrivateSetters() {
        let transaction = Transaction(note: "Coffee", amount: 3, date: Date())
        #expect(transaction.hasReceipt == false)
        #expect(transaction.budget == nil)

        let photo = Photo(slug: "cat", image: Data([1, 2, 3]))
        #expect(photo.views == 0)
        photo.recordView()
        photo.recordView()
        #expect(photo.views == 2)
        #expect(photo.caption == nil)
    }

    @Test func settingAPropertyNotifiesObservers() {
        let budget = Budget(name: "Groceries", limit: 100)
        let changes = ChangeCounter()
        withObservationTracking {
            _ = budget.name
        } onChange: {
            changes.increment()
        }
        budget.limit = 200
        #expect(changes.count == 0, "limit was not read in the tracking closure")
        budget.name = "Food"
        #expect(changes.count == 1)
        #expect(budget.name == "Food")
    }

    /// Setters skip the observation registrar until a property is first read (observers register by
    /// reading); a model written before it is ever read must still notify once it is observed.
    @Test func writesBeforeTheFirstReadStillNotifyLaterObservers() {
        let budget = Budget(name: "Groceries", limit: 100)
        budget.limit = 150
        budget.name = "Food"
        let changes = ChangeCounter()
        withObservationTracking {
            _ = budget.limit
        } onChange: {
            changes.increment()
        }
        budget.limit = 200
        #expect(changes.count == 1)
        #expect(budget.limit == 200)
        #expect(budget.name == "Food")
    }

    @Test func schemaMetadataListsPersistedPropertiesInOrder() throws {
        #expect(Budget.schemaMetadata().map(\.name) == ["name", "limit", "transactions"])
        #expect(Transaction.schemaMetadata().map(\.name) == ["note", "amount", "date", "hasReceipt", "budget"])
        #expect(Photo.schemaMetadata().map(\.name) == ["id", "slug", "image", "caption", "views"])
        #expect(SpendTrackerSchemaV1.Budget.schemaMetadata().map(\.name) == ["name", "limit", "transactions"])

        let photo = Dictionary(uniqueKeysWithValues: Photo.schemaMetadata().map { ($0.name, $0) })
        let slug = try #require(photo["slug"]?.metadata as? Schema.Attribute)
        #expect(slug.options == [.unique])
        let image = try #require(photo["image"]?.metadata as? Schema.Attribute)
        #expect(image.options == [.externalStorage])
        #expect(image.originalName == "x")
        #expect(photo["views"]?.defaultValue as? Int == 0)
        #expect(photo["caption"]?.metadata == nil)
        #expect(photo["id"]?.keyPath == \Photo.id)

        let hasReceipt = try #require(Transaction.schemaMetadata().first { $0.name == "hasReceipt" })
        #expect(hasReceipt.defaultValue as? Bool == false)

        let transactions = try #require(Budget.schemaMetadata().last?.metadata as? Schema.Relationship)
        #expect(transactions.deleteRule == .cascade)
        #expect(transactions.inverseKeyPath == \Transaction.budget)

        let seedTransactions = try #require(SpendTrackerSchemaV1.Budget.schemaMetadata().last?.metadata as? Schema.Relationship)
        #expect(seedTransactions.deleteRule == .cascade)
    }

    @Test func schemaEntityReflectsAttributeOptionsUniqueAndIndex() throws {
        let schema = Schema([Photo.self, Person.self])
        let photo = try #require(schema.entity(for: Photo.self))
        #expect(photo.properties.map(\.name) == ["id", "slug", "image", "caption", "views"])
        #expect(photo.uniquenessConstraints == [["slug"]])
        let image = try #require(photo.attributes.first { $0.name == "image" })
        #expect(image.isExternalStorage)
        #expect(image.originalName == "x")

        #expect(Person._$uniqueConstraints == [[\Person.email], [\Person.first, \Person.last]])
        #expect(Person._$indices == [[\Person.last]])
        let person = try #require(schema.entity(for: Person.self))
        #expect(person.uniquenessConstraints == [["email"], ["first", "last"]])
        #expect(person.indices == [["last"]])
    }

    @Test func aDeclaredIdPropertyIsTheIdentifiableID() {
        let uuid = UUID()
        let photo = Photo(id: uuid, slug: "dog", image: Data())
        #expect(identifier(of: photo) == uuid)

        // Without an `id` of its own, a model is identified by its persistentModelID.
        let budget = Budget(name: "Rent", limit: 1000)
        #expect(identifier(of: budget) == budget.persistentModelID)
    }

    @Test func persistentModelIDIsStableAndBecomesPermanentOnSave() throws {
        let container = try ModelContainer(for: Photo.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let photo = Photo(slug: "tree", image: Data([7]))
        let temporary = photo.persistentModelID
        #expect(temporary.isTemporary)
        #expect(photo.persistentModelID == temporary)

        context.insert(photo)
        #expect(photo.modelContext === context)
        #expect(photo.hasChanges)
        try context.save()

        let permanent = photo.persistentModelID
        #expect(!permanent.isTemporary)
        #expect(permanent.entityName == "Photo")
        #expect(context.model(for: permanent) as? Photo === photo)
        #expect(!photo.hasChanges)
    }

    @Test func attributesRoundTripThroughAStore() throws {
        let container = try ModelContainer(for: Photo.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let uuid = UUID()
        let image = Data((0..<1024).map { UInt8($0 % 251) })
        do {
            let context = ModelContext(container)
            let photo = Photo(id: uuid, slug: "lake", image: image, caption: "Evening")
            photo.recordView()
            photo.isSelected = true
            context.insert(photo)
            try context.save()
        }

        let context = ModelContext(container)
        let photos = try context.fetch(FetchDescriptor<Photo>())
        #expect(photos.count == 1)
        let photo = try #require(photos.first)
        #expect(photo.id == uuid)
        #expect(photo.slug == "lake")
        #expect(photo.image == image)
        #expect(photo.caption == "Evening")
        #expect(photo.views == 1)
        #expect(photo.isSelected == false, "a @Transient property is not stored")

        photo.caption = nil
        try context.save()
        let reread = try ModelContext(container).fetch(FetchDescriptor<Photo>())
        #expect(reread.map(\.caption) == [nil])
    }

    @Test func modelWithUniqueAndIndexRoundTrips() throws {
        let container = try ModelContainer(for: Person.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(Person(email: "ada@example.com", first: "Ada", last: "Lovelace"))
        try context.save()
        // Same email: the single-property #Unique group makes the save update the stored row.
        context.insert(Person(email: "ada@example.com", first: "Augusta", last: "King"))
        try context.save()
        let people = try ModelContext(container).fetch(FetchDescriptor<Person>())
        #expect(people.map(\.email) == ["ada@example.com"])
        #expect(people.map(\.first) == ["Augusta"])
    }

    @Test func observationFiresForAFetchedModel() throws {
        let container = try ModelContainer(for: Photo.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(Photo(slug: "sea", image: Data()))
        try context.save()

        let reader = ModelContext(container)
        let photo = try #require(try reader.fetch(FetchDescriptor<Photo>()).first)
        let changes = ChangeCounter()
        withObservationTracking {
            _ = photo.slug
        } onChange: {
            changes.increment()
        }
        photo.slug = "ocean"
        #expect(changes.count == 1)
        #expect(photo.hasChanges)
        #expect(reader.hasChanges)
    }

    /// Registrars are created on first use; a refresh from the store must still reach an observer of a
    /// fetched model, and must work on a model that was never read (and has no registrar).
    @Test func refreshFromAnotherContextsSaveNotifiesObservers() throws {
        let container = try ModelContainer(for: Photo.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let writer = ModelContext(container)
        writer.insert(Photo(slug: "sea", image: Data()))
        writer.insert(Photo(slug: "sky", image: Data()))
        try writer.save()

        let reader = ModelContext(container)
        let photos = try reader.fetch(FetchDescriptor<Photo>(sortBy: [SortDescriptor(\.slug)]))
        let observed = try #require(photos.first)
        let changes = ChangeCounter()
        withObservationTracking {
            _ = observed.slug
        } onChange: {
            changes.increment()
        }
        for photo in try writer.fetch(FetchDescriptor<Photo>()) { photo.slug += "-2" }
        try writer.save()
        _ = try reader.fetch(FetchDescriptor<Photo>())
        #expect(changes.count == 1)
        #expect(photos.map(\.slug) == ["sea-2", "sky-2"])
    }
}

/// The `id` that `Identifiable` uses for a model.
private func identifier<T: Identifiable>(of value: T) -> T.ID { value.id }

/// Counts observation callbacks, which may arrive on any thread.
private final class ChangeCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    var count: Int { lock.withLock { value } }

    func increment() { lock.withLock { value += 1 } }
}
