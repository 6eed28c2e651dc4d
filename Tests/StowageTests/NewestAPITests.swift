import Foundation
import Observation
import Stowage
import Synchronization
import Testing

// SwiftData's newest API: schema reflection, identity and key-value access, HistoryObserver,
// store identifiers, ResultsObserver's setters, editing state, autosave on model actors, unique
// relationships.

struct GeoPoint: Codable, Hashable {
    var x: Double
    var y: Double
}

struct Location: Codable, Hashable {
    var city: String
    var zip: Int
    var note: String?
    var point: GeoPoint
}

@Model
final class Venue {
    var name: String
    var location: Location
    var tags: [String] = []
    var mood: Mood?

    init(name: String, location: Location) {
        self.name = name
        self.location = location
    }
}

private func same(_ a: any Any.Type, _ b: any Any.Type) -> Bool { ObjectIdentifier(a) == ObjectIdentifier(b) }

/// Waits (without blocking the main actor) until `condition` holds, for at most ten seconds.
@MainActor
private func eventually(_ condition: () -> Bool) async throws -> Bool {
    for _ in 0..<1_000 {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

private func save(_ container: ModelContainer, author: String? = nil, _ body: (ModelContext) -> Void) throws {
    let context = ModelContext(container)
    context.author = author
    body(context)
    try context.save()
}

@Suite("Schema reflection, as SwiftData reports it")
struct SchemaReflectionTests {
    @Test func anEmptySchemaHasNoEntities() {
        let schema = Schema()
        #expect(schema.entities.isEmpty)
        #expect(schema.entitiesByName.isEmpty)
        #expect(schema.version == Schema.Version(1, 0, 0))
    }

    @Test func aSchemaOfEntitiesStoresTheirModelsAndReopens() throws {
        let source = Schema([Budget.self])
        let schema = Schema(source.entities[0], source.entities[1], version: Schema.Version(2, 0, 0))
        #expect(schema.entities.map(\.name) == ["Budget", "Expense"])
        #expect(schema.version == Schema.Version(2, 0, 0))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        do {
            let container = try ModelContainer(for: schema, configurations: ModelConfiguration(url: url))
            try save(container) { $0.insert(Budget(name: "Rent", limit: 900)) }
        }
        let reopened = try ModelContainer(for: Schema([Budget.self]), configurations: ModelConfiguration(url: url))
        #expect(try ModelContext(reopened).fetch(FetchDescriptor<Budget>()).map(\.name) == ["Rent"])
    }

    @Test func anEntityHasItsAttributesAndRelationshipsByName() throws {
        // Entities refer to each other through their schema: keep it.
        let schema = Schema([Budget.self])
        defer { withExtendedLifetime(schema) {} }
        let budget = try #require(schema.entitiesByName["Budget"])
        #expect(Set(budget.attributesByName.keys) == ["name", "limit"])
        #expect(same(try #require(budget.attributesByName["limit"]).valueType, Double.self))
        #expect(Set(budget.relationshipsByName.keys) == ["expenses"])
        let expenses = try #require(budget.relationshipsByName["expenses"])
        #expect(expenses.destination == "Expense")
        #expect(!expenses.isToOneRelationship)
        #expect(expenses.deleteRule == .cascade)
        #expect(expenses.inverseName == "budget")
        #expect(Set(budget.storedPropertiesByName.keys) == ["name", "limit", "expenses"])
        let tagSchema = Schema([Tag.self])
        defer { withExtendedLifetime(tagSchema) {} }
        let tag = try #require(tagSchema.entitiesByName["Tag"])
        #expect(tag.uniquenessConstraints == [["code"]])
        #expect(tag.attributesByName["code"]?.isUnique == true)
    }

    @Test func anAttributeIsDescribedFromItsParts() {
        let title = Schema.Attribute(name: "title", originalName: "name", options: [.unique], valueType: String?.self)
        #expect(title.name == "title")
        #expect(title.originalName == "name")
        #expect(title.isUnique)
        #expect(title.isOptional)
        #expect(same(title.valueType, String?.self))
        let count = Schema.Attribute(name: "count", valueType: Int.self, defaultValue: 3)
        #expect(count.originalName == "count")
        #expect(!count.isOptional)
        #expect(count.defaultValue as? Int == 3)
        #expect(count.isAttribute && !count.isRelationship)
    }

    @Test func aCodableStructIsACompositeAttribute() throws {
        let schema = Schema([Venue.self])
        defer { withExtendedLifetime(schema) {} }
        let venue = try #require(schema.entitiesByName["Venue"])
        let location = try #require(venue.attributesByName["location"] as? Schema.CompositeAttribute)
        #expect(same(location.valueType, Location.self))
        #expect(location.properties.map(\.name) == ["city", "zip", "note", "point"])
        #expect(location.properties.map(\.isOptional) == [false, false, true, false])
        #expect(same(location.properties[1].valueType, Int.self))
        let point = try #require(location.properties[3] as? Schema.CompositeAttribute)
        #expect(point.properties.map(\.name) == ["x", "y"])
        #expect(point.properties.allSatisfy { same($0.valueType, Double.self) })
        // Arrays, enums and native values are plain attributes.
        #expect(!(venue.attributesByName["tags"] is Schema.CompositeAttribute))
        #expect(!(venue.attributesByName["mood"] is Schema.CompositeAttribute))
        #expect(!(venue.attributesByName["name"] is Schema.CompositeAttribute))
        // Dictionaries and enums with associated values decode from keys, and are not composites either.
        let everythingSchema = Schema([Everything.self])
        defer { withExtendedLifetime(everythingSchema) {} }
        let everything = try #require(everythingSchema.entitiesByName["Everything"])
        let address = try #require(everything.attributesByName["address"] as? Schema.CompositeAttribute)
        #expect(address.properties.map(\.name) == ["street", "zip", "unit"])
        for name in ["counts", "shapesByName", "addresses", "strings", "shape", "optionalShape"] {
            #expect(everything.attributesByName[name] != nil && !(everything.attributesByName[name] is Schema.CompositeAttribute), "\(name)")
        }
        let built = Schema.CompositeAttribute(name: "area", valueType: GeoPoint.self)
        #expect(built.properties.isEmpty)
    }

    @Test func aCompositeValueIsStoredAndReopened() throws {
        let location = Location(city: "Lyon", zip: 69001, note: nil, point: GeoPoint(x: 1.5, y: -2))
        try withFileStore([Venue.self]) { _, open in
            try save(try open()) { $0.insert(Venue(name: "Hall", location: location)) }
            let venues = try ModelContext(try open()).fetch(FetchDescriptor<Venue>())
            #expect(venues.map(\.location) == [location])
        }
    }
}

@Suite("Identity and key-value access")
struct KeyValueAccessTests {
    @Test func anIdentifierIsIdentifiableByItsModelInItsStore() throws {
        let container = try inMemoryContainer(Item.self)
        let context = ModelContext(container)
        let first = Item(name: "a", value: 1), second = Item(name: "b", value: 2)
        context.insert(first)
        context.insert(second)
        let temporary = first.persistentModelID.id
        #expect(first.persistentModelID.id == first.persistentModelID.id)
        #expect(first.persistentModelID.id != second.persistentModelID.id)
        try context.save()
        #expect(first.persistentModelID.id != temporary)
        let decoded = try JSONDecoder().decode(PersistentIdentifier.self, from: JSONEncoder().encode(first.persistentModelID))
        #expect(decoded.id == first.persistentModelID.id)
        let ids: [PersistentIdentifier.ID] = [first, second].map(\.persistentModelID).map(\.id)
        #expect(Set(ids).count == 2)
    }

    @Test func attributesAreReadAndSetByKeyPath() throws {
        try withFileStore([Item.self]) { _, open in
            do {
                let context = ModelContext(try open())
                let item = Item(name: "lamp", value: 1)
                context.insert(item)
                try context.save()
                #expect(item.getValue(forKey: \.name) == "lamp")
                item.setValue(forKey: \.name, to: "desk lamp")
                item.setValue(forKey: \.value, to: 7)
                #expect(item.name == "desk lamp")
                #expect(item.hasChanges)
                try context.save()
            }
            let item = try #require(try ModelContext(try open()).fetch(FetchDescriptor<Item>()).first)
            #expect(item.getValue(forKey: \.name) == "desk lamp")
            #expect(item.getValue(forKey: \.value) == 7)
        }
    }

    @Test func settingAnAttributeByKeyPathIsObserved() throws {
        let item = Item(name: "lamp", value: 1)
        let fired = Atomic(false)
        withObservationTracking { _ = item.name } onChange: { fired.store(true, ordering: .relaxed) }
        item.setValue(forKey: \.name, to: "desk")
        let didFire = fired.load(ordering: .relaxed)
        #expect(didFire)
    }

    @Test func relationshipsAreReadAndSetByKeyPathWithTheirInverses() throws {
        try withFileStore([Budget.self]) { _, open in
            do {
                let context = ModelContext(try open())
                let rent = Budget(name: "Rent", limit: 900), food = Budget(name: "Food", limit: 300)
                let march = Expense(title: "March", amount: 900), bread = Expense(title: "Bread", amount: 3)
                for model in [rent, food] as [any PersistentModel] { context.insert(model) }
                march.setValue(forKey: \.budget, to: rent)
                #expect(rent.getValue(forKey: \.expenses).map(\.title) == ["March"])
                food.setValue(forKey: \.expenses, to: [bread])
                #expect(bread.getValue(forKey: \.budget)?.name == "Food")
                try context.save()
            }
            let budgets = try ModelContext(try open()).fetch(FetchDescriptor<Budget>(sortBy: [SortDescriptor(\.name)]))
            #expect(budgets.map { $0.getValue(forKey: \.expenses).map(\.title) } == [["Bread"], ["March"]])
        }
    }
}

@Suite("HistoryObserver")
@MainActor
struct HistoryObserverTests {
    @Test func countsTheSavesOfItsModels() async throws {
        let container = try inMemoryContainer(Item.self, Budget.self)
        let observer = try HistoryObserver(observedModels: [Item.self], modelContainer: container)
        #expect(observer.eventCounter == 0)
        #expect(observer.observedModels.count == 1 && observer.authors.isEmpty)
        #expect(observer.modelContainer === container)
        let fired = Atomic(false)
        withObservationTracking { _ = observer.eventCounter } onChange: { fired.store(true, ordering: .relaxed) }
        try save(container) { $0.insert(Item(name: "a", value: 1)) }
        #expect(try await eventually { observer.eventCounter == 1 })
        let didFire = fired.load(ordering: .relaxed)
        #expect(didFire)
        // A save of other models does not count; the next save of an item, after it, does.
        try save(container) { $0.insert(Budget(name: "Rent", limit: 1)) }
        try save(container) { $0.insert(Item(name: "b", value: 2)) }
        #expect(try await eventually { observer.eventCounter == 2 })
        try await Task.sleep(for: .milliseconds(50))
        #expect(observer.eventCounter == 2)
    }

    @Test func countsOnlyTheSavesOfItsAuthors() async throws {
        let container = try inMemoryContainer(Item.self)
        let observer = try HistoryObserver(authors: ["importer"], modelContainer: container)
        try save(container, author: "editor") { $0.insert(Item(name: "a", value: 1)) }
        try save(container, author: "importer") { $0.insert(Item(name: "b", value: 2)) }
        #expect(try await eventually { observer.eventCounter == 1 })
        try await Task.sleep(for: .milliseconds(50))
        #expect(observer.eventCounter == 1)
    }

    @Test func countsTheSavesOfAnotherContainerOnTheFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        let container = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: url))
        let other = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: url))
        let observer = try HistoryObserver(modelContainer: container)
        try save(other) { $0.insert(Item(name: "remote", value: 1)) }
        #expect(try await eventually { observer.eventCounter == 1 })
        // A configuration made from a URL is named after the file.
        let name = try #require(container.configurations.first?.name)
        #expect(name == "store")
        let store = try #require(container.storeIdentifier(forConfigurationNamed: name))
        let token = try #require(observer.historyTokens[store] as? DefaultHistoryToken)
        #expect(token.tokenValue?[store] != nil)
        #expect(token.storeIdentifier == store)
        #expect(container.configurationName(forStoreIdentifier: token.storeIdentifier) == name)
        // The token is the newest transaction's: nothing in the history comes after it.
        let after = try ModelContext(container).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > token }))
        #expect(after.isEmpty)
    }

    @Test func resumesFromItsTokensAfterReopening() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        var tokens: [String: any HistoryToken] = [:]
        do {
            let container = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: url))
            let observer = try HistoryObserver(modelContainer: container)
            try save(container) { $0.insert(Item(name: "a", value: 1)) }
            #expect(try await eventually { observer.eventCounter == 1 })
            tokens = observer.historyTokens
            // Saved while nobody observes.
            try save(container) { $0.insert(Item(name: "b", value: 2)) }
        }
        let reopened = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: url))
        let resumed = try HistoryObserver(historyTokens: tokens, modelContainer: reopened)
        #expect(resumed.eventCounter == 1)
        let fresh = try HistoryObserver(modelContainer: reopened)
        #expect(fresh.eventCounter == 0)
        let later = try HistoryObserver(historyTokens: resumed.historyTokens, modelContainer: reopened)
        #expect(later.eventCounter == 0)
    }

    @Test func aStoreIdentifierIsFoundByConfigurationName() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var identifier = ""
        do {
            let (container, _, _) = try twoStores(in: directory)
            let context = ModelContext(container)
            let item = Item(name: "a", value: 1)
            context.insert(item)
            try context.save()
            identifier = try #require(container.storeIdentifier(forConfigurationNamed: "items"))
            #expect(item.persistentModelID.storeIdentifier == identifier)
            #expect(container.configurationName(forStoreIdentifier: identifier) == "items")
            #expect(container.storeIdentifier(forConfigurationNamed: "rest") != identifier)
            #expect(container.storeIdentifier(forConfigurationNamed: "nowhere") == nil)
            #expect(container.configurationName(forStoreIdentifier: "nowhere") == nil)
        }
        let (reopened, _, _) = try twoStores(in: directory)
        #expect(reopened.storeIdentifier(forConfigurationNamed: "items") == identifier)
    }
}

