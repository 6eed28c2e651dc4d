import ArgumentParser
import Foundation
import Stowage

/// What an app tells ``StowageAppCommand`` about its store: its models and migration plan, and where
/// the store is by default.
public protocol StowageApp {
    /// The app's current schema, as its container is created with (`Schema(versionedSchema: V2.self)`).
    static var schema: Schema { get }
    /// The app's migration plan, if it has one.
    static var migrationPlan: (any SchemaMigrationPlan.Type)? { get }
    /// The store's file when `--store` is not given.
    static var defaultStoreURL: URL { get }
}

extension StowageApp {
    /// No migration plan: changes are migrated lightweight.
    public static var migrationPlan: (any SchemaMigrationPlan.Type)? { nil }
}

/// `stowage` subcommands for an app's own command line, with its models: `migrate --dry-run` prints
/// the statements its migration plan would run, `migrate status` says where the store stands with an
/// exit status a deploy script can test.
///
/// ```swift
/// enum BudgetsStore: StowageApp {
///     static var schema: Schema { Schema(versionedSchema: BudgetsSchemaV2.self) }
///     static var migrationPlan: (any SchemaMigrationPlan.Type)? { BudgetsMigrationPlan.self }
///     static var defaultStoreURL: URL { URL(fileURLWithPath: "budgets.store") }
/// }
///
/// // In main.swift: `swift run Budgets stowage migrate --dry-run`
/// if CommandLine.arguments.dropFirst().first == "stowage" {
///     exit(StowageAppCommand<BudgetsStore>.run(Array(CommandLine.arguments.dropFirst(2))))
/// }
/// ```
///
/// Or, in a command line built with swift-argument-parser, as one of its subcommands:
/// `subcommands: [StowageAppCommand<BudgetsStore>.self]`.
///
/// Exit statuses: 0 when the store is up to date (or was migrated), 3 when opening it would migrate it,
/// 4 when there is no store yet, 1 when opening it would fail (a newer or unknown version, a change the
/// lightweight migration refuses), 64 for a usage error.
public struct StowageAppCommand<App: StowageApp>: ParsableCommand {
    /// `stowage`, with its `migrate` subcommand.
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "stowage", abstract: "The app's store: its migrations.", subcommands: [StowageMigrateCommand<App>.self])
    }

    /// A command as swift-argument-parser makes it, before parsing.
    public init() {}

    /// Runs `arguments` (those after `stowage`) and returns the exit status.
    public static func run(_ arguments: [String]) -> Int32 {
        runAsRoot(arguments)
    }

}

/// The exit statuses of `migrate status` and `migrate --dry-run`.
enum MigrationExit {
    static let needsMigration: Int32 = 3
    static let noStore: Int32 = 4
}

/// `migrate`: migrates the store (what opening it does), or with `--dry-run` prints what that would
/// run; `migrate status` says where the store stands.
public struct StowageMigrateCommand<App: StowageApp>: ParsableCommand {
    /// `migrate`, with its `status` subcommand.
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "migrate",
            abstract: "Migrate the store to the app's models, or with --dry-run print the statements that would run.",
            discussion: "Exits with 0 when the store is up to date or was migrated, 3 when --dry-run found a migration to run, 4 when there is no store.",
            subcommands: [StowageMigrationStatusCommand<App>.self])
    }

    @Option(help: "The store file (the app's default otherwise).", completion: .file()) var store: String?
    @Flag(help: "Print the statements the migration would run, without writing anything.") var dryRun = false

    /// A command as swift-argument-parser makes it, before parsing.
    public init() {}

    /// Migrates the store, or prints what migrating it would run.
    public func run() throws {
        let configuration = ModelConfiguration(url: storeURL(store, App.self))
        let status = try ModelContainer.migrationStatus(for: App.schema, migrationPlan: App.migrationPlan, configuration: configuration)
        guard dryRun else {
            guard status.state != .upToDate else {
                Output.line(status.description)
                return
            }
            _ = try ModelContainer(for: App.schema, migrationPlan: App.migrationPlan, configurations: [configuration])
            Output.line(status.state == .noStore ? "Created the store at \(configuration.url.path), version \(status.targetVersion)."
                : "Migrated the store at \(configuration.url.path) to version \(status.targetVersion).")
            return
        }
        let statements = try ModelContainer.migrationStatements(for: App.schema, migrationPlan: App.migrationPlan, configuration: configuration)
        Output.line("-- " + status.description)
        for statement in statements { Output.line(statement.hasSuffix(";") ? statement : statement + ";") }
        switch status.state {
        case .upToDate: return
        case .noStore: throw ExitCode(MigrationExit.noStore)
        case .needsMigration: throw ExitCode(MigrationExit.needsMigration)
        }
    }
}

/// `migrate status`: where the store stands against the app's models.
public struct StowageMigrationStatusCommand<App: StowageApp>: ParsableCommand {
    /// `status`.
    public static var configuration: CommandConfiguration {
        CommandConfiguration(
            commandName: "status", abstract: "Say whether the store is up to date, needs a migration (exit 3) or does not exist (exit 4).")
    }

    /// `--store` is `migrate`'s (`migrate status --store PATH` and `migrate --store PATH status` alike).
    @ParentCommand var migrate: StowageMigrateCommand<App>

    /// A command as swift-argument-parser makes it, before parsing.
    public init() {}

    /// Prints where the store stands, and exits with its status.
    public func run() throws {
        let status = try ModelContainer.migrationStatus(
            for: App.schema, migrationPlan: App.migrationPlan, configuration: ModelConfiguration(url: storeURL(migrate.store, App.self)))
        Output.line(status.description)
        switch status.state {
        case .upToDate: return
        case .noStore: throw ExitCode(MigrationExit.noStore)
        case .needsMigration: throw ExitCode(MigrationExit.needsMigration)
        }
    }
}

private func storeURL<App: StowageApp>(_ path: String?, _ app: App.Type) -> URL {
    path.map { URL(fileURLWithPath: $0) } ?? App.defaultStoreURL
}
