import Foundation
import Stowage
import Testing

/// Short reproductions of the engine bugs the model-based test (`ModelBasedContextTests`) found. Each
/// asserts the behaviour the model-based test expects.
@Suite struct ModelBasedReproTests {
    /// A container with saved items of codes `1...count` (names "n1"…), and two fresh contexts.
    private func saved(_ count: Int = 3) throws -> (ModelContainer, ModelContext, ModelContext) {
        let container = try inMemoryContainer(MBItem.self)
        let writer = ModelContext(container)
        for code in 1...count { writer.insert(MBItem(code: code, name: "n\(code)", value: code, note: nil, score: 0)) }
        try writer.save()
        return (container, ModelContext(container), ModelContext(container))
    }

    private func item(_ code: Int, in context: ModelContext) throws -> MBItem {
        try #require(try context.fetch(FetchDescriptor<MBItem>(predicate: #Predicate { $0.code == code })).first)
    }

    /// Rolling back restores the last saved values, including those another context saved meanwhile.
    @Test func rollbackRestoresValuesAnotherContextSaved() throws {
        let (_, a, b) = try saved(1)
        let inA = try item(1, in: a)
        let inB = try item(1, in: b)
        inB.value = 2
        inA.name = "new"
        try a.save()
        b.rollback()
        b.processPendingChanges()
        #expect(inB.value == 1)
        #expect(inB.name == "new")
        // A partial fetch does not refresh the other attributes either.
        var partial = FetchDescriptor<MBItem>()
        partial.propertiesToFetch = [\MBItem.code, \MBItem.value]
        #expect(try b.fetch(partial).map(\.name) == ["new"])
    }

    /// Un-deleting (inserting again) a model leaves it with the values saved last, including those
    /// another context saved while the deletion was pending.
    @Test func undeleteShowsValuesAnotherContextSaved() throws {
        let (_, a, b) = try saved(1)
        let inA = try item(1, in: a)
        let inB = try item(1, in: b)
        b.delete(inB)
        inA.name = "new"
        try a.save()
        b.insert(inB)
        b.processPendingChanges()
        #expect(!inB.isDeleted)
        #expect(inB.name == "new")
    }

    /// After a save, a model shows the row as stored: the properties it saved, and those another
    /// context saved before.
    @Test func saveLeavesModelsWithTheStoredValues() throws {
        let (_, a, b) = try saved(1)
        let inA = try item(1, in: a)
        let inB = try item(1, in: b)
        inB.value = 2
        inA.name = "new"
        try a.save()
        try b.save()
        b.processPendingChanges()
        #expect(inB.value == 2)
        #expect(inB.name == "new")
        // The stale name then takes part in the context's fetches once the model changes again.
        inB.score = 1
        #expect(try b.fetch(FetchDescriptor<MBItem>(predicate: #Predicate { $0.name == "new" })).count == 1)
    }

    /// A context that rolls back its deletion of a row another context has deleted and saved holds a
    /// model for a row that no longer exists: it should report `isDeleted`, as a held model whose row
    /// another context deleted does.
    @Test func rollingBackADeletionOfARowDeletedElsewhere() throws {
        let (_, a, b) = try saved(1)
        let inA = try item(1, in: a)
        let inB = try item(1, in: b)
        b.delete(inB)
        a.delete(inA)
        try a.save()
        b.rollback()
        #expect(try b.fetch(FetchDescriptor<MBItem>()).isEmpty)
        #expect(inB.isDeleted)
    }

    /// The same after the `.saveConflict` of a change to a row another context deleted: once rolled
    /// back, the model should report `isDeleted`.
    @Test func rollingBackAChangeToARowDeletedElsewhere() throws {
        let (_, a, b) = try saved(1)
        let inA = try item(1, in: a)
        let inB = try item(1, in: b)
        inB.value = 2
        a.delete(inA)
        try a.save()
        #expect(throws: StowageError.self) { try b.save() }
        b.rollback()
        #expect(try b.fetch(FetchDescriptor<MBItem>()).isEmpty)
        #expect(inB.isDeleted)
    }

    /// Refreshing a model from its row must keep the stored string, even when it is canonically
    /// equivalent to the model's (Swift's `==`), as the two sort differently with `localizedStandard`.
    @Test func refreshKeepsTheStoredFormOfAString() throws {
        let container = try inMemoryContainer(MBItem.self)
        let a = ModelContext(container)
        let b = ModelContext(container)
        a.insert(MBItem(code: 1, name: "\u{E9}mile", value: 0, note: nil, score: 0))
        try a.save()
        let inB = try item(1, in: b)
        try item(1, in: a).name = "e\u{301}mile"
        try a.save()
        _ = try b.fetch(FetchDescriptor<MBItem>())
        #expect(Array(inB.name.unicodeScalars) == Array("e\u{301}mile".unicodeScalars))
        #expect(Array(try item(1, in: ModelContext(container)).name.unicodeScalars) == Array("e\u{301}mile".unicodeScalars))
    }

    /// `propertiesToFetch` with a sort on another attribute while the context has a pending deletion
    /// (and no pending insert or change): the sort, done in Swift, reads an attribute that was not
    /// loaded and the process stops ("Stowage internal error: reading MBItem.name before it was
    /// loaded"). Run in a child process.
    @Test func partialFetchSortedWithAPendingDeletion() async {
        await #expect(processExitsWith: .success) {
            let container = try inMemoryContainer(MBItem.self)
            let writer = ModelContext(container)
            for code in 1...3 { writer.insert(MBItem(code: code, name: "n\(code)", value: code, note: nil, score: 0)) }
            try writer.save()
            let context = ModelContext(container)
            let first = try #require(try context.fetch(FetchDescriptor<MBItem>(predicate: #Predicate { $0.code == 1 })).first)
            context.delete(first)
            var descriptor = FetchDescriptor<MBItem>(sortBy: [SortDescriptor(\.name)])
            descriptor.propertiesToFetch = [\MBItem.code, \MBItem.value]
            #expect(try context.fetch(descriptor).map(\.code) == [2, 3])
        }
    }
}
