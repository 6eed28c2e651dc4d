import Foundation
import GRDB
import StowageCore
import StowageTools

/// A URL query component, percent-encoded (everything but unreserved characters).
func encodeQuery(_ text: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
}

/// The URLs of a studio's pages, under the path it is served at (`""` on its own, `/admin/studio`
/// mounted in an app).
struct Paths: Sendable {
    let base: String

    func page(_ path: String, _ query: [(String, String?)] = []) -> String {
        let pairs = query.compactMap { name, value in value.map { "\(encodeQuery(name))=\(encodeQuery($0))" } }
        return base + path + (pairs.isEmpty ? "" : "?" + pairs.joined(separator: "&"))
    }

    func entity(_ name: String) -> String { base + "/entities/" + encodeQuery(name) }
    func row(_ entity: String, _ key: Int64) -> String { self.entity(entity) + "/\(key)" }
}

/// What every page shares: where it is served, what the store has, and whether it may edit.
struct PageContext: Sendable {
    let paths: Paths
    let storeName: String
    let entities: [String]
    let isWritable: Bool
    let csrf: String
    /// The newest history transaction when the page was read: its live updates start after it.
    let since: Int64

    /// A complete page: the navigation, `body` in `<main>`, the stylesheet and script of the binary.
    /// - Parameters:
    ///   - live: what the page shows live; its content is the element `#live`, refreshed when a save
    ///     changes one of `watching` (every save when empty).
    ///   - alternate: the page's JSON twin.
    func page(title: String, current: String, watching: [String] = [], alternate: String?, body: String) -> String {
        let navigation = [("Overview", "/", "overview"), ("Schema", "/schema", "schema"), ("SQL", "/sql", "sql"), ("History", "/history", "history")]
            .map { label, path, id in
                "<a href=\"\(escape(paths.page(path)))\"\(current == id ? " aria-current=\"page\"" : "")>\(label)</a>"
            }.joined()
        let entityLinks = entities.map { name in
            "<li><a href=\"\(escape(paths.entity(name)))\"\(current == "entity:" + name ? " aria-current=\"page\"" : "")>\(escape(name))</a></li>"
        }.joined()
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="stowage-csrf" content="\(escape(csrf))">
            <meta name="stowage-events" content="\(escape(paths.page("/events", [("since", String(since))])))">
            <title>\(escape(title)) · Stowage Studio</title>
            <link rel="icon" href="data:,">
            <link rel="stylesheet" href="\(escape(paths.page("/assets/studio.css")))">
            \(alternate.map { "<link rel=\"alternate\" type=\"application/json\" href=\"\(escape($0))\">" } ?? "")
            <script src="\(escape(paths.page("/assets/studio.js")))" defer></script>
            </head>
            <body data-watching="\(escape(watching.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }.joined(separator: " ")))">
            <a class="skip" href="#main">Skip to content</a>
            <header>
            <span class="brand">Stowage Studio</span>
            <span class="store" title="\(escape(storeName))">\(escape(storeName))</span>
            <span class="mode \(isWritable ? "editing" : "reading")">\(isWritable ? "editing" : "read-only")</span>
            <nav aria-label="Pages">\(navigation)</nav>
            </header>
            <div class="layout">
            <nav class="entities" aria-label="Entities"><h2>Entities</h2><ul>\(entityLinks)</ul></nav>
            <main id="main" tabindex="-1">
            <h1>\(escape(title))</h1>
            <div id="live">
            \(body)
            </div>
            </main>
            </div>
            <div id="notice" role="status" aria-live="polite"></div>
            </body>
            </html>
            """
    }

    /// A hidden field with the page's CSRF token, for every form that posts.
    var csrfField: String { "<input type=\"hidden\" name=\"csrf\" value=\"\(escape(csrf))\">" }
}

/// The labels of the rows that links point at, by relationship name, then key (``RowLabels``).
typealias LinkLabels = [String: [Int64: String]]

/// The labels of the rows the link columns of `rows` point at: one statement per link column.
func linkLabels(_ columns: [RowColumn], _ rows: [[DatabaseValue]], in reader: StoreReader) throws -> LinkLabels {
    var labels: LinkLabels = [:]
    for (index, column) in columns.enumerated() {
        guard case .link(let relationship) = column.content, let destination = reader.description.entity(named: relationship.destination) else { continue }
        let keys = Set(rows.compactMap { Int64.fromDatabaseValue($0[index]) })
        labels[relationship.name] = try reader.read { try RowLabels.labels(of: destination, keys: keys, in: $0) }
    }
    return labels
}

/// The entities whose rows the link columns show labels of: a page showing them follows their saves too.
func linkedEntities(_ columns: [RowColumn]) -> [String] {
    columns.compactMap { column in
        if case .link(let relationship) = column.content { return relationship.destination }
        return nil
    }
}

/// A link to the row `key` that `relationship` points at, with the row's label after it.
func linkHTML(_ relationship: StoreDescription.Relationship, _ key: Int64, labels: LinkLabels, paths: Paths) -> String {
    var html = "<a href=\"\(escape(paths.row(relationship.destination, key)))\">\(escape(relationship.destination)) \(key)</a>"
    if let label = labels[relationship.name]?[key] { html += " <span class=\"row-label\">\(escape(label))</span>" }
    return html
}

/// A table of rows: the key links to the row's page, links to the rows they name.
/// - Parameters:
///   - sortLink: the address that sorts by a column and whether it is the current sort, for sortable columns.
///   - action: HTML for a last column acting on the row with this key (an "Unlink" button).
func rowsTable(_ columns: [RowColumn], _ rows: [[DatabaseValue]], entity: String, paths: Paths, caption: String, labels: LinkLabels,
               sortLink: ((RowColumn) -> (href: String, state: String)?)? = nil, action: ((Int64) -> String)? = nil) -> String {
    var html = "<div class=\"scroll\"><table class=\"rows\"><caption>\(escape(caption))</caption><thead><tr>"
    let numeric = columns.map { column -> Bool in
        if case .attribute(let attribute) = column.content { return [.integer, .real, .decimal].contains(attribute.kind) }
        return false
    }
    for (index, column) in columns.enumerated() {
        let label = "\(escape(column.name))<small>\(escape(column.typeName))</small>"
        let alignment = numeric[index] ? " class=\"number\"" : ""
        if let sort = sortLink?(column) {
            let arrow = sort.state == "ascending" ? " ▲" : sort.state == "descending" ? " ▼" : ""
            html += "<th scope=\"col\"\(alignment) aria-sort=\"\(sort.state)\"><a href=\"\(escape(sort.href))\">\(escape(column.name))<span aria-hidden=\"true\">\(arrow)</span><small>\(escape(column.typeName))</small></a></th>"
        } else {
            html += "<th scope=\"col\"\(alignment)>\(label)</th>"
        }
    }
    if action != nil { html += "<th scope=\"col\"><span class=\"visually-hidden\">Actions</span></th>" }
    html += "</tr></thead><tbody>"
    for row in rows {
        html += "<tr>"
        let key = row.first.flatMap(Int64.fromDatabaseValue)
        for (index, column) in columns.enumerated() {
            let value = row[index]
            html += index == 0 ? "<th scope=\"row\">" : numeric[index] ? "<td class=\"number\">" : "<td>"
            switch column.content {
            case .key:
                html += key.map { "<a href=\"\(escape(paths.row(entity, $0)))\">\($0)</a>" } ?? ""
            case .link(let relationship):
                html += Int64.fromDatabaseValue(value).map { linkHTML(relationship, $0, labels: labels, paths: paths) } ?? "<span class=\"nil\">nil</span>"
            default:
                html += column.text(value).map { escape(String($0.prefix(200))) } ?? "<span class=\"nil\">nil</span>"
            }
            html += index == 0 ? "</th>" : "</td>"
        }
        if let action, let key { html += "<td class=\"action\">\(action(key))</td>" }
        html += "</tr>"
    }
    if rows.isEmpty { html += "<tr><td colspan=\"\(columns.count + (action == nil ? 0 : 1))\" class=\"empty\">No rows.</td></tr>" }
    return html + "</tbody></table></div>"
}
