import Foundation
import Stowage

/// The `demo` command: the whole flow on the store file, explained step by step.
///
/// The demo creates budgets, lists them, filters them with a `#Predicate`, renames one, deletes one,
/// reopens the store in a second container to show what was saved, and finally deletes its own budgets
/// so the store is left as the demo found it.
struct Demo {
    let storeURL: URL
    let console: Console

    /// The budgets the demo creates.
    static let budgets: [(name: String, limit: Double)] = [("Groceries", 500), ("Vacation", 2000), ("Books", 75)]
    static let renamed = (from: "Vacation", to: "Summer Trip")
    static let deleted = "Books"
    static let threshold = 100.0

    func run() throws {
        let store = BudgetStore(context: ModelContext(try SpendSmart.openContainer(at: storeURL)))
        try checkNamesAreFree(in: store)
        say("SpendSmart demo. Store: \(storeURL.path)")

        step(1, "Create \(Self.budgets.count) budgets; each is inserted into a ModelContext and saved")
        for (name, limit) in Self.budgets {
            say("   " + Report.added(try store.add(name: name, limit: limit)))
        }

        step(2, "List every budget with the article's Budget.all (sorted by name, Z to A)")
        table(try store.all())

        step(3, "Filter: the budgets over \(Amount.format(Self.threshold)), #Predicate { $0.limit > amount } run by SQLite")
        table(try store.budgets(over: Self.threshold))

        step(4, "Rename \"\(Self.renamed.from)\" to \"\(Self.renamed.to)\"")
        try store.rename(Self.renamed.from, to: Self.renamed.to)
        say("   " + Report.renamed(Self.renamed.from, to: Self.renamed.to))

        step(5, "Delete \"\(Self.deleted)\"")
        try store.delete(Self.deleted)
        say("   " + Report.deleted(Self.deleted))

        step(6, "Open the store file again in a new ModelContainer: what was saved is on disk")
        let reopened = BudgetStore(context: ModelContext(try SpendSmart.openContainer(at: storeURL)))
        let saved = try reopened.all()
        table(saved)

        step(7, "Clean up: delete the demo's budgets, leaving the store as the demo found it")
        for budget in saved where demoNames.contains(budget.name) {
            let name = budget.name
            try reopened.delete(name)
            say("   " + Report.deleted(name))
        }

        say("")
        say("Done. Your turn: spendsmart add Groceries 500, then spendsmart list. Run spendsmart help for more.")
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

    private func step(_ number: Int, _ title: String) {
        say("")
        say("\(number). \(title)")
    }

    private func table(_ budgets: [Budget]) {
        Report.table(budgets, indent: "   ").forEach(say)
    }
}
