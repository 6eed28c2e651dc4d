import Foundation

/// Parsing and display of money amounts.
enum Amount {
    /// Reads an amount written as a plain decimal number: `500`, `1250.50`, `-20`.
    ///
    /// Foundation's `Double("…")` also accepts `inf`, `nan`, `1e3` and hexadecimal; a budget app wants
    /// none of them.
    static func parse(_ text: String) -> Double? {
        let allowed = Set("0123456789.")
        let body = text.first == "-" || text.first == "+" ? text.dropFirst() : Substring(text)
        guard body.contains(where: \.isNumber), body.allSatisfy({ allowed.contains($0) }),
              let value = Double(text), value.isFinite
        else { return nil }
        return value
    }

    /// The amount as US dollars, `$1,250.50`, whatever the machine's locale (the article shows limits
    /// with `.currency(code: "USD")`).
    static func format(_ value: Double) -> String {
        value.formatted(.currency(code: "USD").locale(Locale(identifier: "en_US")))
    }
}
