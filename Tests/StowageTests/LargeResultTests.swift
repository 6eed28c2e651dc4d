import Foundation
import Stowage
@testable import StowageCore
import Testing

/// Item 7, large results: batched fetching visits every row in order while the context holds a bounded
/// number of objects.
@Suite(.serialized) struct LargeResultTests {
    static let rowCount = 200_000

    /// A file store holding `rowCount` rows, inserted through a context in chunks.
    private func populated(_ directory: TemporaryDirectory) throws -> ModelContainer {
        let container = try ModelContainer(for: Row.self, configurations: ModelConfiguration(url: directory.file()))
        let context = ModelContext(container)
        // Insert in descending order so that the sort, not the primary key, orders the results.
        var index = Self.rowCount - 1
        while index >= 0 {
            for _ in 0..<20_000 where index >= 0 {
                context.insert(Row(index: index, label: "row \(index)"))
                index -= 1
            }
            try context.save()
        }
        #expect(context.registered.count == 0)
        return container
    }

    /// A file store holding rows `0..<rows`, labelled "row i", saved at once.
    private func smallStore(_ directory: TemporaryDirectory, rows: Int) throws -> ModelContainer {
        let container = try ModelContainer(for: Row.self, configurations: ModelConfiguration(url: directory.file()))
        let writer = ModelContext(container)
        for index in 0..<rows { writer.insert(Row(index: index, label: "row \(index)")) }
        try writer.save()
        return container
    }

