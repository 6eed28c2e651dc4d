import Foundation
import GRDB
import StowageCore

/// One column of a page of rows: the key, an attribute, a to-one link (the related row's key) or, in a
/// class hierarchy's table, the row's entity.
package struct RowColumn: Sendable {
    package enum Content: Sendable {
        case key
        case entityName
        case attribute(StoreDescription.Attribute)
        case link(StoreDescription.Relationship)
    }

    package let name: String
    package let content: Content

    /// The Swift type the column shows (`Int64` for keys and links).
    package var typeName: String {
        switch content {
        case .key: "key"
        case .entityName: "entity"
        case .attribute(let attribute): attribute.type + (attribute.isOptional ? "?" : "")
        case .link(let relationship): "→ \(relationship.destination)"
        }
    }

    var kind: StoreDescription.Kind {
        if case .attribute(let attribute) = content { return attribute.kind }
        return content.isEntityName ? .string : .integer
    }

    /// A stored value of the column as JSON, by its Swift type.
    package func json(_ value: DatabaseValue) -> JSONValue { StoredValues.json(value, kind: kind) }
    /// A stored value of the column as one line of text, `nil` for NULL.
    package func text(_ value: DatabaseValue) -> String? { StoredValues.text(value, kind: kind) }
}

extension RowColumn.Content {
    var isEntityName: Bool {
        if case .entityName = self { return true }
        return false
    }
}

