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
        try refuseSharedInverse(relationship, of: row.entity)
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
                if let old, old != target {
                    let children = try childKeys(of: old, through: relationship, of: row.entity).filter { $0 != row.key }
                    try writeChildren(children, of: old, through: relationship, of: row.entity)
                    log.link(old, inverse.name)
                    countCandidates.append(old)
                }
                if let target, target == old {
                    // Linked again to its parent: the app writes the row's link and its place in the array.
                    let index = try childKeys(of: target, through: relationship, of: row.entity).firstIndex(of: row.key) ?? 0
                    try writeChild(row.key, of: target, at: index, through: relationship, of: row.entity)
                } else if let target {
                    let children = try childKeys(of: target, through: relationship, of: row.entity).filter { $0 != row.key } + [row.key]
                    try writeChildren(children, of: target, through: relationship, of: row.entity)
                    log.link(target, inverse.name)
                    countCandidates.append(target)
                } else {
                    try writeChild(row.key, of: nil, at: nil, through: relationship, of: row.entity)
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

    /// The keys of `parent`'s children: the rows of `entity` whose to-one `link` (a foreign key) holds
    /// it, in the order of the parent's array (positions, then keys).
    func childKeys(of parent: StoredRow, through link: StoreDescription.Relationship, of entity: StoreDescription.Entity) throws -> [Int64] {
        guard let column = link.storage.column.map(quote) else { return [] }
        let order = link.storage.positionColumn.map { "\(quote($0)), " } ?? ""
        return try Int64.fetchAll(
            db, sql: "SELECT \(Self.pk) FROM \(quote(entity.table)) WHERE \(column) = ? ORDER BY \(order)\(Self.pk)", arguments: [parent.key])
    }

    /// Writes `children` (rows of `entity`) as `parent`'s array held by their to-one `link`: each child
    /// linked to it at its place, from 0, as the app's save writes a changed to-many held there.
    func writeChildren(_ children: [Int64], of parent: StoredRow, through link: StoreDescription.Relationship, of entity: StoreDescription.Entity) throws {
        for (index, child) in children.enumerated() {
            try writeChild(child, of: parent, at: index, through: link, of: entity)
        }
    }

    /// Writes the to-one `link` of the row `child` of `entity`: `parent` (`nil`: none) and the child's
    /// place in the parent's array (`nil`: none).
    func writeChild(_ child: Int64, of parent: StoredRow?, at index: Int?, through link: StoreDescription.Relationship, of entity: StoreDescription.Entity) throws {
        guard let column = link.storage.column.map(quote) else {
            throw ToolError("\(entity.name).\(link.name) has no link column in the store's description")
        }
        let position = link.storage.positionColumn.map(quote)
        try execute(
            "UPDATE \(quote(entity.table)) SET \(column) = ?\(position.map { ", \($0) = ?" } ?? "") WHERE \(Self.pk) = ?",
            StatementArguments([parent?.key.databaseValue ?? .null] + (position == nil ? [] : [index.map { Int64($0).databaseValue } ?? .null]) + [child.databaseValue]),
            entity: entity.name)
    }

    /// Refuses a relationship whose links the app keeps in step in ways the editor does not reproduce
    /// (``StoreEditor/refusal(toSet:of:in:)``).
    func refuseSharedInverse(_ relationship: StoreDescription.Relationship, of entity: StoreDescription.Entity) throws {
        if let reason = StoreEditor.refusal(toSet: relationship, of: entity, in: description) { throw ToolError(reason, exitCode: 64) }
    }

    /// Sets the to-many `relationship` of `row` to exactly `targets` (an ordered one in their order), as
    /// assigning the model's array and saving does, with what the app's inverse maintenance writes:
    ///
    /// - in a join table (many-to-many, or no inverse): the row's links not in `targets` go, the others
    ///   are written with their places in the array; each related row that gains or loses the row
    ///   through a to-many inverse has its own array written again (the row at its end, or without it),
    ///   so its positions are renumbered from 0, and is recorded as updated;
    /// - held by the children's foreign key (one-to-many): a child that leaves gets no parent (`NULL`),
    ///   a child that comes leaves its previous parent's array (renumbered, that parent recorded), and the
    ///   children get their places in the array; each child whose parent changes is recorded.
    ///
    /// - Parameter replacing: whether the row had its links before (an update): an inserted model's
    ///   array is empty before it is set, so an insert (an upsert too) gains every row of `targets`.
    mutating func setRelated(_ relationship: StoreDescription.Relationship, of row: StoredRow, to targets: [StoredRow], replacing: Bool) throws {
        guard let destination = description.entity(named: relationship.destination) else {
            throw ToolError("\(row.entity.name).\(relationship.name) leads to \(relationship.destination), which the store does not describe")
        }
        let inverse = relationship.inverse.flatMap { name in destination.relationships.first { $0.name == name } }
        try refuseSharedInverse(relationship, of: row.entity)
        let old = replacing ? try relatedRows(of: row, through: relationship) : []
        let removed = old.filter { !targets.contains($0) }
        let added = targets.filter { !old.contains($0) }
        // The row changes first, then (as the app's inverse maintenance goes) the rows it loses, then
        // those it gains: the order in which the history lists them.
        log.link(row, relationship.name)
        countCandidates.append(row)
        switch relationship.storage.kind {
        case "joinTable":
            // Each related row whose inverse array changes: the keys that array then holds. The arrays
            // are read before any is written, as the app changes them in memory before its save.
            var arrays: [(row: StoredRow, relationship: StoreDescription.Relationship, keys: [Int64])] = []
            if let inverse {
                guard inverse.isToMany, inverse.storage.kind == "joinTable" else { break }
                for other in removed {
                    let keys = try relatedRows(of: other, through: inverse).map(\.key)
                    guard keys.contains(row.key) else { continue }
                    arrays.append((other, inverse, keys.filter { $0 != row.key }))
                }
                for other in added {
                    let keys = try relatedRows(of: other, through: inverse).map(\.key)
                    // A new model is not in any array yet: an upsert's row goes at the end too.
                    guard !replacing || !keys.contains(row.key) else { continue }
                    arrays.append((other, inverse, keys + [row.key]))
                }
            }
            try writeJoinLinks(relationship, of: row, keys: targets.map(\.key))
            for (other, inverse, keys) in arrays {
                try writeJoinLinks(inverse, of: other, keys: keys)
                log.link(other, inverse.name)
                countCandidates.append(other)
            }
            return
        case "inverse":
            guard let inverse, !inverse.isToMany, inverse.storage.kind == "foreignKey" else { break }
            // A child that leaves has no parent any more.
            for child in removed {
                try writeChild(child.key, of: nil, at: nil, through: inverse, of: destination)
                log.link(child, inverse.name)
                countCandidates.append(child)
            }
            // A child that comes leaves its parent's array, which is written again (renumbered). For an
            // upsert that parent may be the stored row itself: the app's model of it loses the child
            // (the inserted model is another), and its save records that as an update of the row.
            // Each parent is written once, without all the children that leave it.
            var leaving: [StoredRow: Set<Int64>] = [:]
            var parents: [StoredRow] = []
            for child in added {
                log.link(child, inverse.name)
                countCandidates.append(child)
                guard let parent = try relatedRows(of: child, through: inverse).first, !replacing || parent != row else { continue }
                if leaving[parent] == nil { parents.append(parent) }
                leaving[parent, default: []].insert(child.key)
                log.link(parent, relationship.name, upserted: parent == row)
                countCandidates.append(parent)
            }
            for parent in parents {
                let children = try childKeys(of: parent, through: inverse, of: destination).filter { !leaving[parent]!.contains($0) }
                try writeChildren(children, of: parent, through: inverse, of: destination)
            }
            // The row's array: its children at their places.
            try writeChildren(targets.map(\.key), of: row, through: inverse, of: destination)
            return
        default:
            break
        }
        throw ToolError("\(row.entity.name).\(relationship.name) is not stored in a way the editor can set (\(relationship.storage.kind))")
    }

    /// Writes the links of `row` in the join table of `relationship` as the app's save writes an array
    /// held there: the links to rows not in `keys` go, and each of `keys` is linked with its place in
    /// the array (the other side's place kept when the link was there).
    func writeJoinLinks(_ relationship: StoreDescription.Relationship, of row: StoredRow, keys: [Int64]) throws {
        let storage = relationship.storage
        guard let table = storage.table.map(quote), let own = storage.column.map(quote), let other = storage.otherColumn.map(quote) else {
            throw ToolError("\(row.entity.name).\(relationship.name) has no join table in the store's description")
        }
        var delete = "DELETE FROM \(table) WHERE \(own) = ?"
        if !keys.isEmpty { delete += " AND \(other) NOT IN (\(keys.map { _ in "?" }.joined(separator: ", ")))" }
        try execute(delete, StatementArguments([row.key] + keys), entity: row.entity.name)
        let position = storage.positionColumn.map(quote)
        let insert = position.map {
            "INSERT INTO \(table) (\(own), \(other), \($0)) VALUES (?, ?, ?) ON CONFLICT (\(own), \(other)) DO UPDATE SET \($0) = excluded.\($0)"
        } ?? "INSERT INTO \(table) (\(own), \(other)) VALUES (?, ?) ON CONFLICT (\(own), \(other)) DO NOTHING"
        for (index, key) in keys.enumerated() {
            try execute(
                insert, StatementArguments([row.key, key] + (position == nil ? [] : [Int64(index)])), entity: row.entity.name)
        }
    }

    /// Refuses, with the app's error, links that a `@Relationship(.unique)` does not allow: `relationship`
    /// of `row` relating it to a row that another row is related to through it, or, when the inverse is
    /// the unique one, a target whose inverse already holds another row.
    func checkUnique(_ relationship: StoreDescription.Relationship, of row: StoredRow, targets: [StoredRow]) throws {
        if relationship.isUnique == true {
            for target in targets {
                if let other = try otherOwner(relationship, of: row.entity, target: target.key, owner: row.key) {
                    throw StoreToolSupport.uniqueRelationship(
                        entity: row.entity.name, relationship: relationship.name, destination: relationship.destination,
                        target: target.key, other: other, owner: row.key)
                }
            }
        }
        guard let destination = description.entity(named: relationship.destination),
              let inverse = relationship.inverse.flatMap({ name in destination.relationships.first { $0.name == name } }), inverse.isUnique == true
        else { return }
        for target in targets {
            if let other = try otherOwner(inverse, of: target.entity, target: row.key, owner: target.key) {
                throw StoreToolSupport.uniqueRelationship(
                    entity: target.entity.name, relationship: inverse.name, destination: inverse.destination, target: row.key, other: other, owner: target.key)
            }
        }
    }

    /// A row of `entity` other than `owner` that `relationship` relates to the row `target`, as the app's
    /// uniqueness check finds it (links held by the other side are unique by construction).
    private func otherOwner(_ relationship: StoreDescription.Relationship, of entity: StoreDescription.Entity, target: Int64, owner: Int64) throws -> Int64? {
        let pk = Self.pk
        let storage = relationship.storage
        switch storage.kind {
        case "foreignKey":
            guard let column = storage.column else { return nil }
            return try Int64.fetchOne(
                db, sql: "SELECT \(pk) FROM \(quote(entity.table)) WHERE \(quote(column)) = ? AND \(pk) <> ? LIMIT 1", arguments: [target, owner])
        case "joinTable":
            guard let table = storage.table, let column = storage.column, let other = storage.otherColumn else { return nil }
            return try Int64.fetchOne(
                db, sql: "SELECT \(quote(column)) FROM \(quote(table)) WHERE \(quote(other)) = ? AND \(quote(column)) <> ? LIMIT 1", arguments: [target, owner])
        default:
            return nil
        }
    }
}
