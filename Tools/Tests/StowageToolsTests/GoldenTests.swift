import ExampleTestSupport
import Foundation
import Testing

/// Golden-output tests: what `stowage` prints about the example apps' stores, made by running the
/// built `spendsmart` and `recipes` programs, compared with the files in Golden/ once the parts that
/// change from run to run are scrubbed (``GoldenTests/scrub(_:)``).
///
/// To write the golden files instead of comparing (after an intended change of the output):
///
///     STOWAGE_UPDATE_GOLDEN=1 swift test --filter GoldenTests
///
/// then read every file that changed in Tools/Tests/StowageToolsTests/Golden/ (`git diff`) before
/// committing it: a golden file that records a bug is worse than none.
@Suite("Golden output on the example apps' stores")
struct GoldenTests {
    static let goldenDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    /// Whether the tests write the golden files rather than compare with them.
    static var updatingGoldenFiles: Bool { ProcessInfo.processInfo.environment["STOWAGE_UPDATE_GOLDEN"] == "1" }

    // MARK: The example stores

    /// An example app, the commands that fill its store, and its entities.
    struct App: CustomStringConvertible, Sendable {
        let program: String
        let store: String
        let entities: [String]
        let commands: [[String]]
        /// A command that opens (so creates) the store without changing it.
        let opening: [String]

        var description: String { program }

        static let spendSmart = App(
            program: "spendsmart", store: "spendsmart.store", entities: ["Budget", "Transaction"],
            commands: [
                ["add", "Groceries", "500"],
                ["add", "Summer Trip", "2000"],
                ["spend", "Groceries", "4.50", "Milk"],
                ["spend", "Groceries", "12.30", "Bread"],
            ],
            opening: ["list"])

        static let recipes = App(
            program: "recipes", store: "recipes.store", entities: ["Ingredient", "Recipe"],
            commands: [
                ["add", "French Toast", "bread,", "eggs,", "milk"],
                ["add", "Omelette", "eggs", "butter", "milk"],
                ["add", "Pancakes", "flour,", "eggs,", "milk"],
            ],
            opening: ["list"])
    }

    /// Runs a built program in `directory`, expecting it to exit with 0.
    @discardableResult
    static func succeeding(
        _ program: String, _ arguments: [String], in directory: URL, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ToolRun {
        let run = try Tool.run(program, arguments, in: directory)
        #expect(
            run.status == 0 && !run.crashed,
            "\(program) \(arguments.joined(separator: " ")) exited with \(run.status)\(run.crashed ? " (crashed)" : ""): \(run.errorOutput)",
            sourceLocation: sourceLocation)
        return run
    }

