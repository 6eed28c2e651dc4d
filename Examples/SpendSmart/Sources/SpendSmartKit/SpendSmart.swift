import ExampleSupport
import Foundation
import Stowage

/// The SpendSmart command-line program: parses the arguments, runs the command on the store, and
/// reports the result.
///
/// ```swift
/// exit(await SpendSmart.runAsync(Array(CommandLine.arguments.dropFirst())))
/// ```
public enum SpendSmart {
    /// The store file used when no `--store` is given, in the working directory.
    public static let defaultStoreFileName = "spendsmart.store"

    /// Runs one command line, `watch` included: `watch` returns after its `--updates N`, or when the
    /// task is cancelled.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after the program name.
    ///   - console: Where output and errors go.
    /// - Returns: The exit status: 0 on success, 1 when an operation fails, 64 for a usage error.
    @MainActor
    public static func runAsync(_ arguments: [String], console: Console = .standard) async -> Int32 {
        do {
            let invocation = try Invocation(parsing: arguments)
            guard case .watch(let updates) = invocation.command else {
                try execute(invocation, console: console)
                return 0
            }
            try await Watch(storeURL: storeURL(invocation.storePath), console: console).run(updates: updates)
            return 0
        } catch {
            // The console reports the error as for the other commands.
            return console.run { throw error }
        }
    }

    /// Runs one command line other than `watch`, which waits for changes: it needs
    /// ``runAsync(_:console:)``, and is a usage error here.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after the program name.
    ///   - console: Where output and errors go.
    /// - Returns: The exit status: 0 on success, 1 when an operation fails, 64 for a usage error.
    public static func run(_ arguments: [String], console: Console = .standard) -> Int32 {
        run(arguments, console: console, now: Date.init)
    }

    /// Runs one command line, dating new transactions with `now()`.
    static func run(_ arguments: [String], console: Console, now: () -> Date) -> Int32 {
        console.run {
            try execute(Invocation(parsing: arguments), console: console, now: now)
        }
    }

    static func execute(_ invocation: Invocation, console: Console, now: () -> Date = Date.init) throws {
        if invocation.command == .help {
            console.write(Invocation.usage)
            return
        }
        if case .watch = invocation.command {
            throw SpendSmartError(.usage, "watch waits for changes: run it with SpendSmart.runAsync(_:console:).")
        }
        let url = storeURL(invocation.storePath)
        if invocation.command == .demo {
            try Demo(storeURL: url, console: console, now: now()).run()
            return
        }
        let store = BudgetStore(context: ModelContext(try openContainer(at: url)))
        switch invocation.command {
        case .add(let name, let limit):
            console.write(Report.added(try store.add(name: name, limit: limit)))
        case .list:
            Report.totals(try store.all()).forEach(console.write)
        case .over(let amount):
            let budgets = try store.budgets(over: amount)
            if budgets.isEmpty {
                console.write("No budgets over \(Amount.format(amount)).")
            } else {
                console.write("\(Report.count(budgets.count)) over \(Amount.format(amount)), spent of limit:")
                Report.table(budgets).forEach(console.write)
            }
        case .rename(let name, let newName):
            let budget = try store.rename(name, to: newName)
            console.write(Report.renamed(name, to: budget.name))
        case .spend(let budgetName, let amount, let note):
            let transaction = try store.spend(amount, on: note, from: budgetName, date: now())
            if let budget = transaction.budget { console.write(Report.spent(transaction, from: budget)) }
        case .show(let name):
            Report.statement(try store.budget(named: name)).forEach(console.write)
        case .delete(let name):
            let transactions = try store.delete(name)
            console.write(Report.deleted(name, transactions: transactions))
        case .demo, .help, .watch:
            break
        }
    }

    /// The `--store` path, or `spendsmart.store` in the working directory. Relative paths are relative
    /// to the working directory.
    static func storeURL(_ path: String?) -> URL {
        URL(fileURLWithPath: path ?? defaultStoreFileName).absoluteURL
    }

    /// SpendSmart's current models, as its container opens them (the plan's newest version).
    public static var schema: Schema { Schema([Budget.self]) }

    /// SpendSmart's migration plan (version 0, 1, then 2), for tools that check or migrate its store:
    /// `spendsmart stowage migrate --dry-run`.
    public static var migrationPlan: any SchemaMigrationPlan.Type { SpendTrackerMigrationPlan.self }

    /// Opens (creating if needed) the store at `url`, migrating it with ``SpendTrackerMigrationPlan``,
    /// with the article's spelling (`ModelContainer(for: [Budget.self], migrationPlan:, configuration)`).
    ///
    /// Only `Budget` is named: the container finds `Transaction` through `Budget.transactions`, as
    /// SwiftData does.
    ///
    /// A store from before budgets had transactions (version 0) gets its transactions table (a
    /// lightweight stage); one whose budget names repeat (version 1) has them renamed by the plan's
    /// custom stage before names become unique (version 2). Both happen in one transaction as the store
    /// opens.
    ///
    /// - Throws: ``SpendSmartError`` `.outdatedStore` for a store that is none of SpendSmart's versions,
    ///   `.store` when the file cannot be opened.
    static func openContainer(at url: URL) throws -> ModelContainer {
        do {
            return try ModelContainer(for: [Budget.self], migrationPlan: SpendTrackerMigrationPlan.self, ModelConfiguration(url: url))
        } catch let error as SwiftDataError where error == .unknownDataStoreSchema || error.code == .schemaMismatch {
            throw outdatedStore(at: url, error)
        } catch {
            throw SpendSmartError.store(openingAt: url, error)
        }
    }

    /// The error for a store whose tables differ from the models in a way Stowage does not migrate by
    /// itself (a store of SpendSmart before transactions is migrated when it is opened).
    private static func outdatedStore(at url: URL, _ error: StowageError) -> SpendSmartError {
        SpendSmartError(
            .outdatedStore,
            "the store at \(url.path) does not hold SpendSmart's budgets as this version stores them: \(error.message) If it is an old spendsmart.store, delete it to start again; otherwise use another file with --store PATH.")
    }
}
