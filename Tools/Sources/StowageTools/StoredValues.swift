import Foundation
import GRDB
import StowageCore

/// Stored values shown by their Swift type, and values written back in the form a container stores.
package enum StoredValues {
    /// A stored value as JSON, by the attribute's Swift type: a `Date` as ISO 8601 text, a `Decimal`
    /// as an exact number, `Data` as base64, a `Codable` value as the JSON it is stored as.
    package static func json(_ value: DatabaseValue, kind: StoreDescription.Kind) -> JSONValue {
        switch value.storage {
        case .null: return .null
        case .int64(let integer):
            switch kind {
            case .bool: return .bool(integer != 0)
            case .date: return .string(ISODate.format(Double(integer)))
            default: return .integer(integer)
            }
        case .double(let real):
            return kind == .date ? .string(ISODate.format(real)) : .real(real)
        case .string(let text):
            switch kind {
            case .decimal:
                return Double(text) != nil && text.allSatisfy({ "+-0123456789.eE".contains($0) }) ? .number(text) : .string(text)
            case .codable:
                return (try? JSONValue(parsing: text)) ?? .string(text)
            default:
                return .string(text)
            }
        case .blob(let data):
            return .string(data.base64EncodedString())
        }
    }

    /// A stored value as one line of text (a table's cell, a CSV field): `nil` for NULL.
    package static func text(_ value: DatabaseValue, kind: StoreDescription.Kind) -> String? {
        switch json(value, kind: kind) {
        case .null: return nil
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let text): return text
        case .string(let text):
            if case .blob(let data) = value.storage, kind != .data || data.count > 64 { return "<\(data.count) bytes>" }
            return text
        case let other: return other.text
        }
    }

    /// The stored form of a JSON value for an attribute, as a container stores the Swift value (an
    /// export's value, an edit).
    /// - Throws: ``ToolError`` saying what the attribute needs.
    package static func stored(_ value: JSONValue, for attribute: StoreDescription.Attribute) throws -> DatabaseValue {
        func wrong() -> ToolError {
            ToolError("\(attribute.name) is \(attribute.isOptional ? "an optional " : "a ")\(attribute.type), not \(value.text.prefix(60))")
        }
        if value == .null {
            guard attribute.isOptional else { throw ToolError("\(attribute.name) is a \(attribute.type), which cannot be nil") }
            return .null
        }
        switch attribute.kind {
        case .bool:
            guard case .bool(let flag) = value else { throw wrong() }
            return (flag ? 1 : 0).databaseValue
        case .integer:
            guard case .number(let text) = value, let integer = Int64(text) else { throw wrong() }
            try checkWidth(integer, attribute)
            return integer.databaseValue
        case .real:
            guard case .number(let text) = value, let real = Double(text) else {
                if case .string(let text) = value, ["nan", "inf", "-inf"].contains(text), let real = Double(text) { return real.databaseValue }
                throw wrong()
            }
            return real.databaseValue
        case .date:
            guard case .string(let text) = value, let seconds = ISODate.parse(text) else { throw wrong() }
            return seconds.databaseValue
        case .string, .url:
            guard case .string(let text) = value else { throw wrong() }
            if attribute.kind == .url, URL(string: text) == nil { throw wrong() }
            return text.databaseValue
        case .uuid:
            guard case .string(let text) = value, let uuid = UUID(uuidString: text) else { throw wrong() }
            return uuid.uuidString.databaseValue
        case .decimal:
            let text: String
            switch value {
            case .number(let number): text = number
            case .string(let string): text = string
            default: throw wrong()
            }
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else { throw wrong() }
            return (decimal.isNaN ? "NaN" : decimal.description).databaseValue
        case .data, .transformable:
            guard case .string(let text) = value, let data = Data(base64Encoded: text) else { throw wrong() }
            return data.databaseValue
        case .codable:
            return value.text.databaseValue
        case .rawValue:
            let stored: DatabaseValue
            switch (attribute.column, value) {
            case ("INTEGER", .number(let text)):
                guard let integer = Int64(text) else { throw wrong() }
                stored = integer.databaseValue
            case ("REAL", .number(let text)):
                guard let real = Double(text) else { throw wrong() }
                stored = real.databaseValue
            case ("TEXT", .string(let text)): stored = text.databaseValue
            default: throw wrong()
            }
            if let cases = attribute.cases, !cases.contains(where: { $0.databaseValue == stored }) {
                throw ToolError("\(attribute.name) is a \(attribute.type), whose raw values are \(cases.map(\.jsonText).joined(separator: ", ")), not \(value.text)")
            }
            return stored
        }
    }

    private static func checkWidth(_ integer: Int64, _ attribute: StoreDescription.Attribute) throws {
        let range: ClosedRange<Int64>? = switch attribute.type {
        case "Int8": Int64(Int8.min)...Int64(Int8.max)
        case "Int16": Int64(Int16.min)...Int64(Int16.max)
        case "Int32": Int64(Int32.min)...Int64(Int32.max)
        case "UInt8": 0...Int64(UInt8.max)
        case "UInt16": 0...Int64(UInt16.max)
        case "UInt32": 0...Int64(UInt32.max)
        case "UInt", "UInt64": 0...Int64.max
        default: nil
        }
        if let range, !range.contains(integer) { throw ToolError("\(attribute.name) is a \(attribute.type), which cannot hold \(integer)") }
    }
}

