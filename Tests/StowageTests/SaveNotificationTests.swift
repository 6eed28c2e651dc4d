import Foundation
import Stowage
@testable import StowageCore
import Testing

/// Records the save notifications of one context.
private final class SaveRecorder: @unchecked Sendable {
    // @unchecked Sendable: `events` is behind `lock`; the observers run on the saving thread.
    private let lock = NSLock()
    private var events: [(name: Notification.Name, userInfo: [AnyHashable: Any]?)] = []
    private var observers: [any NSObjectProtocol] = []

    init(_ context: ModelContext) {
        for name in [ModelContext.willSave, ModelContext.didSave] {
            observers.append(NotificationCenter.default.addObserver(forName: name, object: context, queue: nil) { [weak self] note in
                guard let self else { return }
                self.lock.withLock { self.events.append((note.name, note.userInfo)) }
            })
        }
    }

    deinit { observers.forEach(NotificationCenter.default.removeObserver) }

    var names: [Notification.Name] { lock.withLock { events.map(\.name) } }

    func identifiers(_ key: ModelContext.NotificationKey) -> [PersistentIdentifier]? {
        lock.withLock { events.last { $0.name == ModelContext.didSave }?.userInfo?[key.rawValue] as? [PersistentIdentifier] }
    }
}

@Suite("Save notifications")
struct SaveNotificationTests {
    @Test func willSaveAndDidSaveCarryTheSavedIdentifiers() throws {
        let container = try inMemoryContainer(Budget.self)
        let context = ModelContext(container)
        let recorder = SaveRecorder(context)
        let food = Budget(name: "Food", limit: 100), rent = Budget(name: "Rent", limit: 900)
        context.insert(food)
        context.insert(rent)
        try context.save()
        #expect(recorder.names == [ModelContext.willSave, ModelContext.didSave])
        #expect(recorder.identifiers(.insertedIdentifiers) == [food.persistentModelID, rent.persistentModelID])
        #expect(recorder.identifiers(.updatedIdentifiers) == [])

        food.limit = 120
        food.expenses.append(Expense(title: "Bread", amount: 2))
        let rentID = rent.persistentModelID
        context.delete(rent)
        try context.save()
        #expect(recorder.names.count == 4)
        #expect(recorder.identifiers(.updatedIdentifiers)?.contains(food.persistentModelID) == true)
        #expect(recorder.identifiers(.deletedIdentifiers) == [rentID])
        #expect(recorder.identifiers(.insertedIdentifiers)?.map(\.entityName) == ["Expense"])

        // Nothing to save: no notification.
        try context.save()
        #expect(recorder.names.count == 4)
        // Another context's saves are posted with that context as the object, not this one.
        let other = ModelContext(container)
        other.insert(Budget(name: "Books", limit: 10))
        try other.save()
        #expect(recorder.names.count == 4)
    }

    @Test func changesStreamEverySaveOfTheContainerInOrder() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let container = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: directory.file()))
        // The stream is handed to the reading task alone: when it stops reading, the stream ends.
        let reader = { (stream: AsyncStream<ModelChanges>) in
            Task {
                var received: [ModelChanges] = []
                for await changes in stream {
                    received.append(changes)
                    if received.count == 3 { break }
                }
                return received
            }
        }(container.changes())
        let context = ModelContext(container)
        context.author = "importer"
        let lamp = Item(name: "lamp", value: 1)
        context.insert(lamp)
        try context.save()
        lamp.value = 2
        lamp.note = "moved"
        try context.save()
        _ = try await ItemImporter(modelContainer: container).add(2, prefix: "actor")  // saves on an actor
        let received = await reader.value
        #expect(received.count == 3)
        #expect(received[0].inserted == [lamp.persistentModelID] && received[0].author == "importer")
        #expect(received[1].updated == [lamp.persistentModelID] && received[1].updatedProperties[lamp.persistentModelID] == ["value", "note"])
        #expect(received[2].inserted.count == 1 && received[2].entityNames == ["Item"] && received[2].author == nil)
        // The reader stopped: the container no longer builds changes for it.
        for _ in 0..<100 where container.hasChangeSubscribers { try await Task.sleep(for: .milliseconds(10)) }
        #expect(!container.hasChangeSubscribers)
    }
}
