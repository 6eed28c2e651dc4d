import Foundation

/// SQL text with its arguments. Values are only ever appended as `?` placeholders with a bound
/// argument; identifiers are quoted. Nothing a user supplies is spliced into the text.
struct SQLFragment: Equatable, CustomStringConvertible {
    var sql = "" { didSet { textHash = nil } }
    /// `sql`'s hash, computed once for the fragments that caches hand out for every fetch (see
    /// ``hashText()``): a prepared-statement look-up would otherwise hash the whole text each time.
    private var textHash: Int?
    var arguments: [StorageValue] = []
    /// The values of the ``QueryExpression/parameter(_:)`` expressions rendered into this fragment
    /// (a query's ``StoreQuery/parameters``).
    var parameters: [StorageValue] = []
    /// Which arguments are parameters, so that the text can be reused with other parameter values
    /// (``rebinding(_:)``).
    private(set) var parameterArguments: [ParameterArgument] = []

    /// An argument bound from a parameter: `arguments[argument]` is `parameters[parameter]`, or its
    /// text key (``SwiftTextKey``) when `isTextKey`.
    struct ParameterArgument: Equatable {
        let argument: Int
        let parameter: Int
        let isTextKey: Bool
    }

    init(_ sql: String = "") { self.sql = sql }

    /// Keeps the hash of the text, for a fragment that is cached and run many times.
    mutating func hashText() { textHash = sql.hashValue }

    /// The key of the fragment's prepared statement.
    var statementKey: SQLText { SQLText(sql, hash: textHash ?? sql.hashValue) }

    static func == (lhs: SQLFragment, rhs: SQLFragment) -> Bool {
        lhs.sql == rhs.sql && lhs.arguments == rhs.arguments && lhs.parameters == rhs.parameters
            && lhs.parameterArguments == rhs.parameterArguments
    }

    mutating func append(_ text: String) { sql += text }

    mutating func append(identifier: String) { sql += SQLiteSQL.quote(identifier) }

    mutating func bind(_ value: StorageValue) {
        sql += "?"
        arguments.append(value)
    }

    /// Binds parameter `index`, or its text key (see ``SwiftTextKey``).
    mutating func bind(parameter index: Int, asTextKey: Bool) {
        parameterArguments.append(ParameterArgument(argument: arguments.count, parameter: index, isTextKey: asTextKey))
        bind(Self.argument(parameters[index], asTextKey: asTextKey))
    }

    private static func argument(_ value: StorageValue, asTextKey: Bool) -> StorageValue {
        guard asTextKey, case .text(let text) = value else { return value }
        return .text(SwiftTextKey.key(text))
    }

    /// The same SQL with other values for its parameters.
    func rebinding(_ parameters: [StorageValue]) -> SQLFragment {
        var fragment = self
        fragment.parameters = parameters
        for binding in parameterArguments {
            fragment.arguments[binding.argument] = Self.argument(parameters[binding.parameter], asTextKey: binding.isTextKey)
        }
        return fragment
    }

    mutating func append(_ other: SQLFragment) {
        sql += other.sql
        arguments += other.arguments
    }

    var description: String { arguments.isEmpty ? sql : "\(sql) -- \(arguments)" }
}

/// SQL text with its hash, as the key of a prepared statement.
struct SQLText: Hashable {
    let sql: String
    private let hash: Int

    init(_ sql: String, hash: Int) {
        self.sql = sql
        self.hash = hash
    }

    func hash(into hasher: inout Hasher) { hasher.combine(hash) }

    static func == (lhs: SQLText, rhs: SQLText) -> Bool { lhs.hash == rhs.hash && lhs.sql == rhs.sql }
}

/// The SQL a store speaks: Stowage renders one query description for SQLite and for PostgreSQL, which
/// differ in a few spellings (truth values, collations, null-safe equality) and in how values outside
/// SQLite's storage classes are read.
enum SQLDialect {
    case sqlite
    case postgresql

