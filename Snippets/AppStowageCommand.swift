// snippet.hide
// An app's own command line with the `stowage` subcommands that need its models (StowageCommands).
import Foundation
import Stowage
import StowageCommands

@Model
final class Budget {
    var name: String
    var limit: Double
    init(name: String, limit: Double) {
        self.name = name
        self.limit = limit
    }
}

// snippet.show
// snippet.app
// Package.swift: .product(name: "StowageCommands", package: "Stowage")
enum BudgetsStore: StowageApp {
    static var schema: Schema { Schema([Budget.self]) }
    static var defaultStoreURL: URL { URL(fileURLWithPath: "budgets.store") }
    // static var migrationPlan: (any SchemaMigrationPlan.Type)? { BudgetsMigrationPlan.self }
}

// `Budgets stowage migrate --dry-run`, `Budgets stowage migrate status`
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "stowage" {
    exit(StowageAppCommand<BudgetsStore>.run(Array(arguments.dropFirst())))
}
// snippet.end
// snippet.hide
// Run as a snippet: the status of a store that does not exist yet (exit status 4), then of a new one.
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("app-stowage-command-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let store = directory.appendingPathComponent("budgets.store").path
precondition(StowageAppCommand<BudgetsStore>.run(["migrate", "status", "--store", store]) == 4)
_ = try ModelContainer(for: BudgetsStore.schema, configurations: ModelConfiguration(url: URL(fileURLWithPath: store)))
precondition(StowageAppCommand<BudgetsStore>.run(["migrate", "status", "--store", store]) == 0)
