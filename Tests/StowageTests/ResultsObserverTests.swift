import Foundation
import Observation
import ReopenFixtures
import Stowage
@testable import StowageCore
import Testing

/// Items named and valued as given, saved in one save.
@discardableResult
private func save(_ items: [(String, Int)], in context: ModelContext) throws -> [Item] {
    let models = items.map { Item(name: $0.0, value: $0.1) }
    for model in models { context.insert(model) }
    try context.save()
    return models
}

private func names(_ results: some Sequence<Item>) -> [String] { results.map(\.name) }

/// Waits (without blocking the main actor) until `condition` holds, for at most ten seconds: generous,
/// because the other tests of the run (child processes, large stores) may keep the machine busy.
@MainActor
private func eventually(_ condition: () -> Bool) async throws -> Bool {
    for _ in 0..<1_000 {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// Whether `withObservationTracking` on the observer's results reports a change while `body` runs
/// (and the tasks it starts get to run).
@MainActor
private func resultsChange<T, S>(of observer: ResultsObserver<T, S>, during body: () throws -> Void) async throws -> Bool {
    let fired = Atomic(false)
    withObservationTracking { _ = observer.results } onChange: { fired.store(true) }
    try body()
    return try await eventually { fired.load() }
}

/// A Sendable flag.
private final class Atomic<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func load() -> Value { lock.withLock { value } }
    func store(_ newValue: Value) { lock.withLock { value = newValue } }
}

@MainActor
@Suite("ResultsObserver")
struct ResultsObserverTests {
    @Test func everyUnsectionedInitializerRunsItsQuery() throws {
        let container = try inMemoryContainer(Item.self)
        let context = ModelContext(container)
        try save([("b", 2), ("a", 1), ("c", 3)], in: context)
        let byValue = SortDescriptor(\Item.value)
        let big = #Predicate<Item> { $0.value >= 2 }
        let observers: [(ResultsObserver<Item, Never>, [String])] = [
            (try ResultsObserver(fetchDescriptor: FetchDescriptor(sortBy: [byValue]), modelContext: context), ["a", "b", "c"]),
            (try ResultsObserver(fetchDescriptor: FetchDescriptor(predicate: big, sortBy: [byValue]), modelContainer: container), ["b", "c"]),
            (try ResultsObserver(filterBy: big, sortBy: [byValue], modelContext: context), ["b", "c"]),
            (try ResultsObserver(sortBy: [SortDescriptor(\.value, order: .reverse)], modelContainer: container), ["c", "b", "a"]),
            (try ResultsObserver(modelContext: context), ["b", "a", "c"]),  // no sort: insertion (primary-key) order
        ]
        for (observer, expected) in observers {
            #expect(names(observer.results) == expected)
            #expect(observer.sections == nil)
            #expect(observer.sectionBy == nil)
        }
        #expect(observers[1].0.modelContext !== context, "the container forms make a context of their own")
        #expect(observers[0].0.modelContext === context)
    }

    @Test func everySectionedInitializerGroupsByTheKeyPath() throws {
        let container = try inMemoryContainer(Item.self)
        let context = ModelContext(container)
        let items = try save([("x", 1), ("y", 2), ("z", 3), ("w", 4)], in: context)
        for (item, note) in zip(items, ["Food", "rent", nil, "Food"]) { item.note = note }
        try context.save()
        let byValue = [SortDescriptor(\Item.value)]
        let observers: [ResultsObserver<Item, String>] = [
            try ResultsObserver(fetchDescriptor: FetchDescriptor(sortBy: byValue), sectionBy: \.name, modelContext: context),
            try ResultsObserver(fetchDescriptor: FetchDescriptor(sortBy: byValue), sectionBy: \.note, modelContext: context),
            try ResultsObserver(fetchDescriptor: FetchDescriptor(sortBy: byValue), sectionBy: \.name, modelContainer: container),
            try ResultsObserver(fetchDescriptor: FetchDescriptor(sortBy: byValue), sectionBy: \.note, modelContainer: container),
            try ResultsObserver(filterBy: nil, sortBy: byValue, sectionBy: \.name, modelContext: context),
            try ResultsObserver(sortBy: byValue, sectionBy: \.note, modelContext: context),
            try ResultsObserver(sortBy: byValue, sectionBy: \.name, modelContainer: container),
            try ResultsObserver(filterBy: #Predicate { $0.value > 0 }, sortBy: byValue, sectionBy: \.note, modelContainer: container),
        ]
        for (index, observer) in observers.enumerated() {
            let sections = try #require(observer.sections)
            if index % 2 == 0 {
                #expect(sections.sectionTitles == ["w", "x", "y", "z"])
            } else {
                // nil titles are "", first (SQL's NULLs and the empty string sort first); then by title.
                #expect(sections.sectionTitles == ["", "Food", "rent"])
                #expect(sections[sectionTitle: "Food"].map { $0.map(\.name) } == ["x", "w"], "within a section, the descriptor's order")
                #expect(sections[sectionTitle: ""].map { $0.map(\.name) } == ["z"])
                #expect(sections.index(ofSectionTitled: "rent") == 2)
                #expect(sections.contains(sectionTitle: "Food") && !sections.contains(sectionTitle: "food"))
                #expect(sections[sectionTitle: "nope"] == nil)
                #expect(sections[1].id == "Food" && sections[1].title == "Food" && sections[1].count == 2)
                #expect(names(observer.results) == ["z", "x", "w", "y"], "the section key path sorts first")
                #expect(observer.element(at: IndexPath(indexes: [1, 1]))?.name == "w")
                #expect(observer.element(at: IndexPath(indexes: [1, 2])) == nil)
                let w = try #require(observer.results.first { $0.name == "w" })
                #expect(observer.indexPath(for: w) == IndexPath(indexes: [1, 1]))
            }
        }
        #expect(observers[0].sortBy.count == 3, "the section's sorts come first, then the descriptor's")
    }

    @Test func followsSavesOfOtherContextsAtOnceWhenRead() throws {
        let container = try inMemoryContainer(Item.self)
        let context = ModelContext(container)
        try save([("a", 1)], in: context)
        let observer = try ResultsObserver<Item, Never>(sortBy: [SortDescriptor(\.value)], modelContext: context)
        let other = ModelContext(container)
        try save([("b", 2)], in: other)
        #expect(names(observer.results) == ["a", "b"])
        let b = try other.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.name == "b" }))[0]
        b.value = 0
        try other.save()
        #expect(names(observer.results) == ["b", "a"])
        other.delete(b)
        try other.save()
        #expect(names(observer.results) == ["a"])
    }

    @Test func observationHearsOfSavesFromOtherContextsAndActors() async throws {
        let container = try inMemoryContainer(Item.self)
        let observer = try ResultsObserver<Item, Never>(sortBy: [SortDescriptor(\.value)], modelContainer: container)
        #expect(try await resultsChange(of: observer) { try save([("a", 1)], in: ModelContext(container)) })
        // A save on another thread: the observer updates on the main actor, where it was created.
        let fired = try await resultsChange(of: observer) {
            Task.detached { _ = try save([("b", 2)], in: ModelContext(container)).count }
        }
        #expect(fired)
        #expect(try await eventually { names(observer.results) == ["a", "b"] })
    }

    @Test func updatesOnItsActorWithoutBeingRead() async throws {
        let container = try inMemoryContainer(Item.self)
        let observer = try ResultsObserver<Item, Never>(modelContainer: container)
        try save([("a", 1)], in: ModelContext(container))
        // `current` is what the observer publishes, read without applying pending changes.
        #expect(try await eventually { observer.current.results.count == 1 }, "\(String(describing: observer.lastError))")
    }

    @Test func aDescriptorWhoseQueryFailsKeepsTheResultsAndTheNextChangesRunTheQueryAgain() throws {
        let container = try inMemoryContainer(Item.self)
        let context = ModelContext(container)
        context.requiresSQLTranslation = true
        try save([("a", 1), ("b", 2)], in: context)
        let observer = try ResultsObserver<Item, Never>(sortBy: [SortDescriptor(\.value)], modelContext: context)
        #expect(names(observer.results) == ["a", "b"])
        // Strict mode refuses a predicate that Swift would have to evaluate: the query fails.
        observer.filterBy = #Predicate { $0.tags.contains("b") }
        #expect(observer.lastError != nil)
        #expect(names(observer.results) == ["a", "b"], "the previous results stay")
        // A save while the descriptor cannot run: still the previous results, the error again, no crash.
        try save([("c", 0)], in: ModelContext(container))
        #expect(names(observer.results) == ["a", "b"])
        #expect(observer.lastError != nil)
        observer.filterBy = #Predicate { $0.value > 0 }
        #expect(observer.lastError == nil)
        #expect(names(observer.results) == ["a", "b"])
        try save([("d", 3)], in: ModelContext(container))
        #expect(names(observer.results) == ["a", "b", "d"])
    }

    @Test func settingTheDescriptorTurnsFollowingUnsavedChangesOnAndOff() throws {
        let container = try inMemoryContainer(Item.self)
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<Item>(sortBy: [SortDescriptor(\.value)])
        descriptor.includePendingChanges = false
        let observer = try ResultsObserver(fetchDescriptor: descriptor, modelContext: context)
        context.insert(Item(name: "unsaved", value: 1))
        #expect(observer.results.isEmpty)
        descriptor.includePendingChanges = true
        observer.fetchDescriptor = descriptor
        #expect(names(observer.results) == ["unsaved"])
        context.insert(Item(name: "later", value: 2))
        #expect(names(observer.results) == ["unsaved", "later"], "follows the context's changes from now on")
        descriptor.includePendingChanges = false
        observer.fetchDescriptor = descriptor
        context.insert(Item(name: "ignored", value: 3))
        #expect(observer.results.isEmpty)
    }

    @Test func anUpdateInPlaceReadsSortColumnsInTheSortsOrderEvenWhenTheyAreEveryColumn() throws {
        // The sort reads every attribute, in another order than the entity's: the changed row's values
        // must come back in the sort's order (a full-row read would swap them).
        let container = try inMemoryContainer(RankedLabel.self)
        let context = ModelContext(container)
        context.insert(RankedLabel(label: "b", rank: 2))
        context.insert(RankedLabel(label: "a", rank: 1))
        try context.save()
        let observer = try ResultsObserver<RankedLabel, Never>(sortBy: [SortDescriptor(\.rank), SortDescriptor(\.label)], modelContainer: container)
        #expect(observer.results.map(\.label) == ["a", "b"])
        let other = ModelContext(container)
        other.insert(RankedLabel(label: "c", rank: 0))
        try other.save()
        #expect(observer.results.map(\.label) == ["c", "a", "b"])
        #expect(observer.results.map(\.rank) == [0, 1, 2])
    }

    @Test func followsItsOwnContextsUnsavedChanges() async throws {
        let container = try inMemoryContainer(Item.self)
        let context = ModelContext(container)
        let a = try save([("a", 1)], in: context)[0]
        let observer = try ResultsObserver<Item, Never>(sortBy: [SortDescriptor(\.value)], modelContext: context)
        let blind = try ResultsObserver<Item, Never>(
            fetchDescriptor: { var d = FetchDescriptor<Item>(sortBy: [SortDescriptor(\.value)]); d.includePendingChanges = false; return d }(),
            modelContext: context)
        let b = Item(name: "b", value: 0)
        #expect(try await resultsChange(of: observer) { context.insert(b) })
        #expect(names(observer.results) == ["b", "a"])
        #expect(names(blind.results) == ["a"], "without includePendingChanges, only saved rows")
        a.value = -1
        #expect(names(observer.results) == ["a", "b"])
        a.value = 5  // a second change to a model already changed
        #expect(names(observer.results) == ["b", "a"])
        context.delete(a)
        #expect(names(observer.results) == ["b"])
        context.rollback()
        #expect(names(observer.results) == ["a"])
        context.insert(b)
        #expect(names(observer.results) == ["b", "a"])
        try context.save()
        #expect(names(observer.results) == ["b", "a"])
        #expect(names(blind.results) == ["b", "a"])
        let update = try #require(observer.lastUpdate)
        #expect(update.results.isEmpty, "the saved model keeps its place: its temporary identifier became a row's")
    }

    @Test func unrelatedSavesRunNoStatement() async throws {
        let capture = StatementCapture()
        let container = try inMemoryContainer(Item.self, Budget.self)
        let observer = try ResultsObserver<Item, Never>(sortBy: [SortDescriptor(\.value)], modelContainer: container)
        let expenses = try ResultsObserver<Expense, Never>(
            filterBy: #Predicate { $0.budget?.name == "Food" }, sortBy: [SortDescriptor(\.amount)], modelContainer: container)
        let other = ModelContext(container)
        let food = Budget(name: "Fod", limit: 1)
        food.expenses.append(Expense(title: "lunch", amount: 9))
        other.insert(food)
        try other.save()
        try await Task.sleep(for: .milliseconds(50))
        #expect(observer.results.isEmpty && expenses.results.isEmpty)
        // A save of budgets only: the Item observer has nothing to do, the Expense observer (whose
        // predicate reads budgets) runs its query again.
        food.name = "Food"
        try other.save()
        capture.removeAll()
        try await Task.sleep(for: .milliseconds(50))
        #expect(observer.results.isEmpty)
        let selects = capture.statements(of: container).map(\.sql)
        #expect(!selects.contains { $0.contains("FROM \"Item\"") }, "an Item observer runs nothing for a Budget save: \(selects)")
        #expect(selects.contains { $0.contains("FROM \"Expense\"") })
        #expect(expenses.results.map(\.title) == ["lunch"])
    }

    @Test func oneChangedRowIsUpdatedInPlaceWithOneLookup() throws {
        let capture = StatementCapture()
        let container = try inMemoryContainer(Item.self)
        let context = ModelContext(container)
        let items = try save((0..<500).map { ("item\($0)", $0) }, in: context)
        let observer = try ResultsObserver<Item, Never>(
            filterBy: #Predicate { $0.value % 2 == 0 }, sortBy: [SortDescriptor(\.value)], modelContext: ModelContext(container))
        #expect(observer.results.count == 250)
        capture.removeAll()
        items[10].value = 1_001  // odd: leaves the results
        items[20].value = 998  // moves to the end
        items[31].value = -2  // enters at the front
        try context.save()
        capture.removeAll()
        let results = observer.results.map(\.value)
        let selects = capture.statements(of: container).map(\.sql).filter { $0.hasPrefix("SELECT") }
        #expect(selects.filter { !$0.contains("\"_pk\" IN (") }.isEmpty, "no full query: \(selects)")
        #expect(selects.count == 2, "one lookup of the changed rows, one read of the models: \(selects)")
        #expect(results == [-2] + (0..<500).filter { $0 % 2 == 0 && $0 != 10 && $0 != 20 } + [998])
        let update = try #require(observer.lastUpdate)
        #expect(update.results.removals.count == 2 && update.results.insertions.count == 2)
    }

    @Test func mutableFilterSortAndSections() throws {
        let container = try inMemoryContainer(Item.self)
        let context = ModelContext(container)
        let items = try save([("apple", 3), ("avocado", 1), ("banana", 2)], in: context)
        items[2].note = "yellow"
        try context.save()
        let observer = try ResultsObserver<Item, String>(sortBy: [SortDescriptor(\.value)], sectionBy: \.note, modelContext: context)
        #expect(observer.sections?.sectionTitles == ["", "yellow"])
        observer.filterBy = #Predicate { $0.name.starts(with: "a") }
        #expect(names(observer.results) == ["avocado", "apple"], "the setter re-runs the query before returning")
        #expect(observer.fetchDescriptor.predicate != nil)
        observer.sortBy = [SortDescriptor(\.name)]
        #expect(observer.sortBy.count == 3, "the section sorts are put back in front")
        #expect(names(observer.results) == ["apple", "avocado"])
        observer.sectionBy = \Item.name
        #expect(observer.sections?.sectionTitles == ["apple", "avocado"])
        observer.filterBy = nil
        #expect(observer.sections?.sectionTitles == ["apple", "avocado", "banana"])
        observer.sectionBy = nil
        #expect(observer.sections == nil)
        #expect(observer.sortBy == [SortDescriptor(\Item.name)])
    }

    /// Random inserts, changes (which move rows and sections) and deletions by another context: after
    /// each save, the difference applied to the previous identifiers gives the new ones (whole and per
    /// section), and the results are what a fresh fetch returns.
    @Test(arguments: [false, true])
    func differencesRebuildTheNewResults(sectioned: Bool) throws {
        let container = try inMemoryContainer(Item.self)
        let observerContext = ModelContext(container)
        let writer = ModelContext(container)
        var generator = SplitMix(seed: sectioned ? 7 : 11)
        let descriptor = FetchDescriptor<Item>(predicate: #Predicate { $0.value < 80 }, sortBy: [SortDescriptor(\.value)])
        let sectioned = sectioned ? try ResultsObserver<Item, String>(fetchDescriptor: descriptor, sectionBy: \.name, modelContext: observerContext) : nil
        let flat = sectioned == nil ? try ResultsObserver<Item, Never>(fetchDescriptor: descriptor, modelContext: observerContext) : nil
        func ids() -> [PersistentIdentifier] { (sectioned?.results.map(\.persistentModelID) ?? flat?.results.map(\.persistentModelID))! }
        func sectionIDs() -> [String: [PersistentIdentifier]] {
            Dictionary(uniqueKeysWithValues: (sectioned?.sections ?? SectionedResults()).map { ($0.title, $0.map(\.persistentModelID)) })
        }
        var live: [Item] = []
        for _ in 0..<60 {
            let before = ids(), sectionsBefore = sectionIDs(), titlesBefore = sectioned?.sections?.sectionTitles ?? []
            for _ in 0..<Int(generator.next() % 4 + 1) {
                switch generator.next() % 3 {
                case 0:
                    let item = Item(name: ["a", "b", "c", "d"][Int(generator.next() % 4)], value: Int(generator.next() % 100))
                    writer.insert(item)
                    live.append(item)
                case 1 where !live.isEmpty:
                    let item = live[Int(generator.next() % UInt64(live.count))]
                    if generator.next() % 2 == 0 { item.value = Int(generator.next() % 100) } else { item.name = ["a", "b", "c"][Int(generator.next() % 3)] }
                case 2 where !live.isEmpty:
                    writer.delete(live.remove(at: Int(generator.next() % UInt64(live.count))))
                default:
                    break
                }
            }
            guard writer.hasChanges else { continue }
            try writer.save()
            let after = ids()
            #expect(after == (try observerContext.fetch(sectioned?.fetchDescriptor ?? flat!.fetchDescriptor)).map(\.persistentModelID))
            let results: CollectionDifference<PersistentIdentifier>
            let updated: [Int]
            if let sectioned {
                let difference = try #require(sectioned.lastUpdate)
                (results, updated) = (difference.results, difference.updated)
                #expect(titlesBefore.applying(try #require(difference.sectionTitles)) == sectioned.sections?.sectionTitles)
                let sectionsAfter = sectionIDs()
                for title in Set(sectionsBefore.keys).union(sectionsAfter.keys) {
                    let change = difference.sections[title]?.results ?? CollectionDifference<PersistentIdentifier>([])!
                    #expect((sectionsBefore[title] ?? []).applying(change) ?? [] == sectionsAfter[title] ?? [], "section \(title)")
                }
            } else {
                let difference = try #require(flat?.lastUpdate, "\(String(describing: flat?.lastError))")
                (results, updated) = (difference.results, difference.updated)
            }
            #expect(before.applying(results) == after)
            for offset in updated {
                #expect(after.indices.contains(offset))
            }
        }
    }

    @Test func updatesStreamsSnapshotsWithTheirDifferences() async throws {
        let container = try inMemoryContainer(Item.self)
        let observer = try ResultsObserver<Item, Never>(sortBy: [SortDescriptor(\.value)], modelContainer: container)
        try save([("a", 1)], in: ModelContext(container))
        var updates = observer.updates().makeAsyncIterator()
        let first = try #require(await updates.next(isolation: #isolation))
        #expect(names(first.results) == ["a"])
        #expect(first.difference?.results.insertions.count == 1, "the first snapshot inserts everything")
        try save([("b", 0)], in: ModelContext(container))
        let second = try #require(await updates.next(isolation: #isolation))
        #expect(names(second.results) == ["b", "a"])
        let inserted = second.difference?.results.insertions.map { change -> Int in
            if case .insert(let offset, _, _) = change { return offset }
            return -1
        }
        #expect(inserted == [0])
    }

    @Test func followsSavesOfOtherProcesses() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        let container = try ReopenFixtures.open(url, types: ["Lamp"])
        let observer = try ResultsObserver<Lamp, Never>(sortBy: [SortDescriptor(\.watts)], modelContainer: container)
        #expect(observer.results.isEmpty)
        let writer = try ProbeRun(["save-lamps", url.path, "3"])
        #expect(writer.wait().exitedNormally)
        #expect(try await eventually { observer.current.results.count == 3 }, "updated on the main actor without being read; \(String(describing: observer.lastError))")
        #expect(observer.results.map(\.watts).count == 3)
    }

    @Test func largeResultsAreReadPageByPage() throws {
        try ResultsObserverLimits.$listLimit.withValue(100) {
            let capture = StatementCapture()
            let container = try inMemoryContainer(Item.self)
            let context = ModelContext(container)
            try save((0..<1_000).map { ("item\($0 % 7)", 1_000 - $0) }, in: context)
            capture.removeAll()
            let observer = try ResultsObserver<Item, String>(
                sortBy: [SortDescriptor(\.value)], sectionBy: \.name, modelContext: ModelContext(container))
            #expect(observer.results.count == 1_000)
            let expected = try context.fetch(observer.fetchDescriptor).map(\.value)
            capture.removeAll()
            #expect(observer.results.map(\.value) == expected, "pages continue where the previous one ended")
            let pages = capture.statements(of: container).map(\.sql).filter { $0.contains("ORDER BY") }
            #expect(pages.count == 4 && pages.allSatisfy { !$0.contains("OFFSET") }, "\(pages)")
            #expect(observer.sections?.sectionTitles == (0..<7).map { "item\($0)" })
            #expect(observer.sections?.map(\.count).reduce(0, +) == 1_000)
            #expect(observer.sections?[sectionTitle: "item3"]?.allSatisfy { $0.name == "item3" } == true)
            #expect(observer.results[999].value == expected[999], "a jump uses OFFSET")
            try save([("item9", 0)], in: context)
            #expect(observer.results.count == 1_001)
            #expect(observer.lastUpdate == nil, "no difference past the list limit")
        }
    }
}

/// Two attributes, sorted in the other order by a test.
@Model
final class RankedLabel {
    var label: String
    var rank: Int
    init(label: String, rank: Int) {
        self.label = label
        self.rank = rank
    }
}
