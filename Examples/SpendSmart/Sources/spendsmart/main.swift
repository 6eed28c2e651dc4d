import Foundation
import SpendSmartKit
import Stowage
import StowageCommands

// `spendsmart stowage migrate --dry-run` (and `migrate status`): the `stowage` command's subcommands
// that need SpendSmart's models and migration plan.
enum SpendSmartStore: StowageApp {
    static var schema: Schema { SpendSmart.schema }
    static var migrationPlan: (any SchemaMigrationPlan.Type)? { SpendSmart.migrationPlan }
    static var defaultStoreURL: URL { URL(fileURLWithPath: SpendSmart.defaultStoreFileName) }
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "stowage" {
    exit(StowageAppCommand<SpendSmartStore>.run(Array(arguments.dropFirst())))
}
exit(await SpendSmart.runAsync(arguments))