    var trueLiteral: String { self == .sqlite ? "1" : "TRUE" }
    var falseLiteral: String { self == .sqlite ? "0" : "FALSE" }

    /// ` COLLATE name`: PostgreSQL's collation names are identifiers (Stowage creates them quoted).
    func collate(_ name: String) -> String {
        self == .sqlite ? " COLLATE \(name)" : " COLLATE \(SQLiteSQL.quote(name))"
    }

    /// A comparison's operator: SQLite's `IS` compares any values, PostgreSQL's only with NULL and truth values.
    func text(of op: QueryExpression.ComparisonOperator) -> String {
        switch (self, op) {
        case (.postgresql, .is): "IS NOT DISTINCT FROM"
        case (.postgresql, .isNot): "IS DISTINCT FROM"
        default: op.rawValue
        }
    }
}

/// Renders storage-neutral queries and expressions as SQL (SQLite's, or PostgreSQL's for the few
/// spellings where they differ; see ``SQLDialect``).
enum SQLiteSQL {
    static let primaryKeyColumn = "_pk"
    static let metadataTable = "_stowage_metadata"

    /// `'text'`: a string literal, quotes doubled (entity names spelled into hierarchy queries).
    static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// `'a', 'b'`: string literals for an `IN (…)` list.
    static func literalList(_ texts: [String]) -> String {
        texts.map(literal).joined(separator: ", ")
    }

    static func quote(_ identifier: String) -> String {
        // Not `replacingOccurrences`: on Linux it goes through NSString, and every query quotes its columns.
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
        return "\"" + identifier.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
    }

    /// The name of the collation Stowage registers for `collation` (see ``SQLiteFunctions``), or `nil`
    /// for ``QueryCollation/binary``, Swift's own `String` comparison, which compares text keys instead
    /// (see ``SwiftTextKey`` and ``renderCompared(_:collation:into:scope:)``).
    /// PostgreSQL compares `Decimal`s' `numeric` columns as numbers: no collation.
    static func collationName(_ collation: QueryCollation, dialect: SQLDialect) -> String? {
        switch collation {
        case .binary: return nil
        case .localizedStandard: return "localizedStandard"
        case .caseInsensitive: return "caseInsensitive"
        case .localized: return "localized"
        case .decimal: return dialect == .sqlite ? "decimal" : nil
        }
    }

    /// `SELECT "_pk", <attributes> FROM <table> [WHERE] [ORDER BY] [LIMIT/OFFSET]`.
    ///
    /// - Parameter columns: the query's column list (``columnList(_:)``) when the caller caches it.
    static func select(_ query: StoreQuery, columns: String? = nil, dialect: SQLDialect = .sqlite) -> SQLFragment {
        var fragment = SQLFragment("SELECT ")
        fragment.append(columns ?? columnList(query, dialect: dialect))
        appendBody(of: query, to: &fragment, ordered: true, dialect: dialect)
        return fragment
    }

    /// Whether a query only looks rows up by primary key (no filter, sort, limit or offset): the shape
    /// of `model(for:)`, relationship faults and batches, rendered from a cached prefix by
    /// ``selectByPrimaryKeys(prefix:_:)``.
    static func isPrimaryKeyLookup(_ query: StoreQuery) -> Bool {
        query.filter == nil && query.sort.isEmpty && query.limit == nil && query.offset == nil && query.primaryKeys?.isEmpty == false
    }

    /// `SELECT <columns> FROM "T" WHERE ("_pk" IN (`: the start of a primary-key lookup, which
    /// ``selectByPrimaryKeys(prefix:_:)`` completes. The text is what ``select(_:columns:)`` renders.
    static func primaryKeyLookupPrefix(_ query: StoreQuery, columns: String) -> String {
        "SELECT " + columns + " FROM " + quote(query.entity.tableName) + " WHERE " + entityCondition(query.entity) + "(" + quote(primaryKeyColumn) + " IN ("
    }

