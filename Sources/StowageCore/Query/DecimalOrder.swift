import Foundation

/// Swift's `==` and `<` of `Decimal`s, on the text the SQLite store keeps them as (``Decimal``'s
/// `storageValue`): SQLite's `decimal` collation and Swift-side sorts of stored values call it, so a
/// predicate or sort on a `Decimal` runs in SQL and gives Swift's answer (`1.50 == 1.5`, `-2 < 10`).
///
/// The order is total, as a collation's must be: NaN (stored as `-Infinity`, the PostgreSQL store's
/// `numeric` spelling of a value below every number, where Swift orders `Decimal.nan`), then numbers,
/// then text that is not a decimal at all, by its bytes.
enum DecimalOrder {
    /// How the stores keep `Decimal.nan`. Swift's `Decimal` has no infinities, so the spelling is free,
    /// and PostgreSQL's `numeric` orders it where Swift orders NaN: below every number, equal to itself.
    static let nanText = "-Infinity"

    static func compare(_ lhs: String, _ rhs: String) -> ComparisonResult {
        var lhs = lhs, rhs = rhs
        return lhs.withUTF8 { a in rhs.withUTF8 { b in compare(UnsafeRawBufferPointer(a), UnsafeRawBufferPointer(b)) } }
    }

    static func compare(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> ComparisonResult {
        if let a = Number(lhs), let b = Number(rhs) { return a.compare(to: b) }
        switch (Parsed(lhs), Parsed(rhs)) {
        case (.nan, .nan): return .orderedSame
        case (.nan, _): return .orderedAscending
        case (_, .nan): return .orderedDescending
        case (.number(let a), .number(let b)): return a == b ? .orderedSame : a < b ? .orderedAscending : .orderedDescending
        case (.number, .text): return .orderedAscending
        case (.text, .number): return .orderedDescending
        case (.text, .text):
            return lhs.lexicographicallyPrecedes(rhs) ? .orderedAscending : lhs.elementsEqual(rhs) ? .orderedSame : .orderedDescending
        }
    }

    /// A decimal in plain notation (`-12.50`), as `Decimal.description` writes it: its digits without
    /// leading zeros before the point or trailing zeros after it.
    private struct Number {
        var negative: Bool
        var integer: Slice<UnsafeRawBufferPointer>
        var fraction: Slice<UnsafeRawBufferPointer>

        init?(_ text: UnsafeRawBufferPointer) {
            var start = text.startIndex
            negative = start < text.endIndex && text[start] == UInt8(ascii: "-")
            if negative { start += 1 }
            var point = start
            while point < text.endIndex, Self.isDigit(text[point]) { point += 1 }
            var end = point
            if point < text.endIndex {
                guard text[point] == UInt8(ascii: ".") else { return nil }
                end = point + 1
                while end < text.endIndex, Self.isDigit(text[end]) { end += 1 }
                guard end == text.endIndex, end > point + 1 else { return nil }
            }
            guard point > start || end > point else { return nil }
            while start < point, text[start] == UInt8(ascii: "0") { start += 1 }
            var last = end
            if end > point {
                while last > point + 1, text[last - 1] == UInt8(ascii: "0") { last -= 1 }
            }
            integer = text[start..<point]
            fraction = end > point ? text[(point + 1)..<last] : text[point..<point]
            if integer.isEmpty && fraction.isEmpty { negative = false }
        }

        private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        func compare(to other: Number) -> ComparisonResult {
            if negative != other.negative { return negative ? .orderedAscending : .orderedDescending }
            let magnitude = compareMagnitude(other)
            guard negative else { return magnitude }
            return magnitude == .orderedAscending ? .orderedDescending : magnitude == .orderedDescending ? .orderedAscending : .orderedSame
        }

        private func compareMagnitude(_ other: Number) -> ComparisonResult {
            if integer.count != other.integer.count { return integer.count < other.integer.count ? .orderedAscending : .orderedDescending }
            for (a, b) in zip(integer, other.integer) where a != b { return a < b ? .orderedAscending : .orderedDescending }
            for (a, b) in zip(fraction, other.fraction) where a != b { return a < b ? .orderedAscending : .orderedDescending }
            if fraction.count == other.fraction.count { return .orderedSame }
            return fraction.count < other.fraction.count ? .orderedAscending : .orderedDescending
        }
    }

    /// A stored text that is not a plain decimal: NaN, a decimal in another notation (`1e3`, written by
    /// hand), or not a decimal at all.
    private enum Parsed {
        case nan
        case number(Decimal)
        case text

        init(_ text: UnsafeRawBufferPointer) {
            if text.elementsEqual(DecimalOrder.nanText.utf8) || text.elementsEqual("NaN".utf8) {
                self = .nan
            } else if let value = Decimal(string: String(decoding: text, as: UTF8.self), locale: Locale(identifier: "en_US_POSIX")) {
                self = .number(value)
            } else {
                self = .text
            }
        }
    }
}
