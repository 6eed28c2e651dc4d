// snippet.hide
// Background work: a model actor, identifiers across actors.
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

let container = try ModelContainer(for: Budget.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
// snippet.show
// snippet.actor
@ModelActor
actor BudgetImporter {
    func importBudgets(_ names: [String]) throws -> [PersistentIdentifier] {
        let budgets = names.map { Budget(name: $0, limit: 100) }
        for budget in budgets { modelContext.insert(budget) }
        try modelContext.save()
        return budgets.map(\.persistentModelID)
    }
}

let importer = BudgetImporter(modelContainer: container)
let ids = try await importer.importBudgets(["Food", "Rent"])
let food = await MainActor.run { (container.mainContext.model(for: ids[0]) as? Budget)?.name }  // saved on the actor, seen here
// snippet.end
// snippet.hide
expect(food == "Food")
// snippet.show
// snippet.busy
var shared = ModelConfiguration(url: URL(fileURLWithPath: "shared.store"))
shared.busyTimeout = 10        // seconds a save waits for another process's write lock (5 by default)
// snippet.end
// snippet.hide
_ = try ModelContainer(for: Budget.self, configurations: shared)
// snippet.show
// snippet.mainActor
@Model nonisolated final class Tag {       // queried with #Predicate and SortDescriptor: nonisolated
    var name: String
    init(name: String) { self.name = name }
}

@MainActor @Model final class Draft {        // a main-actor model: fine while no key path of it is needed
    var text: String = ""
    init(text: String) { self.text = text }
}
// snippet.end
// snippet.hide
let tags = try ModelContainer(for: Tag.self, Draft.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
try await MainActor.run {
    let context = tags.mainContext
    context.insert(Tag(name: "home"))
    context.insert(Draft(text: "hello"))
    try context.save()
    expect(try context.fetch(FetchDescriptor<Tag>(predicate: #Predicate { $0.name == "home" })).count == 1)
}
