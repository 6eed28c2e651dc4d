import Foundation
import GRDB
import StowageCore
import StowageTools

/// The studio's pages, their JSON twins and its edits, independent of the server that carries them.
struct StudioSite: Sendable {
    let backend: any StudioBackend
    let csrf: String

    /// Rows per table page unless `limit` says otherwise, and the most a page shows.
    static let pageSize = 50
    static let maximumPageSize = 500
    /// Related rows a row's page lists per relationship.
    static let relatedPreview = 10
    /// How long the SQL page lets a query run, in seconds.
    static let sqlTimeLimit: Double = 10

    /// Answers `request`; `paths` are the studio's URLs as the request reached them.
    func respond(_ request: StudioRequest, paths: Paths) throws -> StudioResponse {
        let components = request.path
        let (last, format) = Format.split(components.last ?? "")
        let reader = try backend.reader()
        let context = PageContext(
            paths: paths, storeName: (reader.path as NSString).lastPathComponent,
            entities: reader.description.entities.map(\.name), isWritable: backend.isWritable, csrf: csrf,
            since: try newestHistoryTransaction(in: reader))
        func page(_ body: () throws -> StudioResponse) -> StudioResponse {
            let status: Int, message: String
            do {
                return try body()
            } catch let error as NotFound {
                (status, message) = (404, error.message)
            } catch let error as ToolError {
                (status, message) = (error.exitCode == ToolError.tryAgainExitCode ? 409 : 400, error.message)
            } catch let error as StowageError {
                let refused: [StowageError.Code] = [.constraintViolation, .deleteDenied, .relationshipCount, .modelValidationFailure]
                (status, message) = (refused.contains(error.code) ? 409 : 400, error.message)
            } catch {
                (status, message) = (400, "\(error)")
            }
            guard format == .html else { return .failure(status: status, message: message, asJSON: format == .json) }
            let title = status == 404 ? "Not found" : status == 409 ? "Not saved" : "Not done"
            let back = request.method == .post
                ? "<p>Nothing was written. Go back to change what you entered: your browser's Back keeps it.</p>" : ""
            return .failurePage(status: status, html: context.page(
                title: title, current: "", alternate: nil,
                body: "<p class=\"error\" role=\"alert\">\(escape(message))</p>\(back)<p><a href=\"\(escape(paths.page("/")))\">Overview</a></p>"))
        }

        switch (request.method, components.count, components.first.map { Format.split($0).0 } ?? "") {
        case (.get, 0, _), (.get, 1, "overview"), (.get, 1, ""):
            return page { try overview(reader, context, format: components.isEmpty ? .html : format) }
        case (.get, 1, "schema"):
            return page { schema(reader, context, format: format) }
        case (.get, 1, "sql"):
            return page { try sql(request, reader, context, format: format) }
        case (.get, 1, "history"):
            return page { try history(request, reader, context, format: format) }
        case (.get, 2, "assets"):
            switch components[1] {
            case "studio.css": return .content(StudioAssets.css, type: "text/css; charset=utf-8")
            case "studio.js": return .content(StudioAssets.javaScript, type: "text/javascript; charset=utf-8")
            default: break
            }
        case (_, 2..., "entities"):
            return page { try entityRoute(request, components: Array(components.dropFirst()), last: last, format: format, reader, context) }
        default:
            break
        }
        return .failure(status: 404, message: "No page here: the studio's pages are the overview, schema, SQL, history and the entities'.", asJSON: format == .json)
    }

    private func entityRoute(
        _ request: StudioRequest, components: [String], last: String, format: Format, _ reader: StoreReader, _ context: PageContext
    ) throws -> StudioResponse {
        let name = Format.split(components[0]).0
        guard let entity = reader.description.entity(named: name) else {
            throw NotFound(message: "The store has no entity \(name); its entities are \(reader.description.entities.map(\.name).joined(separator: ", ")).")
        }
        if components.count == 1 {
            return request.method == .post
                ? try insert(request, entity, reader, context, format: format)
                : try table(request, entity, reader, context, format: format)
        }
        if components.count == 2, components[1] == "new", request.method == .get {
            return try newRowForm(entity, context)
        }
        guard let key = Int64(Format.split(components[1]).0) else {
            throw NotFound(message: "\(components[1]) is not a row's key.")
        }
        switch (components.count, request.method) {
        case (2, .get): return try row(entity, key, reader, context, format: format)
        case (2, .post): return try update(request, entity, key, reader, context, format: format)
        case (3, .get) where last == "delete": return try deletePreview(entity, key, context, format: format)
        case (3, .post) where last == "delete": return try delete(request, entity, key, context, format: format)
        case (3, .get): return try related(request, entity, key, relationship: last, reader, context, format: format)
        case (3, .post): return try relink(request, entity, key, relationship: last, context, format: format)
        default: throw NotFound(message: "No page here.")
        }
    }

