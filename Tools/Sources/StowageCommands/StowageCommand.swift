import ArgumentParser
import Foundation
import GRDB
import StowageCore
import StowageTools

/// The `stowage` command: see, check, export and import any Stowage store without the app's models.
///
/// Every command that only reads leaves the store's bytes, its `-wal` and `-shm` and its directory as
/// they were, and sees what another process saved even before it was checkpointed.
public struct StowageCommand: ParsableCommand {
    /// `stowage` and its subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "stowage",
        abstract: "See, check, export and import a Stowage store without the app's models.",
        discussion: "Reading commands never change the store. A file that is not a Stowage store, or is damaged, is reported in one line with a non-zero exit status.",
        subcommands: [
            Inspect.self, SchemaCommand.self, Rows.self, SQL.self, Export.self, Import.self, History.self, DoctorCommand.self, Migrate.self,
        ])

    /// A command as swift-argument-parser makes it, before parsing.
    public init() {}

    /// Runs the command line `arguments` (without the program's name), printing what it prints, and
    /// returns the exit status: what `stowage` itself runs.
    public static func run(_ arguments: [String]) -> Int32 {
        runAsRoot(arguments)
    }

    /// Runs the command line `arguments` as `root`, a command whose subcommands add to ``configuration``'s
    /// (the `stowage` executable adds `studio`), with the same one-line errors and exit statuses.
    /// Runs asynchronously: a subcommand may be an `AsyncParsableCommand`.
    public static func run(_ arguments: [String], as root: any ParsableCommand.Type) async -> Int32 {
        await root.runAsRootAsync(arguments)
    }

}

extension ParsableCommand {
    /// Parses and runs `arguments` as this root command, and returns the exit status. A ``ToolError``
    /// or a ``StowageError`` is one line on standard error (`stowage: …`); usage errors and `--help` are
    /// swift-argument-parser's.
    static func runAsRoot(_ arguments: [String]) -> Int32 {
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
            Output.flush()
            return 0
        } catch {
            return exitStatus(after: error)
        }
    }

    /// ``runAsRoot(_:)`` for a command line whose commands may run asynchronously (a server).
    static func runAsRootAsync(_ arguments: [String]) async -> Int32 {
        do {
            var command = try parseAsRoot(arguments)
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
            Output.flush()
            return 0
        } catch {
            return exitStatus(after: error)
        }
    }

    /// Prints what `error` says, as the command line shows errors, and returns the exit status.
    private static func exitStatus(after error: any Error) -> Int32 {
        switch error {
        case let error as ToolError:
            Output.error(error.message)
            return error.exitCode
        case let error as StowageError:
            Output.error(error.message)
            return 1
        default:
            Output.flush()
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if !message.isEmpty {
                if code == .success { print(message) } else { FileHandle.standardError.write(Data((message + "\n").utf8)) }
            }
            return code.rawValue
        }
    }
}

/// The store argument every command takes.
struct StoreArgument: ParsableArguments {
    @Argument(help: "The store file (an SQLite file a Stowage app made).", completion: .file())
    var store: String

    func open(writable: Bool = false) throws -> StoreReader {
        try StoreReader(path: store, writable: writable)
    }
}

enum ReportFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

extension RowsFormat: ExpressibleByArgument {}
extension SchemaText.Format: ExpressibleByArgument {}
extension Transfer.Format: ExpressibleByArgument {}

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a store's identifier, version, files, entities with their row counts, relationships and indexes, and history.")

    @OptionGroup var store: StoreArgument
    @Option(help: "text or json.") var format: ReportFormat = .text

    func run() throws {
        let inspection = try Inspection(try store.open())
        Output.line(format == .json ? inspection.json.prettyText : inspection.text)
    }
}

struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Show the store's entities, attributes with their Swift types, and relationships with their delete rules.",
        discussion: "--format mermaid writes an erDiagram for Mermaid; --format dot a graph for Graphviz (`stowage schema STORE --format dot | dot -Tsvg > schema.svg`).")

    @OptionGroup var store: StoreArgument
    @Option(help: "text, mermaid, dot or json.") var format: SchemaText.Format = .text

    func run() throws {
        Output.line(SchemaText.render(try store.open().description, as: format))
    }
}