/// A page of an entity's rows, in key order or sorted, from a filter with the string meaning of the
/// app's `#Predicate`, read by keyset: the page after a row is as fast to read at the millionth row as
/// at the first.
package struct RowQuery: Sendable {
    package struct SortKey: Sendable {
        package let name: String
        package let descending: Bool
        package init(name: String, descending: Bool) {
            self.name = name
            self.descending = descending
        }

        /// Reads `name`, `name:asc` or `name:desc` (also `-name`).
        package init(parsing text: String) throws {
            var text = Substring(text)
            var descending = false
            if text.hasPrefix("-") {
                descending = true
                text = text.dropFirst()
            }
            if let colon = text.lastIndex(of: ":") {
                switch text[text.index(after: colon)...].lowercased() {
                case "asc", "ascending": break
                case "desc", "descending": descending = true
                default: throw ToolError("a sort is NAME, NAME:asc or NAME:desc, not \(text)", exitCode: 64)
                }
                text = text[..<colon]
            }
            self.init(name: String(text), descending: descending)
        }
    }

    package var entity: StoreDescription.Entity
    package var filter: String?
    package var sort: [SortKey]
    package var limit: Int?
    /// The key of the row the page starts after.
    package var after: Int64?
    /// Only the rows a relationship of another row links to: its to-many list, or the row of a to-one.
    package var related: Related?
    /// Only the row with this key.
    package var key: Int64?

    /// The rows a relationship of one row links to.
    package struct Related: Sendable {
        /// The relationship, on the entity of the row `key` names (its destination is the query's entity).
        package let relationship: StoreDescription.Relationship
        /// The key of the row whose links these are.
        package let key: Int64
        package init(relationship: StoreDescription.Relationship, key: Int64) {
            self.relationship = relationship
            self.key = key
        }
    }

    package init(entity: StoreDescription.Entity, filter: String? = nil, sort: [SortKey] = [], limit: Int? = nil, after: Int64? = nil) {
        self.entity = entity
        self.filter = filter
        self.sort = sort
        self.limit = limit
        self.after = after
    }

    /// The columns a page shows: the key, the entity (hierarchies), attributes, then to-one links.
    package var columns: [RowColumn] {
        var columns = [RowColumn(name: StoreToolSupport.primaryKeyColumn, content: .key)]
        if entity.entityColumnValues != nil { columns.append(RowColumn(name: StoreToolSupport.entityColumn, content: .entityName)) }
        columns += entity.attributes.map { RowColumn(name: $0.name, content: .attribute($0)) }
        columns += entity.relationships.filter { $0.storage.kind == "foreignKey" }.map { RowColumn(name: $0.name, content: .link($0)) }
        return columns
    }

    /// The SQL of the query and its arguments (the `SELECT` of ``columns``), with `LIMIT` when a limit is
    /// set (one more row than the limit, to know whether another page follows).
    package func sql() throws -> (String, StatementArguments) {
        let table = quote(entity.table)
        var arguments: [DatabaseValue] = []
        var conditions: [String] = []
        if let names = entity.entityColumnValues {
            conditions.append("\(quote(StoreToolSupport.entityColumn)) IN (\(names.map { _ in "?" }.joined(separator: ", ")))")
            arguments += names.map(\.databaseValue)
        }
        if let key {
            conditions.append("\(quote(StoreToolSupport.primaryKeyColumn)) = ?")
            arguments.append(key.databaseValue)
        }
        if let related {
            conditions.append(try relatedCondition(related, arguments: &arguments))
        }
        if let filter, !filter.trimmingCharacters(in: .whitespaces).isEmpty {
            var compiler = FilterCompiler(entity: entity)
            let condition = try compiler.compile(filter)
            conditions.append(condition)
            arguments += compiler.arguments
        }
        let order = try sortTerms()
        if let after {
            conditions.append(keysetCondition(order, after: after, arguments: &arguments))
        }
        var sql = "SELECT " + columns.map(selectExpression).joined(separator: ", ") + " FROM \(table)"
        if !conditions.isEmpty { sql += " WHERE " + conditions.map { "(\($0))" }.joined(separator: " AND ") }
        sql += " ORDER BY " + order.map { $0.expression + ($0.descending ? " DESC" : "") }.joined(separator: ", ")
        if let limit { sql += " LIMIT \(limit + 1)" }
        return (sql, StatementArguments(arguments))
    }

    /// How many rows the query's filter and relationship leave (no paging): a relationship's count is
    /// bounded by its links, a filtered table's is not.
    package func count(in reader: StoreReader) throws -> Int64 {
        var query = self
        query.limit = nil
        query.after = nil
        query.sort = []
        let (sql, arguments) = try query.sql()
        return try reader.read { db in try Int64.fetchOne(db, sql: "SELECT COUNT(*) FROM (\(sql))", arguments: arguments) ?? 0 }
    }

    /// The condition on the destination's rows that `related`'s relationship links from its row.
    private func relatedCondition(_ related: Related, arguments: inout [DatabaseValue]) throws -> String {
        let relationship = related.relationship
        let pk = quote(StoreToolSupport.primaryKeyColumn)
        let storage = relationship.storage
        arguments.append(related.key.databaseValue)
        switch storage.kind {
        case "foreignKey":
            guard let column = storage.column, let source = sourceTable else { break }
            return "\(pk) = (SELECT \(quote(column)) FROM \(quote(source)) WHERE \(pk) = ?)"
        case "inverse":
            guard let inverse = relationship.inverse, let link = entity.relationships.first(where: { $0.name == inverse }),
                  link.storage.kind == "foreignKey", let column = link.storage.column else { break }
            return "\(quote(column)) = ?"
        case "joinTable":
            guard let table = storage.table, let column = storage.column, let other = storage.otherColumn else { break }
            return "\(pk) IN (SELECT \(quote(other)) FROM \(quote(table)) WHERE \(quote(column)) = ?)"
        default: break
        }
        throw ToolError("the links of \(relationship.name) cannot be read from this store's description")
    }

    /// The place of a row of this query's entity in the array of `related`'s row, as the app stores it:
    /// the child's position column (one-to-many) or the join table's (many-to-many); `nil` when the
    /// relationship keeps none.
    private func positionExpression(_ related: Related) -> String? {
        let storage = related.relationship.storage
        switch storage.kind {
        case "inverse":
            guard let inverse = related.relationship.inverse, let link = entity.relationships.first(where: { $0.name == inverse }),
                  link.storage.kind == "foreignKey", let position = link.storage.positionColumn else { return nil }
            return quote(position)
        case "joinTable":
            guard let table = storage.table, let column = storage.column, let other = storage.otherColumn, let position = storage.positionColumn else {
                return nil
            }
            // Correlated with the row of the query's table (also inside the keyset condition's anchors).
            let pk = quote(StoreToolSupport.primaryKeyColumn)
            return "(SELECT j.\(quote(position)) FROM \(quote(table)) AS j WHERE j.\(quote(column)) = \(related.key) AND j.\(quote(other)) = \(quote(entity.table)).\(pk))"
        default:
            return nil
        }
    }

    /// The table of the entity a ``related`` relationship starts from, set by ``relatedRows(of:relationship:key:in:)``.
    var sourceTable: String?

    /// The query of the rows `relationship` of the row `key` of `source` links to.
    package static func relatedRows(
        of source: StoreDescription.Entity, relationship name: String, key: Int64, in description: StoreDescription
    ) throws -> RowQuery {
        guard let relationship = source.relationships.first(where: { $0.name == name }) else {
            throw ToolError("\(source.name) has no relationship \(name); its relationships are \(source.relationships.map(\.name).joined(separator: ", "))", exitCode: 64)
        }
        guard let destination = description.entity(named: relationship.destination) else {
            throw ToolError("\(relationship.name) leads to \(relationship.destination), which the store does not describe")
        }
        var query = RowQuery(entity: destination)
        query.related = Related(relationship: relationship, key: key)
        query.sourceTable = source.table
        return query
    }

    private func selectExpression(_ column: RowColumn) -> String {
        switch column.content {
        case .key: return quote(StoreToolSupport.primaryKeyColumn)
        case .entityName: return quote(StoreToolSupport.entityColumn)
        case .attribute(let attribute):
            if let side = attribute.externalTable {
                return "(SELECT \"value\" FROM \(quote(side)) WHERE \(quote(side)).\(quote(StoreToolSupport.primaryKeyColumn)) = \(quote(entity.table)).\(quote(StoreToolSupport.primaryKeyColumn)))"
            }
            return quote(attribute.name)
        case .link(let relationship): return quote(relationship.storage.column ?? relationship.name)
        }
    }

    struct SortTerm {
        let expression: String
        let descending: Bool
    }

    /// The sort's terms, then the key (which makes the order total, as keyset paging needs). A
    /// relationship's rows without a sort come in the order of the app's array (its positions).
    func sortTerms() throws -> [SortTerm] {
        var terms: [SortTerm] = []
        if sort.isEmpty, let related, let position = positionExpression(related) {
            terms.append(SortTerm(expression: position, descending: false))
        }
        for key in sort {
            if key.name == StoreToolSupport.primaryKeyColumn { continue }
            guard let attribute = entity.attributes.first(where: { $0.name == key.name }), attribute.externalTable == nil else {
                throw ToolError("\(entity.name) has no attribute \(key.name) to sort by; its attributes are \(entity.attributes.map(\.name).joined(separator: ", "))", exitCode: 64)
            }
            var expression = quote(attribute.name)
            // SwiftData's default order for strings (`SortDescriptor(\.name)`), and numbers' for Decimals.
            if attribute.kind == .string { expression += " COLLATE \(StoreToolSupport.localizedStandardCollation)" }
            if attribute.kind == .decimal { expression += " COLLATE \(StoreToolSupport.decimalCollation)" }
            terms.append(SortTerm(expression: expression, descending: key.descending))
        }
        let keyDescending = sort.first { $0.name == StoreToolSupport.primaryKeyColumn }?.descending ?? false
        terms.append(SortTerm(expression: quote(StoreToolSupport.primaryKeyColumn), descending: keyDescending))
        return terms
    }

    /// The rows after the row keyed `after` in `terms`' order (NULL first ascending, as SQLite sorts):
    /// the anchor's values are read by its key, so the page starts with an index look-up.
    private func keysetCondition(_ terms: [SortTerm], after: Int64, arguments: inout [DatabaseValue]) -> String {
        let pk = quote(StoreToolSupport.primaryKeyColumn)
        let table = quote(entity.table)
        func anchor(_ term: SortTerm) -> String {
            arguments.append(after.databaseValue)
            return "(SELECT \(term.expression) FROM \(table) WHERE \(pk) = ?)"
        }
        var alternatives: [String] = []
        for (index, term) in terms.enumerated() {
            var parts: [String] = []
            for previous in terms[..<index] { parts.append("\(previous.expression) IS \(anchor(previous))") }
            if index == terms.count - 1 {
                arguments.append(after.databaseValue)
                parts.append("\(pk) \(term.descending ? "<" : ">") ?")
            } else {
                let value = anchor(term)
                let value2 = anchor(term)
                parts.append(term.descending
                    ? "(\(term.expression) < \(value) OR (\(term.expression) IS NULL AND \(value2) IS NOT NULL))"
                    : "(\(term.expression) > \(value) OR (\(value2) IS NULL AND \(term.expression) IS NOT NULL))")
            }
            alternatives.append(parts.joined(separator: " AND "))
        }
        return alternatives.map { "(\($0))" }.joined(separator: " OR ")
    }

    /// A page of rows.
    package struct Page: Sendable {
        package let columns: [RowColumn]
        package let rows: [[DatabaseValue]]
        /// The key to pass as `after` for the next page, when there is one.
        package let nextAfter: Int64?
    }

    /// Reads one page (all rows when no limit is set).
    package func page(in reader: StoreReader) throws -> Page {
        let (sql, arguments) = try sql()
        let columns = self.columns
        var rows = try reader.read { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in (0..<columns.count).map { row[$0] as DatabaseValue } }
        }
        var next: Int64?
        if let limit, rows.count > limit {
            rows.removeLast(rows.count - limit)
            next = rows.last.flatMap { Int64.fromDatabaseValue($0[0]) }
        }
        return Page(columns: columns, rows: rows, nextAfter: next)
    }

    /// Calls `body` with each row, in order, reading them as they go (bounded memory).
    package func forEachRow(in reader: StoreReader, _ body: ([DatabaseValue]) throws -> Void) throws {
        let (sql, arguments) = try sql()
        let count = columns.count
        try reader.read { db in
            let cursor = try Row.fetchCursor(db, sql: sql, arguments: arguments)
            while let row = try cursor.next() {
                try body((0..<count).map { row[$0] as DatabaseValue })
            }
        }
    }
}
