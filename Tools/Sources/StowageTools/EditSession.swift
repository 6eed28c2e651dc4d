import Foundation
import GRDB
import StowageCore

/// A row of a store, by its own entity (a class hierarchy's row by its `_entity` column) and key.
struct StoredRow: Hashable {
    /// The row's own entity.
    let entity: StoreDescription.Entity
    /// The row's primary key.
    let key: Int64

    // A row is its table's row: the entity is what the row is, not part of its identity.
    static func == (lhs: StoredRow, rhs: StoredRow) -> Bool { lhs.key == rhs.key && lhs.entity.table == rhs.entity.table }
    func hash(into hasher: inout Hasher) {
        hasher.combine(entity.table)
        hasher.combine(key)
    }
}

/// The work of one ``StoreEditor`` call on its connection: finding rows, checking values, writing them
/// as the app's save does, and the log of what the history records.
struct EditSession {
    /// The connection, inside the caller's transaction.
    let db: Database
    /// The store's description of its models.
    let description: StoreDescription
    /// The store's path, for messages.
    let path: String
    /// What the edit changed, for its history transaction.
    var log = EditLog()
    /// Rows whose to-many relationships' counts the app's save checks (``checkRelationshipCounts()``).
    var countCandidates: [StoredRow] = []

    /// A session on `db` of the store at `path` described by `description`.
    init(db: Database, description: StoreDescription, path: String) {
        self.db = db
        self.description = description
        self.path = path
    }

    /// The primary key column, quoted.
    static var pk: String { quote(StoreToolSupport.primaryKeyColumn) }

    // MARK: Entities and rows

    /// The entity named `name` (case-insensitive when no entity has that exact name).
    func entity(named name: String) throws -> StoreDescription.Entity {
        if let entity = description.entity(named: name) { return entity }
        if let entity = description.entities.first(where: { $0.name.lowercased() == name.lowercased() }) { return entity }
        throw ToolError("the store has no entity \(name); its entities are \(description.entities.map(\.name).joined(separator: ", "))", exitCode: 64)
    }