@Suite("ResultsObserver's settable results")
@MainActor
struct ResultsObserverSetterTests {
    @Test func setResultsShowUntilTheNextUpdate() async throws {
        let container = try inMemoryContainer(Item.self)
        let context = ModelContext(container)
        context.insert(Item(name: "a", value: 1))
        context.insert(Item(name: "b", value: 2))
        try context.save()
        let observer = try ResultsObserver<Item, Never>(sortBy: [SortDescriptor(\.name)], modelContext: context)
        #expect(observer.results.map(\.name) == ["a", "b"])
        let fired = Atomic(false)
        withObservationTracking { _ = observer.results } onChange: { fired.store(true, ordering: .relaxed) }
        observer.results = try context.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.value > 1 }), batchSize: 10)
        let didFire = fired.load(ordering: .relaxed)
        #expect(didFire)
        #expect(observer.results.map(\.name) == ["b"])
        context.insert(Item(name: "c", value: 3))
        #expect(observer.results.map(\.name) == ["a", "b", "c"])
    }

    @Test func setSectionsShowUntilTheNextUpdate() throws {
        let container = try inMemoryContainer(Item.self)
        let context = ModelContext(container)
        context.insert(Item(name: "a", value: 1))
        try context.save()
        let observer = try ResultsObserver<Item, String>(sectionBy: \.name, modelContext: context)
        let sections = try #require(observer.sections)
        observer.sections = nil
        #expect(observer.sections?.count == sections.count)
        let plain = try ResultsObserver<Item, Never>(modelContext: context)
        plain.sections = nil
        #expect(plain.sections == nil)
    }
}

