import Foundation
import GRDB
import StowageCore

/// The checks of `stowage doctor`: SQLite's integrity and foreign-key checks, the recorded description
/// against the tables, each value's storage class against its attribute's column, uniqueness under
/// Swift's string equality, and the files' permissions.
package enum Doctor {
    package struct Problem: Sendable {
        package let check: String
        package let problem: String
        /// What to do about it.
        package let remedy: String

        package var json: JSONValue { .object([("check", .string(check)), ("problem", .string(problem)), ("remedy", .string(remedy))]) }
        package var text: String { "\(check): \(problem)\n    → \(remedy)" }
    }

    /// The checks run, in order.
    package static let checks = ["integrity", "foreign keys", "schema", "uniqueness", "values", "permissions"]

    package static func examine(_ reader: StoreReader) throws -> [Problem] {
        var problems: [Problem] = []
        let description = reader.description
        // Each check on its own: damage that stops one (a page SQLite cannot read) is reported as that
        // check's problem, and the others still run.
        func check(_ name: String, _ body: (Database) throws -> Void) {
            do {
                try reader.read(body)
            } catch {
                problems.append(Problem(
                    check: name, problem: "the check could not finish: \(error)",
                    remedy: "restore the store from a backup; `stowage export` of the entities that can still be read, then `stowage import` into a new store, recovers what is left"))
            }
        }
        check("integrity") { db in
            if let problem = try integrityProblem(db) { problems.append(problem) }
        }
        check("foreign keys") { db in
            let violations = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
            if let first = violations.first {
                let table: String = first[0] ?? "?"
                let key: Int64? = first[1]
                let destination: String = first[2] ?? "?"
                problems.append(Problem(
                    check: "foreign keys", problem: "\(violations.count) row(s) link to missing rows (the first: \(table) \(key.map(String.init) ?? "?") links to a missing \(destination))",
                    remedy: "a program wrote the tables without foreign keys enabled; set those links to NULL or delete the rows with `stowage sql --write`"))
            }
        }
        check("schema") { db in
            let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
            for entity in description.entities {
                guard tables.contains(entity.table) else {
                    problems.append(Problem(check: "schema", problem: "the store describes \(entity.name) but has no table \(entity.table)",
                                            remedy: "the tables were changed behind Stowage's back: restore the store from a backup"))
                    continue
                }
                let columns = Dictionary(
                    try Row.fetchAll(db, sql: "PRAGMA table_info(\(quote(entity.table)))").map { row -> (String, String) in (row["name"], row["type"]) },
                    uniquingKeysWith: { a, _ in a })
                for attribute in entity.attributes {
                    if let side = attribute.externalTable {
                        if !tables.contains(side) {
                            problems.append(Problem(check: "schema", problem: "\(entity.name).\(attribute.name) is stored in \(side), which is missing",
                                                    remedy: "restore the store from a backup"))
                        }
                        continue
                    }
                    guard let type = columns[attribute.name] else {
                        problems.append(Problem(check: "schema", problem: "\(entity.name).\(attribute.name) has no column in table \(entity.table)",
                                                remedy: "the table was changed behind Stowage's back: restore the store from a backup"))
                        continue
                    }
                    if type.uppercased() != attribute.column {
                        problems.append(Problem(check: "schema", problem: "\(entity.name).\(attribute.name) is a \(type) column, but a \(attribute.type) is stored as \(attribute.column)",
                                                remedy: "open the store with your app, which migrates it, or restore it from a backup"))
                    }
                    // A value the app cannot read: NULL in a non-optional attribute (a column that lost its
                    // NOT NULL), among this entity's own rows.
                    if !attribute.isOptional {
                        var sql = "SELECT count(*) FROM \(quote(entity.table)) WHERE \(quote(attribute.name)) IS NULL"
                        var arguments: [DatabaseValue] = []
                        if entity.entityColumnValues != nil {
                            sql += " AND \(quote(StoreToolSupport.entityColumn)) = ?"
                            arguments = [entity.name.databaseValue]
                        }
                        let missing = try Int64.fetchOne(db, sql: sql, arguments: StatementArguments(arguments)) ?? 0
                        if missing > 0 {
                            problems.append(Problem(
                                check: "schema", problem: "\(missing) \(entity.name) row(s) have no \(attribute.name), which is a non-optional \(attribute.type): the app cannot read them",
                                remedy: "give them a value with `stowage sql --write \"UPDATE \\\"\(entity.table)\\\" SET \\\"\(attribute.name)\\\" = … WHERE \\\"\(attribute.name)\\\" IS NULL\"`, or restore the store from a backup"))
                        }
                    }
                }
                for relationship in entity.relationships {
                    if relationship.storage.kind == "foreignKey", let column = relationship.storage.column, columns[column] == nil {
                        problems.append(Problem(check: "schema", problem: "\(entity.name).\(relationship.name) has no key column \(column)", remedy: "restore the store from a backup"))
                    }
                    if relationship.storage.kind == "joinTable", let table = relationship.storage.table, !tables.contains(table) {
                        problems.append(Problem(check: "schema", problem: "\(entity.name).\(relationship.name) has no join table \(table)", remedy: "restore the store from a backup"))
                    }
                }
                // Uniqueness as Swift sees it: strings equal by canonical equivalence are one value.
                guard entity.superentity == nil else { continue }
                for group in entity.uniqueness {
                    let keys = group.map { name -> String in
                        let attribute = entity.attributes.first { $0.name == name }
                        return attribute?.kind == .string ? "\(StoreToolSupport.textKeyFunction)(\(quote(name)))" : quote(name)
                    }
                    guard group.allSatisfy({ name in columns[name] != nil }) else { continue }
                    let duplicates = try Int64.fetchOne(
                        db, sql: "SELECT count(*) FROM (SELECT 1 FROM \(quote(entity.table)) GROUP BY \(keys.joined(separator: ", ")) HAVING count(*) > 1)") ?? 0
                    if duplicates > 0 {
                        problems.append(Problem(
                            check: "uniqueness", problem: "\(entity.name) has \(duplicates) value(s) of (\(group.joined(separator: ", "))) held by more than one row, although they are unique",
                            remedy: "the string index was built by another version of Unicode's normalization, or the table was written without Stowage's functions; find them with `stowage sql` and rename or delete the duplicates with `stowage sql --write`, then REINDEX"))
                    }
                }
            }
        }
        check("values") { db in problems += try valueProblems(description, db, path: reader.path) }
        problems += permissionProblems(reader.path)
        return problems
    }

    /// The storage classes (SQLite's `typeof`) a column of each type holds when Stowage wrote it: SQLite
    /// does not enforce column types, so a value written by another program can be of any class. A
    /// `REAL` column also holds integers, which the app reads as numbers.
    static let storageClasses: [String: [String]] = ["INTEGER": ["integer"], "REAL": ["real", "integer"], "TEXT": ["text"], "BLOB": ["blob"]]

    /// Values stored with another storage class than their attribute's column type: text in a `Double`,
    /// a blob in a `String`, a fraction in an `Int`. The app fails to read most of them
    /// (`.invalidStoredValue`). One scan of each table.
    static func valueProblems(_ description: StoreDescription, _ db: Database, path: String) throws -> [Problem] {
        let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
        var problems: [Problem] = []
        // A class hierarchy's entities share their root's table: each column once, named by the entity
        // that declares it (the highest superentity that has it).
        var order: [String] = []
        var columnsByTable: [String: [(entity: String, attribute: StoreDescription.Attribute)]] = [:]
        for entity in description.entities where tables.contains(entity.table) {
            if columnsByTable[entity.table] == nil { order.append(entity.table) }
            for attribute in entity.attributes where attribute.externalTable == nil && storageClasses[attribute.column] != nil {
                if columnsByTable[entity.table, default: []].contains(where: { $0.attribute.name == attribute.name }) { continue }
                var declaring = entity
                while let name = declaring.superentity, let superentity = description.entity(named: name),
                      superentity.attributes.contains(where: { $0.name == attribute.name }) {
                    declaring = superentity
                }
                columnsByTable[entity.table, default: []].append((declaring.name, attribute))
            }
        }
        for table in order {
            let existing = Set(try Row.fetchAll(db, sql: "PRAGMA table_info(\(quote(table)))").map { row -> String in row["name"] })
            let columns = (columnsByTable[table] ?? []).filter { existing.contains($0.attribute.name) }
            guard !columns.isEmpty else { continue }
            func condition(_ attribute: StoreDescription.Attribute) -> String {
                let allowed = (["null"] + storageClasses[attribute.column]!).map { "'\($0)'" }.joined(separator: ", ")
                return "typeof(\(quote(attribute.name))) NOT IN (\(allowed))"
            }
            let counts = try Row.fetchOne(
                db, sql: "SELECT " + columns.map { "coalesce(sum(\(condition($0.attribute))), 0)" }.joined(separator: ", ") + " FROM \(quote(table))")
            for (index, column) in columns.enumerated() {
                let count: Int64 = counts?[index] ?? 0
                guard count > 0 else { continue }
                let attribute = column.attribute
                let found = "SELECT \(quote(StoreToolSupport.primaryKeyColumn)), \(quote(attribute.name)), typeof(\(quote(attribute.name))) FROM \(quote(table)) WHERE \(condition(attribute))"
                problems.append(Problem(
                    check: "values",
                    problem: "\(count) value(s) of \(column.entity).\(attribute.name), a \(attribute.type), are not stored as \(attribute.column) as Stowage stores them (another program wrote them): the app may fail to read them",
                    remedy: "see them with `stowage sql \(shellWord(path)) \(shellWord(found))`, then correct them with `stowage sql --write`, or restore the store from a backup"))
            }
        }
        return problems
    }

    /// SQLite's integrity check, as a problem (at most three of its messages) or `nil` when it finds none.
    static func integrityProblem(_ db: Database) throws -> Problem? {
        // SQLite returns its messages in rows, several a row, one a line.
        let messages = try String.fetchAll(db, sql: "PRAGMA integrity_check").flatMap { $0.split(separator: "\n").map(String.init) }
            .filter { !$0.hasPrefix("*** in database") }
        guard messages != ["ok"] else { return nil }
        return Problem(
            check: "integrity", problem: "SQLite found damage: " + messages.prefix(3).joined(separator: "; ") + (messages.count > 3 ? " (and \(messages.count - 3) more)" : ""),
            remedy: "restore the store from a backup; `stowage export` then `stowage import` into a new store recovers the rows that can still be read")
    }

    /// The checks that can run on a store too damaged to open as one (its metadata cannot be read).
    package static func examineDamaged(path: String) -> [Problem] {
        var problems: [Problem]
        do {
            let queue = try StoreReader.open(path: path, writable: false)
            problems = try queue.read { db in try integrityProblem(db).map { [$0] } ?? [] }
        } catch {
            problems = []
        }
        if problems.isEmpty {
            problems.append(Problem(
                check: "integrity", problem: "SQLite cannot read the store's metadata: the file is damaged",
                remedy: "restore the store from a backup"))
        }
        return problems + permissionProblems(path)
    }

    /// `text` as one word of a POSIX shell: as it is when it needs no quoting, else in double quotes
    /// (SQL's own quotes stay readable).
    static func shellWord(_ text: String) -> String {
        let plain = text.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "/._-+:,@%".unicodeScalars.contains($0) }
        if plain && !text.isEmpty { return text }
        var quoted = "\""
        for character in text {
            if "\\\"$`".contains(character) { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\""
    }

    static func permissionProblems(_ path: String) -> [Problem] {
        var problems: [Problem] = []
        let directory = (URL(fileURLWithPath: path).standardizedFileURL.path as NSString).deletingLastPathComponent
        if access(path, W_OK) != 0 {
            problems.append(Problem(check: "permissions", problem: "\(path) cannot be written by this user",
                                    remedy: "the app can only open it read-only (allowsSave: false); give the app's user write access (chown or chmod u+w)"))
        }
        if access(directory, W_OK) != 0 {
            problems.append(Problem(check: "permissions", problem: "the directory \(directory) cannot be written by this user, and SQLite creates the store's -wal and -shm files there",
                                    remedy: "give the app's user write access to the directory, or move the store"))
        }
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) && access(path + suffix, W_OK) != 0 {
            problems.append(Problem(check: "permissions", problem: "\(path)\(suffix) cannot be written by this user (another user opened the store)",
                                    remedy: "run the app as the user who owns the store, or chown the \(suffix) file to that user"))
        }
        if let attributes = try? FileManager.default.attributesOfItem(atPath: path), let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue, mode & 0o002 != 0 {
            problems.append(Problem(check: "permissions", problem: "\(path) can be written by every user of this machine", remedy: "chmod o-w \(path)"))
        }
        return problems
    }
}
