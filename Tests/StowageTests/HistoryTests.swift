import Foundation
import Stowage
import Testing

@Model
final class Journey {
    @Attribute(.preserveValueOnDeletion) var name: String
    var miles: Int
    @Attribute(.preserveValueOnDeletion) var note: String?
    @Attribute(.externalStorage, .preserveValueOnDeletion) var photo: Data?

    init(name: String, miles: Int, note: String? = nil, photo: Data? = nil) {
        self.name = name
        self.miles = miles
        self.note = note
        self.photo = photo
    }
}

@Suite("Persistent history")
struct HistoryTests {
    private typealias Descriptor = HistoryDescriptor<DefaultHistoryTransaction>

    private func history(_ context: ModelContext, _ predicate: Predicate<DefaultHistoryTransaction>? = nil) throws -> [DefaultHistoryTransaction] {
        try context.fetchHistory(Descriptor(predicate: predicate))
    }

    @Test func eachSaveIsOneTransactionWithItsChangesInOrder() throws {
        try withFileStore([Journey.self]) { _, open in
            let container = try open()
            let context = ModelContext(container)
            context.author = "app"
            let trips = [Journey(name: "a", miles: 1), Journey(name: "b", miles: 2, note: "keep", photo: Data([1, 2, 3])), Journey(name: "c", miles: 3)]
            trips.forEach(context.insert)
            try context.save()
            trips[0].miles = 10
            try context.save()
            context.author = nil
            context.delete(trips[1])
            try context.save()

            let transactions = try history(context)
            #expect(transactions.count == 3)
            #expect(transactions.map(\.author) == ["app", "app", nil])
            #expect(transactions.map(\.transactionIdentifier) == transactions.map(\.transactionIdentifier).sorted())
            #expect(Set(transactions.map(\.storeIdentifier)).count == 1)
            #expect(transactions[0].processIdentifier == String(ProcessInfo.processInfo.processIdentifier))

            let inserted = transactions[0].changes.compactMap { change -> PersistentIdentifier? in
                guard case .insert(let insert as DefaultHistoryInsert<Journey>) = change else { return nil }
                return insert.changedPersistentIdentifier
            }
            #expect(inserted == trips.map(\.persistentModelID))

            #expect(transactions[1].changes.count == 1)
            guard case .update(let update as DefaultHistoryUpdate<Journey>) = transactions[1].changes.first else {
                Issue.record("the second transaction is not an update of a Journey")
                return
            }
            #expect(update.changedPersistentIdentifier == trips[0].persistentModelID)
            #expect(update.updatedAttributes.map { $0 as AnyKeyPath } == [\Journey.miles])

            guard case .delete(let deletion as DefaultHistoryDelete<Journey>) = transactions[2].changes.first else {
                Issue.record("the third transaction is not a deletion of a Journey")
                return
            }
            #expect(deletion.changedPersistentIdentifier == trips[1].persistentModelID)
            #expect(deletion.tombstone[\.name] as? String == "b")
            #expect(deletion.tombstone[\.note] as? String == "keep")
            #expect(deletion.tombstone[\.photo] as? Data == Data([1, 2, 3]))
            #expect(deletion.tombstone[\.miles] == nil, "miles is not preserved")
            #expect(Array(deletion.tombstone).count == 3)
            let ids = transactions.flatMap(\.changes).map(\.changedPersistentIdentifier)
            #expect(ids.count == 5)
        }
    }