@ModelActor
actor AutosavingWriter {
    func insert(_ name: String) {
        modelContext.autosaveEnabled = true
        modelContext.insert(Item(name: name, value: 0))
    }

    func hasChanges() -> Bool { modelContext.hasChanges }
}

@Suite("Contexts' editing state and autosave")
struct EditingStateAndAutosaveTests {
    @Test func aModelActorsContextAutosavesAfterTheChangingCall() async throws {
        try await withFileStoreAsync { url in
            let container = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: url))
            let writer = AutosavingWriter(modelContainer: container)
            let saves = container.changes()
            await writer.insert("autosaved")
            // Nobody calls save(): the autosave, queued on the actor's executor by the change, does.
            var iterator = saves.makeAsyncIterator()
            let saved = await iterator.next()
            #expect(saved?.inserted.count == 1)
            #expect(await writer.hasChanges() == false)
            let reopened = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: url))
            #expect(try ModelContext(reopened).fetch(FetchDescriptor<Item>()).map(\.name) == ["autosaved"])
        }
    }

    @Test func aContextsEditingStateCarriesItsAuthor() throws {
        try withFileStore([Item.self]) { _, open in
            do {
                let container = try open()
                let context = ModelContext(container), other = ModelContext(container)
                #expect(context.editingState.id == context.editingState.id)
                #expect(context.editingState.id != other.editingState.id)
                context.author = "importer"
                #expect(context.editingState.author == "importer")
                var state = context.editingState
                state.author = "editor"
                context.editingState = state
                #expect(context.author == "editor")
                context.insert(Item(name: "a", value: 1))
                try context.save()
            }
            let history = try ModelContext(try open()).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
            #expect(history.map(\.author) == ["editor"])
        }
    }
}