    // MARK: Overview

    private func overview(_ reader: StoreReader, _ context: PageContext, format: Format) throws -> StudioResponse {
        let inspection = try Inspection(reader)
        if format == .json { return .json(inspection.json) }
        let paths = context.paths
        var body = "<dl class=\"facts\">"
        for (name, value) in [
            ("Store", inspection.path), ("Identifier", inspection.storeIdentifier),
            ("Version", inspection.schemaVersion + (reader.descriptionIsFromLayout ? " (made by an earlier Stowage: types are the columns')" : "")),
            ("File", "\(Inspection.bytes(inspection.fileSize)), page size \(inspection.pageSize), journal mode \(inspection.journalMode)"),
            ("WAL", inspection.walSize.map { "\(Inspection.bytes($0)) not yet checkpointed" } ?? "none"),
            ("History", "\(inspection.historyTransactions) transaction\(inspection.historyTransactions == 1 ? "" : "s")" + (inspection.newestTransaction.map { ", newest \($0)" } ?? "")),
        ] {
            body += "<dt>\(name)</dt><dd>\(escape(value))</dd>"
        }
        body += "</dl><div class=\"scroll\"><table class=\"rows\"><caption>Entities</caption><thead><tr><th scope=\"col\">Entity</th><th scope=\"col\">Rows</th><th scope=\"col\">Relationships</th><th scope=\"col\">Indexes</th></tr></thead><tbody>"
        for summary in inspection.entities {
            let entity = summary.entity
            body += "<tr><th scope=\"row\"><a href=\"\(escape(paths.entity(entity.name)))\">\(escape(entity.name))</a>"
            if let superentity = entity.superentity { body += "<small>subclass of \(escape(superentity))</small>" }
            body += "</th><td class=\"number\">\(summary.rows)</td><td>"
            body += entity.relationships.map { escape(SchemaText.relationshipSummary($0)) }.joined(separator: "<br>")
            body += "</td><td>" + SchemaText.indexSummaries(entity).map(escape).joined(separator: "<br>") + "</td></tr>"
        }
        body += "</tbody></table></div>"
        return .html(context.page(title: "Overview", current: "overview", alternate: paths.page("/overview.json"), body: body))
    }

    // MARK: Schema

    private func schema(_ reader: StoreReader, _ context: PageContext, format: Format) -> StudioResponse {
        let paths = context.paths
        switch format {
        case .json: return .json(SchemaText.json(reader.description))
        case .svg: return .content(SchemaSVG.render(reader.description, link: paths.entity), type: "image/svg+xml")
        default: break
        }
        let body = """
            <p><a href="\(escape(paths.page("/schema.svg")))">The diagram as SVG</a> · <a href="\(escape(paths.page("/schema.json")))">as JSON</a></p>
            <figure class="diagram">\(SchemaSVG.render(reader.description, link: paths.entity))</figure>
            <pre class="schema">\(escape(SchemaText.render(reader.description, as: .text)))</pre>
            """
        return .html(context.page(title: "Schema", current: "schema", alternate: paths.page("/schema.json"), body: body))
    }

    // MARK: Tables

    /// The query of a table page: its filter, sort, page start and size.
    private func tableQuery(_ request: StudioRequest, _ entity: StoreDescription.Entity, paged: Bool) throws -> RowQuery {
        let sort = try request.parameters("sort").flatMap { $0.split(separator: ",") }.map { try RowQuery.SortKey(parsing: String($0)) }
        return RowQuery(
            entity: entity, filter: request.parameter("where").flatMap { $0.isEmpty ? nil : $0 }, sort: sort,
            limit: paged ? try Self.pageLimit(request) : nil, after: try Self.after(request))
    }

    /// A page's size: the `limit` parameter, or ``pageSize``.
    private static func pageLimit(_ request: StudioRequest) throws -> Int {
        guard let text = request.parameter("limit") else { return pageSize }
        guard let value = Int(text), (1...maximumPageSize).contains(value) else {
            throw ToolError("limit is a number of rows from 1 to \(maximumPageSize), not \(text)")
        }
        return value
    }

    /// The key of the row a page starts after: the `after` parameter.
    private static func after(_ request: StudioRequest) throws -> Int64? {
        try request.parameter("after").map { text in
            guard let key = Int64(text) else { throw ToolError("after is a row's key, not \(text)") }
            return key
        }
    }