    @Test func aSavedTokenFindsWhatChangedSinceAfterReopening() throws {
        try withFileStore([Journey.self, Item.self]) { url, open in
            var tokenData = Data()
            do {
                let context = ModelContext(try open())
                context.insert(Journey(name: "first", miles: 1))
                try context.save()
                tokenData = try JSONEncoder().encode(try history(context).last?.token)
            }
            // Reopened with the models listed in another order.
            let container = try ModelContainer(for: Item.self, Journey.self, configurations: ModelConfiguration(url: url))
            let sync = ModelContext(container)
            sync.author = "sync"
            sync.insert(Journey(name: "second", miles: 2))
            sync.insert(Item(name: "lamp", value: 1))
            try sync.save()

            let saved = try JSONDecoder().decode(DefaultHistoryToken.self, from: tokenData)
            let newer = try history(ModelContext(container), #Predicate { $0.token > saved })
            #expect(newer.count == 1)
            #expect(newer.first?.author == "sync")
            #expect(newer.first?.changes.count == 2)
            let older = try history(ModelContext(container), #Predicate { $0.token <= saved })
            #expect(older.count == 1 && older.first?.author == nil)
            #expect(try history(ModelContext(container), #Predicate { $0.author == "sync" }).count == 1)
        }
    }

    @Test func deletedHistoryExpiresTheTokensBeforeIt() throws {
        try withFileStore([Journey.self]) { _, open in
            let context = ModelContext(try open())
            var tokens: [DefaultHistoryToken] = []
            for miles in 1...3 {
                context.insert(Journey(name: "t\(miles)", miles: miles))
                try context.save()
                tokens.append(try history(context).last!.token)
            }
            let (first, second) = (tokens[0], tokens[1])
            try context.deleteHistory(Descriptor(predicate: #Predicate { $0.token <= second }))
            #expect(try history(context).count == 1)
            // Nothing after `second` was deleted: it still works.
            #expect(try history(context, #Predicate { $0.token > second }).count == 1)
            #expect(throws: SwiftDataError.historyTokenExpired) {
                try history(context, #Predicate { $0.token > first })
            }
            do {
                _ = try history(context, #Predicate { $0.token > first })
            } catch SwiftDataError.historyTokenExpired {
                // The pattern SwiftData's users write.
            }
        }
    }

    @Test func aFailedSaveRecordsNoHistory() throws {
        try withFileStore([Item.self]) { _, open in
            let container = try open()
            let editor = ModelContext(container)
            let lamp = Item(name: "lamp", value: 1)
            editor.insert(lamp)
            try editor.save()
            editor.insert(Item(name: "desk", value: 2))
            lamp.value = 2
            let other = ModelContext(container)
            other.delete(try other.fetch(FetchDescriptor<Item>()).first!)
            try other.save()

            #expect(throws: StowageError.self) { try editor.save() }
            let transactions = try history(editor)
            #expect(transactions.count == 2, "the insert and the other context's deletion; the failed save wrote nothing")
            #expect(transactions.last.map { $0.changes.count } == 1)
        }
    }

    @Test func relationshipChangesAreUpdatesNamingTheRelationship() throws {
        let container = try inMemoryContainer(Budget.self, Expense.self)
        let context = ModelContext(container)
        let budget = Budget(name: "food", limit: 100)
        let expense = Expense(title: "bread", amount: 3)
        context.insert(budget)
        context.insert(expense)
        try context.save()
        expense.budget = budget
        try context.save()
        let changes = try history(context).last?.changes ?? []
        let updated = changes.flatMap { change -> [AnyKeyPath] in
            switch change {
            case .update(let update as DefaultHistoryUpdate<Expense>): update.updatedAttributes.map { $0 as AnyKeyPath }
            case .update(let update as DefaultHistoryUpdate<Budget>): update.updatedAttributes.map { $0 as AnyKeyPath }
            default: []
            }
        }
        #expect(!changes.isEmpty)
        #expect(updated.contains(\Expense.budget) || updated.contains(\Budget.expenses))
        #expect(changes.allSatisfy { if case .update = $0 { true } else { false } })
    }

    @Test func sortAndLimit() throws {
        let context = ModelContext(try inMemoryContainer(Journey.self))
        for miles in 1...4 {
            context.insert(Journey(name: "t", miles: miles))
            try context.save()
        }
        var descriptor = Descriptor(sortBy: [SortDescriptor(\.transactionIdentifier, order: .reverse)])
        descriptor.fetchLimit = 2
        let newest = try context.fetchHistory(descriptor)
        let all = try history(context)
        #expect(newest.map(\.transactionIdentifier) == all.suffix(2).reversed().map(\.transactionIdentifier))
        #expect(newest.allSatisfy { $0.changes.count == 1 })
        // A predicate that reads the changes sees them.
        #expect(try history(context, #Predicate { $0.changes.count == 1 }).count == 4)
    }

    @Test func largeSavesAreRecordedWhole() throws {
        let context = ModelContext(try inMemoryContainer(Item.self))
        let items = (0..<10_000).map { Item(name: "item \($0)", value: $0) }
        items.forEach(context.insert)
        try context.save()
        for item in items where item.value % 3 == 0 { item.value += 1 }
        for item in items where item.value % 7 == 0 { context.delete(item) }
        try context.save()
        let transactions = try history(context)
        #expect(transactions.count == 2)
        #expect(transactions[0].changes.map(\.changedPersistentIdentifier) == items.map(\.persistentModelID))
        let second = transactions[1].changes
        let updates = second.filter { if case .update = $0 { true } else { false } }.map(\.changedPersistentIdentifier)
        let deletions = second.filter { if case .delete = $0 { true } else { false } }.map(\.changedPersistentIdentifier)
        #expect(Set(deletions) == Set(items.filter { $0.isDeleted }.map(\.persistentModelID)))
        #expect(updates.count + deletions.count == second.count)
        #expect(Set(updates).isDisjoint(with: deletions))
    }

    @Test func historyCanBeTurnedOff() throws {
        try withFileStore([Item.self]) { url, _ in
            var configuration = ModelConfiguration(url: url)
            configuration.recordsHistory = false
            let context = ModelContext(try ModelContainer(for: Item.self, configurations: configuration))
            context.insert(Item(name: "lamp", value: 1))
            try context.save()
            #expect(try history(context).isEmpty)
        }
    }

    @Test func eraseExpiresEveryToken() throws {
        let container = try inMemoryContainer(Item.self)
        let context = ModelContext(container)
        context.insert(Item(name: "lamp", value: 1))
        try context.save()
        let token = try history(context).last!.token
        try container.erase()
        #expect(try history(context).isEmpty)
        #expect(throws: SwiftDataError.historyTokenExpired) {
            try history(context, #Predicate { $0.token > token })
        }
    }

    /// With two stores, the first store's part of a save (its history tables created by it) is rolled
    /// back when the second store's part fails: the next save records history all the same.
    @Test func aSaveRolledBackAcrossStoresLeavesHistoryWorking() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (container, _, _) = try twoStores(in: directory)
        let context = ModelContext(container)
        let budget = Budget(name: "broken", limit: .nan)
        context.insert(Item(name: "lamp", value: 1))
        context.insert(budget)
        #expect(throws: StowageError.self) { try context.save() }
        budget.limit = 10
        try context.save()
        let transactions = try history(context)
        #expect(transactions.count == 2, "one per store")
        #expect(Set(transactions.map(\.storeIdentifier)).count == 2)
        #expect(transactions.allSatisfy { $0.changes.count == 1 })
    }

    /// "What changed since" reads the transactions after the token, not the whole history.
    @Test func aTokenComparisonReadsOnlyTheNewerTransactions() throws {
        let capture = StatementCapture()  // before the container: it captures the containers opened after it
        let container = try inMemoryContainer(Journey.self)
        let context = ModelContext(container)
        for miles in 1...5 {
            context.insert(Journey(name: "t", miles: miles))
            try context.save()
        }
        let third = try history(context)[2].token
        capture.log.removeAll()
        let newer = try history(context, #Predicate { $0.token > third && $0.author == nil })
        #expect(newer.count == 2)
        let read = capture.statements(of: container).map(\.expandedSQL).first { $0.contains("FROM \"_stowage_history\"") }
        #expect(read?.contains("\"id\" > \(third.tokenValue?.values.first ?? -1)") == true, "\(read ?? "no history read")")
        #expect(try history(context, #Predicate { $0.token >= third }).count == 3)
    }

    /// With two stores, the last token fetched covers both: "since" finds the new transactions of each,
    /// and deleting "before" it keeps what came after in each.
    @Test func tokensCoverEveryStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (container, _, _) = try twoStores(in: directory)
        let context = ModelContext(container)
        context.insert(Item(name: "a", value: 1))
        try context.save()
        context.insert(Budget(name: "b", limit: 1))
        try context.save()
        let last = try #require(try history(context).last?.token)
        #expect(last.tokenValue?.count == 2, "covers both stores")

        context.insert(Item(name: "c", value: 2))
        try context.save()
        context.insert(Budget(name: "d", limit: 2))
        try context.save()
        let newer = try history(context, #Predicate { $0.token > last })
        #expect(newer.count == 2 && Set(newer.map(\.storeIdentifier)).count == 2)
        try context.deleteHistory(Descriptor(predicate: #Predicate { $0.token <= last }))
        #expect(try history(context).count == 2, "the two newer transactions, one per store, are kept")
        #expect(try history(context, #Predicate { $0.token > last }).count == 2)
    }
}
