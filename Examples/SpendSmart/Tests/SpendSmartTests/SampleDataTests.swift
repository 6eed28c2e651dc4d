import Foundation
import Stowage
import Testing
@testable import SpendSmartKit

@MainActor
@Suite struct SampleDataTests {
    @Test func thePreviewContainerHoldsTheSampleBudgetsWithATransactionEach() throws {
        let container = try SampleData.previewContainer()
        #expect(container.configurations.first?.isStoredInMemoryOnly == true)
        let budgets = try container.mainContext.fetch(Budget.all)
        #expect(budgets.map(\.name) == ["Budget 5", "Budget 4", "Budget 3", "Budget 2", "Budget 1"])
        #expect(budgets.map(\.limit) == [500, 400, 300, 200, 100])
        #expect(budgets.map(\.total) == [40, 30, 20, 10, 0])
        #expect(budgets.flatMap { $0.transactions.map(\.note) }.sorted() == ["Note 1", "Note 2", "Note 3", "Note 4", "Note 5"])
        // What a view's logic computes from it: the article's "previews are like tests".
        #expect(budgets.first { $0.name == "Budget 2" }?.remaining == 190)
    }

    @Test func eachPreviewContainerIsFreshAndItsChangesStayInMemory() throws {
        let first = try SampleData.previewContainer()
        first.mainContext.insert(Budget(name: "Extra", limit: 1))
        try first.mainContext.save()
        #expect(try first.mainContext.fetchCount(FetchDescriptor<Budget>()) == 6)
        let second = try SampleData.previewContainer()
        #expect(try second.mainContext.fetchCount(FetchDescriptor<Budget>()) == 5)
        #expect(SampleData.budgets.allSatisfy { $0.modelContext == nil }, "sample budgets are new each time")
    }
}