    private func table(
        _ request: StudioRequest, _ entity: StoreDescription.Entity, _ reader: StoreReader, _ context: PageContext, format: Format
    ) throws -> StudioResponse {
        let paths = context.paths
        // The filter builder's conditions join the predicate; the page's address then holds the whole
        // predicate, so that it can be bookmarked and edited as text.
        if let built = try FilterBuilder.predicate(request, entity) {
            var query = request.query.filter { !["property", "operator", "value", "after"].contains($0.0) && $0.0 != "where" }
            query.append(("where", built))
            return .redirect(paths.entity(entity.name) + "?" + query.map { "\(encodeQuery($0.0))=\(encodeQuery($0.1))" }.joined(separator: "&"))
        }
        if format == .csv { return .csv(try tableQuery(request, entity, paged: false)) }
        let query = try tableQuery(request, entity, paged: true)
        let rows = try query.page(in: reader)
        if format == .json { return .json(pageJSON(rows, entity: entity.name)) }

        let filter = query.filter ?? ""
        let sorts = request.parameters("sort").flatMap { $0.split(separator: ",").map(String.init) }
        func link(after: Int64?, sort: [String]? = nil) -> String {
            paths.entity(entity.name) + queryString([("where", filter.isEmpty ? nil : filter)] + (sort ?? sorts).map { ("sort", $0) }
                + [("limit", request.parameter("limit")), ("after", after.map(String.init))])
        }
        var body = FilterBuilder.form(entity, filter: filter, sorts: sorts, action: paths.entity(entity.name))
        body += "<p class=\"actions\">"
        if context.isWritable { body += "<a class=\"button\" href=\"\(escape(paths.entity(entity.name) + "/new"))\">New \(escape(entity.name))</a> " }
        body += "<a href=\"\(escape(paths.entity(entity.name) + ".csv" + queryString([("where", filter.isEmpty ? nil : filter)] + sorts.map { ("sort", $0) })))\" download>Export CSV</a> · "
        body += "<a href=\"\(escape(paths.entity(entity.name) + ".json" + queryString([("where", filter.isEmpty ? nil : filter)] + sorts.map { ("sort", $0) } + [("after", query.after.map(String.init))])))\">JSON</a></p>"
        let sortLink: (RowColumn) -> (href: String, state: String)? = { column in
            switch column.content {
            case .attribute(let attribute) where attribute.externalTable == nil: break
            case .key: break
            default: return nil
            }
            let current = query.sort.first
            let ascending = current?.name == column.name && current?.descending == false
            let descending = current?.name == column.name && current?.descending == true
            return (link(after: nil, sort: [ascending ? column.name + ":desc" : column.name]),
                    ascending ? "ascending" : descending ? "descending" : "none")
        }
        let caption = "\(rows.rows.count) \(entity.name) row\(rows.rows.count == 1 ? "" : "s")" + (query.after == nil ? "" : " after key \(query.after!)")
        body += rowsTable(
            rows.columns, rows.rows, entity: entity.name, paths: paths, caption: caption, labels: try linkLabels(rows.columns, rows.rows, in: reader),
            sortLink: sortLink)
        body += "<nav class=\"pages\" aria-label=\"Pages of rows\">"
        if query.after != nil { body += "<a href=\"\(escape(link(after: nil)))\">First page</a> " }
        if let next = rows.nextAfter { body += "<a rel=\"next\" href=\"\(escape(link(after: next)))\">Next page</a>" }
        body += "</nav>"
        return .html(context.page(
            title: entity.name, current: "entity:" + entity.name, watching: [entity.name] + linkedEntities(rows.columns),
            alternate: paths.entity(entity.name) + ".json" + queryString([("where", filter.isEmpty ? nil : filter)] + sorts.map { ("sort", $0) }),
            body: body))
    }

    private func pageJSON(_ page: RowQuery.Page, entity: String) -> JSONValue {
        .object([
            ("entity", .string(entity)),
            ("columns", .array(page.columns.map { .object([("name", .string($0.name)), ("type", .string($0.typeName))]) })),
            ("rows", .array(page.rows.map { row in .object(zip(page.columns, row).map { ($0.name, $0.json($1)) }) })),
            ("nextAfter", page.nextAfter.map(JSONValue.integer) ?? .null),
        ])
    }

    // MARK: Rows

