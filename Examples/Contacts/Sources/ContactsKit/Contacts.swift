import ExampleSupport
import Foundation
import StowageQueries

/// The Contacts command-line program (seed 003): contacts read as immutable ``Contact`` values
/// through a ``QueryStore``, with a ``ContactFilter`` and a live ``Query``.
///
/// ```swift
/// exit(await Contacts.runAsync(Array(CommandLine.arguments.dropFirst())))
/// ```
public enum Contacts {
    /// The store file used when no `--store` is given, in the working directory.
    public static let defaultStoreFileName = "contacts.store"

    /// Runs one command line; `search` reads its searches from standard input until it ends.
    ///
    /// - Returns: The exit status: 0 on success, 1 when an operation fails, 64 for a usage error.
    @MainActor
    public static func runAsync(_ arguments: [String], console: Console = .standard) async -> Int32 {
        await runAsync(arguments, console: console, input: standardInputLines)
    }

    /// Runs one command line, `search` reading its searches from `input()` (called only by `search`:
    /// the other commands leave standard input to whoever comes next).
    @MainActor
    static func runAsync(_ arguments: [String], console: Console, input: () -> AsyncStream<String>) async -> Int32 {
        do {
            let invocation = try Invocation(parsing: arguments)
            switch invocation.command {
            case .search:
                let store = try openDataStore(at: storeURL(invocation.storePath))
                try await Search(store: store, console: console).run(input())
            case .demo:
                try await Demo(storeURL: storeURL(invocation.storePath), console: console).run()
            default:
                try execute(invocation, console: console)
            }
            return 0
        } catch {
            // The console reports the error as for the other commands.
            return console.run { throw error }
        }
    }

    static func execute(_ invocation: Invocation, console: Console) throws {
        if invocation.command == .help {
            console.write(Invocation.usage)
            return
        }
        let store = try openDataStore(at: storeURL(invocation.storePath))
        switch invocation.command {
        case .add(let givenName, let familyName):
            let contact = try add(givenName, familyName, to: store)
            console.write("Added \(contact.fullName).")
        case .list(let search):
            Report.matches(try fetch(ContactFilter(searchString: search), from: store), search: search).forEach(console.write)
        case .fill(let count):
            try fill(count, into: store)
            console.write("Added \(Report.count(count)); the store has \(Report.count(try storedCount(in: store))).")
        case .search, .demo, .help:
            break
        }
    }

    /// Adds a contact.
    ///
    /// - Throws: ``ContactsError`` `.invalidName` for a blank given name (nothing is written),
    ///   `.store` when the save fails.
    @discardableResult
    static func add(_ givenName: String, _ familyName: String?, to store: QueryStore) throws -> Contact {
        let given = givenName.trimmingCharacters(in: .whitespaces)
        guard !given.isEmpty else {
            throw ContactsError(.invalidName, "a contact needs a given name. Usage: contacts add <given name> [family name]")
        }
        let family = familyName?.trimmingCharacters(in: .whitespaces)
        let model = ContactModel(givenName: given, familyName: family?.isEmpty == false ? family : nil)
        do {
            try store.write { $0.insert(model) }
        } catch {
            throw ContactsError.store("save to", error)
        }
        return Contact(result: model)
    }

    /// The contacts matching `filter`, read as values when used.
    static func fetch<T: Queryable>(_ filter: ContactFilter, from store: QueryStore, as type: T.Type = Contact.self) throws -> QueryResults<T> where T.Filter == ContactFilter {
        do {
            return try store.fetch(filter, as: type)
        } catch {
            throw ContactsError.store("read", error)
        }
    }

    static func storedCount(in store: QueryStore) throws -> Int {
        do {
            return try store.count(ContactFilter.all)
        } catch {
            throw ContactsError.store("read", error)
        }
    }

    /// Given names for ``fill(_:into:)``, combined with ``fillFamilyNames`` and a number.
    static let fillGivenNames = ["Ada", "Alan", "Grace", "Barbara", "Edsger", "Donald", "Frances", "John", "Radia", "Ken"]
    static let fillFamilyNames = ["Lovelace", "Turing", "Hopper", "Liskov", "Dijkstra", "Knuth", "Allen", "Backus", "Perlman", "Thompson"]

    /// Adds `count` generated contacts, saving every 10,000 (memory stays flat however many).
    static func fill(_ count: Int, into store: QueryStore) throws {
        do {
            var added = 0
            while added < count {
                let batch = min(10_000, count - added)
                try store.write { context in
                    for k in added..<(added + batch) {
                        context.insert(ContactModel(
                            givenName: fillGivenNames[k % fillGivenNames.count],
                            familyName: "\(fillFamilyNames[(k / fillGivenNames.count) % fillFamilyNames.count]) \(k)"))
                    }
                }
                added += batch
            }
        } catch {
            throw ContactsError.store("save to", error)
        }
    }

    /// The `--store` path, or `contacts.store` in the working directory.
    static func storeURL(_ path: String?) -> URL {
        URL(fileURLWithPath: path ?? defaultStoreFileName).absoluteURL
    }

    /// Opens (creating if needed) the store at `url`.
    static func openDataStore(at url: URL) throws -> QueryStore {
        do {
            return try QueryStore(for: [ContactModel.self], url: url)
        } catch {
            throw ContactsError.store(openingAt: url, error)
        }
    }

    /// The lines of standard input, read on a thread of their own; the stream ends with the input.
    static func standardInputLines() -> AsyncStream<String> {
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        Thread.detachNewThread {
            while let line = readLine() { continuation.yield(line) }
            continuation.finish()
        }
        return lines
    }
}
