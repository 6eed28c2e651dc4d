import Foundation
@testable import StowageCore
import Testing

/// The `decimal` collation's order is Swift's order of `Decimal`s, on their stored text.
@Suite struct DecimalOrderTests {
    private func swiftOrder(_ a: Decimal, _ b: Decimal) -> ComparisonResult {
        a == b ? .orderedSame : a < b ? .orderedAscending : .orderedDescending
    }

    private func storedText(_ value: Decimal) -> String {
        guard case .text(let text) = value.storageValue else {
            Issue.record("\(value) is not stored as text")
            return ""
        }
        return text
    }

    @Test func randomDecimalsCompareAsSwiftComparesThem() {
        var generator = SystemRandomNumberGenerator()
        let posix = Locale(identifier: "en_US_POSIX")
        func draw() -> Decimal {
            if Int.random(in: 0..<20, using: &generator) == 0 { return .nan }
            let digits = (0..<Int.random(in: 1...38, using: &generator)).map { _ in String(Int.random(in: 0...9, using: &generator)) }.joined()
            let point = Int.random(in: 0...digits.count, using: &generator)
            var text = String(digits.prefix(point)) + "." + String(digits.dropFirst(point))
            if text.hasSuffix(".") { text.removeLast() }
            if Bool.random(using: &generator) { text = "-" + text }
            return Decimal(string: text, locale: posix)!
        }
        let values = (0..<400).map { _ in draw() } + [0, 1, -1, Decimal(string: "1.50")!, Decimal(string: "1.5")!, .nan]
        for a in values {
            for b in values.prefix(60) {
                #expect(DecimalOrder.compare(storedText(a), storedText(b)) == swiftOrder(a, b), "\(a) vs \(b)")
            }
        }
    }

    @Test func equalValuesInOtherSpellingsAreEqual() {
        let same = [["1.5", "1.50", "01.5", "1.5000"], ["0", "-0", "0.000", ".0", "-0.0"], ["-2", "-2.0", "-02"], ["NaN", "-Infinity"]]
        for group in same {
            for a in group {
                for b in group { #expect(DecimalOrder.compare(a, b) == .orderedSame, "\(a) vs \(b)") }
            }
        }
        #expect(DecimalOrder.compare("1e3", "999.9") == .orderedDescending)
        #expect(DecimalOrder.compare("1e3", "1000") == .orderedSame)
        #expect(DecimalOrder.compare("-Infinity", "-99999") == .orderedAscending)
        #expect(DecimalOrder.compare("not a number", "99999") == .orderedDescending)
    }
}
