import Foundation
import Stowage
import Testing

// The README's Quick Start, compiled and run. Keep the code between the markers identical to the
// README's (the README's store URL is "budgets.store"; here it is a temporary file).

enum QuickStart {
    // README model: begin
    @Model
    final class Budget {

        var name: String
        var limit: Double

        init(name: String, limit: Double) {
            self.name = name
            self.limit = limit
        }
    }
    // README model: end
}

@Suite struct QuickStartTests {
    @Test func theReadmeQuickStartRuns() throws {
        typealias Budget = QuickStart.Budget
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        let storeURL = URL(fileURLWithPath: directory.path("budgets.store"))

        // README code: begin
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
        // README code: end

        #expect(printed == ["Groceries 500.0", "Vacation 2000.0"])
    }
}
