import ExampleSupport
import Foundation
import Stowage

/// The Reminders command-line program: parses the arguments, runs the command on the store, and
/// reports the result.
///
/// ```swift
/// exit(Reminders.run(Array(CommandLine.arguments.dropFirst())))
/// ```
public enum Reminders {
    /// The store file used when no `--store` is given, in the working directory.
    public static let defaultStoreFileName = "reminders.store"

    /// Runs one command line.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after the program name.
    ///   - console: Where output and errors go.
    /// - Returns: The exit status: 0 on success, 1 when an operation fails, 64 for a usage error.
    public static func run(_ arguments: [String], console: Console = .standard) -> Int32 {
        console.run {
            try execute(Invocation(parsing: arguments), console: console)
        }
    }

    static func execute(_ invocation: Invocation, console: Console) throws {
        if invocation.command == .help {
            console.write(Invocation.usage)
            return
        }
        let url = storeURL(invocation.storePath)
        if invocation.command == .demo {
            try Demo(storeURL: url, console: console).run()
            return
        }
        let book = ReminderBook(context: ModelContext(try openContainer(at: url)))
        switch invocation.command {
        case .lists:
            let lists = try book.lists()
            if lists.isEmpty {
                console.write("No lists yet. Add one with: reminders add-list <name>")
            } else {
                console.write("\(Report.count(lists.count, "list")):")
                Report.lists(lists).forEach(console.write)
            }
        case .addList(let name):
            console.write(Report.addedList(try book.addList(name)))
        case .add(let list, let title):
            console.write(Report.added(try book.add(title, to: list), to: list))
        case .show(let name):
            let list = try book.list(named: name)
            let reminders = try book.reminders(in: list)
            if reminders.isEmpty {
                console.write("\"\(list.name)\" has no reminders. Add one with: reminders add \(Report.quoted(list.name)) <title>")
            } else {
                console.write("\"\(list.name)\": \(Report.counts(reminders))")
                Report.reminders(reminders).forEach(console.write)
            }
        case .complete(let list, let title):
            let completion = try book.complete(title, in: list)
            console.write(Report.completed(completion.reminder, in: list, wasCompleted: completion.wasCompleted))
        case .rename(let list, let title, let newTitle):
            console.write(Report.renamed(title, to: try book.rename(title, in: list, to: newTitle), in: list))
        case .delete(let list, let title):
            try book.delete(title, from: list)
            console.write(Report.deleted(title, from: list))
        case .deleteList(let name):
            console.write(Report.deletedList(name, reminders: try book.deleteList(name)))
        case .demo, .help:
            break
        }
    }

    /// The `--store` path, or `reminders.store` in the working directory. Relative paths are relative
    /// to the working directory.
    static func storeURL(_ path: String?) -> URL {
        URL(fileURLWithPath: path ?? defaultStoreFileName).absoluteURL
    }

    /// Opens (creating if needed) the store at `url`, for both models. Naming `MyList` would be enough
    /// (the container finds `Reminder` through `MyList.reminders`); both are named, as the seed's
    /// model file declares both entities.
    static func openContainer(at url: URL) throws -> ModelContainer {
        do {
            return try ModelContainer(for: MyList.self, Reminder.self, configurations: ModelConfiguration(url: url))
        } catch {
            throw RemindersError.store(openingAt: url, error)
        }
    }
}
