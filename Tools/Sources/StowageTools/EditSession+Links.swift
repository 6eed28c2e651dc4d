import Foundation
import GRDB
import StowageCore

extension EditSession {
    /// Sets the to-one `relationship` of `row` to `target`, as setting the model's property and saving
    /// does, with what the app's inverse maintenance writes on the other side:
    ///
    /// - a to-many inverse (a parent's children): the row leaves the array of the row it linked to and
    ///   goes at the end of `target`'s; both arrays are written again, so their positions are renumbered
    ///   from 0 as the app writes them, and both parents are recorded as updated;
    /// - a to-one inverse (one-to-one): the row that `target` was the partner of loses it.
    ///
    /// - Parameter replacing: whether the row had its link before (an update): an inserted model links
    ///   to nothing before its relationship is set, so an insert (an upsert too) leaves a previous link's
    ///   other side as it was, as the app does.
    mutating func setLink(_ relationship: StoreDescription.Relationship, of row: StoredRow, to target: StoredRow?, replacing: Bool) throws {
        guard let destination = description.entity(named: relationship.destination) else {
            throw ToolError("\(row.entity.name).\(relationship.name) leads to \(relationship.destination), which the store does not describe")
        }
        let inverse = relationship.inverse.flatMap { name in destination.relationships.first { $0.name == name } }
        let sharing = destination.relationships.filter { $0.inverse == relationship.name && $0.destination == inverse?.destination }
        guard sharing.count <= 1 else {
            throw ToolError(
                "\(row.entity.name).\(relationship.name) is the inverse of several relationships of \(destination.name) (\(sharing.map(\.name).joined(separator: ", "))), whose links the app keeps in step itself: set it in the app",
                exitCode: 64)
        }
        let pk = Self.pk
        let table = quote(row.entity.table)
        switch relationship.storage.kind {
        case "foreignKey":
            guard let column = relationship.storage.column.map(quote) else { break }
            let position = relationship.storage.positionColumn.map(quote)
            log.link(row, relationship.name)
            let old = replacing ? try relatedRows(of: row, through: relationship).first : nil
            if let inverse, inverse.isToMany {
                // The row moves from `old`'s array to the end of `target`'s; each parent whose array
                // changes is written again (keys and positions), as the app writes a changed to-many.
                func children(of parent: StoredRow) throws -> [Int64] {
                    try Int64.fetchAll(
                        db, sql: "SELECT \(pk) FROM \(table) WHERE \(column) = ? ORDER BY \(position.map { "\($0), " } ?? "")\(pk)", arguments: [parent.key])
                }
                func write(_ children: [Int64], of parent: StoredRow) throws {
                    for (index, child) in children.enumerated() {
                        try execute(
                            "UPDATE \(table) SET \(column) = ?\(position.map { ", \($0) = ?" } ?? "") WHERE \(pk) = ?",
                            StatementArguments([parent.key.databaseValue] + (position == nil ? [] : [Int64(index).databaseValue]) + [child.databaseValue]),
                            entity: row.entity.name)
                    }
                }
                if let old, old != target {
                    try write(try children(of: old).filter { $0 != row.key }, of: old)
                    log.link(old, inverse.name)
                    countCandidates.append(old)
                }
                if let target, target == old {
                    // Linked again to its parent: the app writes the row's link and its place in the array.
                    let index = try children(of: target).firstIndex(of: row.key) ?? 0
                    try execute(
                        "UPDATE \(table) SET \(column) = ?\(position.map { ", \($0) = ?" } ?? "") WHERE \(pk) = ?",
                        StatementArguments([target.key.databaseValue] + (position == nil ? [] : [Int64(index).databaseValue]) + [row.key.databaseValue]),
                        entity: row.entity.name)
                } else if let target {
                    try write(try children(of: target).filter { $0 != row.key } + [row.key], of: target)
                    log.link(target, inverse.name)
                    countCandidates.append(target)
                } else {
                    try execute(
                        "UPDATE \(table) SET \(column) = NULL\(position.map { ", \($0) = NULL" } ?? "") WHERE \(pk) = ?", [row.key], entity: row.entity.name)
                }
                return
            }
            try execute(
                "UPDATE \(table) SET \(column) = ?\(position.map { ", \($0) = NULL" } ?? "") WHERE \(pk) = ?", [target?.key, row.key], entity: row.entity.name)
            if inverse != nil, let target {
                // One-to-one: the row `target` was the partner of loses it (the app sets its link to nil).
                let entityColumn = row.entity.entityColumnValues != nil ? ", \(quote(StoreToolSupport.entityColumn))" : ""
                let previous = try storedRows(
                    "SELECT \(pk)\(entityColumn) FROM \(table) WHERE \(column) = ? AND \(pk) <> ? ORDER BY \(pk)", [target.key, row.key],
                    of: row.entity)
                for partner in previous {
                    try execute("UPDATE \(table) SET \(column) = NULL WHERE \(pk) = ?", [partner.key], entity: partner.entity.name)
                    log.link(partner, relationship.name)
                    countCandidates.append(partner)
                }
            }
            return
        case "inverse":
            // One-to-one, the link held by the destination's column: the app writes (and records) the
            // destination rows whose link changes, not this row.
            guard let inverse, inverse.storage.kind == "foreignKey", let column = inverse.storage.column.map(quote) else { break }
            let destinationTable = quote(destination.table)
            let old = replacing ? try relatedRows(of: row, through: relationship) : []
            for partner in old where partner != target {
                try execute("UPDATE \(destinationTable) SET \(column) = NULL WHERE \(pk) = ?", [partner.key], entity: partner.entity.name)
                log.link(partner, inverse.name)
                countCandidates.append(partner)
            }
            if let target, !old.contains(target) {
                try execute("UPDATE \(destinationTable) SET \(column) = ? WHERE \(pk) = ?", [row.key, target.key], entity: target.entity.name)
                log.link(target, inverse.name)
                countCandidates.append(target)
            }
            return
        default:
            break
        }
        throw ToolError("\(row.entity.name).\(relationship.name) is not stored in a way the editor can set (\(relationship.storage.kind))")
    }
}