    /// `"_entity" IN ('A', 'B') AND `: the rows of a subclass entity and its descendants in its
    /// hierarchy's table (empty for other entities, whose table holds only their rows).
    static func entityCondition(_ entity: Schema.Entity) -> String {
        guard entity.superentity != nil else { return "" }
        return quote(Schema.Entity.entityColumn) + " IN (" + literalList(entity.entityNamesForFetch) + ") AND "
    }

    /// Completes a primary-key lookup started by ``primaryKeyLookupPrefix(_:columns:)``.
    static func selectByPrimaryKeys(prefix: String, _ keys: [Int64]) -> SQLFragment {
        var fragment = SQLFragment(prefix)
        fragment.sql.reserveCapacity(prefix.utf8.count + keys.count * 3 + 24)
        fragment.arguments.reserveCapacity(keys.count)
        for (offset, key) in keys.enumerated() {
            fragment.sql += offset == 0 ? "?" : ", ?"
            fragment.arguments.append(.integer(key))
        }
        fragment.sql += ")) ORDER BY " + quote(primaryKeyColumn)
        return fragment
    }

    /// `"_pk", "a", "b", …, "rel_pk"`: the columns a query reads, in the order rows are decoded.
    static func columnList(_ query: StoreQuery, dialect: SQLDialect = .sqlite) -> String {
        var columns = quote(primaryKeyColumn)
        for attribute in query.attributes {
            columns += ", " + (dialect == .sqlite ? quote(attribute.name) : PostgreSQLSchema.readColumn(attribute))
        }
        for relationship in query.foreignKeys {
            guard case .foreignKey(let column, _) = relationship.storage else { continue }
            columns += ", " + quote(column)
        }
        if query.entity.isInHierarchy { columns += ", " + quote(Schema.Entity.entityColumn) }
        return columns
    }

    /// The destination rows of a to-many (or inverse-stored to-one) relationship for several owners,
    /// grouped by owner in link order: the query's columns, then the owner's key in the last column.
    /// `nil` for a relationship stored as a foreign key on its own table.
    static func related(_ relationship: Schema.Relationship, owners: [Int64], columns query: StoreQuery, dialect: SQLDialect = .sqlite) -> SQLFragment? {
        guard let destination = relationship.destinationEntity else { return nil }
        let q = quote
        var fragment = SQLFragment("SELECT d.\(q(primaryKeyColumn))")
        for attribute in query.attributes {
            fragment.append(", " + (dialect == .sqlite ? "d.\(q(attribute.name))" : PostgreSQLSchema.readColumn(attribute, qualifier: "d")))
        }
        for foreignKey in query.foreignKeys {
            if case .foreignKey(let column, _) = foreignKey.storage { fragment.append(", d.\(q(column))") }
        }
        if destination.isInHierarchy { fragment.append(", d.\(q(Schema.Entity.entityColumn))") }
        let ownerColumn: String
        let order: [String]
        switch relationship.storage {
        case .inverseForeignKey:
            guard let inverse = relationship.inverse, case .foreignKey(let column, let position) = inverse.storage else { return nil }
            ownerColumn = "d.\(q(column))"
            fragment.append(", \(ownerColumn) FROM \(q(destination.tableName)) AS d")
            order = [ownerColumn] + (position.map { ["d.\(q($0))"] } ?? [])
        case .joinTable(let table, let own, let other, let ownPosition, _):
            ownerColumn = "j.\(q(own))"
            fragment.append(", \(ownerColumn) FROM \(q(destination.tableName)) AS d JOIN \(q(table)) AS j ON j.\(q(other)) = d.\(q(primaryKeyColumn))")
            order = [ownerColumn, "j.\(q(ownPosition))"]
        case .foreignKey:
            return nil
        }
        fragment.append(" WHERE \(ownerColumn) IN (")
        for (index, owner) in owners.enumerated() {
            if index > 0 { fragment.append(", ") }
            fragment.bind(.integer(owner))
        }
        fragment.append(") ORDER BY \((order + ["d.\(q(primaryKeyColumn))"]).joined(separator: ", "))")
        return fragment
    }

