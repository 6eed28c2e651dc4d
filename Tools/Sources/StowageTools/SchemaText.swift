import Foundation
import StowageCore

/// A store's models as text, a Mermaid `erDiagram`, a Graphviz graph or JSON.
package enum SchemaText {
    package enum Format: String, CaseIterable, Sendable {
        case text, mermaid, dot, json
    }

    package static func render(_ description: StoreDescription, as format: Format) -> String {
        switch format {
        case .text: text(description)
        case .mermaid: mermaid(description)
        case .dot: dot(description)
        case .json: json(description).prettyText
        }
    }

    /// `transactions: [Transaction] (cascade, inverse Transaction.budget, ordered)`.
    package static func relationshipSummary(_ relationship: StoreDescription.Relationship) -> String {
        var details = [relationship.deleteRule]
        if let inverse = relationship.inverse { details.append("inverse \(relationship.destination).\(inverse)") }
        if relationship.isOrdered { details.append("ordered") }
        if relationship.isUnique == true { details.append("unique") }
        if let minimum = relationship.minimumCount, minimum > 0 { details.append("at least \(minimum)") }
        if let maximum = relationship.maximumCount, maximum > 0 { details.append("at most \(maximum)") }
        let type = relationship.isToMany ? "[\(relationship.destination)]" : "\(relationship.destination)?"
        return "\(relationship.name): \(type) (\(details.joined(separator: ", ")))"
    }

    /// `unique (name)`, `index (date, amount)`.
    package static func indexSummaries(_ entity: StoreDescription.Entity) -> [String] {
        entity.uniqueness.map { "unique (\($0.joined(separator: ", ")))" } + entity.indices.map { "index (\($0.joined(separator: ", ")))" }
    }

    static func attributeType(_ attribute: StoreDescription.Attribute) -> String {
        var type = attribute.type + (attribute.isOptional ? "?" : "")
        switch attribute.kind {
        case .rawValue: type += " (raw \(attribute.rawType ?? "value")\(attribute.cases.map { ": " + $0.map(\.jsonText).joined(separator: ", ") } ?? ""))"
        case .codable: type += " (JSON)"
        case .transformable: type += " (transformed)"
        default: break
        }
        return type
    }

    static func text(_ description: StoreDescription) -> String {
        var lines: [String] = ["Schema version \(description.version)"]
        for entity in description.entities {
            lines.append("")
            lines.append(entity.name + (entity.superentity.map { ": \($0)" } ?? ""))
            for attribute in entity.attributes {
                var flags: [String] = []
                if attribute.isUnique { flags.append("unique") }
                if attribute.externalTable != nil { flags.append("external storage") }
                if attribute.preservesValueOnDeletion { flags.append("kept in history on deletion") }
                lines.append("    \(attribute.name): \(attributeType(attribute))" + (flags.isEmpty ? "" : "  [\(flags.joined(separator: ", "))]"))
            }
            for relationship in entity.relationships { lines.append("    " + relationshipSummary(relationship)) }
            for index in indexSummaries(entity) { lines.append("    " + index) }
        }
        return lines.joined(separator: "\n")
    }

    /// Mermaid's identifiers are words: a type such as `Array<String>` is written `Array~String~`.
    private static func mermaidType(_ attribute: StoreDescription.Attribute) -> String {
        var type = attribute.type.replacingOccurrences(of: "<", with: "~").replacingOccurrences(of: ">", with: "~")
        type = String(type.map { $0.isLetter || $0.isNumber || $0 == "~" || $0 == "_" ? $0 : "_" })
        return type
    }

    static func mermaid(_ description: StoreDescription) -> String {
        var lines = ["erDiagram"]
        for entity in description.entities {
            lines.append("    \(entity.name) {")
            for attribute in entity.attributes {
                var keys: [String] = []
                if attribute.isUnique { keys.append("UK") }
                var comment: [String] = []
                if attribute.isOptional { comment.append("optional") }
                if attribute.kind == .rawValue, let raw = attribute.rawType { comment.append("raw \(raw)") }
                lines.append("        \(mermaidType(attribute)) \(attribute.name)" + (keys.isEmpty ? "" : " " + keys.joined(separator: ","))
                    + (comment.isEmpty ? "" : " \"\(comment.joined(separator: ", "))\""))
            }
            lines.append("    }")
        }
        for (from, relationship, inverse) in pairs(description) {
            let left = inverse.map { $0.isToMany ? "}o" : "|o" } ?? "}o"
            let right = relationship.isToMany ? "o{" : "o|"
            let label = pairLabel(relationship, inverse, separator: " / ")
            lines.append("    \(from) \(left)--\(right) \(relationship.destination) : \"\(label)\"")
        }
        return lines.joined(separator: "\n")
    }

    static func dot(_ description: StoreDescription) -> String {
        func escape(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
                .replacingOccurrences(of: "\"", with: "&quot;")
        }
        var lines = [
            "digraph Stowage {",
            "    graph [rankdir=LR, fontname=\"Helvetica\"];",
            "    node [shape=plain, fontname=\"Helvetica\", fontsize=11];",
            "    edge [fontname=\"Helvetica\", fontsize=10];",
        ]
        for entity in description.entities {
            var rows = ["<tr><td bgcolor=\"#dbe7f5\"><b>\(escape(entity.name))</b>\(entity.superentity.map { " : " + escape($0) } ?? "")</td></tr>"]
            for attribute in entity.attributes {
                rows.append("<tr><td align=\"left\">\(escape(attribute.name)): \(escape(attribute.type + (attribute.isOptional ? "?" : "")))\(attribute.isUnique ? " <i>unique</i>" : "")</td></tr>")
            }
            lines.append("    \"\(entity.name)\" [label=<<table border=\"0\" cellborder=\"1\" cellspacing=\"0\" cellpadding=\"4\">\(rows.joined())</table>>];")
        }
        for entity in description.entities {
            if let superentity = entity.superentity {
                lines.append("    \"\(entity.name)\" -> \"\(superentity)\" [arrowhead=empty, style=dashed];")
            }
        }
        for (from, relationship, inverse) in pairs(description) {
            let label = pairLabel(relationship, inverse, separator: "\\n")
            let head = relationship.isToMany ? "crow" : "tee"
            let tail = inverse.map { $0.isToMany ? "crow" : "tee" } ?? "none"
            lines.append("    \"\(from)\" -> \"\(relationship.destination)\" [label=\"\(label)\", arrowhead=\(head), arrowtail=\(tail), dir=both];")
        }
        lines.append("}")
        return lines.joined(separator: "\n")
    }

    /// `transactions (cascade) / budget (nullify)`: each side's name with its delete rule.
    private static func pairLabel(_ relationship: StoreDescription.Relationship, _ inverse: StoreDescription.Relationship?, separator: String) -> String {
        ([relationship] + (inverse.map { [$0] } ?? [])).map { "\($0.name) (\($0.deleteRule))" }.joined(separator: separator)
    }

    /// Each relationship once: with its inverse when it has one (from the side whose name sorts first).
    private static func pairs(_ description: StoreDescription) -> [(String, StoreDescription.Relationship, StoreDescription.Relationship?)] {
        var result: [(String, StoreDescription.Relationship, StoreDescription.Relationship?)] = []
        var seen = Set<String>()
        for entity in description.entities {
            for relationship in entity.relationships where entity.superentity == nil || !(description.entity(named: entity.superentity!)?.relationships.contains { $0.name == relationship.name } ?? false) {
                let key = "\(entity.name).\(relationship.name)"
                guard !seen.contains(key) else { continue }
                seen.insert(key)
                let inverse = relationship.inverse.flatMap { name in description.entity(named: relationship.destination)?.relationships.first { $0.name == name } }
                if let inverse { seen.insert("\(relationship.destination).\(inverse.name)") }
                result.append((entity.name, relationship, inverse))
            }
        }
        return result
    }

    package static func json(_ description: StoreDescription) -> JSONValue {
        .object([
            ("version", .string(description.version)),
            ("entities", .array(description.entities.map { entity in
                .object([
                    ("name", .string(entity.name)),
                    ("table", .string(entity.table)),
                    ("superentity", entity.superentity.map(JSONValue.string) ?? .null),
                    ("attributes", .array(entity.attributes.map { attribute in
                        .object([
                            ("name", .string(attribute.name)),
                            ("type", .string(attribute.type)),
                            ("kind", .string(attribute.kind.rawValue)),
                            ("rawType", attribute.rawType.map(JSONValue.string) ?? .null),
                            ("cases", attribute.cases.map { .array($0.map { (try? JSONValue(parsing: $0.jsonText)) ?? .null }) } ?? .null),
                            ("column", .string(attribute.column)),
                            ("optional", .bool(attribute.isOptional)),
                            ("unique", .bool(attribute.isUnique)),
                            ("externalStorage", .bool(attribute.externalTable != nil)),
                        ])
                    })),
                    ("relationships", .array(entity.relationships.map { relationship in
                        .object([
                            ("name", .string(relationship.name)),
                            ("destination", .string(relationship.destination)),
                            ("inverse", relationship.inverse.map(JSONValue.string) ?? .null),
                            ("deleteRule", .string(relationship.deleteRule)),
                            ("toMany", .bool(relationship.isToMany)),
                            ("ordered", .bool(relationship.isOrdered)),
                            ("unique", .bool(relationship.isUnique == true)),
                        ])
                    })),
                    ("uniqueness", .array(entity.uniqueness.map { .array($0.map(JSONValue.string)) })),
                    ("indexes", .array(entity.indices.map { .array($0.map(JSONValue.string)) })),
                ])
            })),
        ])
    }
}
