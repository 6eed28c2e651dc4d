import Foundation
import GRDB
import StowageCore
import StowageTools

/// The table page's filter builder: conditions chosen from lists, written as the `#Predicate` body that
/// `stowage rows --where` reads, so that the builder and the text mean the same.
enum FilterBuilder {
    /// The operators the builder offers, with the text each writes.
    static let operators: [(id: String, label: String)] = [
        ("==", "=="), ("!=", "!="), ("<", "<"), ("<=", "<="), (">", ">"), (">=", ">="),
        ("contains", "contains"), ("hasPrefix", "hasPrefix"), ("localizedStandardContains", "localizedStandardContains"),
        ("isNil", "== nil"), ("isNotNil", "!= nil"),
    ]

    /// The predicate of the request's filter text and its builder conditions joined by `&&`, or `nil`
    /// when the builder has no condition (the page then reads `where` as it is).
    static func predicate(_ request: StudioRequest, _ entity: StoreDescription.Entity) throws -> String? {
        let properties = request.parameters("property"), operators = request.parameters("operator"), values = request.parameters("value")
        var conditions: [String] = []
        for (index, property) in properties.enumerated() where !property.isEmpty {
            let op = index < operators.count ? operators[index] : "=="
            let value = index < values.count ? values[index] : ""
            conditions.append(try condition(property, op, value, entity))
        }
        guard !conditions.isEmpty else { return nil }
        let existing = request.parameter("where").map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return ((existing.isEmpty ? [] : ["(\(existing))"]) + conditions).joined(separator: " && ")
    }

    /// One condition, its value written as the property's type needs it.
    static func condition(_ property: String, _ op: String, _ value: String, _ entity: StoreDescription.Entity) throws -> String {
        switch op {
        case "isNil": return "\(property) == nil"
        case "isNotNil": return "\(property) != nil"
        default: break
        }
        let literal: String
        if let attribute = entity.attributes.first(where: { $0.name == property }) {
            switch attribute.kind {
            case .bool:
                guard value == "true" || value == "false" else { throw ToolError("\(property) is a Bool: true or false, not \(value)") }
                literal = value
            case .integer, .real:
                guard Double(value) != nil else { throw ToolError("\(property) is a \(attribute.type): a number, not \(value)") }
                literal = value
            case .rawValue where attribute.column != "TEXT":
                guard Double(value) != nil else { throw ToolError("\(property)'s raw values are numbers, not \(value)") }
                literal = value
            default:
                literal = stringLiteral(value)
            }
        } else if entity.relationships.contains(where: { $0.name == property && $0.storage.kind == "foreignKey" }) {
            guard Int64(value) != nil else { throw ToolError("\(property) is compared with a row's key, not \(value)") }
            literal = value
        } else {
            throw ToolError("\(entity.name) has no property \(property) to filter by")
        }
        switch op {
        case "contains", "hasPrefix", "localizedStandardContains": return "\(property).\(op)(\(literal))"
        case "==", "!=", "<", "<=", ">", ">=": return "\(property) \(op) \(literal)"
        default: throw ToolError("\(op) is not an operator the filter knows")
        }
    }

    /// A Swift string literal of `text`.
    static func stringLiteral(_ text: String) -> String {
        var literal = "\""
        for character in text.unicodeScalars {
            switch character {
            case "\"": literal += "\\\""
            case "\\": literal += "\\\\"
            case "\n": literal += "\\n"
            case "\t": literal += "\\t"
            case "\r": literal += "\\r"
            default: literal.unicodeScalars.append(character)
            }
        }
        return literal + "\""
    }

    /// A filter of the entity's own properties, to show how one is written.
    static func example(_ entity: StoreDescription.Entity) -> String {
        var parts: [String] = []
        if let text = entity.attributes.first(where: { $0.kind == .string }) { parts.append("\(text.name).contains(\"a\")") }
        if let number = entity.attributes.first(where: { $0.kind == .integer || $0.kind == .real }) { parts.append("\(number.name) > 10") }
        return parts.isEmpty ? "a #Predicate body" : parts.joined(separator: " && ")
    }

    /// The filter's form: the predicate as text, and one builder condition to add.
    static func form(_ entity: StoreDescription.Entity, filter: String, sorts: [String], action: String) -> String {
        let properties = entity.attributes.filter { $0.externalTable == nil && $0.kind != .data && $0.kind != .transformable }.map(\.name)
            + entity.relationships.filter { $0.storage.kind == "foreignKey" }.map(\.name)
        let options = properties.map { "<option value=\"\(escape($0))\">\(escape($0))</option>" }.joined()
        let operatorOptions = operators.map { "<option value=\"\(escape($0.id))\">\(escape($0.label))</option>" }.joined()
        return """
            <form method="get" action="\(escape(action))" class="filter" role="search">
            <div class="predicate"><label for="where">Filter <small>a #Predicate body, as in stowage rows --where</small></label>
            <input id="where" name="where" type="text" value="\(escape(filter))" spellcheck="false" placeholder="\(escape(example(entity)))"></div>
            <fieldset class="builder"><legend>Add a condition</legend>
            <label for="property">Property</label><select id="property" name="property"><option value="">—</option>\(options)</select>
            <label for="operator">Operator</label><select id="operator" name="operator">\(operatorOptions)</select>
            <label for="value">Value</label><input id="value" name="value" type="text" spellcheck="false">
            </fieldset>
            \(sorts.map { "<input type=\"hidden\" name=\"sort\" value=\"\(escape($0))\">" }.joined())
            <button type="submit">Apply</button> <a href="\(escape(action))">Clear</a>
            </form>
            """
    }
}