    private func currentRow(_ entity: StoreDescription.Entity, _ key: Int64, _ reader: StoreReader) throws -> ([RowColumn], [DatabaseValue]) {
        var query = RowQuery(entity: entity)
        query.key = key
        let page = try query.page(in: reader)
        guard let row = page.rows.first else { throw NotFound(message: "\(entity.name) has no row \(key): it was deleted, or never saved.") }
        return (page.columns, row)
    }

    private func row(_ entity: StoreDescription.Entity, _ key: Int64, _ reader: StoreReader, _ context: PageContext, format: Format) throws -> StudioResponse {
        let paths = context.paths
        let (columns, values) = try currentRow(entity, key, reader)
        // Relationships whose links are not a column of this row: their rows, counted and previewed.
        var lists: [(StoreDescription.Relationship, Int64, RowQuery.Page)] = []
        for relationship in entity.relationships where relationship.storage.kind != "foreignKey" {
            var query = try RowQuery.relatedRows(of: entity, relationship: relationship.name, key: key, in: reader.description)
            let count = try query.count(in: reader)
            query.limit = Self.relatedPreview
            lists.append((relationship, count, try query.page(in: reader)))
        }
        if format == .json {
            return .json(.object([
                ("entity", .string(entity.name)), ("key", .integer(key)),
                ("values", .object(zip(columns, values).map { ($0.name, $0.json($1)) })),
                ("relationships", .object(lists.map { relationship, count, page in
                    (relationship.name, .object([
                        ("destination", .string(relationship.destination)), ("count", .integer(count)),
                        ("keys", .array(page.rows.compactMap { $0.first.flatMap(Int64.fromDatabaseValue) }.map(JSONValue.integer))),
                    ]))
                })),
            ]))
        }
        let labels = try linkLabels(columns, [values], in: reader)
        var body = ""
        if context.isWritable {
            body += "<form method=\"post\" action=\"\(escape(paths.row(entity.name, key)))\" class=\"edit\">\(context.csrfField)"
            body += EditForm.fields(entity, columns: columns, values: values, paths: paths, labels: labels)
            body += "<p class=\"actions\"><button type=\"submit\">Save</button> <a class=\"danger\" href=\"\(escape(paths.row(entity.name, key) + "/delete"))\">Delete…</a></p></form>"
        } else {
            body += "<dl class=\"values\">"
            for (column, value) in zip(columns, values) {
                body += "<dt>\(escape(column.name)) <small>\(escape(column.typeName))</small></dt><dd>"
                if case .link(let relationship) = column.content {
                    body += Int64.fromDatabaseValue(value).map { linkHTML(relationship, $0, labels: labels, paths: paths) } ?? "<span class=\"nil\">nil</span>"
                } else {
                    body += column.text(value).map(escape) ?? "<span class=\"nil\">nil</span>"
                }
                body += "</dd>"
            }
            body += "</dl>"
        }
        for (relationship, count, page) in lists {
            let all = paths.row(entity.name, key) + "/" + encodeQuery(relationship.name)
            body += "<section class=\"related\"><h2>\(escape(relationship.name)) <small>\(count) \(escape(relationship.destination)) row\(count == 1 ? "" : "s")</small></h2>"
            // The link back to this row, the same in every related row, is left out.
            let shown = page.columns.indices.filter { index in
                if case .link(let link) = page.columns[index].content { return link.name != relationship.inverse }
                return true
            }
            let (shownColumns, shownRows) = (shown.map { page.columns[$0] }, page.rows.map { row in shown.map { row[$0] } })
            let editable = editsList(relationship, of: entity, reader, context)
            body += rowsTable(
                shownColumns, shownRows, entity: relationship.destination, paths: paths,
                caption: "\(relationship.name): \(min(count, Int64(page.rows.count))) of \(count)", labels: try linkLabels(shownColumns, shownRows, in: reader),
                action: editable ? { unlinkButton(entity.name, key, relationship, row: $0, context, from: "row") } : nil)
            if editable { body += linkForm(entity.name, key, relationship, context, from: "row") }
            if count > Int64(page.rows.count) { body += "<p><a href=\"\(escape(all))\">All \(count) \(escape(relationship.name))</a></p>" }
            body += "</section>"
        }
        let watching = [entity.name] + linkedEntities(columns) + lists.flatMap { [$0.0.destination] + linkedEntities($0.2.columns) }
        return .html(context.page(
            title: "\(entity.name) \(key)", current: "entity:" + entity.name, watching: watching,
            alternate: paths.row(entity.name, key) + ".json", body: body))
    }

