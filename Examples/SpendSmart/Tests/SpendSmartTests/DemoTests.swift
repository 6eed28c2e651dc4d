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
            "2. List every budget with the article's Budget.all (sorted by name, Z to A)",
            "   Vacation   $2,000.00",
            "   Groceries    $500.00",
            "   Books         $75.00",
            "",
            "3. Filter: the budgets over $100.00, #Predicate { $0.limit > amount } run by SQLite",
            "   Vacation   $2,000.00",
            "   Groceries    $500.00",
            "",
            "4. Rename \"Vacation\" to \"Summer Trip\"",
            "   Renamed \"Vacation\" to \"Summer Trip\".",
            "",
            "5. Delete \"Books\"",
            "   Deleted \"Books\".",
            "",
            "6. Open the store file again in a new ModelContainer: what was saved is on disk",
            "   Summer Trip  $2,000.00",
            "   Groceries      $500.00",
            "",
            "7. Clean up: delete the demo's budgets, leaving the store as the demo found it",
            "   Deleted \"Summer Trip\".",
            "   Deleted \"Groceries\".",
            "",
            "Done. Your turn: spendsmart add Groceries 500, then spendsmart list. Run spendsmart help for more.",
        ]
    }

    @Test func showsTheWholeFlowAndCanRunAgain() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("demo.store")

        let first = spendsmart("demo", "--store", store)
        #expect(first.status == 0)
        #expect(first.transcript.errors.isEmpty)
        #expect(first.transcript.output == Self.expectedTranscript(store: store))

        let second = spendsmart("demo", "--store", store)
        #expect(second.status == 0)
        #expect(second.transcript.output == Self.expectedTranscript(store: store))
    }

    @Test func leavesTheUsersBudgetsAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("budgets.store")
        #expect(spendsmart("--store", store, "add", "Rent", "1200").status == 0)

        #expect(spendsmart("--store", store, "demo").status == 0)
        #expect(spendsmart("--store", store, "list").transcript.output == ["1 budget:", "  Rent  $1,200.00"])
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
        #expect(spendsmart("--store", store, "list").transcript.output == ["2 budgets:", "  Groceries  $650.00", "  Books       $30.00"])
    }
}