    /// `SELECT "_pk" FROM …` with the query's filter, order, limit and offset.
    static func selectPrimaryKeys(_ query: StoreQuery, dialect: SQLDialect = .sqlite) -> SQLFragment {
        var fragment = SQLFragment("SELECT ")
        fragment.append(identifier: primaryKeyColumn)
        appendBody(of: query, to: &fragment, ordered: true, dialect: dialect)
        return fragment
    }

    /// `SELECT COUNT(*) FROM …` honouring the query's limit and offset.
    static func count(_ query: StoreQuery, dialect: SQLDialect = .sqlite) -> SQLFragment {
        if query.limit != nil || query.offset != nil {
            var inner = selectPrimaryKeys(query, dialect: dialect)
            inner.sql = "SELECT COUNT(*) FROM (" + inner.sql + (dialect == .sqlite ? ")" : ") AS \"counted\"")
            return inner
        }
        var fragment = SQLFragment("SELECT COUNT(*)")
        appendBody(of: query, to: &fragment, ordered: false, dialect: dialect)
        return fragment
    }

    /// The values a query's SQL binds from its parameters: the filter's ``StoreQuery/parameters``, then
    /// the limit and the offset when the query has them.
    static func parameterValues(of query: StoreQuery, dialect: SQLDialect = .sqlite) -> [StorageValue] {
        guard query.limit != nil || query.offset != nil else { return query.parameters }
        var values = query.parameters
        // No limit: SQLite's -1, PostgreSQL's NULL.
        values.append(query.limit.map { .integer(Int64($0)) } ?? (dialect == .sqlite ? .integer(-1) : .null))
        if let offset = query.offset, offset > 0 { values.append(.integer(Int64(offset))) }
        return values
    }

    private static func appendBody(of query: StoreQuery, to fragment: inout SQLFragment, ordered: Bool, dialect: SQLDialect) {
        fragment.parameters = parameterValues(of: query, dialect: dialect)
        fragment.append(" FROM ")
        fragment.append(identifier: query.entity.tableName)
        var conditions: [QueryExpression] = []
        if query.entity.superentity != nil {
            conditions.append(.inList(.relatedEntity([]), query.entity.entityNamesForFetch.map { .value(.text($0)) }, collation: nil))
        }
        if let filter = query.filter { conditions.append(filter) }
        if let keys = query.primaryKeys {
            conditions.append(.inList(.primaryKey, keys.map { .value(.integer($0)) }, collation: nil))
        }
        if !conditions.isEmpty {
            fragment.append(" WHERE ")
            render(conditions.count == 1 ? conditions[0] : .and(conditions), into: &fragment, scope: RenderScope(table: query.entity.tableName, dialect: dialect))
        }
        if ordered {
            fragment.append(" ORDER BY ")
            // PostgreSQL reads a bare name in ORDER BY as the output column of that name first, and the
            // select list reads some columns as text (`"price"::text`): ordered by their table's name,
            // they sort by their own type.
            let orderScope = RenderScope(
                alias: dialect == .postgresql ? quote(query.entity.tableName) : nil, table: query.entity.tableName, dialect: dialect)
            for term in query.sort {
                renderCompared(term.expression, collation: term.collation, into: &fragment, scope: orderScope)
                if let collation = term.collation, let name = collationName(collation, dialect: dialect) {
                    fragment.append(dialect.collate(name))
                }
                // SQLite puts NULL before every value; PostgreSQL after, unless told.
                if dialect == .postgresql {
                    fragment.append(term.ascending ? " NULLS FIRST, " : " DESC NULLS LAST, ")
                } else {
                    fragment.append(term.ascending ? ", " : " DESC, ")
                }
            }
            fragment.append(identifier: primaryKeyColumn)
        }
        if query.limit != nil || query.offset != nil {
            // Parameters (see `parameterValues(of:)`), so that the text serves other limits.
            fragment.append(" LIMIT ")
            fragment.bind(parameter: query.parameters.count, asTextKey: false)
            if let offset = query.offset, offset > 0 {
                fragment.append(" OFFSET ")
                fragment.bind(parameter: query.parameters.count + 1, asTextKey: false)
            }
        }
    }

