// snippet.hide
// Live results: a ResultsObserver with sections and updates.
import Stowage

@Model
final class Budget {
    var name: String
    var limit: Double
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
    var budget: Budget?

    init(title: String, amount: Double) {
        self.title = title
        self.amount = amount
    }
}

let container = try ModelContainer(for: Budget.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
try await MainActor.run {
    let context = container.mainContext
    let food = Budget(name: "Food", limit: 300), rent = Budget(name: "Rent", limit: 900)
    food.expenses = [Expense(title: "lunch", amount: 12), Expense(title: "groceries", amount: 80)]
    rent.expenses = [Expense(title: "November", amount: 900)]
    context.insert(food)
    context.insert(rent)
    try context.save()
}

@MainActor func follow() async throws {
    let context = container.mainContext
    var printed: [String] = []
    func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
    // snippet.show
    // snippet.observer
    let observer = try ResultsObserver<Expense, String>(
        filterBy: #Predicate { $0.amount > 10 }, sortBy: [SortDescriptor(\.amount, order: .reverse)],
        sectionBy: \.budget?.name, modelContext: context)
    for section in observer.sections ?? SectionedResults() {
        print(section.title, section.map(\.title))  // Food ["groceries", "lunch"], then Rent ["November"]
    }

    observer.filterBy = #Predicate { $0.amount > 50 }  // runs the query again, now

    let updates = Task { @MainActor in
        for await snapshot in observer.updates() {
            print(snapshot.results.count, snapshot.difference?.results.insertions.count ?? 0)
        }
    }
    // snippet.end
    // snippet.hide
    precondition(printed == [#"Food ["groceries", "lunch"]"#, #"Rent ["November"]"#], "\(printed)")
    try await Task.sleep(for: .milliseconds(20))
    let other = ModelContext(container)
    other.insert(Expense(title: "dinner", amount: 60))
    try other.save()
    for _ in 0..<200 where printed.count < 4 { try await Task.sleep(for: .milliseconds(10)) }
    updates.cancel()
    precondition(printed.dropFirst(2) == ["2 2", "3 1"], "\(printed)")
}
try await follow()