    private func related(
        _ request: StudioRequest, _ entity: StoreDescription.Entity, _ key: Int64, relationship: String, _ reader: StoreReader,
        _ context: PageContext, format: Format
    ) throws -> StudioResponse {
        let paths = context.paths
        guard entity.relationships.contains(where: { $0.name == relationship }) else {
            throw NotFound(message: "\(entity.name) has no relationship \(relationship).")
        }
        _ = try currentRow(entity, key, reader)
        var query = try RowQuery.relatedRows(of: entity, relationship: relationship, key: key, in: reader.description)
        let count = try query.count(in: reader)
        query.limit = try Self.pageLimit(request)
        query.after = try Self.after(request)
        let page = try query.page(in: reader)
        if format == .json {
            var json = pageJSON(page, entity: query.entity.name)
            if case .object(var members) = json { members.insert(("count", .integer(count)), at: 1); json = .object(members) }
            return .json(json)
        }
        let here = paths.row(entity.name, key) + "/" + encodeQuery(relationship)
        var body = "<p><a href=\"\(escape(paths.row(entity.name, key)))\">\(escape(entity.name)) \(key)</a> links to \(count) \(escape(query.entity.name)) row\(count == 1 ? "" : "s").</p>"
        let list = entity.relationships.first { $0.name == relationship }
        let editable = list.map { editsList($0, of: entity, reader, context) } ?? false
        body += rowsTable(
            page.columns, page.rows, entity: query.entity.name, paths: paths, caption: "\(relationship) of \(entity.name) \(key)",
            labels: try linkLabels(page.columns, page.rows, in: reader),
            action: editable ? { unlinkButton(entity.name, key, list!, row: $0, context, from: "related") } : nil)
        if editable, let list { body += linkForm(entity.name, key, list, context, from: "related") }
        body += "<nav class=\"pages\" aria-label=\"Pages of rows\">"
        if query.after != nil { body += "<a href=\"\(escape(here))\">First page</a> " }
        if let next = page.nextAfter { body += "<a rel=\"next\" href=\"\(escape(here + "?after=\(next)"))\">Next page</a>" }
        body += "</nav>"
        return .html(context.page(
            title: "\(relationship) of \(entity.name) \(key)", current: "entity:" + entity.name, watching: [entity.name, query.entity.name] + linkedEntities(page.columns),
            alternate: here + ".json", body: body))
    }

    // MARK: Edits

    private func update(
        _ request: StudioRequest, _ entity: StoreDescription.Entity, _ key: Int64, _ reader: StoreReader, _ context: PageContext, format: Format
    ) throws -> StudioResponse {
        try requireWritable()
        let values: [String: JSONValue]
        if format == .json {
            values = try Self.jsonValues(request)
        } else {
            values = try EditForm.changes(request, entity, isNew: false)
        }
        if !values.isEmpty { _ = try backend.apply([.update(entity: entity.name, key: key, values: values)]) }
        if format == .json { return .json(.object([("entity", .string(entity.name)), ("key", .integer(key)), ("changed", .array(values.keys.sorted().map(JSONValue.string)))])) }
        return .redirect(context.paths.row(entity.name, key))
    }

    private func newRowForm(_ entity: StoreDescription.Entity, _ context: PageContext) throws -> StudioResponse {
        try requireWritable()
        let paths = context.paths
        let columns = RowQuery(entity: entity).columns.filter {
            if case .key = $0.content { return false }
            if case .entityName = $0.content { return false }
            return true
        }
        var body = "<form method=\"post\" action=\"\(escape(paths.entity(entity.name)))\" class=\"edit\">\(context.csrfField)"
        body += EditForm.fields(entity, columns: columns, values: nil, paths: paths)
        body += "<p class=\"actions\"><button type=\"submit\">Insert</button> <a href=\"\(escape(paths.entity(entity.name)))\">Cancel</a></p></form>"
        return .html(context.page(title: "New \(entity.name)", current: "entity:" + entity.name, alternate: nil, body: body))
    }

    private func insert(
        _ request: StudioRequest, _ entity: StoreDescription.Entity, _ reader: StoreReader, _ context: PageContext, format: Format
    ) throws -> StudioResponse {
        try requireWritable()
        let values = format == .json ? try Self.jsonValues(request) : try EditForm.changes(request, entity, isNew: true)
        let keys = try backend.apply([.insert(entity: entity.name, values: values)])
        guard let key = keys.first else { throw ToolError("the insert reported no key") }
        if format == .json { return .json(.object([("entity", .string(entity.name)), ("key", .integer(key))])) }
        return .redirect(context.paths.row(entity.name, key))
    }