    /// The row `key` of `entity` (a row of one of its subentities included), by its own entity, or `nil`.
    func storedRow(_ entity: StoreDescription.Entity, key: Int64) throws -> StoredRow? {
        guard let names = entity.entityColumnValues else {
            let exists = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(quote(entity.table)) WHERE \(Self.pk) = ?)", arguments: [key]) ?? false
            return exists ? StoredRow(entity: entity, key: key) : nil
        }
        let sql = "SELECT \(quote(StoreToolSupport.entityColumn)) FROM \(quote(entity.table)) WHERE \(Self.pk) = ?"
        guard let name = try String.fetchOne(db, sql: sql, arguments: [key]), names.contains(name) else { return nil }
        return StoredRow(entity: description.entity(named: name) ?? entity, key: key)
    }

    /// The row `key` of `entity`.
    /// - Throws: ``ToolError`` when there is none.
    func requireRow(entity: StoreDescription.Entity, key: Int64) throws -> StoredRow {
        guard let row = try storedRow(entity, key: key) else { throw ToolError("\(entity.name) has no row with key \(key)", exitCode: 64) }
        return row
    }

    /// The rows a query selects: the key first, then (for a class hierarchy's table) the `_entity` column.
    func storedRows(_ sql: String, _ arguments: StatementArguments, of destination: StoreDescription.Entity) throws -> [StoredRow] {
        try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            let key: Int64 = row[0]
            guard destination.entityColumnValues != nil, let name: String = row[1] else { return StoredRow(entity: destination, key: key) }
            return StoredRow(entity: description.entity(named: name) ?? destination, key: key)
        }
    }

    /// The rows `relationship` of `row` links to, in the order the app loads them (an ordered to-many's
    /// positions, then keys).
    func relatedRows(of row: StoredRow, through relationship: StoreDescription.Relationship) throws -> [StoredRow] {
        guard let destination = description.entity(named: relationship.destination) else { return [] }
        let pk = Self.pk
        let entityColumn = destination.entityColumnValues != nil ? ", d.\(quote(StoreToolSupport.entityColumn))" : ""
        let select = "SELECT d.\(pk)\(entityColumn) FROM \(quote(destination.table)) AS d"
        let storage = relationship.storage
        let sql: String
        switch storage.kind {
        case "foreignKey":
            guard let column = storage.column else { return [] }
            sql = "\(select) WHERE d.\(pk) = (SELECT \(quote(column)) FROM \(quote(row.entity.table)) WHERE \(pk) = ?)"
        case "inverse":
            guard let inverse = destination.relationships.first(where: { $0.name == relationship.inverse }),
                  inverse.storage.kind == "foreignKey", let column = inverse.storage.column
            else { return [] }
            let position = inverse.storage.positionColumn.map { "d.\(quote($0)), " } ?? ""
            sql = "\(select) WHERE d.\(quote(column)) = ? ORDER BY \(position)d.\(pk)"
        case "joinTable":
            guard let table = storage.table, let column = storage.column, let other = storage.otherColumn else { return [] }
            let position = storage.positionColumn.map { "j.\(quote($0)), " } ?? ""
            sql = "\(select) JOIN \(quote(table)) AS j ON j.\(quote(other)) = d.\(pk) WHERE j.\(quote(column)) = ? ORDER BY \(position)d.\(pk)"
        default:
            return []
        }
        return try storedRows(sql, [row.key], of: destination)
    }

    /// How a row is named to a person: `Budget 'Food'` (its first `String` attribute), or `Budget #7`.
    func label(_ row: StoredRow) throws -> String {
        if let label = try RowLabels.labels(of: row.entity, keys: [row.key], in: db)[row.key] {
            return "\(row.entity.name) '\(label)'"
        }
        return "\(row.entity.name) #\(row.key)"
    }

    // MARK: Writing

    /// Runs a statement that writes rows of `entity`: a constraint it breaks is the error the app's save
    /// reports for it.
    func execute(_ sql: String, _ arguments: StatementArguments, entity: String) throws {
        do {
            try db.execute(sql: sql, arguments: arguments)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            throw StoreToolSupport.saveError(error, entityName: entity)
        }
    }

    /// Refuses an edit that leaves links to missing rows (checked before the commit, as an import is).
    func checkForeignKeys(of runs: [StoreToolSupport.ChangeRun]) throws {
        // The tables the edit wrote: its entities' tables and their relationships' join tables. A link
        // another table has to a deleted row is the foreign key's own business (it is enforced).
        var tables: Set<String> = []
        for run in runs {
            guard let entity = description.entity(named: run.entity) else { continue }
            tables.insert(entity.table)
            for relationship in entity.relationships { if let table = relationship.storage.table { tables.insert(table) } }
        }
        var violations: [Row] = []
        for table in tables.sorted() {
            violations += try Row.fetchAll(db, sql: "PRAGMA foreign_key_check(\(StoreToolSupport.quote(table)))")
        }
        guard let first = violations.first else { return }
        let table: String = first[0] ?? "?"
        let key: Int64? = first[1]
        let destination: String = first[2] ?? "?"
        throw ToolError(
            "the edit would leave \(violations.count) row(s) linking to missing rows (the first: \(table) \(key.map(String.init) ?? "?") links to a missing \(destination)); nothing was written")
    }

    /// Refuses an edit that leaves a row it changed (or one that lost related rows to its deletions) with
    /// fewer or more related rows than a to-many relationship's `minimumModelCount` /
    /// `maximumModelCount`, as the app's save does, with its error.
    func checkRelationshipCounts() throws {
        let limited = description.entities.contains { entity in
            entity.relationships.contains { ($0.minimumCount ?? 0) > 0 || ($0.maximumCount ?? 0) > 0 }
        }
        guard limited else { return }
        var seen = Set<StoredRow>()
        for row in countCandidates where seen.insert(row).inserted && !log.isDeleted(row) {
            for relationship in row.entity.relationships where relationship.isToMany {
                let minimum = relationship.minimumCount ?? 0
                let maximum = relationship.maximumCount ?? 0
                guard minimum > 0 || maximum > 0 else { continue }
                let count = try relatedRows(of: row, through: relationship).count
                if (minimum > 0 && count < minimum) || (maximum > 0 && count > maximum) {
                    throw StoreToolSupport.relationshipCount(
                        entity: row.entity.name, key: row.key, relationship: relationship.name, count: count, minimum: minimum, maximum: maximum)
                }
            }
        }
    }
}
