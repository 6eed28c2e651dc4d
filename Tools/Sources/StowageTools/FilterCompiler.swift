import Foundation
import GRDB
import StowageCore

/// Compiles a filter written as a `#Predicate` body over the entity's properties, without `$0.`:
///
///     name == "Café" && (limit >= 100 || !isArchived)
///     note.contains("milk") || note.localizedStandardContains("MILK")
///     date < "2026-01-01" && budget != nil
///
/// into SQL that gives the app's answers: strings compare as Swift compares them (`==` and `<` by
/// canonical equivalence, on the same text keys as the store's indexes), `contains`, `hasPrefix` and
/// `localizedStandardContains` call the very Foundation code the app's predicates run, `Decimal`s
/// compare as numbers, `Date`s are written as ISO 8601 text, enumerations as their raw values, a to-one
/// relationship compares with `nil` or with a row's key.
struct FilterCompiler {
    let entity: StoreDescription.Entity
    private(set) var arguments: [DatabaseValue] = []
    private var tokens: [Token] = []
    private var position = 0

    init(entity: StoreDescription.Entity) {
        self.entity = entity
    }

    enum Token: Equatable {
        case identifier(String)
        case string(String)
        case number(String)
        case symbol(String)
    }

    mutating func compile(_ text: String) throws -> String {
        tokens = try Self.tokenize(text)
        position = 0
        let sql = try disjunction()
        guard position == tokens.count else { throw failure("unexpected \(describe(tokens[position]))") }
        return sql
    }

    private func failure(_ message: String) -> ToolError {
        ToolError("--where: \(message)", exitCode: 64)
    }

    private func describe(_ token: Token) -> String {
        switch token {
        case .identifier(let name): name
        case .string(let text): "\"\(text)\""
        case .number(let text): text
        case .symbol(let symbol): symbol
        }
    }

    private var current: Token? { position < tokens.count ? tokens[position] : nil }

    private mutating func take(_ symbol: String) -> Bool {
        guard current == .symbol(symbol) else { return false }
        position += 1
        return true
    }

    private mutating func disjunction() throws -> String {
        var parts = [try conjunction()]
        while take("||") { parts.append(try conjunction()) }
        return parts.count == 1 ? parts[0] : parts.map { "(\($0))" }.joined(separator: " OR ")
    }

    private mutating func conjunction() throws -> String {
        var parts = [try unary()]
        while take("&&") { parts.append(try unary()) }
        return parts.count == 1 ? parts[0] : parts.map { "(\($0))" }.joined(separator: " AND ")
    }

    private mutating func unary() throws -> String {
        if take("!") { return "NOT coalesce((\(try unary())), 0)" }
        if take("(") {
            let inner = try disjunction()
            guard take(")") else { throw failure("a ( is not closed") }
            return inner
        }
        return try comparison()
    }

    private mutating func comparison() throws -> String {
        guard case .identifier(let name)? = current else {
            throw failure(current.map { "expected a property name, found \(describe($0))" } ?? "expected a property name at the end")
        }
        position += 1
        if let relationship = entity.relationships.first(where: { $0.name == name }) {
            return try link(relationship)
        }
        guard let attribute = entity.attributes.first(where: { $0.name == name }) else {
            if name == StoreToolSupport.primaryKeyColumn { return try keyComparison() }
            throw failure("\(entity.name) has no property \(name); it has \((entity.attributes.map(\.name) + entity.relationships.map(\.name)).joined(separator: ", "))")
        }
        let column = column(of: attribute)
        if take(".") { return try method(on: attribute, column: column) }
        guard case .symbol(let op)? = current, ["==", "!=", "<", "<=", ">", ">="].contains(op) else {
            guard attribute.kind == .bool else { throw failure("\(name) needs a comparison (==, !=, <, <=, >, >=) or a method") }
            return "\(column) IS 1"
        }
        position += 1
        guard let literal = try self.literal() else {
            guard op == "==" || op == "!=" else { throw failure("nil can only be compared with == or !=") }
            return "\(column) \(op == "==" ? "IS" : "IS NOT") NULL"
        }
        let value = try stored(literal, for: attribute)
        var left = column
        var placeholder = "?"
        switch attribute.kind {
        case .string:
            // Swift's `==` and `<` on Strings: canonical equivalence, on the text keys the indexes use.
            left = "\(StoreToolSupport.textKeyFunction)(\(column))"
            arguments.append((String.fromDatabaseValue(value).map(StoreToolSupport.textKey) ?? "").databaseValue)
        case .decimal:
            left = "\(column) COLLATE \(StoreToolSupport.decimalCollation)"
            arguments.append(value)
        case .codable, .data, .transformable:
            guard op == "==" || op == "!=" else { throw failure("\(name) is a \(attribute.type), which has no order") }
            arguments.append(value)
        default:
            arguments.append(value)
        }
        if op == "==" || op == "!=" {
            placeholder = "?"
            return "\(left) \(op == "==" ? "IS" : "IS NOT") \(placeholder)"
        }
        return "\(left) \(op) \(placeholder)"
    }