    private func deletePreview(_ entity: StoreDescription.Entity, _ key: Int64, _ context: PageContext, format: Format) throws -> StudioResponse {
        let plan = try backend.deletePlan(entity: entity.name, key: key)
        if format == .json { return .json(plan.json) }
        let paths = context.paths
        var body = "<p class=\"plan\">\(escape(plan.summary))</p>"
        if context.isWritable, !plan.isDenied {
            body += "<form method=\"post\" action=\"\(escape(paths.row(entity.name, key) + "/delete"))\">\(context.csrfField)"
            body += "<p class=\"actions\"><button type=\"submit\" class=\"danger\">Delete</button> <a href=\"\(escape(paths.row(entity.name, key)))\">Cancel</a></p></form>"
        } else {
            body += "<p><a href=\"\(escape(paths.row(entity.name, key)))\">Back to \(escape(entity.name)) \(key)</a></p>"
        }
        return .html(context.page(
            title: "Delete \(entity.name) \(key)?", current: "entity:" + entity.name, alternate: paths.row(entity.name, key) + "/delete.json", body: body))
    }

    private func delete(_ request: StudioRequest, _ entity: StoreDescription.Entity, _ key: Int64, _ context: PageContext, format: Format) throws -> StudioResponse {
        try requireWritable()
        _ = try backend.apply([.delete(entity: entity.name, key: key)])
        if format == .json { return .json(.object([("entity", .string(entity.name)), ("deleted", .integer(key))])) }
        return .redirect(context.paths.entity(entity.name))
    }

    /// Adds a row to a to-many relationship of a row, or removes one (form fields or JSON members
    /// `add`, `remove`: the row's key), as appending it to the model's array or removing it does.
    private func relink(
        _ request: StudioRequest, _ entity: StoreDescription.Entity, _ key: Int64, relationship name: String, _ context: PageContext, format: Format
    ) throws -> StudioResponse {
        try requireWritable()
        guard let relationship = entity.relationships.first(where: { $0.name == name }) else {
            throw NotFound(message: "\(entity.name) has no relationship \(name).")
        }
        guard relationship.isToMany else {
            throw ToolError("\(entity.name).\(name) is a to-one relationship: set it on the row's page")
        }
        func rowKey(_ field: String) throws -> Int64? {
            let value: String?
            if format == .json {
                switch request.json?[field] {
                case .number(let text)?: value = text
                case nil, .null?: value = nil
                case let other?: throw ToolError("\(field) takes a \(relationship.destination)'s key, not \(other.text)")
                }
            } else {
                value = request.field(field).map { $0.trimmingCharacters(in: .whitespaces) }
            }
            guard let value, !value.isEmpty else { return nil }
            guard let parsed = Int64(value) else { throw ToolError("\(field) takes a \(relationship.destination)'s key, not \"\(value)\"") }
            return parsed
        }
        let (add, remove) = (try rowKey("add"), try rowKey("remove"))
        guard (add == nil) != (remove == nil) else {
            throw ToolError("give the key of one \(relationship.destination) to add (add) or to remove (remove)")
        }
        if let add {
            _ = try backend.apply([.append(entity: entity.name, key: key, relationship: name, row: add)])
        } else if let remove {
            _ = try backend.apply([.remove(entity: entity.name, key: key, relationship: name, row: remove)])
        }
        if format == .json {
            let keys = try StoreEditor(try backend.reader()).relatedKeys(entity: entity.name, key: key, relationship: name)
            return .json(.object([
                ("entity", .string(entity.name)), ("key", .integer(key)), ("relationship", .string(name)), ("keys", .array(keys.map(JSONValue.integer))),
            ]))
        }
        let row = context.paths.row(entity.name, key)
        return .redirect(request.field("from") == "related" ? row + "/" + encodeQuery(name) : row)
    }

    /// Whether a to-many list gets Add and Remove: the studio edits, and the relationship can be set
    /// (a studio over a file does not set relationships sharing an inverse).
    private func editsList(_ relationship: StoreDescription.Relationship, of entity: StoreDescription.Entity, _ reader: StoreReader, _ context: PageContext) -> Bool {
        context.isWritable && relationship.isToMany
            && (backend.editsThroughModels || StoreEditor.refusal(toSet: relationship, of: entity, in: reader.description) == nil)
    }

