import Foundation
import Stowage
import Testing
@testable import SpendSmartKit

@Suite struct DemoTests {
    static func expectedTranscript(store: String) -> [String] {
        [
            "SpendSmart demo. Store: \(store)",
            "",
            "1. Create 3 budgets; each is inserted into a ModelContext and saved",
            "   Added \"Groceries\" with a limit of $500.00.",
            "   Added \"Vacation\" with a limit of $2,000.00.",
            "   Added \"Books\" with a limit of $75.00.",
            "",
            "2. List every budget with the article's Budget.all (sorted by name, Z to A), spent of limit",
            "   Vacation   $0.00 of $2,000.00",
            "   Groceries  $0.00 of   $500.00",
            "   Books      $0.00 of    $75.00",
            "",
            "3. Filter: the budgets over $100.00, #Predicate { $0.limit > amount } run by SQLite",
            "   Vacation   $0.00 of $2,000.00",
            "   Groceries  $0.00 of   $500.00",
            "",
            "4. Rename \"Vacation\" to \"Summer Trip\"",
            "   Renamed \"Vacation\" to \"Summer Trip\".",
            "",
            "5. Spend: budget.addTransaction(_:) appends a Transaction, whose budget the inverse sets",
            "   Added \"Milk\" ($4.50) to \"Groceries\". Spent $4.50 of $500.00: $495.50 left.",
            "   Added \"Vegetables\" ($23.75) to \"Groceries\". Spent $28.25 of $500.00: $471.75 left.",
            "   Added \"Train tickets\" ($180.00) to \"Summer Trip\". Spent $180.00 of $2,000.00: $1,820.00 left.",
            "   Added \"Cheese\" ($12.00) to \"Groceries\". Spent $40.25 of $500.00: $459.75 left.",
            "",
            "6. Show \"Groceries\": its transactions in the order they were added, and budget.total",
            "   \"Groceries\", 3 transactions:",
            "     2024-03-14  Milk         $4.50",
            "     2024-03-14  Vegetables  $23.75",
            "     2024-03-14  Cheese      $12.00",
            "   Spent $40.25 of $500.00: $459.75 left.",
            "",
            "7. List every budget again: each total is the sum of its transactions",
            "   Summer Trip  $180.00 of $2,000.00",
            "   Groceries     $40.25 of   $500.00",
            "   Books          $0.00 of    $75.00",
            "",
            "8. Delete \"Groceries\": the cascade delete rule deletes its transactions too",
            "   Deleted \"Groceries\" and its 3 transactions.",
            "   Transactions in the store: 4 before, 1 after.",
            "",
            "9. Open the store file again in a new ModelContainer: what was saved is on disk",
            "   Summer Trip  $180.00 of $2,000.00",
            "   Books          $0.00 of    $75.00",
            "   \"Summer Trip\", 1 transaction:",
            "     2024-03-14  Train tickets  $180.00",
            "   Spent $180.00 of $2,000.00: $1,820.00 left.",
            "",
            "10. Migrate: a store of the article's version 1, where budget names repeat, opened with SpendTrackerMigrationPlan",
            "   A version 1 store in a temporary file: \"Groceries\", \"Books\", \"Groceries\".",
            "   ModelContainer.migrationStatus: the store is at \"Initial version of the model\"; opening runs 1 stage:",
            "     custom \"Initial version of the model\" → \"Adding unique constraint to the name property\"",
            "   Opened: willMigrate renamed the duplicate, then names became unique, all in one transaction:",
            "   Groceries NNNN  $0.00 of $300.00",
            "   Groceries       $0.00 of $500.00",
            "   Books           $0.00 of  $75.00",
            "",
            "11. Clean up: delete the demo's budgets, leaving the store as the demo found it",
            "   Deleted \"Summer Trip\" and its 1 transaction.",
            "   Deleted \"Books\".",
            "",
            "Done. Your turn: spendsmart add Groceries 500, spendsmart spend Groceries 4.50 Milk, then spendsmart show Groceries. Run spendsmart help for more.",
        ]
    }

    /// The transcript with the random number the migration appends to a duplicated name as `NNNN`.
    static func normalized(_ lines: [String]) -> [String] {
        lines.map { $0.replacing(/Groceries \d{4}/, with: "Groceries NNNN") }
    }

    @Test func showsTheWholeFlowAndCanRunAgain() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("demo.store")

        let first = spendsmart("demo", "--store", store)
        #expect(first.status == 0)
        #expect(first.transcript.errors.isEmpty)
        #expect(Self.normalized(first.transcript.output) == Self.expectedTranscript(store: store))

        let second = spendsmart("demo", "--store", store)
        #expect(second.status == 0)
        #expect(Self.normalized(second.transcript.output) == Self.expectedTranscript(store: store))
    }

    @Test func leavesTheUsersBudgetsAndTransactionsAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("budgets.store")
        #expect(spendsmart("--store", store, "add", "Rent", "1200").status == 0)
        #expect(spendsmart("--store", store, "spend", "Rent", "1100", "March").status == 0)

        #expect(spendsmart("--store", store, "demo").status == 0)
        #expect(spendsmart("--store", store, "list").transcript.output == ["1 budget, spent of limit:", "  Rent  $1,100.00 of $1,200.00"])
        #expect(spendsmart("--store", store, "show", "Rent").transcript.output == [
            "\"Rent\", 1 transaction:",
            "  2024-03-14  March  $1,100.00",
            "Spent $1,100.00 of $1,200.00: $100.00 left.",
        ])
    }

    @Test func refusesAStoreWhereItsNamesAreTaken() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("budgets.store")
        #expect(spendsmart("--store", store, "add", "Groceries", "650").status == 0)
        #expect(spendsmart("--store", store, "add", "Books", "30").status == 0)

        let demo = spendsmart("--store", store, "demo")
        #expect(demo.status == 1)
        #expect(demo.transcript.output.isEmpty)
        #expect(demo.transcript.errors == [
            "error: the demo creates its own budgets, but the store at \(store) already has \"Books\", \"Groceries\". Run the demo on another store: spendsmart demo --store /tmp/spendsmart-demo.store",
        ])
        #expect(spendsmart("--store", store, "list").transcript.output == [
            "2 budgets, spent of limit:", "  Groceries  $0.00 of $650.00", "  Books      $0.00 of  $30.00",
        ])
    }
}
