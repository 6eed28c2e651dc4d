import Foundation
import GRDB
import GRDBSQLite

extension SQLiteStore {
    func fetchRelated(_ relationship: Schema.Relationship, owners: [Int64], columns query: StoreQuery,
                      _ body: (Int64, StoreRow) throws -> Void) throws {
        guard !owners.isEmpty, let destination = relationship.destinationEntity,
              let fragment = SQLiteSQL.related(relationship, owners: owners, columns: query) else { return }
        let ownerIndex = Int32(1 + query.attributes.count + query.foreignKeys.count + (destination.isInHierarchy ? 1 : 0))
        try read(fragment) { statement in
            let row = StoreRow(statement: statement)
            while try SQLiteStatement.step(statement) {
                try body(sqlite3_column_int64(statement, ownerIndex), row)
            }
        }
    }

    /// Writes the links of a save's relationship writes and checks its `.unique` relationships, once
    /// every inserted row has its key.
    func writeLinks(_ changes: ChangeSet, insertedKeys: [ObjectIdentifier: Int64], _ db: Database) throws {
        var links = RelationshipLinks(insertedKeys: insertedKeys, removed: changes.removed, runner: SQLiteRunner(store: self, db: db))
        for write in changes.relationshipWrites { try links.write(write) }
        try links.checkUnique(changes.relationshipWrites)
    }
}

/// Runs the statements of a save's links on a SQLite connection.
struct SQLiteRunner: SQLStatementRunner {
    let store: SQLiteStore
    let db: Database

    func run(_ sql: String, _ arguments: [StorageValue]) throws -> Int {
        try store.execute(db, sql, arguments)
        return Int(sqlite3_changes(db.sqliteConnection))
    }

    func firstInteger(_ sql: String, _ arguments: [StorageValue]) throws -> Int64? {
        let statement = try db.cachedStatement(sql: sql).sqliteStatement
        var value: Int64?
        try SQLiteStatement.run(statement, arguments) { statement in
            if try SQLiteStatement.step(statement) { value = sqlite3_column_int64(statement, 0) }
        }
        return value
    }
}
