import Foundation
import Stowage
import Testing
@testable import SpendSmartKit

/// The article's domain test, with no container: the model is plain Swift until it is inserted.
@Suite struct BudgetDomainTests {
    @Test func shouldCalculateBudgetTotalSuccessfully() {
        let budget = Budget(name: "Budger 1", limit: 100)
        let transaction = Transaction(note: "Note 1", amount: 100, date: Date())
        let transaction2 = Transaction(note: "Note 2", amount: 50, date: Date())
        let transaction3 = Transaction(note: "Note 3", amount: 100, date: Date())

        budget.addTransaction(transaction)
        budget.addTransaction(transaction2)
        budget.addTransaction(transaction3)

        #expect(budget.total == 250)
    }

    @Test func addTransactionSetsTheInverseWithoutAContainer() {
        let budget = Budget(name: "Groceries", limit: 500)
        let milk = Transaction(note: "Milk", amount: 4.5, date: testDate)
        budget.addTransaction(milk)
        #expect(milk.budget === budget)

        // The other side works too: setting the budget appends to its transactions.
        let bread = Transaction(note: "Bread", amount: 3, date: testDate)
        bread.budget = budget
        #expect(budget.transactions.map(\.note) == ["Milk", "Bread"])
        #expect(budget.total == 7.5)
        #expect(budget.remaining == 492.5)
    }

    @Test func anOverspentBudgetSaysBy() {
        let budget = Budget(name: "Books", limit: 75)
        budget.addTransaction(Transaction(note: "Atlas", amount: 80, date: testDate))
        #expect(Report.balance(budget) == "Spent $80.00 of $75.00: $5.00 over the limit.")
    }
}

@Suite struct TransactionStoreTests {
    @Test func spendAppendsInOrderAndSaves() throws {
        let store = try makeInMemoryStore()
        try store.add(name: "Groceries", limit: 500)
        try store.add(name: "Books", limit: 75)
        for (amount, note) in [(23.75, "Vegetables"), (4.5, "Milk"), (12.0, "Cheese")] {
            let transaction = try store.spend(amount, on: note, from: "Groceries", date: testDate)
            #expect(transaction.budget?.name == "Groceries")
        }
        #expect(!store.context.hasChanges)

        // Another context reads the saved transactions in the order they were added (neither by note,
        // nor by amount), with their budget.
        let other = BudgetStore(context: ModelContext(store.context.container))
        let groceries = try other.budget(named: "Groceries")
        #expect(groceries.transactions.map(\.note) == ["Vegetables", "Milk", "Cheese"])
        #expect(groceries.transactions.allSatisfy { $0.budget === groceries })
        #expect(groceries.transactions.map(\.date) == [testDate, testDate, testDate])
        #expect(groceries.transactions.map(\.hasReceipt) == [false, false, false])
        #expect(groceries.total == 40.25)
        #expect(try other.budget(named: "Books").transactions.isEmpty)
        #expect(try other.transactionCount() == 3)
    }

    @Test func spendTrimsTheNote() throws {
        let store = try makeInMemoryStore()
        try store.add(name: "Groceries", limit: 500)
        #expect(try store.spend(2, on: "  Milk \n", from: "Groceries").note == "Milk")
    }

