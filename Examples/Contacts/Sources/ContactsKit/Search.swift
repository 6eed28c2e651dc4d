import ExampleSupport
import Foundation
import StowageQueries

/// The `search` command: search as you type (seed 003's mutable filter). Each line of input becomes
/// the live query's `filter.searchString`, and the matches are printed; whenever the store changes —
/// this program, another `contacts add`, any process saving to the file — the matches are printed
/// again after a line `-- the contacts changed`. The query's observer is told of this process's saves
/// as they happen, and of other processes' by Stowage's change watcher (which checks the file's
/// `data_version` every 20 ms); the loop below only waits.
@MainActor
struct Search {
    let store: QueryStore
    let console: Console

    /// Runs until `input` ends.
    ///
    /// - Throws: ``ContactsError`` `.store` when the store cannot be read.
    func run(_ input: AsyncStream<String>) async throws {
        let query: Query<Contact>
        do {
            query = try Query(.all, in: store)
        } catch {
            throw ContactsError.store("read", error)
        }
        // Searches and store changes arrive on one stream, so that they are printed in order.
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        var updates = query.updates().makeAsyncIterator()
        _ = await updates.next(isolation: #isolation)  // the results as they are now
        let following = Task {
            while await updates.next(isolation: #isolation) != nil { continuation.yield(.changed) }
        }
        let reading = Task {
            for await line in input { continuation.yield(.search(line)) }
            continuation.yield(.end)
        }
        defer {
            following.cancel()
            reading.cancel()
        }
        console.write("Type a search and press Return (an empty line shows everyone; Ctrl-D ends).")
        var shown = show(query)
        for await event in events {
            switch event {
            case .search(let text):
                query.filter.searchString = text
                shown = show(query)
            case .changed:
                let lines = Report.matches(query.results, search: query.filter.searchString)
                guard lines != shown else { continue }  // the update of a new search, printed already
                console.write("-- the contacts changed")
                lines.forEach(console.write)
                flush()
                shown = lines
            case .end:
                return
            }
        }
    }

    private enum Event: Sendable {
        case search(String)
        case changed
        case end
    }

    private func show(_ query: Query<Contact>) -> [String] {
        let lines = Report.matches(query.results, search: query.filter.searchString)
        lines.forEach(console.write)
        flush()
        return lines
    }

    /// Sends what was printed on its way now (standard output to a pipe is otherwise held).
    private func flush() { fflush(nil) }
}