/// `withFileStore` for async bodies.
private func withFileStoreAsync(_ body: (URL) async throws -> Void) async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    try await body(directory.file())
}

@Model
final class Citizen {
    var name: String
    init(name: String) { self.name = name }
}

@Model
final class Passport {
    var number: String
    @Relationship(.unique) var holder: Citizen?
    init(number: String, holder: Citizen? = nil) {
        self.number = number
        self.holder = holder
    }
}

@Model
final class Club {
    var name: String
    @Relationship(.unique) var members: [Citizen] = []
    init(name: String) { self.name = name }
}

@Suite("Unique relationships")
struct UniqueRelationshipTests {
    @Test func aToOneRelationshipRelatesEachModelOnce() throws {
        try withFileStore([Passport.self]) { _, open in
            do {
                let context = ModelContext(try open())
                let ada = Citizen(name: "Ada")
                context.insert(Passport(number: "P1", holder: ada))
                try context.save()
                let second = Passport(number: "P2", holder: ada)
                context.insert(second)
                let error = try #require(stowageError { try context.save() })
                #expect(error.code == .constraintViolation)
                #expect(error == SwiftDataError.modelValidationFailure)
                #expect(error.message.contains("Passport.holder is @Relationship(.unique)"))
                // Nothing was written; the context keeps the change. Moving the holder in one save works.
                #expect(context.hasChanges)
                let first = try #require(try context.fetch(FetchDescriptor<Passport>(predicate: #Predicate { $0.number == "P1" })).first)
                first.holder = nil
                try context.save()
            }
            let passports = try ModelContext(try open()).fetch(FetchDescriptor<Passport>(sortBy: [SortDescriptor(\.number)]))
            #expect(passports.map(\.number) == ["P1", "P2"])
            #expect(passports.map { $0.holder?.name } == [nil, "Ada"])
        }
    }