/// A row's values as form fields by Swift type, and posted fields back as the values that changed.
///
/// Each field is named `value:NAME`; an optional's "nil" check box `nil:NAME`; `shown:NAME` holds what
/// the field showed and `wasNil:NAME` whether it was nil, so that a field the person did not touch is not
/// written back (a `Date` with nanoseconds shows only milliseconds).
enum EditForm {
    static func fields(_ entity: StoreDescription.Entity, columns: [RowColumn], values: [DatabaseValue]?, paths: Paths, labels: LinkLabels = [:]) -> String {
        var html = "<div class=\"fields\">"
        for (index, column) in columns.enumerated() {
            let value = values?[index] ?? .null
            let id = "field-\(column.name)"
            switch column.content {
            case .key, .entityName:
                html += "<div class=\"field\"><span class=\"label\">\(escape(column.name))</span><span class=\"fixed\">\(escape(column.text(value) ?? ""))</span></div>"
            case .link(let relationship):
                let key = Int64.fromDatabaseValue(value)
                let shown = key.map(String.init) ?? ""
                html += "<div class=\"field\"><label for=\"\(escape(id))\">\(escape(column.name)) <small>key of a \(escape(relationship.destination)), empty for nil</small></label>"
                html += "<div class=\"control\"><input id=\"\(escape(id))\" name=\"value:\(escape(column.name))\" type=\"number\" step=\"1\" value=\"\(shown)\">"
                html += "<input type=\"hidden\" name=\"shown:\(escape(column.name))\" value=\"\(shown)\">"
                if let key { html += " " + linkHTML(relationship, key, labels: labels, paths: paths) }
                html += "</div></div>"
            case .attribute(let attribute):
                html += attributeField(attribute, value: value, isNew: values == nil, id: id)
            }
        }
        return html + "</div>"
    }

    private static func attributeField(_ attribute: StoreDescription.Attribute, value: DatabaseValue, isNew: Bool, id: String) -> String {
        let name = escape(attribute.name)
        let isNil = value.isNull && !isNew
        let json = StoredValues.json(value, kind: attribute.kind)
        var html = "<div class=\"field\"><label for=\"\(escape(id))\">\(name) <small>\(escape(attribute.type))\(attribute.isOptional ? "?" : "")</small></label><div class=\"control\">"
        var shown = ""
        switch attribute.kind {
        case .bool:
            let on = json == .bool(true)
            shown = on ? "on" : ""
            html += "<input type=\"hidden\" name=\"value:\(name)\" value=\"\">"
            html += "<input id=\"\(escape(id))\" name=\"value:\(name)\" type=\"checkbox\" value=\"on\"\(on ? " checked" : "")>"
        case .rawValue:
            shown = value.isNull ? "" : json.text
            html += "<select id=\"\(escape(id))\" name=\"value:\(name)\">"
            if isNew || value.isNull { html += "<option value=\"\"\(shown.isEmpty ? " selected" : "")>—</option>" }
            let cases = (attribute.cases ?? []).map(\.jsonText)
            // A stored value that is none of the cases (a case removed since) stays what it is until changed.
            if !shown.isEmpty, !cases.contains(shown) {
                html += "<option value=\"\(escape(shown))\" selected>\(escape(shown)) (not a case)</option>"
            }
            for option in attribute.cases ?? [] {
                let text = option.jsonText
                html += "<option value=\"\(escape(text))\"\(text == shown ? " selected" : "")>\(escape(text))</option>"
            }
            html += "</select>"
        case .date:
            if case .string(let iso) = json { shown = dateInput(iso) }
            html += "<input id=\"\(escape(id))\" name=\"value:\(name)\" type=\"datetime-local\" step=\"0.001\" value=\"\(escape(shown))\"> <small>UTC</small>"
        case .integer, .real:
            shown = value.isNull ? "" : json.text
            html += "<input id=\"\(escape(id))\" name=\"value:\(name)\" type=\"text\" inputmode=\"decimal\" value=\"\(escape(shown))\">"
        case .codable:
            shown = value.isNull ? "" : json.text
            html += "<textarea id=\"\(escape(id))\" name=\"value:\(name)\" rows=\"3\" spellcheck=\"false\">\(escape(shown))</textarea>"
        case .data, .transformable:
            html += "<span class=\"fixed\" id=\"\(escape(id))\">\(escape(StoredValues.text(value, kind: attribute.kind) ?? "nil")) <small>(not editable here)</small></span></div></div>"
            return html
        default:
            if case .string(let text) = json { shown = text } else if case .number(let text) = json { shown = text }
            if shown.contains(where: \.isNewline) {
                // A text field would drop the line breaks.
                html += "<textarea id=\"\(escape(id))\" name=\"value:\(name)\" rows=\"4\">\(escape(shown))</textarea>"
            } else {
                html += "<input id=\"\(escape(id))\" name=\"value:\(name)\" type=\"text\" value=\"\(escape(shown))\" spellcheck=\"false\">"
            }
        }
        html += "<input type=\"hidden\" name=\"shown:\(name)\" value=\"\(escape(shown))\">"
        if isNil { html += "<input type=\"hidden\" name=\"wasNil:\(name)\" value=\"on\">" }
        if attribute.isOptional {
            html += " <label class=\"nil\"><input type=\"checkbox\" name=\"nil:\(name)\" value=\"on\"\(isNil || isNew ? " checked" : "")> nil</label>"
        }
        return html + "</div></div>"
    }

