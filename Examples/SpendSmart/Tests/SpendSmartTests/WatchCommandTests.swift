import Foundation
import Stowage
import Testing
@testable import SpendSmartKit

/// `watch` as a user runs it, through `SpendSmart.runAsync` on the main actor, while other command lines
/// change the store: each of those opens the file in a container of its own, which Stowage treats as
/// another process (its saves reach the watch through the store's change watcher).
@MainActor
@Suite struct WatchCommandTests {
    @Test func watchPrintsTheTotalsAgainWhenAnotherProcessSpends() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("budgets.store")
        #expect(spendsmart("--store", store, "add", "Groceries", "500").status == 0)
        #expect(spendsmart("--store", store, "add", "Books", "75").status == 0)

        let watch = Watching(["--store", store, "watch", "--updates", "1"])
        let before = [
            "Watching \(SpendSmart.storeURL(store).path) (stops after 1 update).",
            "2 budgets, spent of limit:",
            "  Groceries  $0.00 of $500.00",
            "  Books      $0.00 of  $75.00",
        ]
        #expect(try await watch.prints(before))
        #expect(spendsmart("--store", store, "spend", "Groceries", "4.50", "Milk").status == 0)

        #expect(await watch.status() == 0)
        #expect(watch.transcript.output == before + [
            "-- update 1",
            "2 budgets, spent of limit:",
            "  Groceries  $4.50 of $500.00",
            "  Books      $0.00 of  $75.00",
        ])
        #expect(watch.transcript.errors.isEmpty)
    }

    @Test func watchFollowsBudgetsAndPrintsOnlyChangedTotals() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("budgets.store")
        #expect(spendsmart("--store", store, "add", "Books", "75").status == 0)
        #expect(spendsmart("--store", store, "spend", "Books", "20", "Atlas").status == 0)

        let watch = Watching(["--store", store, "watch", "--updates=3"])
        #expect(try await watch.prints(["Watching \(SpendSmart.storeURL(store).path) (stops after 3 updates).", "1 budget, spent of limit:", "  Books  $20.00 of $75.00"]))

        // A new note changes no total: nothing is printed for it.
        let other = ModelContext(try SpendSmart.openContainer(at: URL(fileURLWithPath: store)))
        let atlas = try #require(try other.fetch(FetchDescriptor<Transaction>()).first)
        atlas.note = "World atlas"
        try other.save()
        #expect(spendsmart("--store", store, "add", "Groceries", "500").status == 0)
        #expect(try await watch.prints(["-- update 1", "2 budgets, spent of limit:", "  Groceries   $0.00 of $500.00", "  Books      $20.00 of  $75.00"]))
        #expect(spendsmart("--store", store, "rename", "Books", "Novels").status == 0)
        #expect(try await watch.prints(["-- update 2", "2 budgets, spent of limit:", "  Novels     $20.00 of  $75.00", "  Groceries   $0.00 of $500.00"]))
        #expect(spendsmart("--store", store, "delete", "Novels").status == 0)

        #expect(await watch.status() == 0)
        #expect(Array(watch.transcript.output.suffix(3)) == ["-- update 3", "1 budget, spent of limit:", "  Groceries  $0.00 of $500.00"])
        #expect(watch.transcript.output.filter { $0.hasPrefix("-- update") }.count == 3)
        #expect(watch.transcript.errors.isEmpty)
    }

    @Test func watchWithNoUpdatesPrintsTheTotalsOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("budgets.store")
        let transcript = Transcript()
        #expect(await SpendSmart.runAsync(["--store", store, "watch", "--updates", "0"], console: transcript.console) == 0)
        #expect(transcript.output == [
            "Watching \(SpendSmart.storeURL(store).path) (stops after 0 updates).",
            "No budgets yet. Add one with: spendsmart add <name> <limit>",
        ])
    }

    @Test func runAsyncRunsTheOtherCommandsToo() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("budgets.store")
        let transcript = Transcript()
        #expect(await SpendSmart.runAsync(["--store", store, "add", "Books", "75"], console: transcript.console) == 0)
        #expect(await SpendSmart.runAsync(["--store", store, "add", "Books", "80"], console: transcript.console) == 1)
        #expect(transcript.output == ["Added \"Books\" with a limit of $75.00."])
        #expect(transcript.errors == ["error: a budget named \"Books\" already exists. Pick another name, or rename the existing budget."])
    }

    @Test func watchReportsErrorsLikeTheOtherCommands() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("notes.txt")
        try Data("Groceries: 500\n".utf8).write(to: URL(fileURLWithPath: path))

        let notAStore = Transcript()
        #expect(await SpendSmart.runAsync(["--store", path, "watch"], console: notAStore.console) == 1)
        #expect(notAStore.output.isEmpty)
        #expect(notAStore.errors.first?.hasPrefix("error: could not open the store at \(path): ") == true)

        let badCount = Transcript()
        #expect(await SpendSmart.runAsync(["watch", "--updates", "some"], console: badCount.console) == 64)
        #expect(badCount.errors == ["error: --updates needs a whole number of updates, like 3: spendsmart watch --updates N."])

        // The synchronous entry point cannot wait for changes.
        let store = directory.path("budgets.store")
        let synchronous = spendsmart("--store", store, "watch")
        #expect(synchronous.status == 64)
        #expect(synchronous.transcript.errors == ["error: watch waits for changes: run it with SpendSmart.runAsync(_:console:)."])
        #expect(!FileManager.default.fileExists(atPath: store))
    }
}

/// A `watch` command line running on the main actor, as `spendsmart` runs it, with what it printed.
@MainActor
private final class Watching {
    let transcript: Transcript
    private let task: Task<Int32, Never>

    init(_ arguments: [String]) {
        let transcript = Transcript()
        let console = transcript.console
        self.transcript = transcript
        task = Task { await SpendSmart.runAsync(arguments, console: console) }
    }

    /// Whether the output ends with `lines` within five seconds (waiting without blocking the main
    /// actor, where the watch runs).
    func prints(_ lines: [String]) async throws -> Bool {
        for _ in 0..<500 {
            if transcript.output.suffix(lines.count) == lines[...] { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return transcript.output.suffix(lines.count) == lines[...]
    }

    /// The exit status once the watch has printed its updates; it is cancelled (and ends with fewer)
    /// if that takes more than ten seconds.
    func status() async -> Int32 {
        let task = task
        let timeout = Task {
            do {
                try await Task.sleep(for: .seconds(10))
                task.cancel()
            } catch {}
        }
        defer { timeout.cancel() }
        return await task.value
    }
}
