import ExampleSupport
import Foundation
import StowageQueries

/// The Todo command-line program: parses the arguments, runs the command through ``TodoLogic`` on the
/// store, and reports the result.
///
/// ```swift
/// exit(Todo.run(Array(CommandLine.arguments.dropFirst())))
/// ```
public enum Todo {
    /// The store file used when no `--store` is given, in the working directory.
    public static let defaultStoreFileName = "todo.store"

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
        // From here on the program knows only the logic: which data source is behind it is decided here.
        let logic = TodoLogic(StowageTodoDataSource(context: ModelContext(try openContainer(at: url))))
        switch invocation.command {
        case .groups:
            let summaries = try logic.summaries()
            if summaries.isEmpty {
                console.write("No groups yet. Add one with: todo add-group <title>")
            } else {
                console.write("\(Report.count(summaries.count, "group")):")
                Report.groups(summaries).forEach(console.write)
            }
        case .addGroup(let title):
            let id = try logic.addGroup(title)
            console.write(Report.addedGroup(try logic.summary(of: id).title))
        case .renameGroup(let title, let newTitle):
            let group = try logic.group(titled: title)
            let old = group.wrappedValue.title
            try logic.renameGroup(group.id, to: newTitle)
            console.write(Report.renamed(old, to: try logic.summary(of: group.id).title))
        case .deleteGroup(let title):
            let group = try logic.group(titled: title)
            let old = group.wrappedValue.title
            console.write(Report.deletedGroup(old, tasks: try logic.deleteGroup(group.id)))
        case .add(let groupTitle, let task):
            let group = try logic.group(titled: groupTitle).id
            let id = try logic.addTask(task, to: group)
            let title = try logic.tasks(in: group).first { $0.id == id }?.wrappedValue.title ?? task
            console.write(Report.addedTask(title, to: try logic.summary(of: group)))
        case .done(let groupTitle, let task):
            let group = try logic.group(titled: groupTitle).id
            let done = try logic.complete(taskTitled: task, in: group)
            console.write(Report.completed(done, in: try logic.summary(of: group)))
        case .tasks(let groupTitle):
            let group = try logic.group(titled: groupTitle).id
            let summary = try logic.summary(of: group)
            if summary.total == 0 {
                console.write("\"\(summary.title)\" has no tasks yet. Add one with: todo add \(quoted(summary.title)) <task>")
            } else {
                console.write("\"\(summary.title)\": \(Report.counts(summary)):")
                Report.tasks(try logic.tasks(in: group).map(\.wrappedValue)).forEach(console.write)
            }
        case .clear(let groupTitle):
            let group = try logic.group(titled: groupTitle).id
            let cleared = try logic.clearCompleted(in: group)
            console.write(Report.cleared(cleared, from: try logic.summary(of: group)))
        case .demo, .help:
            break
        }
    }

    /// A title as the user would type it in a command: quoted when it has a space.
    static func quoted(_ title: String) -> String {
        title.contains(" ") ? "\"\(title)\"" : title
    }

    /// The `--store` path, or `todo.store` in the working directory. Relative paths are relative to the
    /// working directory.
    static func storeURL(_ path: String?) -> URL {
        URL(fileURLWithPath: path ?? defaultStoreFileName).absoluteURL
    }

    /// Opens (creating if needed) the store at `url`. Naming `GroupModel` is enough: the container finds
    /// `TaskModel` through `GroupModel.tasks`.
    static func openContainer(at url: URL) throws -> ModelContainer {
        do {
            return try ModelContainer(for: GroupModel.self, configurations: ModelConfiguration(url: url))
        } catch {
            throw TodoError.store(openingAt: url, error)
        }
    }
}
