import ExampleSupport
import Foundation
import Stowage

/// The `demo` command: the whole flow on the store file, explained step by step.
///
/// The demo creates budgets, lists them, filters them with a `#Predicate`, renames one, adds
/// transactions and shows the totals, deletes a budget with its transactions (the cascade delete
/// rule), reopens the store in a second container to show what was saved, migrates a store of the
/// article's version 1 (in a temporary file) with the article's migration plan, and finally deletes its
/// own budgets so the store is left as the demo found it.
struct Demo {
    let storeURL: URL
    let console: Console
    /// The date of the demo's transactions.
    var now: Date = Date()

    /// The budgets the demo creates.
    static let budgets: [(name: String, limit: Double)] = [("Groceries", 500), ("Vacation", 2000), ("Books", 75)]
    static let renamed = (from: "Vacation", to: "Summer Trip")
    static let threshold = 100.0
    /// The transactions the demo adds, in order.
    static let transactions: [(budget: String, amount: Double, note: String)] = [
        ("Groceries", 4.50, "Milk"),
        ("Groceries", 23.75, "Vegetables"),
        ("Summer Trip", 180, "Train tickets"),
        ("Groceries", 12, "Cheese"),
    ]
    static let shown = "Groceries"
    static let deleted = "Groceries"

    func run() throws {
        let store = BudgetStore(context: ModelContext(try SpendSmart.openContainer(at: storeURL)))
        try checkNamesAreFree(in: store)
        say("SpendSmart demo. Store: \(storeURL.path)")

        console.writeStep(1, "Create \(Self.budgets.count) budgets; each is inserted into a ModelContext and saved")
        for (name, limit) in Self.budgets {
            say("   " + Report.added(try store.add(name: name, limit: limit)))
        }

        console.writeStep(2, "List every budget with the article's Budget.all (sorted by name, Z to A), spent of limit")
        table(try store.all())

        console.writeStep(3, "Filter: the budgets over \(Amount.format(Self.threshold)), #Predicate { $0.limit > amount } run by SQLite")
        table(try store.budgets(over: Self.threshold))

        console.writeStep(4, "Rename \"\(Self.renamed.from)\" to \"\(Self.renamed.to)\"")
        try store.rename(Self.renamed.from, to: Self.renamed.to)
        say("   " + Report.renamed(Self.renamed.from, to: Self.renamed.to))

        console.writeStep(5, "Spend: budget.addTransaction(_:) appends a Transaction, whose budget the inverse sets")
        for (budget, amount, note) in Self.transactions {
            let transaction = try store.spend(amount, on: note, from: budget, date: now)
            if let budget = transaction.budget { say("   " + Report.spent(transaction, from: budget)) }
        }

        console.writeStep(6, "Show \"\(Self.shown)\": its transactions in the order they were added, and budget.total")
        Report.statement(try store.budget(named: Self.shown), indent: "  ").forEach { say("   " + $0) }

        console.writeStep(7, "List every budget again: each total is the sum of its transactions")
        table(try store.all())

        console.writeStep(8, "Delete \"\(Self.deleted)\": the cascade delete rule deletes its transactions too")
        let before = try store.transactionCount()
        let cascaded = try store.delete(Self.deleted)
        say("   " + Report.deleted(Self.deleted, transactions: cascaded))
        say("   Transactions in the store: \(before) before, \(try store.transactionCount()) after.")

        console.writeStep(9, "Open the store file again in a new ModelContainer: what was saved is on disk")
        let reopened = BudgetStore(context: ModelContext(try SpendSmart.openContainer(at: storeURL)))
        let saved = try reopened.all()
        table(saved)
        Report.statement(try reopened.budget(named: Self.renamed.to), indent: "  ").forEach { say("   " + $0) }

        try migrateVersionOneStore()

        console.writeStep(11, "Clean up: delete the demo's budgets, leaving the store as the demo found it")
        for budget in saved where demoNames.contains(budget.name) {
            let name = budget.name
            let transactions = try reopened.delete(name)
            say("   " + Report.deleted(name, transactions: transactions))
        }

        say("")
        say("Done. Your turn: spendsmart add Groceries 500, spendsmart spend Groceries 4.50 Milk, then spendsmart show Groceries. Run spendsmart help for more.")
    }

    /// The budgets of the version 1 store that step 10 migrates: names repeat, as version 1 allowed.
    static let versionOneBudgets: [(name: String, limit: Double)] = [("Groceries", 500), ("Books", 75), ("Groceries", 300)]

    /// Step 10: a store of version 1 of the models, where budget names repeat, in a temporary file,
    /// opened with the plan: `willMigrate` renames the duplicates, then names become unique.
    private func migrateVersionOneStore() throws {
        console.writeStep(10, "Migrate: a store of the article's version 1, where budget names repeat, opened with SpendTrackerMigrationPlan")
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("spendsmart-demo-v1-\(UUID().uuidString).store")
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        }
        do {
            let context = ModelContext(try ModelContainer(
                for: Schema(versionedSchema: SpendTrackerSchemaV1.self), configurations: ModelConfiguration(url: url)))
            for (name, limit) in Self.versionOneBudgets { context.insert(SpendTrackerSchemaV1.Budget(name: name, limit: limit)) }
            try context.save()
        }
        say("   A version 1 store in a temporary file: \(Self.versionOneBudgets.map { "\"\($0.name)\"" }.joined(separator: ", ")).")
        let status = try ModelContainer.migrationStatus(
            for: Schema([Budget.self]), migrationPlan: SpendTrackerMigrationPlan.self, configuration: ModelConfiguration(url: url))
        say("   ModelContainer.migrationStatus: the store is at \"\(status.storeVersionName ?? "?")\"; opening runs \(status.stages.count) stage:")
        for stage in status.stages { say("     \(stage)") }
        let migrated = BudgetStore(context: ModelContext(try SpendSmart.openContainer(at: url)))
        say("   Opened: willMigrate renamed the duplicate, then names became unique, all in one transaction:")
        table(try migrated.all())
    }

    /// Every name the demo gives a budget.
    private var demoNames: Set<String> {
        Set(Self.budgets.map(\.name) + [Self.renamed.to])
    }

    /// Refuses to run on a store where the demo's budget names are taken, so it never touches the user's
    /// budgets.
    private func checkNamesAreFree(in store: BudgetStore) throws {
        let taken = try store.all().map(\.name).filter(demoNames.contains).sorted()
        guard taken.isEmpty else {
            throw SpendSmartError(
                .duplicateBudget,
                "the demo creates its own budgets, but the store at \(storeURL.path) already has \(taken.map { "\"\($0)\"" }.joined(separator: ", ")). Run the demo on another store: spendsmart demo --store /tmp/spendsmart-demo.store")
        }
    }

    private func say(_ line: String) { console.write(line) }

    private func table(_ budgets: [Budget]) {
        Report.table(budgets, indent: "   ").forEach(say)
    }
}
