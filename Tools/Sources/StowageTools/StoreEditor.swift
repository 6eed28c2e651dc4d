import Foundation
import GRDB
import StowageCore

/// Edits a store without its app's models, as a save of the app would: every edit is one write
/// transaction, checked against the store's description, applying the app's delete rules and upserts,
/// and recorded in the store's history, so that a running app sees it.
///
/// ```swift
/// let editor = StoreEditor(try StoreReader(path: path, writable: true))
/// let outcome = try editor.apply([
///     .update(entity: "Budget", key: 7, values: ["limit": .number("450")]),
///     .delete(entity: "Transaction", key: 12),
/// ])
/// print(outcome.transaction)   // the history token of the edit
/// ```
///
/// What it does as the app's save does:
/// - Values are the JSON `stowage export` writes (``StoredValues``), checked against each attribute's
///   type, optionality and, for an enumeration, its raw values. To-one relationships take the related
///   row's key, or `null`; to-many relationships an array of the related rows' keys (each once).
/// - An insert whose unique values (`.unique`, `#Unique`) are a stored row's updates that row (SwiftData's
///   upsert), and reports its key. An update that gives a row another row's unique values fails with
///   the app's `StowageError` (`.constraintViolation`, the same message). Strings compare by their
///   canonical form, as the store's unique indexes do.
/// - A deletion applies the delete rules as the app does: `.cascade` deletes related rows (and theirs),
///   `.nullify` clears the links to the row, `.deny` refuses while related rows remain
///   (`StowageError` `.deleteDenied`, the app's message), `.noAction` leaves the related rows (their
///   link columns are still cleared by the store's foreign keys, as in the app: a link to a missing row
///   cannot stay). Rows of class hierarchies, their `_entity` column and external-storage side tables
///   are handled. The rows whose links a deletion clears are recorded as updated (the app's save does
///   not record them), so that a running app refreshes them.
/// - Setting a to-one relationship keeps the other side in step as the app does: an ordered to-many
///   inverse gets the row at its end (positions renumbered as the app writes them), a one-to-one
///   partner loses its previous link.
/// - Setting a to-many relationship is assigning the array: it then holds exactly those rows, in that
///   order. A join table (many-to-many, or no inverse) loses the links not listed and gets the others
///   with their positions; each related row whose own array gains the row (at its end) or loses it is
///   written again (renumbered) and recorded. A one-to-many's children are the rows listed, at their
///   places: a child that leaves gets no parent, one that comes leaves its previous parent (renumbered,
///   recorded). Count limits (`minimumModelCount`, `maximumModelCount`) are checked as the app's save
///   checks them. Relationships are set in declaration order, after the attributes.
/// - The history gets one transaction with the author, then the inserts, updates (changed properties)
///   and deletions (with the values of `.preserveValueOnDeletion` attributes), with a fresh `origin`:
///   an app with the store open (its change watcher) refreshes its contexts and observers.
///
/// What it cannot do: Swift default values are unknown to it (an insert gives every non-optional
/// attribute); it does not set a relationship that shares its inverse with others (Backyard Birds'
/// `leadingPlants` and `trailingPlants`, both `inverse: \Plant.backyard`) nor that inverse, whose links
/// the app keeps in step in memory; and it does not check `@Relationship(.unique)`, which the store's
/// description does not record.
package struct StoreEditor: Sendable {
    /// The store, opened for writing.
    package let reader: StoreReader

    /// An editor of the store `reader` opened: one opened read-only only reads (``deletePlan(entity:key:)``,
    /// ``label(entity:key:)``).
    package init(_ reader: StoreReader) {
        self.reader = reader
    }

    /// One change of an edit.
    package enum Change: Sendable {
        /// Sets attributes of the row `key` (by name, JSON as `stowage export` writes it) and
        /// relationships (by name): a to-one to the related row's key as a number, or `null`; a to-many
        /// to an array of the related rows' keys (`[3, 5]`, each once), which it then holds exactly, an
        /// ordered one in this order, as assigning the model's array does.
        case update(entity: String, key: Int64, values: [String: JSONValue])
        /// Inserts a row with these attributes (every non-optional one) and relationships (as in
        /// ``update(entity:key:values:)``); an insert with a stored row's unique values updates that row.
        /// As in the app, such an upsert's lists replace the row's join-table links, but the row keeps
        /// the children (one-to-many) it had besides those listed.
        case insert(entity: String, values: [String: JSONValue])
        /// Deletes the row `key` and what its delete rules take with it.
        case delete(entity: String, key: Int64)
        /// Adds the row `row` to the to-many `relationship` of the row `key`, as appending it to the
        /// model's array does (at the end of an ordered one). The list is read in the edit's own
        /// transaction, so a change another process saved to it just before is kept. A row the list
        /// holds already is refused (where the app's `append` would leave the array as it was), so that
        /// a person adding it learns it was there.
        case append(entity: String, key: Int64, relationship: String, row: Int64)
        /// Removes the row `row` from the to-many `relationship` of the row `key`, as removing it from the
        /// model's array does (a one-to-many's child then has no parent).
        case remove(entity: String, key: Int64, relationship: String, row: Int64)
    }

    /// Keys of rows of one entity.
    package struct RowKeys: Sendable, Equatable {
        /// The entity (a subclass's rows under its own name).
        package let entity: String
        /// The rows' keys, in order.
        package let keys: [Int64]

        /// Keys of rows of `entity`.
        package init(entity: String, keys: [Int64]) {
            self.entity = entity
            self.keys = keys
        }
    }

    /// Links of rows of one entity that a deletion clears: their `relationship` no longer holds the row.
    package struct ClearedLinks: Sendable, Equatable {
        /// The entity of the rows whose links are cleared.
        package let entity: String
        /// Their relationship that loses the deleted row.
        package let relationship: String
        /// The rows' keys.
        package let keys: [Int64]
    }

    /// What an edit wrote.
    package struct Outcome: Sendable {
        /// The history transaction recording the edit: its token.
        package let transaction: Int64
        /// The key of each inserted row, in the order of the inserts: an upsert's is the updated row's.
        package let insertedKeys: [Int64]
        /// The rows deleted, by entity (a subclass's rows under its own name), directly or by cascade.
        package let deleted: [RowKeys]
        /// The rows recorded as updated (changed values or links, and links a deletion cleared), by entity.
        package let updated: [RowKeys]
    }

    /// Applies `changes` in order, in one `BEGIN IMMEDIATE` transaction recorded in the store's history
    /// as one save by `author`. Consecutive deletions are one set, as the deletions of one save are (a
    /// `.deny` relationship does not refuse a deletion whose related rows are deleted with it).
    ///
    /// Nothing is written when any change fails.
    /// - Throws: ``ToolError`` when the reader is read-only, for a change that does not fit the store (unknown entity, attribute or
    ///   row, a value of the wrong type, a missing value), naming it; `StowageError` with the app's code
    ///   and message for what the app's save refuses (`.constraintViolation`, `.deleteDenied`,
    ///   `.relationshipCount`).
    package func apply(_ changes: [Change], author: String = "stowage-studio") throws -> Outcome {
        guard reader.isWritable else {
            throw ToolError("\(reader.path) was opened read-only: open it with StoreReader(path:writable: true) to edit it")
        }
        guard !changes.isEmpty else { throw ToolError("an edit needs at least one change; nothing was written") }
        return try reader.write { db in
            var session = EditSession(db: db, description: reader.description, path: reader.path)
            var insertedKeys: [Int64] = []
            var index = 0
            while index < changes.count {
                let first = index
                do {
                    switch changes[index] {
                    case .update(let entity, let key, let values):
                        try session.update(entity: entity, key: key, values: values)
                        index += 1
                    case .insert(let entity, let values):
                        insertedKeys.append(try session.insert(entity: entity, values: values))
                        index += 1
                    case .append(let entity, let key, let relationship, let row):
                        let list = try session.list(of: entity, key: key, relationship: relationship, adding: row)
                        try session.update(entity: entity, key: key, values: [relationship: .array(list.map(JSONValue.integer))])
                        index += 1
                    case .remove(let entity, let key, let relationship, let row):
                        let list = try session.list(of: entity, key: key, relationship: relationship, removing: row)
                        try session.update(entity: entity, key: key, values: [relationship: .array(list.map(JSONValue.integer))])
                        index += 1
                    case .delete:
                        var roots: [(entity: String, key: Int64)] = []
                        while index < changes.count, case .delete(let entity, let key) = changes[index] {
                            roots.append((entity, key))
                            index += 1
                        }
                        try session.delete(roots)
                    }
                } catch let error as ToolError {
                    let which = changes.count > 1 ? "change \(first + 1) of \(changes.count) (\(changes[first].summary)): " : ""
                    throw ToolError("\(which)\(error.message); nothing was written", exitCode: error.exitCode)
                }
            }
            try session.checkRelationshipCounts()
            let runs = session.log.runs()
            try session.checkForeignKeys(of: runs)
            let transaction = try StoreToolSupport.recordTransaction(runs, author: author, in: db)
            return Outcome(
                transaction: transaction, insertedKeys: insertedKeys,
                deleted: RowKeys.grouped(runs.filter { $0.kind == .delete }), updated: RowKeys.grouped(runs.filter { $0.kind == .update }))
        }
    }

    /// What deleting the row `key` of `entity` would do, as ``apply(_:author:)`` would do it now: the rows
    /// deleted with it, the links cleared, and the `.deny` relationships that refuse it. Reads only.
    /// - Throws: ``ToolError`` for an unknown entity or row.
    package func deletePlan(entity: String, key: Int64) throws -> DeletePlan {
        try reader.read { db in
            let session = EditSession(db: db, description: reader.description, path: reader.path)
            let root = try session.requireRow(entity: try session.entity(named: entity), key: key)
            let deletion = try session.deletionSet([root])
            return try DeletePlan(deletion, root: root, session: session)
        }
    }

    /// How a row is named to a person: its entity and the value of its first `String` attribute
    /// (`Budget 'Food'`), or its key when it has none (`Budget #7`). A row of a class hierarchy is named
    /// by its own class.
    /// - Throws: ``ToolError`` for an unknown entity or row.
    package func label(entity: String, key: Int64) throws -> String {
        try reader.read { db in
            let session = EditSession(db: db, description: reader.description, path: reader.path)
            return try session.label(try session.requireRow(entity: try session.entity(named: entity), key: key))
        }
    }
}

extension StoreEditor.RowKeys {
    /// The keys of `runs`, merged by entity in the order the entities first appear.
    static func grouped(_ runs: [StoreToolSupport.ChangeRun]) -> [StoreEditor.RowKeys] {
        var order: [String] = []
        var keys: [String: [Int64]] = [:]
        for run in runs {
            if keys[run.entity] == nil { order.append(run.entity) }
            keys[run.entity, default: []] += run.keys
        }
        return order.map { StoreEditor.RowKeys(entity: $0, keys: keys[$0]!) }
    }
}

extension StoreEditor.Change {
    /// The change in a few words, for messages: `update Budget 7`.
    var summary: String {
        switch self {
        case .update(let entity, let key, _): "update \(entity) \(key)"
        case .insert(let entity, _): "insert \(entity)"
        case .delete(let entity, let key): "delete \(entity) \(key)"
        case .append(let entity, let key, let relationship, let row): "add \(row) to \(relationship) of \(entity) \(key)"
        case .remove(let entity, let key, let relationship, let row): "remove \(row) from \(relationship) of \(entity) \(key)"
        }
    }
}
