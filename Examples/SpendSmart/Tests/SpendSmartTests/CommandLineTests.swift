import Foundation
import Stowage
import Testing
@testable import SpendSmartKit

/// The program as a user runs it: one `SpendSmart.run` per command line, each opening the store file
/// in a new container, like separate launches.
@Suite struct CommandLineTests {
    @Test func budgetsSurviveAcrossRuns() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("budgets.store")

        let added = [
            spendsmart("--store", store, "add", "Groceries", "500"),
            spendsmart("--store", store, "add", "Vacation", "2000"),
            spendsmart("--store", store, "add", "Books", "75"),
        ]
        #expect(added.map(\.status) == [0, 0, 0])
        #expect(added.map(\.transcript.output) == [
            ["Added \"Groceries\" with a limit of $500.00."],
            ["Added \"Vacation\" with a limit of $2,000.00."],
            ["Added \"Books\" with a limit of $75.00."],
        ])

        let list = spendsmart("--store", store, "list")
        #expect(list.status == 0)
        #expect(list.transcript.output == [
            "3 budgets, spent of limit:",
            "  Vacation   $0.00 of $2,000.00",
            "  Groceries  $0.00 of   $500.00",
            "  Books      $0.00 of    $75.00",
        ])
        #expect(list.transcript.errors.isEmpty)

        let over = spendsmart("--store", store, "over", "100")
        #expect(over.status == 0)
        #expect(over.transcript.output == [
            "2 budgets over $100.00, spent of limit:",
            "  Vacation   $0.00 of $2,000.00",
            "  Groceries  $0.00 of   $500.00",
        ])

        let rename = spendsmart("--store", store, "rename", "Vacation", "Summer Trip")
        #expect(rename.status == 0)
        #expect(rename.transcript.output == ["Renamed \"Vacation\" to \"Summer Trip\"."])

        let delete = spendsmart("--store", store, "delete", "Books")
        #expect(delete.status == 0)
        #expect(delete.transcript.output == ["Deleted \"Books\"."])

        // A container of the test's own reads what the separate runs saved.
        let container = try ModelContainer(for: Budget.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: store)))
        let budgets = try ModelContext(container).fetch(Budget.all)
        #expect(budgets.map(\.name) == ["Summer Trip", "Groceries"])
        #expect(budgets.map(\.limit) == [2000, 500])
    }

    @Test func theStoreDefaultsToTheWorkingDirectory() {
        #expect(SpendSmart.storeURL(nil) == URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("spendsmart.store"))
        #expect(SpendSmart.storeURL("data/b.store") == URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("data/b.store"))
    }

    @Test func emptyResultsSaySo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("budgets.store")

        let list = spendsmart("--store", store, "list")
        #expect(list.status == 0)
        #expect(list.transcript.output == ["No budgets yet. Add one with: spendsmart add <name> <limit>"])

        #expect(spendsmart("--store", store, "add", "Books", "75").status == 0)
        let over = spendsmart("--store", store, "over", "75")
        #expect(over.status == 0)
        #expect(over.transcript.output == ["No budgets over $75.00."])
    }

    @Test func helpPrintsTheUsageAndOpensNoStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("budgets.store")
        let help = spendsmart("--store", store, "help")
        #expect(help.status == 0)
        #expect(help.transcript.output == [Invocation.usage])
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    // MARK: - Errors

    @Test func unknownBudgetsFailWithStatus1() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("budgets.store")

        for arguments in [["delete", "Travel"], ["rename", "Travel", "Trips"]] {
            let run = SpendSmart.run(["--store", store] + arguments, console: Transcript().console)
            #expect(run == 1)
        }
        let delete = spendsmart("--store", store, "delete", "Travel")
        #expect(delete.status == 1)
        #expect(delete.transcript.output.isEmpty)
        #expect(delete.transcript.errors == ["error: no budget named \"Travel\". Run \"spendsmart list\" to see the budgets."])
    }

    @Test func aDuplicateNameFailsWithStatus1() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("budgets.store")
        #expect(spendsmart("--store", store, "add", "Books", "75").status == 0)

        let again = spendsmart("--store", store, "add", "Books", "80")
        #expect(again.status == 1)
        #expect(again.transcript.errors == ["error: a budget named \"Books\" already exists. Pick another name, or rename the existing budget."])
        #expect(spendsmart("--store", store, "list").transcript.output == ["1 budget, spent of limit:", "  Books  $0.00 of $75.00"])
    }

    @Test func usageErrorsFailWithStatus64AndTouchNoStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("budgets.store")

        let badNumber = spendsmart("--store", store, "add", "Books", "lots")
        #expect(badNumber.status == 64)
        #expect(badNumber.transcript.errors == ["error: \"lots\" is not a valid limit: write a number such as 500 or 1250.50."])

        let negative = spendsmart("--store", store, "add", "Books", "-5")
        #expect(negative.status == 64)
        #expect(negative.transcript.errors == ["error: a budget's limit must be more than 0 (got -$5.00)."])

        let unknown = spendsmart("--store", store, "spent", "5")
        #expect(unknown.status == 64)
        #expect(unknown.transcript.errors == ["error: unknown command \"spent\". Run \"spendsmart help\" for the commands."])

        let noNote = spendsmart("--store", store, "spend", "Books", "5")
        #expect(noNote.status == 64)
        #expect(noNote.transcript.errors == ["error: spend takes a budget, an amount and a note, got 2 arguments. Usage: spendsmart spend <budget> <amount> <note>"])

        #expect(spendsmart("--store", store, "list").transcript.output == ["No budgets yet. Add one with: spendsmart add <name> <limit>"])
        #expect(!FileManager.default.fileExists(atPath: directory.path("other.store")))
        #expect(spendsmart("--store", directory.path("other.store"), "over", "x").status == 64)
        #expect(!FileManager.default.fileExists(atPath: directory.path("other.store")))
    }

    @Test func aFileThatIsNotAStoreFailsWithStatus1AndIsLeftAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("notes.txt")
        let contents = Data("Groceries: 500\nVacation: 2000\n".utf8)
        try contents.write(to: URL(fileURLWithPath: path))

        let list = spendsmart("--store", path, "list")
        #expect(list.status == 1)
        #expect(list.transcript.output.isEmpty)
        #expect(list.transcript.errors.count == 1)
        #expect(list.transcript.errors.first?.hasPrefix("error: could not open the store at \(path): ") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == contents)
    }
}
