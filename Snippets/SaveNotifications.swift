// snippet.hide
// Reacting to changes: notifications, the container's change stream, history and undo.
import Stowage

/// A check of what the article says, run by .ci/docs (a `precondition` cannot hold `try` or `await`).
func expect(_ condition: Bool, _ message: @autoclosure () -> String = "", line: Int = #line) {
    if !condition { fatalError("line \(line): \(message())") }
}

@Model
final class Budget {
    var name: String
    var limit: Double
    init(name: String, limit: Double) {
        self.name = name
        self.limit = limit
    }
}

let container = try ModelContainer(for: Budget.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: "budgets.store")))
let context = ModelContext(container)
context.insert(Budget(name: "Start", limit: 1))
try context.save()
var lastToken = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last!.token
/// What the observers saw, behind a lock.
final class Printed: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func withLock<T>(_ body: (inout [String]) -> T) -> T { lock.withLock { body(&lines) } }
}
let printed = Printed()
// snippet.show
// snippet.notifications
let observer = NotificationCenter.default.addObserver(forName: ModelContext.didSave, object: nil, queue: nil) { note in
    let inserted = note.userInfo?[ModelContext.NotificationKey.insertedIdentifiers.rawValue] as? [PersistentIdentifier] ?? []
    print("saved \(inserted.count) new models")
    // snippet.hide
    printed.withLock { $0.append("saved \(inserted.count)") }
    // snippet.show
}

Task {
    for await changes in container.changes() {
        print(changes.entityNames, changes.inserted.count, changes.updatedProperties)
        // snippet.hide
        printed.withLock { $0.append("changes \(changes.inserted.count)") }
        // snippet.show
    }
}
// snippet.end
// snippet.hide
try await Task.sleep(for: .milliseconds(10))
// snippet.show
// snippet.history
let sync = ModelContext(container)
sync.author = "sync"
// … saves …
// snippet.hide
let app = ModelContext(container)
app.author = "app"
let food = Budget(name: "Food", limit: 100)
app.insert(food)
try app.save()
food.limit = 120
try app.save()
app.delete(food)
try app.save()
sync.insert(Budget(name: "Synced", limit: 5))
try sync.save()
var handled: [String] = []
// snippet.show
var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
descriptor.predicate = #Predicate { $0.token > lastToken && $0.author != "sync" }
for transaction in try context.fetchHistory(descriptor) {
    for change in transaction.changes {
        switch change {
        case .insert(let insert as DefaultHistoryInsert<Budget>): print("new", insert.changedPersistentIdentifier)
        case .update(let update as DefaultHistoryUpdate<Budget>): print("changed", update.updatedAttributes)
        case .delete(let deletion as DefaultHistoryDelete<Budget>): print("gone", deletion.tombstone[\.name] ?? "")
        default: break
        }
        // snippet.hide
        handled.append("\(change)".prefix(8).description)
        // snippet.show
    }
    lastToken = transaction.token  // Codable: keep it
}
try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token <= lastToken }))
// snippet.end
// snippet.hide
precondition(handled.count == 3, "\(handled)")
expect(try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).map(\.author) == ["sync"])
for _ in 0..<100 where printed.withLock({ $0.count }) < 8 { try await Task.sleep(for: .milliseconds(10)) }
precondition(printed.withLock { $0.contains("saved 1") && $0.contains("changes 1") }, "\(printed.withLock { $0 })")
NotificationCenter.default.removeObserver(observer)
// snippet.show
// snippet.observer
let budgetChanges = try HistoryObserver(observedModels: [Budget.self], authors: ["sync"], modelContainer: container)
// … a save of the "sync" author changes a budget, here or in another process …
// snippet.hide
sync.insert(Budget(name: "Synced later", limit: 7))
try sync.save()
for _ in 0..<1_000 where budgetChanges.eventCounter == 0 { try await Task.sleep(for: .milliseconds(10)) }
// snippet.show
print(budgetChanges.eventCounter)                    // 1
let resumeFrom = budgetChanges.historyTokens         // Codable tokens, by store identifier
// snippet.hide
expect(budgetChanges.eventCounter == 1, "\(budgetChanges.eventCounter)")
expect(try HistoryObserver(historyTokens: resumeFrom, modelContainer: container).eventCounter == 0)
// snippet.show
// snippet.end
// snippet.undo
let books = try await MainActor.run {
    let context = container.mainContext
    context.undoManager = UndoManager()
    let books = Budget(name: "Books", limit: 40)
    context.insert(books)
    try context.save()
    return books.persistentModelID
}
await MainActor.run {
    let context = container.mainContext
    let budget = context.model(for: books) as! Budget
    budget.limit = 60
    context.undoManager?.undo()            // the limit is 40 again
    // snippet.hide
    precondition(budget.limit == 40)
    context.undoManager?.redo()
    precondition(budget.limit == 60)
    // snippet.show
}
// snippet.end