    /// The row an expression's attributes belong to while rendering: the queried table at the top
    /// (columns unqualified), or an aliased table inside a correlated subquery.
    struct RenderScope {
        /// The alias of the row's table, or `nil` at the top level.
        var alias: String?
        /// The queried table's name, to qualify references to the top-level row from subqueries.
        var table: String?
        var depth = 0
        var dialect: SQLDialect = .sqlite

        /// How columns of this scope's row are written from inside a nested subquery.
        var qualifier: String? { alias ?? table.map(SQLiteSQL.quote) }

        func nested(alias: String) -> RenderScope { RenderScope(alias: alias, table: table, depth: depth + 1, dialect: dialect) }
    }

    /// Appends the SQL of an expression.
    static func render(_ expression: QueryExpression, into fragment: inout SQLFragment) {
        render(expression, into: &fragment, scope: RenderScope())
    }

    private static func column(_ name: String, in scope: RenderScope, qualified: Bool, into fragment: inout SQLFragment) {
        if let qualifier = qualified ? scope.qualifier : scope.alias { fragment.append(qualifier + ".") }
        fragment.append(identifier: name)
    }

    static func render(_ expression: QueryExpression, into fragment: inout SQLFragment, scope: RenderScope) {
        func render(_ expression: QueryExpression, into fragment: inout SQLFragment) {
            SQLiteSQL.render(expression, into: &fragment, scope: scope)
        }
        func call(_ function: String, _ operands: [QueryExpression], into fragment: inout SQLFragment) {
            fragment.append(function + "(")
            for (index, operand) in operands.enumerated() {
                if index > 0 { fragment.append(", ") }
                render(operand, into: &fragment)
            }
            fragment.append(")")
        }
        switch expression {
        case .attribute(let attribute):
            column(attribute.name, in: scope, qualified: false, into: &fragment)
        case .primaryKey:
            column(primaryKeyColumn, in: scope, qualified: false, into: &fragment)
        case .relatedKey(let path):
            renderKey(of: path, from: scope, into: &fragment)
        case .relatedAttribute(let path, let attribute):
            guard let destination = path.last?.destinationEntity else { return fragment.append("NULL") }
            let alias = "s\(scope.depth + 1)"
            fragment.append("(SELECT \(alias).\(quote(attribute.name)) FROM \(quote(destination.tableName)) AS \(alias) WHERE \(alias).\(quote(primaryKeyColumn)) = ")
            renderKey(of: path, from: scope, into: &fragment)
            fragment.append(")")
        case .relatedEntity(let path):
            guard let destination = path.last?.destinationEntity else {
                return column(Schema.Entity.entityColumn, in: scope, qualified: false, into: &fragment)
            }
            let alias = "s\(scope.depth + 1)"
            fragment.append("(SELECT \(alias).\(quote(Schema.Entity.entityColumn)) FROM \(quote(destination.tableName)) AS \(alias) WHERE \(alias).\(quote(primaryKeyColumn)) = ")
            renderKey(of: path, from: scope, into: &fragment)
            fragment.append(")")
        case .toMany(let owner, let relationship, let condition, let test):
            renderToMany(owner: owner, relationship, condition: condition, test: test, from: scope, into: &fragment)
        case .value(let value):
            fragment.bind(value)
        case .parameter(let index):
            fragment.bind(parameter: index, asTextKey: false)
        case .comparison(let op, let lhs, let rhs, let collation):
            fragment.append("(")
            renderCompared(lhs, collation: collation, into: &fragment, scope: scope)
            fragment.append(" \(scope.dialect.text(of: op)) ")
            renderCompared(rhs, collation: collation, into: &fragment, scope: scope)
            if let collation, let name = collationName(collation, dialect: scope.dialect) { fragment.append(scope.dialect.collate(name)) }
            fragment.append(")")
        case .and(let operands), .or(let operands):
            let isAnd: Bool = if case .and = expression { true } else { false }
            guard !operands.isEmpty else {
                fragment.append(isAnd ? scope.dialect.trueLiteral : scope.dialect.falseLiteral)
                return
            }
            fragment.append("(")
            for (index, operand) in operands.enumerated() {
                if index > 0 { fragment.append(isAnd ? " AND " : " OR ") }
                render(operand, into: &fragment)
            }
            fragment.append(")")
        case .not(let operand):
            fragment.append("(NOT ")
            render(operand, into: &fragment)
            fragment.append(")")
        case .isNull(let operand):
            fragment.append("(")
            render(operand, into: &fragment)
            fragment.append(" IS NULL)")
        case .arithmetic(let op, let lhs, let rhs):
            fragment.append("(")
            render(lhs, into: &fragment)
            fragment.append(" \(op.rawValue) ")
            render(rhs, into: &fragment)
            fragment.append(")")
        case .negative(let operand):
            fragment.append("(-")
            render(operand, into: &fragment)
            fragment.append(")")
        case .string(let function, let operands):
            call(functionName(function), operands, into: &fragment)
        case .unwrap(let operand):
            call("stowage_unwrap", [operand], into: &fragment)
        case .inList(let operand, let values, let collation):
            guard !values.isEmpty else {
                fragment.append(scope.dialect.falseLiteral)
                return
            }
            fragment.append("(")
            renderCompared(operand, collation: collation, into: &fragment, scope: scope)
            if let collation, let name = collationName(collation, dialect: scope.dialect) { fragment.append(scope.dialect.collate(name)) }
            fragment.append(" IN (")
            for (index, value) in values.enumerated() {
                if index > 0 { fragment.append(", ") }
                renderCompared(value, collation: collation, into: &fragment, scope: scope)
            }
            fragment.append("))")
        case .conditional(let condition, let then, let otherwise):
            fragment.append("(CASE WHEN ")
            render(condition, into: &fragment)
            fragment.append(" THEN ")
            render(then, into: &fragment)
            fragment.append(" ELSE ")
            render(otherwise, into: &fragment)
            fragment.append(" END)")
        case .coalesce(let operands):
            call("COALESCE", operands, into: &fragment)
        }
    }

