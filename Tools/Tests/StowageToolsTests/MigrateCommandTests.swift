import ExampleTestSupport
import Foundation
import Stowage
import Testing
@testable import SpendSmartKit

/// `spendsmart stowage migrate`: the app's own command line with `StowageAppCommand`, on a store of
/// SpendSmart's version 1 whose budget names repeat (the plan's custom stage renames them).
@Suite("An app's stowage migrate")
@MainActor
struct MigrateCommandTests {
    func makeVersionOneStore(at url: URL) throws {
        let context = ModelContext(try ModelContainer(
            for: Schema(versionedSchema: SpendTrackerSchemaV1.self), configurations: ModelConfiguration(url: url)))
        for (name, limit) in [("Groceries", 500.0), ("Groceries", 300), ("Rent", 1200)] {
            context.insert(SpendTrackerSchemaV1.Budget(name: name, limit: limit))
        }
        try context.save()
    }

    @Test func dryRunPrintsTheStatementsAndWritesNothing() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-migrate")
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("old.store")
        try makeVersionOneStore(at: url)
        let before = try snapshot(of: directory.url)

        let status = try Tool.run("spendsmart", ["stowage", "migrate", "status", "--store", url.path])
        #expect(status.status == 3, "\(status.output)\(status.errorOutput)")
        #expect(status.output.contains("migrates it"))
        let dryRun = try Tool.run("spendsmart", ["stowage", "migrate", "--dry-run", "--store", url.path])
        #expect(dryRun.status == 3, "\(dryRun.errorOutput)")
        let statements = dryRun.output.split(separator: "\n").map(String.init)
        // The custom stage's rename of the duplicate, then the unique index, in one transaction.
        #expect(statements.contains { $0.hasPrefix("BEGIN IMMEDIATE") })
        #expect(statements.contains { $0.contains("UPDATE") && $0.contains("Groceries") })
        #expect(statements.contains { $0.contains("CREATE UNIQUE INDEX") && $0.contains("Budget_name_unique") })
        #expect(statements.contains { $0.hasPrefix("COMMIT") })
        #expect(differences(before, try snapshot(of: directory.url)) == [], "a dry run writes nothing")

        let migrate = try Tool.run("spendsmart", ["stowage", "migrate", "--store", url.path])
        #expect(migrate.status == 0, "\(migrate.errorOutput)")
        #expect(try Tool.run("spendsmart", ["stowage", "migrate", "status", "--store", url.path]).status == 0)
        let again = try Tool.run("spendsmart", ["stowage", "migrate", "--dry-run", "--store", url.path])
        #expect(again.status == 0 && again.output.split(separator: "\n").count == 1, "up to date: only the status line")
        let missing = try Tool.run("spendsmart", ["stowage", "migrate", "status", "--store", directory.path("none.store")])
        #expect(missing.status == 4)
        #expect(!FileManager.default.fileExists(atPath: directory.path("none.store")))
    }
}
