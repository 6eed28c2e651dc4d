import Foundation
import Stowage
import Testing

/// Imports items on a background actor, one save per item.
@ModelActor
actor ItemImporter {
    func add(_ count: Int, prefix: String) throws -> [PersistentIdentifier] {
        var identifiers: [PersistentIdentifier] = []
        for index in 0..<count {
            let item = Item(name: "\(prefix)-\(index)", value: index)
            modelContext.insert(item)
            try modelContext.save()
            identifiers.append(item.persistentModelID)
        }
        return identifiers
    }

    func name(of identifier: PersistentIdentifier) -> String? {
        self[identifier, as: Item.self]?.name
    }

    func rename(_ identifier: PersistentIdentifier, to name: String) throws {
        self[identifier, as: Item.self]?.name = name
        try modelContext.save()
    }

    func count() throws -> Int {
        try modelContext.fetchCount(FetchDescriptor<Item>())
    }
}

@Suite("Model actors")
struct ModelActorTests {
    @Test func aSaveOnAnActorIsSeenByTheMainContextAndIdentifiersCrossActors() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let container = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: directory.file()))
        let importer = ItemImporter(modelContainer: container)
        #expect(importer.modelContainer === container)

        let identifiers = try await importer.add(3, prefix: "a")
        let names = await MainActor.run {
            identifiers.map { (container.mainContext.model(for: $0) as? Item)?.name }
        }
        #expect(names == ["a-0", "a-1", "a-2"])

        // The main context holds the first item; a rename saved on the actor refreshes it.
        try await importer.rename(identifiers[0], to: "renamed")
        let renamed = await MainActor.run { (container.mainContext.model(for: identifiers[0]) as? Item)?.name }
        #expect(renamed == "renamed")

        // And the other way: a model inserted on the main actor is found by the actor.
        let fromMain = try await MainActor.run {
            let item = Item(name: "from main", value: 9)
            container.mainContext.insert(item)
            try container.mainContext.save()
            return item.persistentModelID
        }
        #expect(await importer.name(of: fromMain) == "from main")
        #expect(await importer.name(of: identifiers[1]) == "a-1")
    }

    @Test func eightActorsSavingAtOnceLoseNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let container = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: directory.file()))
        let saves = 500
        let identifiers = try await withThrowingTaskGroup(of: [PersistentIdentifier].self) { group in
            for actor in 0..<8 {
                group.addTask { try await ItemImporter(modelContainer: container).add(saves, prefix: "actor\(actor)") }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(identifiers.count == 8 * saves)
        #expect(Set(identifiers).count == 8 * saves, "every save got its own row")
        #expect(try await ItemImporter(modelContainer: container).count() == 8 * saves)
        // A second container on the same file (another process would see the same) counts them all.
        let reopened = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: directory.file()))
        #expect(try ModelContext(reopened).fetchCount(FetchDescriptor<Item>()) == 8 * saves)
    }

    /// The actor test, repeated: races show up as a wrong count, a crash or (under
    /// `--sanitize=thread`) a report.
    @Test(arguments: 0..<20) func repeatedActorSaves(round: Int) async throws {
        let container = try ModelContainer(for: Item.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for actor in 0..<8 {
                group.addTask { try await ItemImporter(modelContainer: container).add(20, prefix: "r\(round)-\(actor)").count }
            }
            return try await group.reduce(0, +)
        }
        #expect(total == 160)
        #expect(try await ItemImporter(modelContainer: container).count() == 160)
    }
}