    /// The start of a form posting to a to-many list's address, with the CSRF token and the page to
    /// return to.
    private func listForm(_ entity: String, _ key: Int64, _ relationship: StoreDescription.Relationship, _ context: PageContext, from: String, class name: String? = nil) -> String {
        "<form method=\"post\" action=\"\(escape(context.paths.row(entity, key) + "/" + encodeQuery(relationship.name)))\"\(name.map { " class=\"\($0)\"" } ?? "")>"
            + context.csrfField + "<input type=\"hidden\" name=\"from\" value=\"\(from)\">"
    }

    /// A form adding a row to a to-many relationship by its key.
    private func linkForm(_ entity: String, _ key: Int64, _ relationship: StoreDescription.Relationship, _ context: PageContext, from: String) -> String {
        let id = "link-\(relationship.name)"
        return listForm(entity, key, relationship, context, from: from, class: "link-rows")
            + "<label for=\"\(escape(id))\">Add a \(escape(relationship.destination)) to \(escape(relationship.name)), by key</label>"
            + "<input id=\"\(escape(id))\" name=\"add\" type=\"number\" step=\"1\" required> <button type=\"submit\">Add</button></form>"
    }

    /// A button removing the row `row` from a to-many relationship.
    private func unlinkButton(
        _ entity: String, _ key: Int64, _ relationship: StoreDescription.Relationship, row: Int64, _ context: PageContext, from: String
    ) -> String {
        listForm(entity, key, relationship, context, from: from) + "<input type=\"hidden\" name=\"remove\" value=\"\(row)\">"
            + "<button type=\"submit\" aria-label=\"Remove \(escape(relationship.destination)) \(row) from \(escape(relationship.name))\">Remove</button></form>"
    }

    private func requireWritable() throws {
        guard backend.isWritable else {
            throw ToolError("The studio is read-only: start it with --write to edit (stowage studio STORE --write)")
        }
    }

    /// The `values` object of a JSON edit.
    private static func jsonValues(_ request: StudioRequest) throws -> [String: JSONValue] {
        guard case .object(let members)? = request.json?["values"] else {
            throw ToolError("a JSON edit is an object with \"values\": {\"name\": value, …}")
        }
        return Dictionary(members, uniquingKeysWith: { _, last in last })
    }

    // MARK: SQL

    private func sql(_ request: StudioRequest, _ reader: StoreReader, _ context: PageContext, format: Format) throws -> StudioResponse {
        let text = request.parameter("q") ?? ""
        var names: [String] = []
        var rows: [[DatabaseValue]] = []
        var plan: [(id: Int64, parent: Int64, detail: String)] = []
        var truncated = false
        var failure: String?
        if !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            do {
                // A connection of its own, opened read-only whatever the studio's mode (SQLite refuses
                // any write on it, `PRAGMA query_only = 0` and `ATTACH` included), stopped after
                // ``sqlTimeLimit`` so that a runaway query cannot hold the store.
                let reader = try StoreReader(path: reader.path, writable: false)
                let finished = OnceFlag()
                DispatchQueue.global().asyncAfter(deadline: .now() + Self.sqlTimeLimit) {
                    if !finished.isSet { reader.interrupt() }
                }
                defer { finished.set() }
                try reader.read { db in
                    let statements = try db.allStatements(sql: text)
                    while let statement = try statements.next() {
                        if statement.columnCount > 0 {
                            names = statement.columnNames
                            rows = []
                            let cursor = try Row.fetchCursor(statement)
                            while let row = try cursor.next() {
                                if rows.count == 1000 { truncated = true; break }
                                rows.append(Array(row.databaseValues))
                            }
                        } else {
                            try statement.execute()
                        }
                    }
                    if let planRows = try? Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + text) {
                        plan = planRows.map { ($0["id"] ?? 0, $0["parent"] ?? 0, $0["detail"] ?? "") }
                    }
                }
            } catch {
                let message = (error as? ToolError)?.message ?? "\(error)"
                if message.contains("readonly") || message.contains("read-only") {
                    failure = "The SQL page only reads: this statement would change the store. (\(message))"
                } else if message.contains("interrupt") {
                    failure = "The query ran for more than \(Int(Self.sqlTimeLimit)) seconds and was stopped."
                } else {
                    failure = message
                }
            }
        }
        func json(_ value: DatabaseValue) -> JSONValue {
            switch value.storage {
            case .null: .null
            case .int64(let integer): .integer(integer)
            case .double(let real): .real(real)
            case .string(let text): .string(text)
            case .blob(let data): .string(data.base64EncodedString())
            }
        }
        if format == .json {
            if let failure { return .failure(status: 400, message: failure, asJSON: true) }
            return .json(.object([
                ("columns", .array(names.map(JSONValue.string))),
                ("rows", .array(rows.map { .array($0.map(json)) })),
                ("truncated", .bool(truncated)),
                ("plan", .array(plan.map { .object([("id", .integer($0.id)), ("parent", .integer($0.parent)), ("detail", .string($0.detail))]) })),
            ]))
        }
        let paths = context.paths
        var body = """
            <form method="get" action="\(escape(paths.page("/sql")))" class="sql">
            <label for="q">A query, read-only, with Stowage's functions and collations</label>
            <textarea id="q" name="q" rows="5" spellcheck="false">\(escape(text))</textarea>
            <p class="actions"><button type="submit">Run</button></p>
            </form>
            """
        if let failure { body += "<p class=\"error\" role=\"alert\">\(escape(failure))</p>" }
        if !plan.isEmpty {
            var depth: [Int64: Int] = [:]
            body += "<section><h2>Query plan</h2><pre class=\"plan\">"
            for step in plan {
                let level = (depth[step.parent] ?? -1) + 1
                depth[step.id] = level
                body += escape(String(repeating: "  ", count: level) + step.detail) + "\n"
            }
            body += "</pre></section>"
        }
        if !names.isEmpty {
            body += "<div class=\"scroll\"><table class=\"rows\"><caption>\(rows.count) row\(rows.count == 1 ? "" : "s")\(truncated ? " (the first 1,000)" : "")</caption><thead><tr>"
            body += names.map { "<th scope=\"col\">\(escape($0))</th>" }.joined() + "</tr></thead><tbody>"
            for row in rows {
                body += "<tr>" + row.map { value -> String in
                    switch value.storage {
                    case .null: "<td><span class=\"nil\">NULL</span></td>"
                    case .blob(let data): "<td>&lt;\(data.count) bytes&gt;</td>"
                    default: "<td>\(escape(json(value).text.trimmingCharacters(in: CharacterSet(charactersIn: "\""))))</td>"
                    }
                }.joined() + "</tr>"
            }
            body += "</tbody></table></div>"
        }
        return .html(context.page(title: "SQL", current: "sql", alternate: paths.page("/sql.json", [("q", text.isEmpty ? nil : text)]), body: body))
    }

    // MARK: History

    private func history(_ request: StudioRequest, _ reader: StoreReader, _ context: PageContext, format: Format) throws -> StudioResponse {
        let before = try request.parameter("before").map { text in
            guard let token = Int64(text) else { throw ToolError("before is a history token, not \(text)") }
            return token
        }
        let newest = context.since
        let end = min(before.map { $0 - 1 } ?? newest, newest)
        let start = max(0, end - Int64(Self.pageSize))
        let transactions = try HistoryLog.transactions(in: reader, after: start, limit: Int(max(0, end - start)))
            .filter { $0.id <= end }.reversed()
        if format == .json { return .json(.array(transactions.map(\.json))) }
        let paths = context.paths
        var body = "<ol class=\"history\">"
        for transaction in transactions {
            body += "<li><p><strong>#\(transaction.id)</strong> <time>\(escape(ISODate.format(transaction.timestamp)))</time> "
            body += "\(escape(transaction.author ?? "no author")) <small>\(escape(transaction.bundle)) (process \(escape(transaction.process)))</small></p><ul>"
            for run in transaction.runs {
                let keys = run.keys.prefix(20).map { key in
                    run.kind == "delete" ? "\(key)" : "<a href=\"\(escape(paths.row(run.entity, key)))\">\(key)</a>"
                }.joined(separator: ", ") + (run.keys.count > 20 ? ", … (\(run.keys.count) rows)" : "")
                body += "<li>\(escape(run.kind)) \(escape(run.entity)) \(keys)\(run.properties.isEmpty ? "" : " <small>(\(escape(run.properties.joined(separator: ", "))))</small>")</li>"
            }
            body += "</ul></li>"
        }
        if transactions.isEmpty { body += "<li>No history.</li>" }
        body += "</ol>"
        if let oldest = transactions.last?.id, oldest > 1 {
            body += "<nav class=\"pages\" aria-label=\"Pages of history\"><a rel=\"next\" href=\"\(escape(paths.page("/history", [("before", String(oldest))])))\">Older</a></nav>"
        }
        return .html(context.page(title: "History", current: "history", alternate: paths.page("/history.json"), body: body))
    }
}

/// A flag set once, read from any thread.
final class OnceFlag: @unchecked Sendable {  // @unchecked: `value` is behind `lock`.
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

/// A page that does not exist: 404.
struct NotFound: Error {
    let message: String
}

/// `?a=1&b=2` of the pairs whose value is set, or nothing.
func queryString(_ pairs: [(String, String?)]) -> String {
    let set = pairs.compactMap { name, value in value.map { "\(encodeQuery(name))=\(encodeQuery($0))" } }
    return set.isEmpty ? "" : "?" + set.joined(separator: "&")
}
