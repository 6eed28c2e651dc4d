import Foundation
import Stowage

/// The SpendSmart command-line program: parses the arguments, runs the command on the store, and
/// reports the result.
///
/// ```swift
/// exit(SpendSmart.run(Array(CommandLine.arguments.dropFirst())))
/// ```
public enum SpendSmart {
    /// The store file used when no `--store` is given, in the working directory.
    public static let defaultStoreFileName = "spendsmart.store"

    /// Runs one command line.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after the program name.
    ///   - console: Where output and errors go.
    /// - Returns: The exit status: 0 on success, 1 when an operation fails, 64 for a usage error.
    public static func run(_ arguments: [String], console: Console = .standard) -> Int32 {
        do {
            let invocation = try Invocation(parsing: arguments)
            try execute(invocation, console: console)
            return 0
        } catch let error as SpendSmartError {
            console.writeError("error: \(error.message)")
            return error.exitStatus
        } catch {
            console.writeError("error: \(error)")
            return 1
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
        let store = BudgetStore(context: ModelContext(try openContainer(at: url)))
        switch invocation.command {
        case .add(let name, let limit):
            console.write(Report.added(try store.add(name: name, limit: limit)))
        case .list:
            let budgets = try store.all()
            if budgets.isEmpty {
                console.write("No budgets yet. Add one with: spendsmart add <name> <limit>")
            } else {
                console.write("\(Report.count(budgets.count)):")
                Report.table(budgets).forEach(console.write)
            }
        case .over(let amount):
            let budgets = try store.budgets(over: amount)
            if budgets.isEmpty {
                console.write("No budgets over \(Amount.format(amount)).")
            } else {
                console.write("\(Report.count(budgets.count)) over \(Amount.format(amount)):")
                Report.table(budgets).forEach(console.write)
            }
        case .rename(let name, let newName):
            let budget = try store.rename(name, to: newName)
            console.write(Report.renamed(name, to: budget.name))
        case .delete(let name):
            try store.delete(name)
            console.write(Report.deleted(name))
        case .demo, .help:
            break
        }
    }

    /// The `--store` path, or `spendsmart.store` in the working directory. Relative paths are relative
    /// to the working directory.
    static func storeURL(_ path: String?) -> URL {
        URL(fileURLWithPath: path ?? defaultStoreFileName).absoluteURL
    }

    /// Opens (creating if needed) the store at `url`.
    static func openContainer(at url: URL) throws -> ModelContainer {
        do {
            return try ModelContainer(for: Budget.self, configurations: ModelConfiguration(url: url))
        } catch {
            let reason = (error as? StowageError)?.message ?? String(describing: error)
            throw SpendSmartError(.store, "could not open the store at \(url.path): \(reason)")
        }
    }
}