    @Test func anotherContextCannotShareTheRelatedModel() throws {
        let container = try inMemoryContainer(Passport.self)
        let context = ModelContext(container)
        context.insert(Passport(number: "P1", holder: Citizen(name: "Ada")))
        try context.save()
        let other = ModelContext(container)
        let ada = try #require(try other.fetch(FetchDescriptor<Citizen>()).first)
        other.insert(Passport(number: "P2", holder: ada))
        #expect(stowageError { try other.save() }?.code == .constraintViolation)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Passport>()) == 1)
    }

    @Test func aToManyRelationshipHoldsEachModelInOneCollection() throws {
        try withFileStore([Club.self]) { _, open in
            do {
                let context = ModelContext(try open())
                let ada = Citizen(name: "Ada"), alan = Citizen(name: "Alan")
                let chess = Club(name: "Chess"), go = Club(name: "Go")
                context.insert(chess)
                context.insert(go)
                chess.members = [ada, alan]
                try context.save()
                go.members = [ada]
                #expect(stowageError { try context.save() }?.code == .constraintViolation)
                go.members = []
                try context.save()
            }
            let clubs = try ModelContext(try open()).fetch(FetchDescriptor<Club>(sortBy: [SortDescriptor(\.name)]))
            #expect(clubs.map { $0.members.map(\.name) } == [["Ada", "Alan"], []])
            let schema = Schema([Club.self])
            defer { withExtendedLifetime(schema) {} }
            let entity = try #require(schema.entitiesByName["Club"])
            #expect(entity.relationshipsByName["members"]?.isUnique == true)
        }
    }
}
