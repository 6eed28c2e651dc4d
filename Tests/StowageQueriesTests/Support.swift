import Foundation
import Observation
import StowageQueries
import Synchronization

@Model
final class Note {
    var title: String
    var priority: Int

    init(title: String, priority: Int) {
        self.title = title
        self.priority = priority
    }
}

/// A note as the app sees it.
struct NoteValue: Queryable, Equatable {
    typealias Filter = NoteFilter
    let title: String
    let priority: Int
    init(result: Note) {
        title = result.title
        priority = result.priority
    }
}

/// Only the title: a second projection of the same model.
struct NoteTitle: Queryable {
    typealias Filter = NoteFilter
    let title: String
    init(result: Note) { title = result.title }
}

struct NoteFilter: QueryFilter, Codable {
    static let all = NoteFilter()
    var minimumPriority = 0
    var descending = false

    func fetchDescriptor(_ queryStore: QueryStore) -> FetchDescriptor<Note> {
        let minimum = minimumPriority
        return FetchDescriptor(
            predicate: #Predicate { $0.priority >= minimum },
            sortBy: [SortDescriptor(\.priority, order: descending ? .reverse : .forward), SortDescriptor(\.title)])
    }
}

func makeStore(_ notes: [(String, Int)] = []) throws -> QueryStore {
    let store = try QueryStore(for: [Note.self], url: nil)
    try store.write { context in
        for (title, priority) in notes { context.insert(Note(title: title, priority: priority)) }
    }
    return store
}

/// Whether `withObservationTracking` reports a change of what `read` reads while `body` runs.
func observesChange(_ read: () -> Void, during body: () throws -> Void) rethrows -> Bool {
    let fired = Atomic(false)
    withObservationTracking(read) { fired.store(true, ordering: .relaxed) }
    try body()
    return fired.load(ordering: .relaxed)
}

/// Whether `condition` holds within a few seconds (checked every 10 ms; no timing is asserted).
@MainActor
func eventually(_ condition: () -> Bool) async throws -> Bool {
    for _ in 0..<500 {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
