import Foundation
import Stowage
import Testing

// The README's Quick Start, compiled and run. The code between the markers is the README's, which
// `theReadmeShowsThisCode` checks; only the store's URL differs (the README's is "budgets.store", in
// the current directory; here it is a temporary file).

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

    /// The README's `main.swift` is the model, the store's URL and the code above, in that order.
    @Test func theReadmeShowsThisCode() throws {
        let testFile = URL(fileURLWithPath: #filePath)
        let repository = testFile.deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let source = try String(contentsOf: testFile, encoding: .utf8)
        let readme = try String(contentsOf: repository.appendingPathComponent("README.md"), encoding: .utf8)
        let expected = [
            try Self.lines(of: source, between: "README model"),
            ["", "let storeURL = URL(fileURLWithPath: \"budgets.store\")"],
            try Self.lines(of: source, between: "README code"),
        ].joined()
        let blocks = Self.swiftBlocks(of: readme)
        #expect(blocks.contains(["import Stowage", ""] + Array(expected)), "README.md's Quick Start no longer shows the code this test runs")
    }

    /// The lines between `// NAME: begin` and `// NAME: end`, without their common indentation.
    static func lines(of source: String, between name: String) throws -> [String] {
        let all = source.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let begin = try #require(all.firstIndex { $0.trimmingCharacters(in: .whitespaces) == "// \(name): begin" })
        let end = try #require(all.firstIndex { $0.trimmingCharacters(in: .whitespaces) == "// \(name): end" })
        let body = all[(begin + 1)..<end]
        let indent = body.filter { !$0.isEmpty }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return body.map { $0.isEmpty ? $0 : String($0.dropFirst(indent)) }
    }

    /// Each ```` ```swift ```` block of a Markdown text, as lines.
    static func swiftBlocks(of markdown: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if current == nil, line == "```swift" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!)
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }
}
