import Foundation
import GRDB
import StowageCore

/// What an edit changed, recorded as the app's save records its changes (`SQLiteHistory.records`):
/// the inserts by entity, then the updates — rows whose attributes changed (with the relationships
/// they changed too), then rows whose only changes are links — then the deletions with the values of
/// their `.preserveValueOnDeletion` attributes. Consecutive changes of one kind to one entity (for
/// updates, of the same properties) are one run.
struct EditLog {
    /// Inserted rows, in order; `isNew` is false for an upsert's stored row.
    private var inserts: [(row: StoredRow, isNew: Bool)] = []
    /// Updated rows, in the order they were first changed.
    private var updateOrder: [StoredRow] = []
    /// The attributes set on each updated row.
    private var attributes: [StoredRow: Set<String>] = [:]
    /// The relationships written on each updated row.
    private var links: [StoredRow: Set<String>] = [:]
    /// Deleted rows, in order, with their preserved values.
    private var deletes: [(row: StoredRow, preserved: [DatabaseValue])] = []
    /// Every row the edit deleted (an inserted one too).
    private var deleted = Set<StoredRow>()

    /// Records an insert; `isNew` is false for an upsert, which updated a stored row.
    mutating func insert(_ row: StoredRow, isNew: Bool) {
        inserts.append((row, isNew))
    }

    /// Records that attributes of a stored row were set.
    mutating func update(_ row: StoredRow, attributes names: [String]) {
        note(row)
        attributes[row, default: []].formUnion(names)
    }

    /// Records that a relationship of a stored row was written. An inserted row's are part of its insert,
    /// unless `upserted` says that the stored row an insert updated changed as the app's model of that
    /// row (another than the inserted one): the app records that as an update too.
    mutating func link(_ row: StoredRow, _ relationship: String, upserted: Bool = false) {
        if let insert = inserts.first(where: { $0.row == row }), insert.isNew || !upserted { return }
        note(row)
        links[row, default: []].insert(relationship)
    }

    /// Records a deletion: the row's updates are not recorded (the app's save leaves out the changes of
    /// the models it deletes), and a row inserted by the same edit was never there.
    mutating func delete(_ row: StoredRow, preserved: [DatabaseValue]) {
        deleted.insert(row)
        updateOrder.removeAll { $0 == row }
        attributes[row] = nil
        links[row] = nil
        if let index = inserts.firstIndex(where: { $0.row == row }), inserts[index].isNew {
            inserts.remove(at: index)
            return
        }
        deletes.append((row, preserved))
    }

    /// Whether the edit deleted `row`.
    func isDeleted(_ row: StoredRow) -> Bool { deleted.contains(row) }

    /// Notes a row's first update, for the order of the updates.
    private mutating func note(_ row: StoredRow) {
        if attributes[row] == nil && links[row] == nil { updateOrder.append(row) }
    }

    /// The history runs of the edit, as the app's save writes them.
    func runs() -> [StoreToolSupport.ChangeRun] {
        var runs: [StoreToolSupport.ChangeRun] = []
        /// Appends a change to the last run when it continues it.
        func append(_ kind: StoreToolSupport.ChangeRun.Kind, _ row: StoredRow, _ properties: [String], values: [DatabaseValue]? = nil) {
            if let last = runs.last, last.kind == kind, last.entity == row.entity.name, last.properties == properties {
                runs[runs.count - 1] = StoreToolSupport.ChangeRun(
                    kind: kind, entity: last.entity, properties: properties, keys: last.keys + [row.key],
                    values: values.map { (last.values ?? []) + [$0] })
            } else {
                runs.append(StoreToolSupport.ChangeRun(kind: kind, entity: row.entity.name, properties: properties, keys: [row.key], values: values.map { [$0] }))
            }
        }
        for (row, _) in inserts { append(.insert, row, []) }
        // Attributes in declaration order, then relationships in theirs, as a save lists them.
        func properties(_ row: StoredRow) -> [String] {
            let changed = attributes[row] ?? []
            let linked = links[row] ?? []
            return row.entity.attributes.map(\.name).filter(changed.contains) + row.entity.relationships.map(\.name).filter(linked.contains)
        }
        for row in updateOrder where !(attributes[row] ?? []).isEmpty { append(.update, row, properties(row)) }
        for row in updateOrder where (attributes[row] ?? []).isEmpty && !(links[row] ?? []).isEmpty { append(.update, row, properties(row)) }
        for (row, preserved) in deletes {
            let names = row.entity.attributes.filter(\.preservesValueOnDeletion).map(\.name)
            append(.delete, row, names, values: names.isEmpty ? nil : preserved)
        }
        return runs
    }
}
