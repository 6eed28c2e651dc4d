import Foundation
import Stowage
import Testing

// The code of the "Background Work" and "Reacting to Changes" articles (Snippets/BackgroundImport.swift,
// Snippets/SaveNotifications.swift), run here with what each step saw checked.

@ModelActor
actor BudgetImporter {
    func importBudgets(_ names: [String]) throws -> [PersistentIdentifier] {
        let budgets = names.map { Budget(name: $0, limit: 100) }
        for budget in budgets { modelContext.insert(budget) }
        try modelContext.save()
        return budgets.map(\.persistentModelID)
    }
}

/// What the articles' observers saw.
private final class Seen: @unchecked Sendable {
    // @unchecked Sendable: behind `lock`.
    let lock = NSLock()
    var insertedCounts: [Int] = []
    var streamed: [ModelChanges] = []
}

@Suite("Documentation: background work and reacting to changes")
struct DocumentationConcurrencyTests {
    @Test func backgroundWork() async throws {
        let container = try ModelContainer(for: Budget.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let importer = BudgetImporter(modelContainer: container)
        let ids = try await importer.importBudgets(["Food", "Rent"])
        let food = await MainActor.run { (container.mainContext.model(for: ids[0]) as? Budget)?.name }  // saved on the actor, seen here
        #expect(food == "Food")
    }

    @Test func reactingToChanges() async throws {
        let container = try ModelContainer(for: Budget.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let seen = Seen()
        let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: nil, queue: nil) { note in
            let inserted = note.userInfo?[ModelContext.NotificationKey.insertedIdentifiers.rawValue] as? [PersistentIdentifier] ?? []
            guard inserted.first.map({ $0.storeIdentifier }) != nil else { return }
            seen.lock.withLock { seen.insertedCounts.append(inserted.count) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        let streamed = { (stream: AsyncStream<ModelChanges>) in
            Task {
                for await changes in stream {
                    seen.lock.withLock { seen.streamed.append(changes) }
                    return
                }
            }
        }(container.changes())

        _ = try await BudgetImporter(modelContainer: container).importBudgets(["Food", "Rent"])
        await streamed.value
        seen.lock.withLock {
            #expect(seen.insertedCounts.contains(2))
            #expect(seen.streamed.first?.entityNames == ["Budget"] && seen.streamed.first?.inserted.count == 2)
        }
    }
    /// The history snippet, with `Budget` changes made by another author first.
    @Test func history() throws {
        let container = try ModelContainer(for: Budget.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(Budget(name: "Start", limit: 1))
        try context.save()
        var lastToken = try #require(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last?.token)
        let app = ModelContext(container)
        app.author = "app"
        let food = Budget(name: "Food", limit: 100)
        app.insert(food)
        try app.save()
        food.limit = 120
        try app.save()
        app.delete(food)
        try app.save()

        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        let sync = ModelContext(container)
        sync.author = "sync"
        sync.insert(Budget(name: "Synced", limit: 5))
        try sync.save()
        var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
        descriptor.predicate = #Predicate { $0.token > lastToken && $0.author != "sync" }
        for transaction in try context.fetchHistory(descriptor) {
            for change in transaction.changes {
                switch change {
                case .insert(let insert as DefaultHistoryInsert<Budget>): print("new", insert.changedPersistentIdentifier)
                case .update(let update as DefaultHistoryUpdate<Budget>): print("changed", update.updatedAttributes)
                case .delete(let deletion as DefaultHistoryDelete<Budget>): print("gone", deletion.tombstone[\.name] ?? "")
                default: break
                }
            }
            lastToken = transaction.token  // Codable: keep it
        }
        try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= lastToken }))

        #expect(printed.count == 3)
        #expect(printed.first?.hasPrefix("new") == true && printed[1].hasPrefix("changed") && printed[2].hasPrefix("gone"))
        // The sync transaction came after the last one handled: it is all that is left.
        #expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).map(\.author) == ["sync"])
    }
}