struct Rows: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show an entity's rows, with values by their Swift types.",
        discussion: """
            --where takes a #Predicate body over the entity's properties, without `$0.`: \
            name == "Groceries" && limit > 100, note.contains("milk"), date >= "2026-01-01", budget == nil. \
            Strings compare as Swift compares them, as the app's predicates do. \
            Pages follow each other by key: the last line of a page names the --after KEY of the next.
            """)

    @OptionGroup var store: StoreArgument
    @Argument(help: "The entity (the model class's name).") var entity: String
    @Option(name: .customLong("where"), help: "A filter, as a #Predicate body without `$0.`.") var filter: String?
    @Option(help: ArgumentHelp("Sort by NAME, NAME:asc or NAME:desc; repeat or separate with commas.", valueName: "NAME[:desc]"))
    var sort: [String] = []
    @Option(help: "At most this many rows (default 50 in a table, every row otherwise).") var limit: Int?
    @Option(help: ArgumentHelp("Start after the row with this key (keyset paging).", valueName: "KEY")) var after: Int64?
    @Option(help: "table, json, jsonl or csv.") var format: RowsFormat = .table

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() throws {
        let reader = try store.open()
        let keys = try sort.flatMap { $0.split(separator: ",") }.map { try RowQuery.SortKey(parsing: String($0)) }
        let limit = self.limit ?? (format == .table ? 50 : nil)
        let query = RowQuery(entity: try reader.entity(named: entity), filter: filter, sort: keys, limit: limit, after: after)
        let page = try query.page(in: reader)
        let printer = RowPrinter(
            names: page.columns.map(\.name), format: format,
            json: { page.columns[$0].json($1) }, text: { page.columns[$0].text($1) })
        let count = "\(page.rows.count) row\(page.rows.count == 1 ? "" : "s")"
        printer.printAll(
            page.rows, footer: page.nextAfter.map { "\(count); next page: --after \($0)" } ?? count,
            wrapper: { rows in .object([("entity", .string(query.entity.name)), ("rows", rows), ("nextAfter", page.nextAfter.map(JSONValue.integer) ?? .null)]) })
    }
}