    /// An operand of a comparison or sort. Under ``QueryCollation/binary`` (Swift's `String` `==` and
    /// `<`), text compares by its key (``SwiftTextKey``): a constant is bound as its key, anything else
    /// is wrapped in `stowage_nfc(…)`, the expression that the indexes of `String` attributes are
    /// built on, so that such comparisons use them.
    static func renderCompared(
        _ operand: QueryExpression, collation: QueryCollation?, into fragment: inout SQLFragment, scope: RenderScope
    ) {
        guard collation == .binary else { return render(operand, into: &fragment, scope: scope) }
        switch operand {
        case .value(.text(let text)):
            fragment.bind(.text(SwiftTextKey.key(text)))
        case .value:
            render(operand, into: &fragment, scope: scope)
        case .parameter(let index):
            fragment.bind(parameter: index, asTextKey: true)
        default:
            fragment.append(SwiftTextKey.function + "(")
            render(operand, into: &fragment, scope: scope)
            fragment.append(")")
        }
    }

    /// The primary key of the row reached from `scope`'s row through `path` (to-one relationships).
    private static func renderKey(of path: [Schema.Relationship], from scope: RenderScope, into fragment: inout SQLFragment) {
        guard let last = path.last else {
            column(primaryKeyColumn, in: scope, qualified: true, into: &fragment)
            return
        }
        let prefix = Array(path.dropLast())
        switch last.storage {
        case .foreignKey(let foreignKey, _):
            if prefix.isEmpty {
                column(foreignKey, in: scope, qualified: true, into: &fragment)
                return
            }
            guard let owner = last.entity else { return fragment.append("NULL") }
            let alias = "k\(scope.depth + 1)_\(path.count)"
            fragment.append("(SELECT \(alias).\(quote(foreignKey)) FROM \(quote(owner.tableName)) AS \(alias) WHERE \(alias).\(quote(primaryKeyColumn)) = ")
            renderKey(of: prefix, from: scope, into: &fragment)
            fragment.append(")")
        case .inverseForeignKey:
            guard let destination = last.destinationEntity, let inverse = last.inverse,
                  case .foreignKey(let foreignKey, _) = inverse.storage
            else { return fragment.append("NULL") }
            let alias = "k\(scope.depth + 1)_\(path.count)"
            fragment.append("(SELECT \(alias).\(quote(primaryKeyColumn)) FROM \(quote(destination.tableName)) AS \(alias) WHERE \(alias).\(quote(foreignKey)) = ")
            renderKey(of: prefix, from: scope, into: &fragment)
            fragment.append(" LIMIT 1)")
        case .joinTable:
            fragment.append("NULL")
        }
    }