    private mutating func keyComparison() throws -> String {
        guard case .symbol(let op)? = current, ["==", "!=", "<", "<=", ">", ">="].contains(op) else { throw failure("_pk needs a comparison") }
        position += 1
        guard case .number(let text)? = current, let key = Int64(text) else { throw failure("_pk compares with a key (a number)") }
        position += 1
        arguments.append(key.databaseValue)
        return "\(quote(StoreToolSupport.primaryKeyColumn)) \(op == "==" ? "=" : op == "!=" ? "<>" : op) ?"
    }

    private mutating func link(_ relationship: StoreDescription.Relationship) throws -> String {
        guard relationship.storage.kind == "foreignKey", let key = relationship.storage.column else {
            throw failure("\(relationship.name) is a to-many relationship; a filter compares to-one relationships (with nil or a key)")
        }
        guard case .symbol(let op)? = current, op == "==" || op == "!=" else { throw failure("\(relationship.name) compares with == or != (nil, or a row's key)") }
        position += 1
        let literal = try self.literal()
        guard let literal else { return "\(quote(key)) \(op == "==" ? "IS" : "IS NOT") NULL" }
        guard case .number(let text) = literal, let value = Int64(text) else { throw failure("\(relationship.name) compares with nil or a \(relationship.destination) key (a number)") }
        arguments.append(value.databaseValue)
        return "\(quote(key)) \(op == "==" ? "IS" : "IS NOT") ?"
    }

    private mutating func method(on attribute: StoreDescription.Attribute, column: String) throws -> String {
        guard case .identifier(let name)? = current else { throw failure("expected a method after \(attribute.name).") }
        position += 1
        guard take("(") else { throw failure("\(name) needs ( )") }
        // `starts(with: "x")`: the label is optional.
        if case .identifier("with")? = current, position + 1 < tokens.count, tokens[position + 1] == .symbol(":") { position += 2 }
        guard case .string(let text)? = current else { throw failure("\(name)(…) takes a string") }
        position += 1
        guard take(")") else { throw failure("\(name)(…) is not closed") }
        guard attribute.kind == .string || attribute.kind == .url || attribute.kind == .rawValue && attribute.column == "TEXT" else {
            throw failure("\(attribute.name) is a \(attribute.type); \(name) tests strings")
        }
        let test: StoreToolSupport.StringTest
        switch name {
        case "contains": test = .contains
        case "hasPrefix", "starts": test = .startsWith
        case "localizedStandardContains": test = .localizedStandardContains
        default: throw failure("strings have contains, hasPrefix, starts(with:) and localizedStandardContains, not \(name)")
        }
        arguments.append(text.databaseValue)
        return "coalesce(\(StoreToolSupport.functionName(test))(\(column), ?), 0)"
    }

    private func column(of attribute: StoreDescription.Attribute) -> String {
        if let side = attribute.externalTable {
            let pk = quote(StoreToolSupport.primaryKeyColumn)
            return "(SELECT \"value\" FROM \(quote(side)) WHERE \(quote(side)).\(pk) = \(quote(entity.table)).\(pk))"
        }
        return quote(attribute.name)
    }

