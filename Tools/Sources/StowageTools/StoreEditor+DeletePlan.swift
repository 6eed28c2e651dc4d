import Foundation
import StowageCore

extension StoreEditor {
    /// What deleting one row would do, worked out as the app's save works it out (see
    /// ``StoreEditor/deletePlan(entity:key:)``): what to show before a person confirms a deletion.
    ///
    /// ```swift
    /// let plan = try editor.deletePlan(entity: "Budget", key: 3)
    /// print(plan.summary)   // Deleting Budget 'Food' also deletes 12 Transaction rows.
    /// ```
    package struct DeletePlan: Sendable {
        /// The row's own entity (a subclass's row by its class).
        package let entity: String
        /// The row's key.
        package let key: Int64
        /// The row as a person reads it (``StoreEditor/label(entity:key:)``).
        package let label: String
        /// The rows the deletion removes, by entity, the row itself first: its cascades, transitively.
        package let deletions: [RowKeys]
        /// The links of rows that stay that the deletion clears, by entity and relationship.
        package let clearedLinks: [ClearedLinks]
        /// The `.deny` relationships that refuse the deletion: nothing is deleted while any remains.
        package let denials: [Denial]
        /// One or two sentences: what the deletion also deletes and clears, or why it is refused.
        package let summary: String

        /// Whether a `.deny` relationship refuses the deletion.
        package var isDenied: Bool { !denials.isEmpty }
        /// How many rows the deletion removes, the row itself included.
        package var deletedCount: Int { deletions.reduce(0) { $0 + $1.keys.count } }
    }

    /// A `.deny` relationship of a row the deletion would remove (the row itself or one it cascades to)
    /// that still links to rows.
    package struct Denial: Sendable, Equatable {
        /// The entity of the row whose relationship refuses (its own class).
        package let entity: String
        /// The row's key.
        package let key: Int64
        /// The row as a person reads it.
        package let label: String
        /// The `.deny` relationship.
        package let relationship: String
        /// The rows it links to, by entity.
        package let related: [RowKeys]
    }
}

extension StoreEditor.DeletePlan {
    /// The plan of a deletion set worked out for `root` alone, with the labels of its rows.
    init(_ deletion: EditSession.DeletionSet, root: StoredRow, session: EditSession) throws {
        entity = root.entity.name
        key = root.key
        label = try session.label(root)
        deletions = Self.grouped(deletion.rows)
        var cleared: [StoreEditor.ClearedLinks] = []
        for (row, relationship) in deletion.cleared {
            if let index = cleared.firstIndex(where: { $0.entity == row.entity.name && $0.relationship == relationship }) {
                cleared[index] = StoreEditor.ClearedLinks(entity: row.entity.name, relationship: relationship, keys: cleared[index].keys + [row.key])
            } else {
                cleared.append(StoreEditor.ClearedLinks(entity: row.entity.name, relationship: relationship, keys: [row.key]))
            }
        }
        clearedLinks = cleared
        denials = try deletion.denials.map { denial in
            StoreEditor.Denial(
                entity: denial.row.entity.name, key: denial.row.key, label: try session.label(denial.row), relationship: denial.relationship.name,
                related: Self.grouped(denial.related))
        }
        summary = Self.summary(
            label: label, root: root, deletions: deletions, cleared: clearedLinks, denials: denials,
            verbs: deletion.denials.map { $0.relationship.isToMany ? "deny" : "denies" })
    }

    /// The keys of `rows` by entity, in the order the entities first appear.
    static func grouped(_ rows: [StoredRow]) -> [StoreEditor.RowKeys] {
        var order: [String] = []
        var keys: [String: [Int64]] = [:]
        for row in rows {
            if keys[row.entity.name] == nil { order.append(row.entity.name) }
            keys[row.entity.name, default: []].append(row.key)
        }
        return order.map { StoreEditor.RowKeys(entity: $0, keys: keys[$0]!) }
    }

    /// `12 Transaction rows`, `1 Transaction row`.
    static func rows(_ count: Int, _ entity: String) -> String { "\(count) \(entity) row\(count == 1 ? "" : "s")" }

    /// `a`, `a and b`, `a, b and c`.
    static func list(_ items: [String]) -> String {
        items.count <= 1 ? items.first ?? "" : items.dropLast().joined(separator: ", ") + " and " + items.last!
    }

    /// The plan's ``summary``: why it is refused (the first denial, and the others by name), or what it
    /// also deletes and clears. `verbs` holds each denial's verb (`deny` for a to-many, `denies`).
    static func summary(
        label: String, root: StoredRow, deletions: [StoreEditor.RowKeys], cleared: [StoreEditor.ClearedLinks], denials: [StoreEditor.Denial],
        verbs: [String]
    ) -> String {
        if let denial = denials.first {
            let related = list(denial.related.map { rows($0.keys.count, $0.entity) })
            let reason = "\(denial.relationship) \(verbs[0]) deletion while it has \(related)"
            var text = denial.entity == root.entity.name && denial.key == root.key
                ? "\(label) cannot be deleted: its \(reason)."
                : "\(label) cannot be deleted: it would delete \(denial.label), whose \(reason)."
            if denials.count > 1 {
                text += " Also refused by " + list(denials.dropFirst().map { "\($0.label)'s \($0.relationship)" }) + "."
            }
            return text
        }
        let others = deletions.compactMap { group -> String? in
            let count = group.keys.filter { !(group.entity == root.entity.name && $0 == root.key) }.count
            return count == 0 ? nil : rows(count, group.entity)
        }
        let clears = cleared.map { "the \($0.relationship) of \(rows($0.keys.count, $0.entity))" }
        switch (others.isEmpty, clears.isEmpty) {
        case (true, true): return "Deleting \(label) changes no other row."
        case (false, true): return "Deleting \(label) also deletes \(list(others))."
        case (true, false): return "Deleting \(label) clears \(list(clears))."
        case (false, false): return "Deleting \(label) also deletes \(list(others)), and clears \(list(clears))."
        }
    }
}
