import Foundation
import StowageQueries
import Testing

@Suite("QueryStore and QueryResults")
struct DataStoreTests {
    @Test func fetchMakesValuesInTheFiltersOrderAndSeveralTypesProjectOneModel() throws {
        let store = try makeStore([("b", 2), ("a", 2), ("c", 1), ("d", 3)])
        let values = try store.fetch(NoteFilter(minimumPriority: 2), as: NoteValue.self)
        #expect(values.map(\.title) == ["a", "b", "d"])
        #expect(values[2] == NoteValue(result: values.model(at: 2)))
        #expect(try store.fetch(NoteFilter(descending: true), as: NoteTitle.self).map(\.title) == ["d", "a", "b", "c"])
        #expect(try store.count(NoteFilter(minimumPriority: 3)) == 1)
        #expect(QueryResults<NoteValue>().isEmpty)
    }

    @Test func aWriteThatThrowsSavesNothingAndRollsTheContextBack() throws {
        struct GiveUp: Error {}
        let store = try makeStore([("a", 1)])
        #expect(throws: GiveUp.self) {
            try store.write { context in
                context.insert(Note(title: "b", priority: 1))
                try context.fetch(FetchDescriptor<Note>()).first?.title = "changed"
                throw GiveUp()
            }
        }
        #expect(!store.viewContext.hasChanges)
        #expect(try store.fetch(.all, as: NoteValue.self).map(\.title) == ["a"])
        let fresh = ModelContext(store.container)
        #expect(try fresh.fetch(FetchDescriptor<Note>()).map(\.title) == ["a"])
        #expect(try store.write { _ in 42 } == 42)
    }

    @Test func iteratingSkipsAModelDeletedAfterTheFetch() throws {
        let store = try makeStore([("a", 1), ("b", 2), ("c", 3)])
        let values = try QueryStore(container: store.container).fetch(.all, as: NoteValue.self)
        let other = ModelContext(store.container)
        try other.delete(model: Note.self, where: #Predicate { $0.title == "b" })
        try other.save()
        #expect(values.count == 3, "counted before the deletion")
        var titles: [String] = []
        for value in values { titles.append(value.title) }
        #expect(titles == ["a", "c"])
    }

    @Test func resultsAreLazy() throws {
        let filled = try makeStore((0..<2_000).map { ("n\($0)", $0) })
        let store = QueryStore(container: filled.container)
        let values = try store.fetch(.all, as: NoteValue.self)
        #expect(values.count == 2_000)
        // Only the batch holding the element read is loaded into the context.
        let first = try #require(try filled.viewContext.fetchIdentifiers(FetchDescriptor<Note>(sortBy: [SortDescriptor(\.priority)])).first)
        #expect(values[1_500].priority == 1_500)
        let unread: Note? = store.viewContext.registeredModel(for: first)
        #expect(unread == nil)
        #expect(values[0].priority == 0)
    }
}

@MainActor
@Suite("Query")
struct QueryTests {
    @Test func settingTheFilterRunsItAgainOnceAndAnEqualFilterNotAtAll() throws {
        let store = try makeStore([("a", 1), ("b", 2), ("c", 3)])
        let query = try Query<NoteValue>(.all, in: store)
        #expect(query.results.map(\.title) == ["a", "b", "c"])
        #expect(observesChange({ _ = query.filter }, during: { query.filter.minimumPriority = 2 }))
        #expect(query.results.map(\.title) == ["b", "c"])
        #expect(query.lastError == nil)
        #expect(!observesChange({ _ = query.filter }, during: { query.filter = NoteFilter(minimumPriority: 2) }), "equal: nothing happens")
        query.filter.descending = true
        #expect(query.results.map(\.title) == ["c", "b"])
    }

    @Test func resultsFollowSavesOfOtherContextsAndObservationHearsOfThem() async throws {
        let store = try makeStore([("a", 1)])
        let query = try Query<NoteValue>(NoteFilter(minimumPriority: 1), in: store)
        let other = ModelContext(store.container)
        let fired = try observesChange({ _ = query.results }) {
            other.insert(Note(title: "b", priority: 5))
            try other.save()
        }
        #expect(try await eventually { fired || query.results.count == 2 })
        #expect(query.results.map(\.title) == ["a", "b"])
        // A change that leaves the filter: the value goes.
        let b = try #require(try other.fetch(FetchDescriptor<Note>(predicate: #Predicate { $0.title == "b" })).first)
        b.priority = 0
        try other.save()
        #expect(try await eventually { query.results.map(\.title) == ["a"] })
    }

    @Test func updatesStreamTheResultsAfterEachChange() async throws {
        let store = try makeStore([("a", 1)])
        let query = try Query<NoteValue>(.all, in: store)
        var updates = query.updates().makeAsyncIterator()
        let current = await updates.next(isolation: #isolation)
        #expect(current?.map(\.title) == ["a"], "starts with the current results")
        try store.write { $0.insert(Note(title: "b", priority: 0)) }
        let saved = await updates.next(isolation: #isolation)
        #expect(saved?.map(\.title) == ["b", "a"])
        query.filter.minimumPriority = 1
        let filtered = await updates.next(isolation: #isolation)
        #expect(filtered?.map(\.title) == ["a"], "a new filter is an update too")
    }
}