    @Test func enumerateVisitsEveryRowInOrderWithBoundedRegistrations() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let container = try populated(directory)
        let context = ModelContext(container)
        let batchSize = 1_000
        var expected = 0
        var maximumRegistered = 0
        var mismatches = 0
        try context.enumerate(FetchDescriptor<Row>(sortBy: [SortDescriptor(\.index)]), batchSize: batchSize) { row in
            if row.index != expected || row.label != "row \(expected)" { mismatches += 1 }
            expected += 1
            maximumRegistered = max(maximumRegistered, context.registered.count)
        }
        #expect(expected == Self.rowCount)
        #expect(mismatches == 0)
        #expect(maximumRegistered <= 2 * batchSize)
        #expect(maximumRegistered > 0)
        #expect(context.registered.count <= batchSize)
    }

    @Test func batchedFetchIsALazyCollectionOverEveryRow() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let container = try populated(directory)
        let context = ModelContext(container)
        let batchSize = 500
        var descriptor = FetchDescriptor<Row>(sortBy: [SortDescriptor(\.index)])
        descriptor.predicate = #Predicate { $0.index >= 10 }
        let results = try context.fetch(descriptor, batchSize: batchSize)
        #expect(results.count == Self.rowCount - 10)
        #expect(context.registered.count == 0)
        var expected = 10
        var maximumRegistered = 0
        var mismatches = 0
        for row in results {
            if row.index != expected { mismatches += 1 }
            expected += 1
            maximumRegistered = max(maximumRegistered, context.registered.count)
        }
        #expect(expected == Self.rowCount)
        #expect(mismatches == 0)
        #expect(maximumRegistered <= 2 * batchSize)
        // Random access loads the batch holding the element.
        #expect(results[results.count - 1].index == Self.rowCount - 1)
        #expect(results[12_345].index == 12_355)
        #expect(results[0].index == 10)
        #expect(context.registered.count <= 2 * batchSize)
    }

    @Test func enumerateRefusesEscapingMutationsByDefault() throws {
        let container = try inMemoryContainer(Row.self)
        let context = ModelContext(container)
        for index in 0..<10 { context.insert(Row(index: index, label: "")) }
        try context.save()
        let error = stowageError {
            try context.enumerate(FetchDescriptor<Row>(), batchSize: 3) { $0.label = "changed" }
        }
        #expect(error?.code == .invalidValue)
        context.rollback()
        try context.enumerate(FetchDescriptor<Row>(), batchSize: 3, allowEscapingMutations: true) { $0.label = "changed" }
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<Row>()).allSatisfy { $0.label == "changed" })
    }

    /// Iterating hands each model over: a model the loop does not keep is released once the loop moves
    /// past it (not with its whole batch), and a model it keeps stays the registered object.
    @Test(arguments: [
        ("enumerate", [SortDescriptor<Row>]()), ("enumerate", [SortDescriptor(\Row.label)]),
        ("for in fetch(batchSize:)", []), ("for in fetch(batchSize:)", [SortDescriptor(\Row.label)]),
    ])
    func iterationReleasesEachModelTheLoopDoesNotKeep(way: String, sort: [SortDescriptor<Row>]) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let container = try smallStore(directory, rows: 10)

        let context = ModelContext(container)
        var previous: PersistentIdentifier?
        var previousStillRegistered: [Int] = []
        var visited: [Int] = []
        var kept: Row?
        func visit(_ row: Row) {
            if let previous, let registered: Row = context.registeredModel(for: previous), registered !== kept {
                previousStillRegistered.append(row.index)
            }
            visited.append(row.index)
            previous = row.persistentModelID
            if row.index == 3 { kept = row }
        }
        let descriptor = FetchDescriptor<Row>(sortBy: sort)
        if way == "enumerate" {
            try context.enumerate(descriptor, batchSize: 4) { visit($0) }
        } else {
            for row in try context.fetch(descriptor, batchSize: 4) { visit(row) }
        }
        #expect(visited == Array(0..<10))
        #expect(previousStillRegistered == [])
        let keptID = try #require(kept).persistentModelID
        let registered: Row? = context.registeredModel(for: keptID)
        #expect(registered === kept)
        #expect(try context.fetch(FetchDescriptor<Row>(predicate: #Predicate { $0.index == 3 })).first === kept)
    }

    /// A lazy collection counts its rows when it is created; iterating it (`for`-`in`) after some of them
    /// were deleted visits the rows that are left.
    @Test func iteratingALazyCollectionSkipsRowsDeletedSinceItsCount() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let container = try smallStore(directory, rows: 10)

        let results = try ModelContext(container).fetch(FetchDescriptor<Row>(), batchSize: 3)
        #expect(results.count == 10)
        let writer = ModelContext(container)
        try writer.delete(model: Row.self, where: #Predicate { $0.index >= 3 && $0.index < 6 })
        try writer.save()
        var visited: [Int] = []
        for row in results { visited.append(row.index) }
        #expect(visited == [0, 1, 2, 6, 7, 8, 9])
    }

    /// Iteration holds a bounded number of models whatever the batch size asked for: it reads at most
    /// `iterationBatchLimit` rows at a time and releases each model the loop does not keep.
    @Test(arguments: [("enumerate", false), ("enumerate", true), ("for in fetch(batchSize:)", false), ("for in fetch(batchSize:)", true)])
    func iterationHoldsABoundedNumberOfModelsWhateverTheBatchSize(way: String, sorted: Bool) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let rowCount = 3 * ModelContext.iterationBatchLimit + 7
        let container = try smallStore(directory, rows: rowCount)

        let context = ModelContext(container)
        var maximumRegistered = 0
        var visited = 0
        func visit(_ row: Row) {
            #expect(row.index == visited)
            visited += 1
            maximumRegistered = max(maximumRegistered, context.registered.count)
        }
        let descriptor = FetchDescriptor<Row>(sortBy: sorted ? [SortDescriptor(\.index)] : [])
        if way == "enumerate" {
            try context.enumerate(descriptor, batchSize: 100_000) { visit($0) }
        } else {
            for row in try context.fetch(descriptor, batchSize: 100_000) { visit(row) }
        }
        #expect(visited == rowCount)
        #expect(maximumRegistered == ModelContext.iterationBatchLimit)
    }
}
