// snippet.hide
// Getting Started: the Quick Start program, `Sources/Budgets/main.swift` of a new package.
// snippet.show
import Stowage

// snippet.model
@Model
final class Budget {

    var name: String
    var limit: Double

    init(name: String, limit: Double) {
        self.name = name
        self.limit = limit
    }
}
// snippet.end

let storeURL = URL(fileURLWithPath: "budgets.store")
let container = try ModelContainer(for: Budget.self, configurations: ModelConfiguration(url: storeURL))
let context = ModelContext(container)

context.insert(Budget(name: "Groceries", limit: 500))
context.insert(Budget(name: "Vacation", limit: 2000))
context.insert(Budget(name: "Books", limit: 75))
try context.save()

let descriptor = FetchDescriptor<Budget>(
    predicate: #Predicate { $0.limit > 100 },
    sortBy: [SortDescriptor(\.name)]
)
for budget in try context.fetch(descriptor) {
    print(budget.name, budget.limit)
}
// snippet.hide
let names = try context.fetch(descriptor).map(\.name)
precondition(names == ["Groceries", "Vacation"], "the Quick Start prints Groceries and Vacation, got \(names)")
