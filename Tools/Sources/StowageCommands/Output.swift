import Foundation
import GRDB
import StowageTools

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Standard output, buffered, with colour only on a terminal and never with `NO_COLOR` set.
enum Output {
    nonisolated(unsafe) private static var buffer: [UInt8] = []

    static let usesColor: Bool = isatty(STDOUT_FILENO) != 0 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
        && ProcessInfo.processInfo.environment["TERM"] != "dumb"

    static func line(_ text: String = "") {
        buffer.append(contentsOf: text.utf8)
        buffer.append(0x0A)
        if buffer.count >= 1 << 16 { flush() }
    }

    static func flush() {
        guard !buffer.isEmpty else { return }
        buffer.withUnsafeBufferPointer { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(STDOUT_FILENO, bytes.baseAddress! + offset, bytes.count - offset)
                if written <= 0 { break }
                offset += written
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    static func bold(_ text: String) -> String { usesColor ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
    static func dim(_ text: String) -> String { usesColor ? "\u{1B}[2m\(text)\u{1B}[0m" : text }

    static func error(_ message: String) {
        flush()
        let color = isatty(STDERR_FILENO) != 0 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
            && ProcessInfo.processInfo.environment["TERM"] != "dumb"
        FileHandle.standardError.write(Data(((color ? "\u{1B}[31mstowage:\u{1B}[0m " : "stowage: ") + message + "\n").utf8))
    }
}

/// Rows as an aligned table, JSON, JSON lines or CSV.
enum RowsFormat: String, CaseIterable {
    case table, json, jsonl, csv
}

struct RowPrinter {
    let names: [String]
    let format: RowsFormat
    /// A row's cells as JSON values and as text.
    let json: (Int, DatabaseValue) -> JSONValue
    let text: (Int, DatabaseValue) -> String?

    func printAll(_ rows: [[DatabaseValue]], footer: String?, wrapper: ((JSONValue) -> JSONValue)? = nil) {
        switch format {
        case .table:
            let cells = rows.map { row in row.enumerated().map { text($0.offset, $0.element).map(Self.clip) } }
            var widths = names.map(\.count)
            for row in cells {
                for (index, cell) in row.enumerated() { widths[index] = max(widths[index], (cell ?? "nil").count) }
            }
            func pad(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
            Output.line(Output.bold(names.enumerated().map { pad($0.element, widths[$0.offset]) }.joined(separator: "  ")).trimmingTrailingSpaces)
            Output.line(widths.map { String(repeating: "─", count: $0) }.joined(separator: "  "))
            for row in cells {
                Output.line(row.enumerated().map { index, cell in
                    cell.map { pad($0, widths[index]) } ?? Output.dim(pad("nil", widths[index]))
                }.joined(separator: "  ").trimmingTrailingSpaces)
            }
            if let footer { Output.line(Output.dim(footer)) }
        case .json:
            let array = JSONValue.array(rows.map(object))
            Output.line((wrapper?(array) ?? array).prettyText)
        case .jsonl:
            for row in rows { Output.line(object(row).text) }
        case .csv:
            Output.line(names.map(Self.csv).joined(separator: ","))
            for row in rows { csvLine(row) }
        }
    }

    func object(_ row: [DatabaseValue]) -> JSONValue {
        .object(zip(names, row).enumerated().map { index, pair in (pair.0, json(index, pair.1)) })
    }

    func csvLine(_ row: [DatabaseValue]) {
        Output.line(row.enumerated().map { index, value in
            guard let text = text(index, value) else { return "" }
            if case .blob(let data) = value.storage { return Self.csv(data.base64EncodedString()) }
            return Self.csv(text)
        }.joined(separator: ","))
    }

    static func csv(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// One line, at most 60 characters.
    static func clip(_ text: String) -> String {
        var line = text.replacingOccurrences(of: "\n", with: "⏎")
        if line.count > 60 { line = String(line.prefix(59)) + "…" }
        return line
    }
}

extension String {
    var trimmingTrailingSpaces: String {
        var text = self
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }
}
