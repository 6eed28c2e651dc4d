import Foundation
import Stowage
import Testing

// The code of the "Live Results" article (Snippets/LiveExpenses.swift), with its results checked.

@MainActor
@Suite("Documentation: live results")
struct DocumentationLiveResultsTests {
    @Test func liveResults() async throws {
        let container = try ModelContainer(for: Budget.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = container.mainContext
        let food = Budget(name: "Food", limit: 300), rent = Budget(name: "Rent", limit: 900)
        food.expenses = [Expense(title: "lunch", amount: 12), Expense(title: "groceries", amount: 80)]
        rent.expenses = [Expense(title: "November", amount: 900)]
        context.insert(food)
        context.insert(rent)
        try context.save()
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }

        // Article code: begin
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
        // Article code: end
        #expect(printed == [#"Food ["groceries", "lunch"]"#, #"Rent ["November"]"#])
        try await Task.sleep(for: .milliseconds(20))
        let other = ModelContext(container)
        other.insert(Expense(title: "dinner", amount: 60))
        try other.save()
        for _ in 0..<100 where printed.count < 4 { try await Task.sleep(for: .milliseconds(10)) }
        updates.cancel()
        #expect(printed.dropFirst(2) == ["2 2", "3 1"], "the current results, then the update with the new expense")
    }
}