struct SQL: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run SQL on the store, with Stowage's functions and collations, read-only unless --write.",
        discussion: "The statements the SQL debug log shows (STOWAGE_SQL_DEBUG=2) can be pasted as they are.")

    @OptionGroup var store: StoreArgument
    @Argument(help: "The statement(s).") var sql: String
    @Flag(help: "Allow statements that change the store.") var write = false
    @Flag(help: "Show the query plan instead of the rows.") var explain = false
    @Option(help: "table, json, jsonl or csv.") var format: RowsFormat = .table

    func run() throws {
        let reader = try store.open(writable: write)
        if explain {
            let plan = try reader.read { db in try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql) }
            var depth: [Int64: Int] = [:]
            for row in plan {
                let id: Int64 = row["id"] ?? 0
                let parent: Int64 = row["parent"] ?? 0
                let level = (depth[parent] ?? -1) + 1
                depth[id] = level
                Output.line(String(repeating: "  ", count: level) + (row["detail"] as String? ?? ""))
            }
            return
        }
        let result: ([String], [[DatabaseValue]])
        do {
            result = try execute(reader)
        } catch let error as ToolError where !write && error.message.contains("readonly") {
            throw ToolError("\(reader.path) was opened read-only: add --write to run statements that change it")
        }
        let (names, rows) = result
        guard !names.isEmpty else {
            if write { Output.line(Output.dim("done")) }
            return
        }
        let printer = RowPrinter(names: names, format: format, json: { _, value in Self.json(value) }, text: { _, value in Self.text(value) })
        printer.printAll(rows, footer: "\(rows.count) row\(rows.count == 1 ? "" : "s")")
    }

    /// Runs every statement; the columns and rows of the last one that has columns.
    private func execute(_ reader: StoreReader) throws -> ([String], [[DatabaseValue]]) {
        try reader.withConnection { db -> ([String], [[DatabaseValue]]) in
            var names: [String] = []
            var rows: [[DatabaseValue]] = []
            let statements = try db.allStatements(sql: sql)
            while let statement = try statements.next() {
                let cursor = try Row.fetchCursor(statement)
                var current: [[DatabaseValue]] = []
                while let row = try cursor.next() { current.append(row.databaseValues.map { $0 }) }
                if statement.columnCount > 0 {
                    names = statement.columnNames
                    rows = current
                }
            }
            return (names, rows)
        }
    }

    static func json(_ value: DatabaseValue) -> JSONValue {
        switch value.storage {
        case .null: .null
        case .int64(let integer): .integer(integer)
        case .double(let real): .real(real)
        case .string(let text): .string(text)
        case .blob(let data): .string(data.base64EncodedString())
        }
    }

    static func text(_ value: DatabaseValue) -> String? {
        switch value.storage {
        case .null: nil
        case .blob(let data): "<\(data.count) bytes>"
        default: json(value).text.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
    }
}

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write every row of the store, with relationships as keys, to standard output or a file.",
        discussion: "jsonl (the default) and json hold the whole store and are what `stowage import` reads; csv writes one entity (--entity).")

    @OptionGroup var store: StoreArgument
    @Option(help: "jsonl, json or csv.") var format: Transfer.Format = .jsonl
    @Option(help: "The entity to write (csv only).") var entity: String?
    @Option(name: .shortAndLong, help: "Write to this file instead of standard output.", completion: .file()) var output: String?

    func validate() throws {
        if format == .csv, entity == nil { throw ValidationError("--format csv writes one entity: add --entity NAME") }
        if format != .csv, entity != nil { throw ValidationError("--entity is for --format csv; jsonl and json hold every entity") }
    }

    func run() throws {
        let reader = try store.open()
        if let output {
            guard FileManager.default.createFile(atPath: output, contents: nil) else { throw ToolError("cannot create \(output)") }
        }
        let writer = output.flatMap { FileHandle(forWritingAtPath: $0) }
        var pending: [UInt8] = []
        func emit(_ line: String) {
            if let writer {
                pending.append(contentsOf: line.utf8)
                pending.append(0x0A)
                if pending.count >= 1 << 16 {
                    writer.write(Data(pending))
                    pending.removeAll(keepingCapacity: true)
                }
            } else {
                Output.line(line)
            }
        }
        defer {
            writer?.write(Data(pending))
            try? writer?.close()
        }
        switch format {
        case .jsonl:
            try Transfer.export(reader) { emit($0.text) }
        case .json:
            // The header's members, then the records as an array, one a line: written as they are read.
            var records = -1
            try Transfer.export(reader) { record in
                defer { records += 1 }
                guard records >= 0 else {
                    guard case .object(let members) = record else { return }
                    emit("{" + members.map { JSONValue.object([$0]).text.dropFirst().dropLast() }.joined(separator: ",") + ",\"records\":[")
                    return
                }
                emit((records == 0 ? "" : ",") + record.text)
            }
            emit("]}")
        case .csv:
            let query = RowQuery(entity: try reader.entity(named: entity ?? ""))
            let columns = query.columns
            emit(columns.map(\.name).map(RowPrinter.csv).joined(separator: ","))
            try query.forEachRow(in: reader) { row in
                emit(zip(columns, row).map { column, value in
                    if case .blob(let data) = value.storage { return RowPrinter.csv(data.base64EncodedString()) }
                    return column.text(value).map(RowPrinter.csv) ?? ""
                }.joined(separator: ","))
            }
        }
    }
}

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add the rows of an export to a store, all or nothing, in one transaction recorded in its history.",
        discussion: """
            Every record is checked against the store's models first. Keys are kept when the store has no row \
            with them, else moved past the store's own, with the links that point at them. \
            The store must exist: create it by opening it once with your app.
            """)

    @OptionGroup var store: StoreArgument
    @Argument(help: "An export (jsonl or json) made by `stowage export`.", completion: .file()) var file: String
    @Option(help: "The author of the history transaction.") var author = "stowage-import"

    func run() throws {
        guard FileManager.default.fileExists(atPath: store.store) else {
            throw ToolError("no store at \(store.store): import adds rows to an existing store; create it by opening it once with your app")
        }
        let reader = try store.open(writable: true)
        let summary = try Transfer.import(into: reader, author: author) { body in
            var lines = try LineReader(path: file)
            guard let first = lines.next() else { return }
            // JSON lines start with a header on a line of its own; a JSON export is one value.
            if let header = try? JSONValue(parsing: first), header["stowage"] != nil, header["records"] == nil {
                try body(header, 1)
                var number = 1
                while let line = lines.next() {
                    number += 1
                    if line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
                    let record: JSONValue
                    do { record = try JSONValue(parsing: line) } catch let error as ToolError {
                        throw ToolError("line \(number): \(error.message); nothing was imported", exitCode: 65)
                    }
                    try body(record, number)
                }
            } else {
                guard let data = FileManager.default.contents(atPath: file) else { throw ToolError("cannot read \(file)") }
                let document: JSONValue
                do { document = try JSONValue(parsing: String(decoding: data, as: UTF8.self)) } catch let error as ToolError {
                    throw ToolError("\(file) is neither JSON lines nor JSON (\(error.message)); nothing was imported", exitCode: 65)
                }
                guard case .object(let members) = document, case .array(let records)? = document["records"] else {
                    throw ToolError("\(file) is not a Stowage export", exitCode: 65)
                }
                try body(.object(members.filter { $0.0 != "records" }), 1)
                for (index, record) in records.enumerated() { try body(record, index + 1) }
            }
        }
        let rows = summary.rows.map { "\($0.count) \($0.entity)" }.joined(separator: ", ")
        Output.line("Imported \(rows.isEmpty ? "no rows" : rows)\(summary.links > 0 ? " and \(summary.links) links" : "") in history transaction \(summary.transaction).")
        if !summary.movedTables.isEmpty {
            Output.line("Keys were moved past the store's own in \(summary.movedTables.joined(separator: ", ")).")
        }
    }
}

struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the store's history: each save with its changes.",
        discussion: "--follow keeps printing the saves of other processes as they commit, until interrupted.")

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case text, json, jsonl
    }

    @OptionGroup var store: StoreArgument
    @Option(help: ArgumentHelp("Only the transactions after this token.", valueName: "TOKEN")) var since: Int64?
    @Flag(help: "Keep printing new transactions.") var follow = false
    @Option(help: "text, json or jsonl.") var format: Format = .text
    @Option(help: "Poll interval of --follow, in milliseconds.") var interval = 50

    func validate() throws {
        if follow, format == .json { throw ValidationError("--follow prints text or jsonl") }
        if interval < 1 { throw ValidationError("--interval must be at least 1 millisecond") }
    }

    func run() throws {
        var reader = try store.open()
        var last = since
        let first = try HistoryLog.transactions(in: reader, after: last)
        if format == .json {
            Output.line(JSONValue.array(first.map(\.json)).prettyText)
            return
        }
        func show(_ transactions: [HistoryLog.Transaction]) {
            for transaction in transactions {
                Output.line(format == .jsonl ? transaction.json.text : transaction.text)
                last = transaction.id
            }
            Output.flush()
        }
        show(first)
        if first.isEmpty && !follow { Output.line(Output.dim("no transactions" + (since.map { " after \($0)" } ?? ""))) }
        guard follow else { return }
        var failingSince: Date?
        while true {
            Thread.sleep(forTimeInterval: Double(interval) / 1000)
            // A fresh connection each time: a -wal that appeared since is read. Another process opening
            // or closing the store makes its files come and go for a moment: a failure is retried, and
            // reported only when it lasts.
            do {
                reader = try store.open()
                show(try HistoryLog.transactions(in: reader, after: last))
                failingSince = nil
            } catch let error as ToolError {
                let since = failingSince ?? Date()
                failingSince = since
                if Date().timeIntervalSince(since) > 10 { throw error }
            }
        }
    }
}

struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the store: integrity, foreign keys, its description against its tables, uniqueness as Swift sees it, each value's type, file permissions.",
        discussion: "Exits with 0 when nothing is wrong, 1 when a problem was found (each is named with what to do).")

    @OptionGroup var store: StoreArgument
    @Option(help: "text or json.") var format: ReportFormat = .text

    func run() throws {
        let problems: [Doctor.Problem]
        do {
            problems = try Doctor.examine(try store.open())
        } catch let error as ToolError where error.message.contains("is damaged") {
            problems = Doctor.examineDamaged(path: store.store)
        }
        if format == .json {
            Output.line(JSONValue.object([("checks", .array(Doctor.checks.map(JSONValue.string))), ("problems", .array(problems.map(\.json)))]).prettyText)
        } else if problems.isEmpty {
            Output.line("No problems found (\(Doctor.checks.joined(separator: ", "))).")
        } else {
            for problem in problems { Output.line(problem.text) }
            Output.line("\(problems.count) problem\(problems.count == 1 ? "" : "s") found.")
        }
        if !problems.isEmpty { throw ExitCode(1) }
    }
}

struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Versions and migrations.",
        discussion: "Without the app's models, `status` shows what the store recorded. An app adds `StowageAppCommand` to its own command line for `migrate --dry-run` with its migration plan.",
        subcommands: [Status.self])

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the version and layout the store recorded, and whether its models' description is current.")

        @OptionGroup var store: StoreArgument
        @Option(help: "text or json.") var format: ReportFormat = .text

        func run() throws {
            let reader = try store.open()
            let metadata = reader.metadata
            let described = metadata[StoreDescription.metadataKey] != nil
            let version = metadata["schema_version"] ?? "?"
            let deleted = metadata["history_deleted_through"]
            let descriptionState = !described ? "missing (made by an earlier Stowage: open the store with your app to record it)"
                : reader.description.version == version ? "current" : "recorded at version \(reader.description.version)"
            if format == .json {
                Output.line(JSONValue.object([
                    ("store", .string(reader.path)), ("version", .string(version)),
                    ("layoutFingerprint", metadata["schema_fingerprint"].map(JSONValue.string) ?? .null),
                    ("described", .bool(described)), ("descriptionVersion", described ? .string(reader.description.version) : .null),
                    ("historyDeletedThrough", deleted.map(JSONValue.string) ?? .null),
                ]).prettyText)
                return
            }
            Output.line("Store        \(reader.path)")
            Output.line("Version      \(version)")
            Output.line("Layout       \(metadata["schema_fingerprint"] ?? "not recorded")")
            Output.line("Description  \(descriptionState)")
            if let deleted { Output.line("History      deleted through transaction \(deleted)") }
        }
    }
}
