import Foundation
import GRDB
import StowageCore

/// Export and import of a whole store as JSON lines: a header, then one record per row (its entity, key,
/// values by Swift type and the keys of the rows it links to), then one record per link of each
/// many-to-many relationship.
///
/// ```
/// {"stowage":"export","format":1,"version":"2.0.0","entities":["Budget","Transaction"]}
/// {"entity":"Budget","key":1,"values":{"name":"Groceries","limit":500},"links":{}}
/// {"entity":"Transaction","key":1,"values":{"note":"Milk","amount":4.5,"date":"2026-12-07T10:00:00Z","hasReceipt":false},"links":{"budget":1}}
/// ```
package enum Transfer {
    package static let format = 1

    package enum Format: String, CaseIterable, Sendable {
        case jsonl, json, csv
    }

    /// The entities whose rows an export writes: each entity's own rows (a class hierarchy's table is
    /// read once per class, by its `_entity` column).
    static func ownRows(of entity: StoreDescription.Entity) -> StoreDescription.Entity {
        var own = entity
        if own.entityColumnValues != nil { own.entityColumnValues = [entity.name] }
        return own
    }

    static func header(_ description: StoreDescription) -> JSONValue {
        .object([
            ("stowage", .string("export")), ("format", .integer(Int64(format))), ("version", .string(description.version)),
            ("entities", .array(description.entities.map { .string($0.name) })),
        ])
    }

    /// Writes every record of the store, one JSON value each, to `emit`, reading rows as it goes.
    package static func export(_ reader: StoreReader, _ emit: (JSONValue) throws -> Void) throws {
        let description = reader.description
        try emit(header(description))
        for entity in description.entities {
            let query = RowQuery(entity: ownRows(of: entity))
            let columns = query.columns
            try query.forEachRow(in: reader) { row in
                var values: [(String, JSONValue)] = []
                var links: [(String, JSONValue)] = []
                var key: Int64 = 0
                for (column, value) in zip(columns, row) {
                    switch column.content {
                    case .key: key = Int64.fromDatabaseValue(value) ?? 0
                    case .entityName: break
                    case .attribute(let attribute): values.append((attribute.name, StoredValues.json(value, kind: attribute.kind)))
                    case .link(let relationship): links.append((relationship.name, value.isNull ? .null : .integer(Int64.fromDatabaseValue(value) ?? 0)))
                    }
                }
                try emit(.object([("entity", .string(entity.name)), ("key", .integer(key)), ("values", .object(values)), ("links", .object(links))]))
            }
            // Positions of ordered to-many links held by this entity's rows (the inverse side's order).
            for relationship in entity.relationships {
                guard relationship.storage.kind == "foreignKey", let column = relationship.storage.column,
                      let position = relationship.storage.positionColumn
                else { continue }
                try emitPositions(reader, entity: ownRows(of: entity), relationship: relationship, column: column, position: position, emit)
            }
        }
        var tables = Set<String>()
        for entity in description.entities {
            for relationship in entity.relationships where relationship.storage.kind == "joinTable" {
                guard let table = relationship.storage.table, tables.insert(table).inserted,
                      let own = relationship.storage.column, let other = relationship.storage.otherColumn,
                      let ownPosition = relationship.storage.positionColumn, let otherPosition = relationship.storage.otherPositionColumn
                else { continue }
                let sql = "SELECT \(quote(own)), \(quote(other)), \(quote(ownPosition)), \(quote(otherPosition)) FROM \(quote(table)) ORDER BY 1, 2"
                try reader.read { db in
                    let cursor = try Row.fetchCursor(db, sql: sql)
                    while let row = try cursor.next() {
                        let values: [DatabaseValue] = (0..<4).map { row[$0] }
                        try emit(.object([
                            ("link", .string("\(entity.name).\(relationship.name)")), ("key", json(values[0])), ("destinationKey", json(values[1])),
                            ("position", json(values[2])), ("inversePosition", json(values[3])),
                        ]))
                    }
                }
            }
        }
    }

    private static func json(_ value: DatabaseValue) -> JSONValue {
        Int64.fromDatabaseValue(value).map(JSONValue.integer) ?? .null
    }

    private static func emitPositions(
        _ reader: StoreReader, entity: StoreDescription.Entity, relationship: StoreDescription.Relationship, column: String, position: String,
        _ emit: (JSONValue) throws -> Void
    ) throws {
        var sql = "SELECT \(quote(StoreToolSupport.primaryKeyColumn)), \(quote(position)) FROM \(quote(entity.table)) WHERE \(quote(position)) IS NOT NULL"
        var arguments: [DatabaseValue] = []
        if let names = entity.entityColumnValues {
            sql += " AND \(quote(StoreToolSupport.entityColumn)) IN (\(names.map { _ in "?" }.joined(separator: ", ")))"
            arguments = names.map(\.databaseValue)
        }
        sql += " ORDER BY 1"
        try reader.read { db in
            let cursor = try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(arguments))
            while let row = try cursor.next() {
                try emit(.object([
                    ("position", .string("\(entity.name).\(relationship.name)")), ("key", json(row[0])), ("value", json(row[1])),
                ]))
            }
        }
    }

    // MARK: Import

    /// What an import wrote.
    package struct ImportSummary: Sendable {
        package let rows: [(entity: String, count: Int)]
        package let links: Int
        /// The history transaction recording the import.
        package let transaction: Int64
        /// The tables whose keys were moved past the store's own (keys kept otherwise).
        package let movedTables: [String]
    }

    /// Reads an export's records one at a time, twice: once to check every record against the store's
    /// description, then to write them all in one transaction, recorded in the store's history.
    /// Nothing is written when any record is refused, or when a row breaks a uniqueness constraint or
    /// links to a row that is neither in the file nor in the store.
    /// - Parameter records: calls its argument with each record of the file, in order, with its line.
    package static func `import`(
        into reader: StoreReader, author: String = "stowage-import",
        records: (_ body: (JSONValue, Int) throws -> Void) throws -> Void
    ) throws -> ImportSummary {
        let description = reader.description
        // Pass 1: every record checked, and each table's range of keys.
        var ranges: [String: ClosedRange<Int64>] = [:]
        var sawHeader = false
        try records { record, line in
            do {
                if record["stowage"] != nil {
                    guard record["stowage"] == .string("export"), case .number(let text)? = record["format"], let number = Int(text), number <= format else {
                        throw ToolError("not a Stowage export header, or a newer format")
                    }
                    sawHeader = true
                    return
                }
                guard sawHeader else { throw ToolError("the file does not start with a Stowage export header") }
                let plan = try RecordPlan(record, description)
                if let key = plan.key {
                    let range = ranges[plan.table].map { min($0.lowerBound, key)...max($0.upperBound, key) } ?? key...key
                    ranges[plan.table] = range
                }
            } catch let error as ToolError {
                throw ToolError("line \(line): \(error.message); nothing was imported", exitCode: 65)
            }
        }
        guard sawHeader else { throw ToolError("the file is empty: nothing was imported", exitCode: 65) }
        // Pass 2: one transaction.
        return try reader.write { db in
            var offsets: [String: Int64] = [:]
            var moved: [String] = []
            let pk = quote(StoreToolSupport.primaryKeyColumn)
            for (table, range) in ranges {
                let overlaps = try Bool.fetchOne(
                    db, sql: "SELECT EXISTS (SELECT 1 FROM \(quote(table)) WHERE \(pk) BETWEEN ? AND ?)", arguments: [range.lowerBound, range.upperBound]) ?? false
                guard overlaps else { continue }
                let existing = try Int64.fetchOne(db, sql: "SELECT max(\(pk)) FROM \(quote(table))") ?? 0
                offsets[table] = existing - range.lowerBound + 1
                moved.append(table)
            }
            var inserted: [String: [Int64]] = [:]
            var order: [String] = []
            var links = 0
            try records { record, line in
                guard record["stowage"] == nil else { return }
                do {
                    let plan = try RecordPlan(record, description)
                    try plan.write(db, offsets: offsets, description: description)
                    switch plan.kind {
                    case .link: links += 1
                    case .position: break
                    case .row:
                        if inserted[plan.entity] == nil { order.append(plan.entity) }
                        inserted[plan.entity, default: []].append(plan.key! + (offsets[plan.table] ?? 0))
                    }
                } catch let error as DatabaseError {
                    throw ToolError("line \(line): \(error.message ?? "\(error)"); nothing was imported", exitCode: 65)
                } catch let error as ToolError {
                    throw ToolError("line \(line): \(error.message); nothing was imported", exitCode: 65)
                }
            }
            let violations = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
            if let first = violations.first {
                let table: String = first[0] ?? "?"
                // The key the row has in the file (before it was moved past the store's own).
                let key = (first[1] as Int64?).map { $0 - (offsets[table] ?? 0) }
                let destination: String = first[2] ?? "?"
                throw ToolError(
                    "\(violations.count) imported row(s) link to rows that are neither in the file nor in the store (the first: \(table) \(key.map(String.init) ?? "?") of the file links to a missing \(destination)); nothing was imported",
                    exitCode: 65)
            }
            let transaction = try StoreToolSupport.recordTransaction(
                order.map { StoreToolSupport.ChangeRun(kind: .insert, entity: $0, keys: inserted[$0]!) }, author: author, in: db)
            return ImportSummary(rows: order.map { ($0, inserted[$0]!.count) }, links: links, transaction: transaction, movedTables: moved.sorted())
        }
    }

    /// One record of an export, checked against the store's description.
    struct RecordPlan {
        enum Kind {
            case row(StoreDescription.Entity, [(StoreDescription.Attribute, DatabaseValue)], [(StoreDescription.Relationship, Int64?)])
            case position(StoreDescription.Entity, StoreDescription.Relationship, Int64)
            case link(StoreDescription.Entity, StoreDescription.Relationship, Int64, Int64, Int64?, Int64?)
        }

        let kind: Kind
        let entity: String
        let table: String
        /// The row's key (rows only).
        let key: Int64?

        init(_ record: JSONValue, _ description: StoreDescription) throws {
            func integer(_ value: JSONValue?, _ what: String) throws -> Int64? {
                switch value {
                case nil, .null?: return nil
                case .number(let text)?:
                    guard let number = Int64(text) else { throw ToolError("\(what) is not a key") }
                    return number
                default: throw ToolError("\(what) is not a key")
                }
            }
            func entityAndRelationship(_ path: JSONValue?) throws -> (StoreDescription.Entity, StoreDescription.Relationship) {
                guard case .string(let text)? = path, let dot = text.firstIndex(of: ".") else { throw ToolError("a link record names Entity.relationship") }
                guard let entity = description.entity(named: String(text[..<dot])) else { throw ToolError("the store has no entity \(text[..<dot])") }
                guard let relationship = entity.relationships.first(where: { $0.name == text[text.index(after: dot)...] }) else {
                    throw ToolError("\(entity.name) has no relationship \(text[text.index(after: dot)...])")
                }
                return (entity, relationship)
            }
            if record["link"] != nil {
                let (entity, relationship) = try entityAndRelationship(record["link"])
                guard relationship.storage.kind == "joinTable", let table = relationship.storage.table else {
                    throw ToolError("\(entity.name).\(relationship.name) is not a many-to-many relationship")
                }
                guard let key = try integer(record["key"], "key"), let destination = try integer(record["destinationKey"], "destinationKey") else {
                    throw ToolError("a link needs key and destinationKey")
                }
                kind = .link(entity, relationship, key, destination, try integer(record["position"], "position"), try integer(record["inversePosition"], "inversePosition"))
                self.entity = entity.name
                self.table = table
                self.key = nil
                return
            }
            if record["position"] != nil, record["entity"] == nil {
                let (entity, relationship) = try entityAndRelationship(record["position"])
                guard let key = try integer(record["key"], "key") else { throw ToolError("a position needs a key") }
                kind = .position(entity, relationship, try integer(record["value"], "value") ?? 0)
                self.entity = entity.name
                self.table = entity.table
                self.key = key
                return
            }
            guard case .string(let name)? = record["entity"] else { throw ToolError("a record needs an entity, a link or a position") }
            guard let entity = description.entity(named: name) else { throw ToolError("the store has no entity \(name)") }
            guard let key = try integer(record["key"], "key"), key > 0 else { throw ToolError("a row needs a positive key") }
            guard case .object(let values)? = record["values"] else { throw ToolError("a row needs values") }
            var stored: [(StoreDescription.Attribute, DatabaseValue)] = []
            for attribute in entity.attributes {
                guard let value = values.first(where: { $0.0 == attribute.name })?.1 else {
                    if attribute.isOptional { stored.append((attribute, .null)); continue }
                    throw ToolError("\(name) \(key) has no value for \(attribute.name)")
                }
                stored.append((attribute, try StoredValues.stored(value, for: attribute)))
            }
            if let unknown = values.first(where: { member in !entity.attributes.contains { $0.name == member.0 } }) {
                throw ToolError("\(name) has no attribute \(unknown.0)")
            }
            var links: [(StoreDescription.Relationship, Int64?)] = []
            if case .object(let members)? = record["links"] {
                for (linkName, value) in members {
                    guard let relationship = entity.relationships.first(where: { $0.name == linkName }), relationship.storage.kind == "foreignKey" else {
                        throw ToolError("\(name) has no to-one relationship \(linkName)")
                    }
                    links.append((relationship, try integer(value, linkName)))
                }
            }
            kind = .row(entity, stored, links)
            self.entity = entity.name
            self.table = entity.table
            self.key = key
        }

        /// Writes the record.
        func write(_ db: Database, offsets: [String: Int64], description: StoreDescription) throws {
            let pk = quote(StoreToolSupport.primaryKeyColumn)
            func moved(_ key: Int64?, in entity: String) -> Int64? {
                guard let key else { return nil }
                let table = description.entity(named: entity)?.table ?? entity
                return key + (offsets[table] ?? 0)
            }
            switch kind {
            case .row(let entity, let values, let links):
                let key = moved(self.key, in: entity.name)!
                var columns = [pk]
                var arguments: [DatabaseValue] = [key.databaseValue]
                if entity.entityColumnValues != nil {
                    columns.append(quote(StoreToolSupport.entityColumn))
                    arguments.append(entity.name.databaseValue)
                }
                var external: [(String, DatabaseValue)] = []
                for (attribute, value) in values {
                    if let side = attribute.externalTable {
                        external.append((side, value))
                    } else {
                        columns.append(quote(attribute.name))
                        arguments.append(value)
                    }
                }
                for (relationship, target) in links {
                    columns.append(quote(relationship.storage.column ?? relationship.name))
                    arguments.append(moved(target, in: relationship.destination)?.databaseValue ?? .null)
                }
                try db.execute(
                    sql: "INSERT INTO \(quote(entity.table)) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
                    arguments: StatementArguments(arguments))
                for (side, value) in external where !value.isNull {
                    try db.execute(sql: "INSERT INTO \(quote(side)) (\(pk), \"value\") VALUES (?, ?)", arguments: [key, value])
                }
            case .position(let entity, let relationship, let value):
                guard let column = relationship.storage.positionColumn else { return }
                try db.execute(
                    sql: "UPDATE \(quote(entity.table)) SET \(quote(column)) = ? WHERE \(pk) = ?",
                    arguments: [value, moved(key, in: entity.name)])
            case .link(let entity, let relationship, let key, let destination, let position, let inversePosition):
                let storage = relationship.storage
                try db.execute(
                    sql: "INSERT INTO \(quote(table)) (\(quote(storage.column!)), \(quote(storage.otherColumn!)), \(quote(storage.positionColumn!)), \(quote(storage.otherPositionColumn!))) VALUES (?, ?, ?, ?)",
                    arguments: [moved(key, in: entity.name), moved(destination, in: relationship.destination), position, inversePosition])
            }
        }
    }
}

/// The lines of a file, read a block at a time.
package struct LineReader: Sequence, IteratorProtocol {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var start = 0
    private var atEnd = false

    package init(path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw ToolError("cannot read \(path)") }
        self.handle = handle
    }

    package mutating func next() -> String? {
        var searched = start
        while true {
            if let newline = buffer[searched...].firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[start..<newline], as: UTF8.self)
                start = newline + 1
                return line
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                defer { start = buffer.count }
                return String(decoding: buffer[start...], as: UTF8.self)
            }
            buffer.removeSubrange(0..<start)
            start = 0
            searched = buffer.count
            let block = (try? handle.read(upToCount: 1 << 16)) ?? nil
            if let block, !block.isEmpty { buffer.append(contentsOf: block) } else { atEnd = true }
        }
    }
}
