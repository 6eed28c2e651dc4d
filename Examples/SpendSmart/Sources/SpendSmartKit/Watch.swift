import ExampleSupport
import Foundation
import Stowage

/// The `watch` command: what each budget has spent of its limit, printed again each time it changes,
/// whoever changes it: another `spendsmart` run, or any other process saving to the same store file.
///
/// Two `ResultsObserver`s follow the store, on the main actor: one over the budgets (added, renamed,
/// a new limit, deleted) and one over the transactions (what the totals add up). Stowage's change
/// watcher hands them other processes' saves within about 20 ms; nothing here polls. After each of
/// their updates the totals are read again, as `list` reads them, and printed after a line
/// `-- update N` when they differ from the ones printed last (one save usually updates both
/// observers, and a change of a note changes no total).
///
/// ```
/// Watching /home/me/spendsmart.store (Ctrl-C stops).
/// 1 budget, spent of limit:
///   Groceries  $0.00 of $500.00
/// -- update 1
/// 1 budget, spent of limit:
///   Groceries  $4.50 of $500.00
/// ```
@MainActor
struct Watch {
    let storeURL: URL
    let console: Console
    let store: BudgetStore
    let budgets: ResultsObserver<Budget, Never>
    let transactions: ResultsObserver<Transaction, Never>

    /// Opens the store and starts observing it.
    ///
    /// - Throws: ``SpendSmartError`` `.outdatedStore` or `.store` when the store cannot be opened,
    ///   `.store` when it cannot be read.
    init(storeURL: URL, console: Console) throws {
        self.storeURL = storeURL
        self.console = console
        let context = ModelContext(try SpendSmart.openContainer(at: storeURL))
        store = BudgetStore(context: context)
        do {
            budgets = try ResultsObserver(fetchDescriptor: Budget.all, modelContext: context)
            transactions = try ResultsObserver(modelContext: context)
        } catch {
            throw SpendSmartError.store("read", error)
        }
    }

    /// Prints the totals, then again after each change of them, until `updates` changes were printed
    /// (never when `nil`) or the task is cancelled.
    ///
    /// - Throws: ``SpendSmartError`` `.store` when the store cannot be read.
    func run(updates limit: Int?) async throws {
        // Subscribed before the first read: a change saved in between is an update, not lost.
        let budgetUpdates = budgets.updates()
        let transactionUpdates = transactions.updates()
        console.write("Watching \(storeURL.path) (\(limit.map { "stops after \(Self.updateCount($0))" } ?? "Ctrl-C stops")).")
        var shown = Report.totals(try store.all())
        shown.forEach(console.write)
        Self.flush()
        guard limit != 0 else { return }

        // Either observer's update wakes the loop below; updates that arrive while it prints make one.
        let (changes, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let following = [
            Task { await Self.forward(budgetUpdates, to: continuation) },
            Task { await Self.forward(transactionUpdates, to: continuation) },
        ]
        defer { following.forEach { $0.cancel() } }
        var count = 0
        for await _ in changes {
            let totals = Report.totals(try store.all())
            guard totals != shown else { continue }
            count += 1
            console.write("-- update \(count)")
            totals.forEach(console.write)
            Self.flush()
            shown = totals
            if let limit, count >= limit { return }
        }
    }

    /// Yields to `continuation` for each snapshot of `updates` after the first (the results when the
    /// watch began, already printed), until the task is cancelled.
    private static func forward<Model, Title>(
        _ updates: ResultsUpdates<Model, Title>, to continuation: AsyncStream<Void>.Continuation
    ) async {
        var snapshots = updates.makeAsyncIterator()
        _ = await snapshots.next(isolation: #isolation)
        while await snapshots.next(isolation: #isolation) != nil {
            continuation.yield()
        }
    }

    /// Sends what was printed on its way now: standard output piped to a file or another program is
    /// otherwise held until a buffer fills or the program exits, which a watch may never do.
    private static func flush() {
        fflush(nil)
    }

    private static func updateCount(_ count: Int) -> String {
        count == 1 ? "1 update" : "\(count) updates"
    }
}