    /// ISO 8601 text as a `datetime-local` field's value (UTC, to the millisecond).
    static func dateInput(_ iso: String) -> String {
        var text = iso.hasSuffix("Z") ? String(iso.dropLast()) : iso
        if let dot = text.firstIndex(of: ".") {
            let fraction = text[text.index(after: dot)...].prefix(3)
            text = String(text[..<dot]) + (fraction.allSatisfy { $0 == "0" } ? "" : "." + fraction)
        }
        return text
    }

    /// The values a posted form changes, by property name (all given values for a new row).
    static func changes(_ request: StudioRequest, _ entity: StoreDescription.Entity, isNew: Bool) throws -> [String: JSONValue] {
        var values: [String: JSONValue] = [:]
        for attribute in entity.attributes where attribute.kind != .data && attribute.kind != .transformable {
            let name = attribute.name
            let submitted = request.fields("value:" + name)
            guard !submitted.isEmpty else { continue }
            // A check box posts its hidden "" and, when checked, "on".
            let text = attribute.kind == .bool ? (submitted.contains("on") ? "on" : "") : submitted[submitted.count - 1]
            let isNil = attribute.isOptional && request.field("nil:" + name) == "on"
            if !isNew, let shown = request.field("shown:" + name),
               isNil == (request.field("wasNil:" + name) == "on"),
               isNil || sameInput(shown, text, kind: attribute.kind) {
                continue
            }
            if isNil {
                values[name] = .null
                continue
            }
            switch attribute.kind {
            case .bool: values[name] = .bool(text == "on")
            case .integer, .real:
                let trimmed = text.trimmingCharacters(in: .whitespaces)
                guard Double(trimmed) != nil || ["nan", "inf", "-inf"].contains(trimmed) else {
                    throw ToolError("\(name) is a \(attribute.type): write a number, not \"\(text)\"")
                }
                values[name] = Double(trimmed) != nil ? .number(trimmed) : .string(trimmed)
            case .date:
                guard let iso = isoDate(fromInput: text) else { throw ToolError("\(name) is a Date: write it as 2026-01-31T09:30, not \"\(text)\"") }
                values[name] = .string(iso)
            case .rawValue, .codable:
                guard !text.isEmpty else { throw ToolError("\(name) needs a value") }
                do {
                    values[name] = try JSONValue(parsing: text)
                } catch {
                    throw ToolError("\(name) is a \(attribute.type): \(text) is not a value of it")
                }
            default:
                values[name] = .string(text.replacingOccurrences(of: "\r\n", with: "\n"))
            }
        }
        for relationship in entity.relationships where relationship.storage.kind == "foreignKey" {
            guard let text = request.fields("value:" + relationship.name).last else { continue }
            if !isNew, request.field("shown:" + relationship.name) == text { continue }
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty {
                values[relationship.name] = .null
            } else {
                guard let key = Int64(trimmed) else { throw ToolError("\(relationship.name) takes the key of a \(relationship.destination), not \"\(text)\"") }
                values[relationship.name] = .integer(key)
            }
        }
        return values
    }

    /// Whether a field posts what it showed: browsers send a text area's line breaks as CRLF, and a date
    /// field's value in their own spelling (`09:30` for `09:30:00`), so dates compare as instants.
    static func sameInput(_ shown: String, _ posted: String, kind: StoreDescription.Kind) -> Bool {
        let shown = shown.replacingOccurrences(of: "\r\n", with: "\n"), posted = posted.replacingOccurrences(of: "\r\n", with: "\n")
        guard kind == .date, shown != posted else { return shown == posted }
        guard let a = isoDate(fromInput: shown).flatMap(ISODate.parse), let b = isoDate(fromInput: posted).flatMap(ISODate.parse) else { return false }
        return abs(a - b) < 0.0005
    }

    /// A `datetime-local` value (`2026-01-31T09:30`, seconds and milliseconds optional) as ISO 8601 UTC.
    static func isoDate(fromInput text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parts = trimmed.split(separator: "T")
        guard parts.count == 2 else { return nil }
        var time = String(parts[1])
        if time.split(separator: ":").count == 2 { time += ":00" }
        let iso = "\(parts[0])T\(time)Z"
        return ISODate.parse(iso) == nil ? nil : iso
    }
}