    /// A literal: `nil` for `nil`, else its JSON form.
    private mutating func literal() throws -> JSONValue? {
        guard let token = current else { throw failure("expected a value at the end") }
        position += 1
        switch token {
        case .string(let text): return .string(text)
        case .number(let text): return .number(text)
        case .identifier("nil"): return nil
        case .identifier("true"): return .bool(true)
        case .identifier("false"): return .bool(false)
        case .symbol("-"):
            guard case .number(let text)? = current else { throw failure("expected a number after -") }
            position += 1
            return .number("-" + text)
        default: throw failure("expected a value, found \(describe(token))")
        }
    }

    /// The stored form of a literal for `attribute`: a number literal for a `Date` is seconds since 2001,
    /// a string literal for a number is read as one.
    private func stored(_ literal: JSONValue, for attribute: StoreDescription.Attribute) throws -> DatabaseValue {
        var value = literal
        switch (attribute.kind, literal) {
        case (.date, .number(let text)): if let seconds = Double(text) { return seconds.databaseValue }
        case (.integer, .string(let text)), (.real, .string(let text)), (.decimal, .string(let text)): value = .number(text)
        default: break
        }
        var nonOptional = attribute
        nonOptional.isOptional = false
        do {
            return try StoredValues.stored(value, for: nonOptional)
        } catch let error as ToolError {
            throw failure(error.message)
        }
    }

    static func tokenize(_ text: String) throws -> [Token] {
        var tokens: [Token] = []
        let scalars = Array(text.unicodeScalars)
        var index = 0
        func failure(_ message: String) -> ToolError { ToolError("--where: \(message)", exitCode: 64) }
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == " " || scalar == "\t" || scalar == "\n" { index += 1; continue }
            if scalar == "\"" {
                index += 1
                var value = String.UnicodeScalarView()
                var closed = false
                while index < scalars.count {
                    let c = scalars[index]
                    index += 1
                    if c == "\"" { closed = true; break }
                    if c == "\\", index < scalars.count {
                        let e = scalars[index]
                        index += 1
                        switch e {
                        case "n": value.append("\n")
                        case "t": value.append("\t")
                        case "u":
                            // \u{301}
                            guard index < scalars.count, scalars[index] == "{", let close = scalars[index...].firstIndex(of: "}"),
                                  let code = UInt32(String(String.UnicodeScalarView(scalars[(index + 1)..<close])), radix: 16),
                                  let decoded = Unicode.Scalar(code)
                            else { throw failure("a \\u escape is written \\u{301}") }
                            value.append(decoded)
                            index = close + 1
                        default: value.append(e)
                        }
                        continue
                    }
                    value.append(c)
                }
                guard closed else { throw failure("a string is not closed") }
                tokens.append(.string(String(value)))
                continue
            }
            if CharacterSet.decimalDigits.contains(scalar) {
                let start = index
                while index < scalars.count, CharacterSet.decimalDigits.contains(scalars[index]) || scalars[index] == "." || scalars[index] == "e" || scalars[index] == "E" {
                    index += 1
                }
                tokens.append(.number(String(String.UnicodeScalarView(scalars[start..<index]))))
                continue
            }
            if CharacterSet.letters.contains(scalar) || scalar == "_" {
                let start = index
                while index < scalars.count, CharacterSet.alphanumerics.contains(scalars[index]) || scalars[index] == "_" { index += 1 }
                tokens.append(.identifier(String(String.UnicodeScalarView(scalars[start..<index]))))
                continue
            }
            let two = index + 1 < scalars.count ? String(String.UnicodeScalarView([scalar, scalars[index + 1]])) : ""
            if ["==", "!=", "<=", ">=", "&&", "||"].contains(two) {
                tokens.append(.symbol(two))
                index += 2
                continue
            }
            if "<>!().,:-".unicodeScalars.contains(scalar) {
                tokens.append(.symbol(String(scalar)))
                index += 1
                continue
            }
            throw failure("unexpected character \(scalar)")
        }
        return tokens
    }
}