    /// `EXISTS` / `NOT EXISTS` / `COUNT(*)` over the related rows of a to-many relationship.
    private static func renderToMany(
        owner: [Schema.Relationship], _ relationship: Schema.Relationship, condition: QueryExpression?,
        test: QueryExpression.ToManyTest, from scope: RenderScope, into fragment: inout SQLFragment
    ) {
        guard let destination = relationship.destinationEntity else { return fragment.append("NULL") }
        let alias = "s\(scope.depth + 1)"
        let inner = scope.nested(alias: alias)
        switch test {
        case .exists: fragment.append("EXISTS (SELECT 1")
        case .notExists: fragment.append("NOT EXISTS (SELECT 1")
        case .count: fragment.append("(SELECT COUNT(*)")
        }
        fragment.append(" FROM \(quote(destination.tableName)) AS \(alias)")
        switch relationship.storage {
        case .inverseForeignKey:
            guard let inverse = relationship.inverse, case .foreignKey(let foreignKey, _) = inverse.storage else {
                return fragment.append(" WHERE \(scope.dialect.falseLiteral))")
            }
            fragment.append(" WHERE \(alias).\(quote(foreignKey)) = ")
        case .joinTable(let table, let own, let other, _, _):
            let link = "j\(scope.depth + 1)"
            fragment.append(" JOIN \(quote(table)) AS \(link) ON \(link).\(quote(other)) = \(alias).\(quote(primaryKeyColumn)) WHERE \(link).\(quote(own)) = ")
        case .foreignKey:
            return fragment.append(" WHERE \(scope.dialect.falseLiteral))")
        }
        renderKey(of: owner, from: scope, into: &fragment)
        if let condition {
            fragment.append(" AND ")
            render(condition, into: &fragment, scope: inner)
        }
        fragment.append(")")
    }

    /// The SQL function implementing a string function (registered by ``SQLiteFunctions``).
    static func functionName(_ function: QueryExpression.StringFunction) -> String {
        switch function {
        case .contains: "stowage_contains"
        case .startsWith: "stowage_starts_with"
        case .localizedStandardContains: "stowage_localized_standard_contains"
        case .count: "stowage_count"
        case .caseInsensitiveCompare: "stowage_case_insensitive_compare"
        case .localizedCompare: "stowage_localized_compare"
        }
    }
}
