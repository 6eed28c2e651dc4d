import Foundation
import Stowage
@testable import StowageCore
import Synchronization
import Testing

/// Counts the deinitializers the models below run.
private let deinitializers = Atomic<Int>(0)

/// A model that declares its own deinitializer: `@Model` puts the identity map's unregistration first in it.
@Model final class Tracked {
    var name: String
    var rank: Int

    init(name: String, rank: Int) {
        self.name = name
        self.rank = rank
    }

    deinit {
        deinitializers.add(1, ordering: .relaxed)
    }
}

/// The root of a hierarchy without a deinitializer of its own, and a subclass with one.
@Model class Conveyance {
    var label: String
    init(label: String) { self.label = label }
}

@Model final class Lorry: Conveyance {
    var axles: Int
    init(label: String, axles: Int) {
        self.axles = axles
        super.init(label: label)
    }

    deinit {
        deinitializers.add(1, ordering: .relaxed)
    }
}

/// A context does not retain the models it hands out: a model its code lets go of leaves the context's
/// identity map, and the row's next fetch makes a new object with the row's values. The row state lives in
/// the model, and the deinitializer `@Model` generates (or puts first in the class's own) unregisters it.
@Suite(.serialized) struct ModelReleaseTests {
    @Test func aReleasedModelLeavesTheIdentityMapAndItsRowFetchesAgain() throws {
        let container = try inMemoryContainer(Item.self)
        let context = ModelContext(container)
        for value in 0..<500 { context.insert(Item(name: "item \(value)", value: value)) }
        try context.save()
        // The inserted models were not held: saved, they are gone from the context too.
        #expect(context.registered.count == 0)
        var items: [Item]? = try context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.value)]))
        weak let first = items?.first
        items = nil
        #expect(first == nil)
        #expect(context.registered.count == 0)

        let again = try context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.value)]))
        #expect(again.map(\.value) == Array(0..<500))
        #expect(again[7].name == "item 7")
        #expect(context.registered.count == 500)
        #expect(again[7].persistentModelID == context.model(for: again[7].persistentModelID).persistentModelID)
        #expect(context.model(for: again[7].persistentModelID) === again[7])
    }

    @Test func aModelWithItsOwnDeinitializerRunsItAndLeavesTheIdentityMap() throws {
        let container = try inMemoryContainer(Tracked.self)
        let context = ModelContext(container)
        for rank in 0..<100 { context.insert(Tracked(name: "t\(rank)", rank: rank)) }
        try context.save()
        let before = deinitializers.load(ordering: .relaxed)
        do {
            let fetched = try context.fetch(FetchDescriptor<Tracked>(predicate: #Predicate { $0.rank < 50 }))
            #expect(fetched.count == 50)
            #expect(context.registered.count == 50)
        }
        #expect(deinitializers.load(ordering: .relaxed) - before == 50)
        #expect(context.registered.count == 0)
        let ranks = try context.fetch(FetchDescriptor<Tracked>(sortBy: [SortDescriptor(\.rank)])).map(\.rank)
        #expect(ranks == Array(0..<100))
        #expect(deinitializers.load(ordering: .relaxed) - before == 150)
    }

    @Test func aSubclassWithItsOwnDeinitializerLeavesTheIdentityMapThroughItsRoot() throws {
        let container = try inMemoryContainer(Conveyance.self, Lorry.self)
        let context = ModelContext(container)
        context.insert(Conveyance(label: "bike"))
        context.insert(Lorry(label: "hauler", axles: 3))
        try context.save()
        let before = deinitializers.load(ordering: .relaxed)
        do {
            let vehicles = try context.fetch(FetchDescriptor<Conveyance>(sortBy: [SortDescriptor(\.label)]))
            #expect(vehicles.map(\.label) == ["bike", "hauler"])
            #expect((vehicles[1] as? Lorry)?.axles == 3)
            #expect(context.registered.count == 2)
        }
        #expect(context.registered.count == 0)
        #expect(deinitializers.load(ordering: .relaxed) - before == 1)
        let lorries = try context.fetch(FetchDescriptor<Lorry>())
        #expect(lorries.map(\.axles) == [3])
    }

    /// A model keeps the state that tells it from others after it is saved, changed and released: the
    /// unsaved change of a model still held survives the release of its neighbours.
    @Test func releasingNeighboursKeepsAHeldModelsUnsavedChange() throws {
        let container = try inMemoryContainer(Item.self)
        let context = ModelContext(container)
        for value in 0..<64 { context.insert(Item(name: "n\(value)", value: value)) }
        try context.save()
        let held: Item
        do {
            let items = try context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.value)]))
            held = items[31]
            held.name = "changed"
        }
        #expect(context.registered.count == 1)
        #expect(context.hasChanges)
        let again = try context.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.value == 31 }))
        #expect(again.first === held)
        #expect(again.first?.name == "changed")
        context.rollback()
        #expect(held.name == "n31")
    }

    /// Contexts on several threads fetch and release models at once, and models fetched by one context
    /// are released on another thread (handed to a task that drops them): every context's identity map
    /// ends empty and every fetch reads the right rows. Run under Thread Sanitizer by `.ci/run`.
    @Test func modelsReleasedOnManyThreadsLeaveTheirContextsIdentityMaps() async throws {
        let container = try inMemoryContainer(Item.self)
        let seed = ModelContext(container)
        for value in 0..<2_000 { seed.insert(Item(name: "v\(value)", value: value)) }
        try seed.save()

        let sums = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    let context = ModelContext(container)
                    var sum = 0
                    for round in 0..<5 {
                        let lower = (worker * 300 + round * 100) % 1_900
                        // The models go to another task, which holds the last reference once the closure
                        // returns: they are released there (or here, if that task finished first).
                        let holder = try { () throws -> Task<Void, Never> in
                            let items = try context.fetch(FetchDescriptor<Item>(
                                predicate: #Predicate { $0.value >= lower && $0.value < lower + 100 }))
                            sum += items.reduce(0) { $0 + $1.value }
                            nonisolated(unsafe) let handed = items
                            return Task.detached { withExtendedLifetime(handed) {} }
                        }()
                        await holder.value
                    }
                    #expect(context.registered.count == 0)
                    return sum
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        let expected = (0..<4).map { worker in
            (0..<5).reduce(0) { sum, round in
                let lower = (worker * 300 + round * 100) % 1_900
                return sum + (lower..<(lower + 100)).reduce(0, +)
            }
        }
        #expect(sums.sorted() == expected.sorted())
        #expect(seed.registered.count == 0)
    }
}
