import ExampleSupport
import Foundation
import Stowage

/// The Users command-line program: parses the arguments, runs the command on the store, and reports
/// the result.
///
/// ```swift
/// exit(Users.run(Array(CommandLine.arguments.dropFirst())))
/// ```
public enum Users {
    /// The store file used when no `--store` is given, in the working directory.
    public static let defaultStoreFileName = "users.store"

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
        switch invocation.command {
        case .importFile(let path):
            // The file is read first: a missing file creates no store.
            let data = try readFile(path)
            let context = ModelContext(try openContainer(at: url))
            Report.imported(try importJSON(data, named: path, into: context), from: path).forEach(console.write)
        case .list:
            let users = try fetchUsers(ModelContext(try openContainer(at: url)))
            if users.isEmpty {
                console.write("No users yet. Import some with: users import <file.json>")
            } else {
                console.write("\(Report.count(users.count, "user")):")
                Report.users(users).forEach(console.write)
            }
        case .export:
            let users = try fetchUsers(ModelContext(try openContainer(at: url)))
            console.write(UserJSON.encode(users.compactMap { $0.toModel() }))
        case .demo:
            try Demo(storeURL: url, console: console).run()
        case .help:
            break
        }
    }

    /// The `--store` path, or `users.store` in the working directory. Relative paths are relative to
    /// the working directory.
    static func storeURL(_ path: String?) -> URL {
        URL(fileURLWithPath: path ?? defaultStoreFileName).absoluteURL
    }

    /// Opens (creating if needed) the store at `url`.
    static func openContainer(at url: URL) throws -> ModelContainer {
        do {
            return try ModelContainer(for: UserModel.self, configurations: ModelConfiguration(url: url))
        } catch {
            throw UsersError.store(openingAt: url, error)
        }
    }

    /// The contents of the file at `path`.
    ///
    /// - Throws: ``UsersError`` `.unreadableFile` when there is no file there or it cannot be read.
    static func readFile(_ path: String) throws -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw UsersError(.unreadableFile, "no file at \(path).")
        }
        guard !isDirectory.boolValue else { throw UsersError(.unreadableFile, "\(path) is a directory, not a JSON file.") }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw UsersError(.unreadableFile, "cannot read \(path): \(error.localizedDescription)")
        }
    }

    /// Imports the JSON `data` of the file `name` into `context` in one save.
    ///
    /// - Throws: ``UsersError`` `.invalidFile` naming the record and field at fault, `.store` when the
    ///   store cannot be read or written; either way nothing is imported.
    static func importJSON(_ data: Data, named name: String, into context: ModelContext) throws -> UserImporter.Summary {
        do {
            return try UserImporter(context: context).importJSON(data)
        } catch let error as UserImportError {
            throw UsersError.invalidFile(name, error)
        } catch {
            throw UsersError.importFailed(error)
        }
    }

    /// Every stored user, by username.
    static func fetchUsers(_ context: ModelContext) throws -> [UserModel] {
        do {
            return try context.fetch(UserModel.all)
        } catch {
            throw UsersError.store("read", error)
        }
    }
}