extension StoreDescription.Value {
    var databaseValue: DatabaseValue {
        switch self {
        case .integer(let value): value.databaseValue
        case .real(let value): value.databaseValue
        case .text(let value): value.databaseValue
        }
    }

    /// The value as JSON text (a raw value as an edit or an export writes it).
    package var jsonText: String {
        switch self {
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): JSONValue.string(value).text
        }
    }
}

/// Dates as ISO 8601 text in UTC, to the nanosecond, from and to what a store holds: seconds since
/// 2001-01-01 00:00:00 UTC. Formatting then parsing gives back the stored `Double` (its spacing, ~120 ns
/// for today's dates, is coarser than the text's), so an export imported again exports the same text.
package enum ISODate {
    static let referenceOffset: Int64 = 978_307_200

    package static func format(_ secondsSince2001: Double) -> String {
        guard secondsSince2001.isFinite, abs(secondsSince2001) < 1e15 else { return String(secondsSince2001) }
        var whole = secondsSince2001.rounded(.down)
        var nanoseconds = Int64(((secondsSince2001 - whole) * 1e9).rounded())
        if nanoseconds >= 1_000_000_000 {
            whole += 1
            nanoseconds -= 1_000_000_000
        }
        let unix = Int64(whole) + referenceOffset
        var days = unix / 86_400
        var seconds = unix % 86_400
        if seconds < 0 {
            seconds += 86_400
            days -= 1
        }
        let (year, month, day) = civil(fromDays: days)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var text = "\(year < 0 ? "-" : "")\(String(repeating: "0", count: max(0, 4 - String(abs(year)).count)))\(abs(year))-\(two(month))-\(two(day))"
        text += "T\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))"
        if nanoseconds > 0 {
            var digits = String(nanoseconds)
            digits = String(repeating: "0", count: 9 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return text + "Z"
    }

    /// Reads `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS[.fraction]]` with `Z` or `±HH:MM` (UTC when absent).
    package static func parse(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ count: Int) -> Int64? {
            guard index + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<index + count] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            index += count
            return value
        }
        func expect(_ character: Character) -> Bool {
            guard index < bytes.count, bytes[index] == character.asciiValue! else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
              (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var seconds = days(fromCivil: year, month, day) * 86_400
        var fraction = 0.0
        if index < bytes.count {
            guard expect("T") || expect(" "), let hour = number(2), expect(":"), let minute = number(2), hour < 24, minute < 60 else { return nil }
            seconds += hour * 3600 + minute * 60
            if expect(":") {
                guard let second = number(2), second < 61 else { return nil }
                seconds += second
                if expect(".") {
                    let start = index
                    while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
                    guard index > start, let value = Double("0." + String(decoding: bytes[start..<index], as: UTF8.self)) else { return nil }
                    fraction = value
                }
            }
            if expect("Z") {
            } else if index < bytes.count {
                let sign: Int64 = expect("+") ? 1 : expect("-") ? -1 : 0
                guard sign != 0, let hours = number(2), expect(":") || true, let minutes = number(2) else { return nil }
                seconds -= sign * (hours * 3600 + minutes * 60)
            }
        }
        guard index == bytes.count else { return nil }
        return Double(seconds - referenceOffset) + fraction
    }

    /// Year, month and day of a day counted from 1970-01-01 (proleptic Gregorian calendar).
    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