    /// Makes the app's store in `directory` by running its commands, each in a process of its own.
    static func makeStore(_ app: App, in directory: URL) throws {
        for command in app.commands { try succeeding(app.program, command, in: directory) }
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent(app.store).path))
    }

    // MARK: Scrubbing and comparing

    /// The output without what changes from run to run: the store identifier, dates, the file's and
    /// WAL's sizes (whether the WAL was checkpointed yet depends on timing) and process ids.
    static func scrub(_ text: String) -> String {
        var text = text.replacing(/[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}/, with: "<UUID>")
        text = text.replacing(/-?[0-9]{4,}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z/, with: "<DATE>")
        text = text.replacing(/\(process [0-9]+\)/, with: "(process <PID>)")
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            if line.hasPrefix("File        ") { return "File        <scrubbed>" }
            if line.hasPrefix("WAL         ") { return "WAL         <scrubbed>" }
            return String(line)
        }.joined(separator: "\n")
    }

    /// A `stowage rows` table aligned again after ``scrub(_:)``: a date's text has from 20 to 30
    /// characters (its fraction of a second loses its trailing zeros), so the width of a date column
    /// changes from run to run. Cells are separated by two spaces or more; the last line (the count of
    /// rows) is kept as it is.
    static func realigned(_ table: String) -> String {
        var lines = table.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let trailingNewline = lines.last == ""
        if trailingNewline { lines.removeLast() }
        guard lines.count >= 2 else { return table }
        let footer = lines.removeLast()
        let cells = lines.map { $0.split(separator: /\ {2,}/).map(String.init) }
        var widths: [Int] = []
        for row in cells {
            for (index, cell) in row.enumerated() {
                if index == widths.count { widths.append(0) }
                widths[index] = max(widths[index], cell.allSatisfy { $0 == "─" } ? 1 : cell.count)
            }
        }
        let aligned = cells.map { row in
            row.enumerated().map { index, cell in
                cell.allSatisfy { $0 == "─" } ? String(repeating: "─", count: widths[index])
                    : cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: "  ").replacing(/\ +$/, with: "")
        }
        return (aligned + [footer]).joined(separator: "\n") + (trailingNewline ? "\n" : "")
    }

    /// Compares `output`, scrubbed, with the golden file `name`.txt, or writes it there when
    /// STOWAGE_UPDATE_GOLDEN=1.
    static func checkGolden(_ output: String, _ name: String, realign: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws {
        var actual = scrub(output)
        if realign { actual = realigned(actual) }
        let file = goldenDirectory.appendingPathComponent("\(name).txt")
        if updatingGoldenFiles {
            try FileManager.default.createDirectory(at: goldenDirectory, withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: file)
            return
        }
        guard let data = FileManager.default.contents(atPath: file.path) else {
            Issue.record("No golden file \(file.path): write it with STOWAGE_UPDATE_GOLDEN=1, then read it", sourceLocation: sourceLocation)
            return
        }
        let expected = String(decoding: data, as: UTF8.self)
        guard actual != expected else { return }
        let actualLines = actual.components(separatedBy: "\n")
        let expectedLines = expected.components(separatedBy: "\n")
        let first = zip(actualLines, expectedLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(actualLines.count, expectedLines.count)
        let expectedLine = first < expectedLines.count ? expectedLines[first] : "(end of file)"
        let actualLine = first < actualLines.count ? actualLines[first] : "(end of output)"
        Issue.record(
            """
            \(name): the output differs from Golden/\(name).txt from line \(first + 1):
              expected: \(expectedLine)
              actual:   \(actualLine)
            whole output (scrubbed):
            \(actual)
            """,
            sourceLocation: sourceLocation)
    }

    // MARK: Tests

    @Test("inspect, schema, rows and export of the example stores match their golden files", arguments: [App.spendSmart, App.recipes])
    func goldenOutput(_ app: App) throws {
        let directory = try TemporaryDirectory(prefix: "stowage-golden-\(app.program)")
        defer { directory.remove() }
        try Self.makeStore(app, in: directory.url)
        let before = try snapshot(of: directory.url)

        try Self.checkGolden(try Self.succeeding("stowage", ["inspect", app.store], in: directory.url).output, "\(app.program)-inspect")
        try Self.checkGolden(
            try Self.succeeding("stowage", ["schema", app.store, "--format", "mermaid"], in: directory.url).output, "\(app.program)-schema-mermaid")
        try Self.checkGolden(try Self.succeeding("stowage", ["schema", app.store], in: directory.url).output, "\(app.program)-schema")
        for entity in app.entities {
            let rows = try Self.succeeding("stowage", ["rows", app.store, entity], in: directory.url).output
            try Self.checkGolden(rows, "\(app.program)-rows-\(entity)", realign: true)
        }
        try Self.checkGolden(try Self.succeeding("stowage", ["export", app.store], in: directory.url).output, "\(app.program)-export")

        #expect(differences(before, try snapshot(of: directory.url)) == [], "reading commands changed the store")
    }

    @Test("scrub removes what changes between runs, and only that")
    func scrubbing() {
        let inspect = """
            Store       spendsmart.store
            Identifier  BAFFE7AA-4012-4106-A3F3-0D04D25AEA63
            File        44.0 KiB, page size 4096, journal mode wal
            WAL         12.3 KiB not yet checkpointed
            #3  2026-12-07T17:27:30.111051321Z  no author  spendsmart (process 5677)
            {"date":"2026-12-07T17:27:30Z","amount":4.5}
            """
        #expect(Self.scrub(inspect) == """
            Store       spendsmart.store
            Identifier  <UUID>
            File        <scrubbed>
            WAL         <scrubbed>
            #3  <DATE>  no author  spendsmart (process <PID>)
            {"date":"<DATE>","amount":4.5}
            """)
        let table = """
            _pk  note   date                            budget
            ───  ─────  ──────────────────────────────  ──────
            1    Milk   2026-12-07T17:27:30.108641863Z  1
            2    Bread  2026-12-07T17:27:30.1Z          nil
            2 rows

            """
        #expect(Self.realigned(Self.scrub(table)) == """
            _pk  note   date    budget
            ───  ─────  ──────  ──────
            1    Milk   <DATE>  1
            2    Bread  <DATE>  nil
            2 rows

            """)
    }

    @Test("export, then import into a new store of the same app, then export again: the same file", arguments: [App.spendSmart, App.recipes])
    func exportImportRoundTrip(_ app: App) throws {
        let original = try TemporaryDirectory(prefix: "stowage-export-\(app.program)")
        defer { original.remove() }
        let copy = try TemporaryDirectory(prefix: "stowage-import-\(app.program)")
        defer { copy.remove() }
        try Self.makeStore(app, in: original.url)

        let exported = try Self.succeeding("stowage", ["export", app.store], in: original.url).output
        let exportFile = original.url.appendingPathComponent("export.jsonl")
        try Self.succeeding("stowage", ["export", app.store, "--output", exportFile.path], in: original.url)
        #expect(String(decoding: FileManager.default.contents(atPath: exportFile.path) ?? Data(), as: UTF8.self) == exported, "export -o wrote something else than standard output")

        // A new, empty store of the same app: the app creates it when it opens it.
        try Self.succeeding(app.program, app.opening, in: copy.url)
        let newStore = copy.url.appendingPathComponent(app.store)
        #expect(FileManager.default.fileExists(atPath: newStore.path), "\(app.program) \(app.opening.joined(separator: " ")) did not create its store")
        let empty = try Self.succeeding("stowage", ["export", app.store], in: copy.url).output
        #expect(empty.split(separator: "\n").count == 1, "the new store is not empty:\n\(empty)")

        let imported = try Self.succeeding("stowage", ["import", app.store, exportFile.path], in: copy.url)
        #expect(imported.output.hasPrefix("Imported "), "\(imported.output)")
        #expect(!imported.output.contains("Keys were moved"), "keys were moved in an empty store: \(imported.output)")

        let again = try Self.succeeding("stowage", ["export", app.store], in: copy.url).output
        let (first, second) = (exported.components(separatedBy: "\n"), again.components(separatedBy: "\n"))
        #expect(first.count == second.count && first.count > 2, "\(first.count) lines exported, \(second.count) after the import")
        if let header = first.first, let newHeader = second.first {
            let withoutVersion = { (line: String) in line.replacing(/"version":"[^"]*",?/, with: "") }
            #expect(withoutVersion(header) == withoutVersion(newHeader))
        }
        #expect(Array(first.dropFirst()) == Array(second.dropFirst()), "the new store's export differs:\n\(again)\nfrom the original's:\n\(exported)")

        let history = try Self.succeeding("stowage", ["history", app.store], in: copy.url).output
        #expect(history.contains("stowage-import"), "no transaction by stowage-import in the history:\n\(history)")
        try Self.succeeding("stowage", ["doctor", app.store], in: copy.url)

        // The app sees the same data in both stores.
        let listed = try Self.succeeding(app.program, ["list"], in: original.url).output
        #expect(try Self.succeeding(app.program, ["list"], in: copy.url).output == listed)
    }
}
