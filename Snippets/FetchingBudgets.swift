// snippet.hide
// Fetching and predicates.
import Stowage

@Model
final class Budget {
    var name: String
    var limit: Double
    var notes: String?
    @Relationship(deleteRule: .cascade, inverse: \Expense.budget)
    var expenses: [Expense] = []

    init(name: String, limit: Double) {
        self.name = name
        self.limit = limit
    }
}

@Model
final class Expense {
    var title: String
    var amount: Double
    var date: Date
    var budget: Budget?

    init(title: String, amount: Double, date: Date = .now) {
        self.title = title
        self.amount = amount
        self.date = date
    }
}

let container = try ModelContainer(for: Budget.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
let context = ModelContext(container)
let food = Budget(name: "Food", limit: 300), rent = Budget(name: "Rent", limit: 900), books = Budget(name: "Books", limit: 40)
food.expenses = [Expense(title: "Lunch", amount: 12), Expense(title: "Groceries", amount: 80)]
rent.expenses = [Expense(title: "November", amount: 900)]
for budget in [food, rent, books] { context.insert(budget) }
try context.save()
// snippet.show
// snippet.descriptor
var descriptor = FetchDescriptor<Budget>(
    predicate: #Predicate { $0.limit >= 100 && $0.name.localizedStandardContains("o") },
    sortBy: [SortDescriptor(\.limit, order: .reverse), SortDescriptor(\.name)]
)
descriptor.fetchLimit = 10
descriptor.fetchOffset = 0
let budgets = try context.fetch(descriptor)              // Food (only Food has an "o" and a limit of 100 or more)
let count = try context.fetchCount(descriptor)           // SELECT COUNT(*): no model is loaded
let ids = try context.fetchIdentifiers(descriptor)       // only the primary keys
// snippet.end
// snippet.hide
precondition(budgets.map(\.name) == ["Food"] && count == 1 && ids == [food.persistentModelID])
// snippet.show
// snippet.relationships
// Through a to-one relationship: a correlated subquery.
let foodExpenses = try context.fetch(FetchDescriptor<Expense>(
    predicate: #Predicate { $0.budget?.name == "Food" }, sortBy: [SortDescriptor(\.amount)]))

// By identifier: compares the foreign key column.
let rentID = rent.persistentModelID
let rentExpenses = try context.fetch(FetchDescriptor<Expense>(
    predicate: #Predicate { $0.budget?.persistentModelID == rentID }))

// Through a to-many relationship: EXISTS and COUNT(*) subqueries.
let withBigExpenses = try context.fetch(FetchDescriptor<Budget>(
    predicate: #Predicate { $0.expenses.contains { $0.amount > 50 } }, sortBy: [SortDescriptor(\.name)]))
let unused = try context.fetch(FetchDescriptor<Budget>(predicate: #Predicate { $0.expenses.isEmpty }))
let busy = try context.fetch(FetchDescriptor<Budget>(predicate: #Predicate { $0.expenses.count >= 2 }))

// Sorting through a to-one relationship.
let byBudget = try context.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.budget?.name), SortDescriptor(\.title)]))
// snippet.end
// snippet.hide
precondition(foodExpenses.map(\.title) == ["Lunch", "Groceries"])
precondition(rentExpenses.map(\.title) == ["November"])
precondition(withBigExpenses.map(\.name) == ["Food", "Rent"])
precondition(unused.map(\.name) == ["Books"] && busy.map(\.name) == ["Food"])
precondition(byBudget.map(\.title) == ["Groceries", "Lunch", "November"])
// snippet.show
// snippet.prefetch
var withExpenses = FetchDescriptor<Budget>(sortBy: [SortDescriptor(\.name)])
withExpenses.relationshipKeyPathsForPrefetching = [\.expenses]   // one more query for all budgets' expenses
for budget in try context.fetch(withExpenses) {
    print(budget.name, budget.expenses.reduce(0) { $0 + $1.amount })
}
// snippet.end
// snippet.large
// Millions of rows: load models in batches as you read them.
let all = try context.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.date)]), batchSize: 500)
print(all.count)                                         // the count; models load when read

try context.enumerate(FetchDescriptor<Expense>(), batchSize: 1000) { expense in
    print(expense.title)                                 // memory stays flat: models you do not keep are released
}
// snippet.end
// snippet.hide
precondition(all.count == 3)
// snippet.show
// snippet.hide
var refused = false
// snippet.show
// snippet.strict
context.requiresSQLTranslation = true                    // or STOWAGE_STRICT_PREDICATES=1
do {
    let oddLimits = try context.fetch(FetchDescriptor<Budget>(
        predicate: #Predicate { budget in budget.expenses.contains { $0.amount > budget.limit } }))
    print(oddLimits.count)
} catch let error as StowageError where error.code == .unsupportedPredicate {
    print(error.message)                                 // names the part SQL cannot run
    // snippet.hide
    refused = true
    // snippet.show
}
// snippet.end
// snippet.hide
precondition(refused, "strict mode refuses a predicate SQL cannot run")
