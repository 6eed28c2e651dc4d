import Foundation
import Stowage
import Testing
@testable import SpendSmartKit

/// `spend`, `show`, `list` totals and `delete`'s cascade as a user runs them: one `SpendSmart.run` per
/// command line, each opening the store file in a new container.
@Suite struct TransactionCommandTests {
    @Test func spendShowAndListAcrossRuns() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("budgets.store")
        #expect(spendsmart("--store", store, "add", "Groceries", "500").status == 0)
        #expect(spendsmart("--store", store, "add", "Summer Trip", "2000").status == 0)

        let milk = spendsmart("--store", store, "spend", "Groceries", "4.50", "Milk")
        #expect(milk.status == 0)
        #expect(milk.transcript.output == ["Added \"Milk\" ($4.50) to \"Groceries\". Spent $4.50 of $500.00: $495.50 left."])

        // A note of several words, unquoted.
        let vegetables = spendsmart("--store", store, "spend", "Groceries", "23.75", "Fresh", "vegetables")
        #expect(vegetables.transcript.output == [
            "Added \"Fresh vegetables\" ($23.75) to \"Groceries\". Spent $28.25 of $500.00: $471.75 left.",
        ])
        #expect(spendsmart("--store", store, "spend", "Summer Trip", "180", "Train tickets").status == 0)
        #expect(spendsmart("--store", store, "spend", "Groceries", "12", "Cheese").status == 0)

        let show = spendsmart("--store", store, "show", "Groceries")
        #expect(show.status == 0)
        #expect(show.transcript.errors.isEmpty)
        #expect(show.transcript.output == [
            "\"Groceries\", 3 transactions:",
            "  2024-03-14  Milk               $4.50",
            "  2024-03-14  Fresh vegetables  $23.75",
            "  2024-03-14  Cheese            $12.00",
            "Spent $40.25 of $500.00: $459.75 left.",
        ])

        let list = spendsmart("--store", store, "list")
        #expect(list.status == 0)
        #expect(list.transcript.output == [
            "2 budgets, spent of limit:",
            "  Summer Trip  $180.00 of $2,000.00",
            "  Groceries     $40.25 of   $500.00",
        ])

        let over = spendsmart("--store", store, "over", "1000")
        #expect(over.transcript.output == ["1 budget over $1,000.00, spent of limit:", "  Summer Trip  $180.00 of $2,000.00"])
    }

    @Test func showOfABudgetWithoutTransactionsSaysHowToAddOne() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("budgets.store")
        #expect(spendsmart("--store", store, "add", "Books", "75").status == 0)

        let show = spendsmart("--store", store, "show", "Books")
        #expect(show.status == 0)
        #expect(show.transcript.output == [
            "\"Books\" has no transactions yet. Add one with: spendsmart spend \"Books\" <amount> <note>",
            "Spent $0.00 of $75.00: $75.00 left.",
        ])
    }

    @Test func anOverspentBudgetShowsByHowMuch() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("budgets.store")
        #expect(spendsmart("--store", store, "add", "Books", "75").status == 0)
        let spend = spendsmart("--store", store, "spend", "Books", "80", "Atlas")
        #expect(spend.status == 0)
        #expect(spend.transcript.output == ["Added \"Atlas\" ($80.00) to \"Books\". Spent $80.00 of $75.00: $5.00 over the limit."])
    }

    @Test func deleteCascadesAndSaysHowManyTransactionsWent() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("budgets.store")
        for arguments in [
            ["add", "Groceries", "500"], ["add", "Books", "75"],
            ["spend", "Groceries", "4.50", "Milk"], ["spend", "Groceries", "12", "Cheese"], ["spend", "Books", "20", "Atlas"],
        ] {
            #expect(SpendSmart.run(["--store", store] + arguments, console: Transcript().console, now: { testDate }) == 0)
        }

        let delete = spendsmart("--store", store, "delete", "Groceries")
        #expect(delete.status == 0)
        #expect(delete.transcript.output == ["Deleted \"Groceries\" and its 2 transactions."])

        let container = try ModelContainer(for: Budget.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: store)))
        let transactions = try ModelContext(container).fetch(FetchDescriptor<Transaction>())
        #expect(transactions.map(\.note) == ["Atlas"])
        #expect(transactions.map(\.budget?.name) == ["Books"])

        #expect(spendsmart("--store", store, "delete", "Books").transcript.output == ["Deleted \"Books\" and its 1 transaction."])
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Transaction>()) == 0)
    }

    // MARK: - Errors

    @Test func spendAndShowOfAnUnknownBudgetFailWithStatus1() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("budgets.store")
        let message = "error: no budget named \"Travel\". Run \"spendsmart list\" to see the budgets."

        let spend = spendsmart("--store", store, "spend", "Travel", "5", "Train")
        #expect(spend.status == 1)
        #expect(spend.transcript.output.isEmpty)
        #expect(spend.transcript.errors == [message])

        let show = spendsmart("--store", store, "show", "Travel")
        #expect(show.status == 1)
        #expect(show.transcript.errors == [message])
    }

    @Test func spendOfABadAmountFailsWithStatus64AndSavesNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("budgets.store")
        #expect(spendsmart("--store", store, "add", "Books", "75").status == 0)

        let notANumber = spendsmart("--store", store, "spend", "Books", "lots", "Atlas")
        #expect(notANumber.status == 64)
        #expect(notANumber.transcript.errors == ["error: \"lots\" is not a valid amount: write a number such as 500 or 1250.50."])

        let negative = spendsmart("--store", store, "spend", "Books", "-5", "Refund")
        #expect(negative.status == 64)
        #expect(negative.transcript.errors == ["error: an amount spent must be more than 0 (got -$5.00)."])

        #expect(spendsmart("--store", store, "show", "Books").transcript.output.first?.contains("no transactions yet") == true)
    }

    @Test func aStoreFromBeforeTransactionsIsMigratedKeepingItsBudgets() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("spendsmart.store")
        let url = URL(fileURLWithPath: path)
        do {
            // The store as SpendSmart left it before budgets had transactions (the Quick Start's model is
            // that version's).
            let context = ModelContext(try ModelContainer(for: QuickStart.Budget.self, configurations: ModelConfiguration(url: url)))
            context.insert(QuickStart.Budget(name: "Groceries", limit: 500))
            try context.save()
        }
        let list = spendsmart("--store", path, "list")
        #expect(list.status == 0, "\(list.transcript.errors)")
        #expect(list.transcript.output == ["1 budget, spent of limit:", "  Groceries  $0.00 of $500.00"])
        #expect(spendsmart("--store", path, "spend", "Groceries", "4.50", "Milk").status == 0)
        #expect(spendsmart("--store", path, "show", "Groceries").transcript.output.contains { $0.contains("Milk") })
    }

    @Test func anotherProgramsStowageStoreIsRefusedWithoutBeingCalledOld() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("notes.store")
        _ = try ModelContainer(for: Note.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))

        let list = spendsmart("--store", path, "list")
        #expect(list.status == 1)
        let error = try #require(list.transcript.errors.first)
        #expect(error.hasPrefix("error: the store at \(path) does not hold SpendSmart's budgets as this version stores them: "))
        #expect(error.hasSuffix("If it is an old spendsmart.store, delete it to start again; otherwise use another file with --store PATH."))
        #expect(!error.contains("earlier SpendSmart"))
    }
}

/// A model of another program, for a Stowage store that is not SpendSmart's.
@Model
final class Note {
    var text: String

    init(text: String) {
        self.text = text
    }
}