    @Test(arguments: [0, -5, Double.infinity, Double.nan])
    func spendRefusesAnAmountThatIsNotPositive(amount: Double) throws {
        let store = try makeInMemoryStore()
        try store.add(name: "Groceries", limit: 500)
        #expect {
            try store.spend(amount, on: "Milk", from: "Groceries")
        } throws: { error in
            (error as? SpendSmartError)?.code == .invalidAmount
        }
        #expect(try store.transactionCount() == 0)
    }

    @Test func spendRefusesABlankNoteAndAnUnknownBudget() throws {
        let store = try makeInMemoryStore()
        try store.add(name: "Groceries", limit: 500)
        #expect(throws: SpendSmartError(.invalidNote, "a transaction needs a note that is not blank.")) {
            try store.spend(5, on: "  ", from: "Groceries")
        }
        #expect(throws: SpendSmartError.unknownBudget("Travel")) { try store.spend(5, on: "Train", from: "Travel") }
        #expect(try store.transactionCount() == 0)
        #expect(!store.context.hasChanges)
    }

    @Test func deleteCascadesToTheBudgetsTransactionsOnly() throws {
        let store = try makeInMemoryStore()
        try store.add(name: "Groceries", limit: 500)
        try store.add(name: "Vacation", limit: 2000)
        try store.spend(4.5, on: "Milk", from: "Groceries")
        try store.spend(180, on: "Train tickets", from: "Vacation")
        try store.spend(12, on: "Cheese", from: "Groceries")

        #expect(try store.delete("Groceries") == 2)

        let other = ModelContext(store.context.container)
        let transactions = try other.fetch(FetchDescriptor<Transaction>())
        #expect(transactions.map(\.note) == ["Train tickets"])
        #expect(transactions.first?.budget?.name == "Vacation")
        #expect(try store.delete("Vacation") == 1)
        #expect(try other.fetchCount(FetchDescriptor<Transaction>()) == 0)
    }

    @Test func deletingABudgetWithoutTransactionsCountsNone() throws {
        let store = try makeInMemoryStore()
        try store.add(name: "Books", limit: 75)
        #expect(try store.delete("Books") == 0)
    }

    @Test func renameKeepsTheTransactions() throws {
        let store = try makeInMemoryStore()
        try store.add(name: "Vacation", limit: 2000)
        try store.spend(180, on: "Train tickets", from: "Vacation")
        try store.rename("Vacation", to: "Summer Trip")
        let other = BudgetStore(context: ModelContext(store.context.container))
        #expect(try other.budget(named: "Summer Trip").transactions.map(\.note) == ["Train tickets"])
    }

    @Test func allLoadsEveryTotalInTwoQueries() throws {
        // Tracing is installed when a store opens: observe before creating the container.
        let log = SQLDebug.StatementLog()
        let observation = SQLDebug.observe { log.append($0) }
        defer { observation.cancel() }
        let store = try makeInMemoryStore()
        for index in 1...5 {
            try store.add(name: "Budget \(index)", limit: 100)
            for amount in 1...index { try store.spend(Double(amount), on: "Item \(amount)", from: "Budget \(index)") }
        }
        let container = store.context.container
        log.removeAll()

        // A fresh context, so that nothing is loaded yet: one query for the budgets, one for all their
        // transactions (`relationshipKeyPathsForPrefetching`), none per budget.
        let budgets = try BudgetStore(context: ModelContext(container)).all()
        #expect(budgets.map(\.total) == [15, 10, 6, 3, 1])
        #expect(log.events(of: container).filter { $0.sql.hasPrefix("SELECT") }.count == 2)
    }

    @Test func transactionsAndTheirOrderSurviveAcrossContainers() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = URL(fileURLWithPath: directory.path("budgets.store"))

        do {
            let store = BudgetStore(context: ModelContext(try SpendSmart.openContainer(at: url)))
            try store.add(name: "Groceries", limit: 500)
            for (amount, note) in [(4.5, "Milk"), (23.75, "Vegetables"), (12.0, "Cheese"), (3.0, "Bread")] {
                try store.spend(amount, on: note, from: "Groceries", date: testDate)
            }
        }
        do {
            // Reordering the array is saved too: the order is the array's, not the insertion order.
            let context = ModelContext(try SpendSmart.openContainer(at: url))
            let groceries = try #require(try context.fetch(Budget.named("Groceries")).first)
            #expect(groceries.transactions.map(\.note) == ["Milk", "Vegetables", "Cheese", "Bread"])
            groceries.transactions.reverse()
            try context.save()
        }
        let store = BudgetStore(context: ModelContext(try SpendSmart.openContainer(at: url)))
        let groceries = try store.budget(named: "Groceries")
        #expect(groceries.transactions.map(\.note) == ["Bread", "Cheese", "Vegetables", "Milk"])
        #expect(groceries.transactions.map(\.amount) == [3, 12, 23.75, 4.5])
        #expect(groceries.transactions.allSatisfy { $0.budget === groceries && $0.date == testDate })
        #expect(groceries.total == 43.25)
    }
}
