import Foundation
import GRDB
import StowageCore

extension EditSession {
    /// What deleting some rows does, worked out as the app's save works it out.
    struct DeletionSet {
        /// A `.deny` relationship of a row to be deleted that still links to rows.
        struct Denial {
            /// The row to be deleted.
            let row: StoredRow
            /// Its `.deny` relationship.
            let relationship: StoreDescription.Relationship
            /// The rows it links to that are not deleted with it.
            let related: [StoredRow]
        }

        /// The rows deleted, in the app's order: the rows asked for, then those the delete rules take
        /// with them, then any the store's foreign keys alone would delete.
        var rows: [StoredRow] = []
        /// The `.deny` relationships that refuse the deletion.
        var denials: [Denial] = []
        /// The rows that stay, and the relationship of each whose link to a deleted row the store clears.
        var cleared: [(row: StoredRow, relationship: String)] = []
    }

    /// What deleting `roots` does.
    ///
    /// The delete rules as the app's save applies them (`ModelContext.cascadedDeletions`): from the last
    /// row to be deleted back, each `.cascade` relationship's rows are deleted too (and their rules
    /// applied), each `.deny` relationship that links to rows not deleted refuses; `.nullify` and
    /// `.noAction` leave the rows. Then what the store's foreign keys do when the rows go, read from
    /// the tables themselves (`PRAGMA foreign_key_list`): a link column whose inverse cascades deletes
    /// its row, one that is cleared (`.nullify`, and `.noAction` too: the store keeps no link to a
    /// missing row) is set to NULL, a join table's links go.
    func deletionSet(_ roots: [StoredRow]) throws -> DeletionSet {
        var set = DeletionSet()
        var queue = roots
        var visited = Set(roots)
        var scheduled: [StoredRow] = []
        while let row = queue.popLast() {
            for relationship in row.entity.relationships where relationship.deleteRule == "cascade" || relationship.deleteRule == "deny" {
                let related = try relatedRows(of: row, through: relationship).filter { !visited.contains($0) }
                guard !related.isEmpty else { continue }
                if relationship.deleteRule == "deny" {
                    set.denials.append(DeletionSet.Denial(row: row, relationship: relationship, related: related))
                } else {
                    for other in related {
                        visited.insert(other)
                        scheduled.append(other)
                        queue.append(other)
                    }
                }
            }
        }
        set.rows = roots + scheduled

        // What the store's foreign keys do as the rows go.
        let references = try foreignKeyReferences()
        var deleted = visited
        var clearedSeen = Set<String>()
        var index = 0
        while index < set.rows.count {
            let row = set.rows[index]
            index += 1
            for reference in references[row.entity.table] ?? [] {
                switch reference.source {
                case .entity(let entity):
                    let entityColumn = entity.entityColumnValues != nil ? ", \(quote(StoreToolSupport.entityColumn))" : ""
                    let linking = try storedRows(
                        "SELECT \(Self.pk)\(entityColumn) FROM \(quote(entity.table)) WHERE \(quote(reference.column)) = ? ORDER BY \(Self.pk)", [row.key],
                        of: entity)
                    for other in linking where !deleted.contains(other) {
                        switch reference.onDelete {
                        case "CASCADE":
                            deleted.insert(other)
                            set.rows.append(other)
                        case "SET NULL":
                            guard let relationship = other.entity.relationships.first(where: {
                                $0.storage.kind == "foreignKey" && $0.storage.column == reference.column
                            }) else { continue }
                            if clearedSeen.insert("\(other.entity.table)\u{0}\(other.key)\u{0}\(relationship.name)").inserted {
                                set.cleared.append((other, relationship.name))
                            }
                        default:
                            // NO ACTION (a `.deny` inverse): refused above, or by the check before the commit.
                            break
                        }
                    }
                case .joinTable(let table):
                    // The rows in the other column lose their link through the relationship whose own
                    // column that is (none when it has no inverse).
                    guard let pair = description.entities.lazy.flatMap(\.relationships).first(where: {
                              $0.storage.kind == "joinTable" && $0.storage.table == table
                          }),
                          let first = pair.storage.column, let second = pair.storage.otherColumn,
                          case let otherColumn = first == reference.column ? second : first,
                          let other = relationshipOfJoinTable(table, column: otherColumn),
                          let otherEntity = description.entities.first(where: { $0.relationships.contains(other) })
                    else { continue }
                    let entityColumn = otherEntity.entityColumnValues != nil ? ", d.\(quote(StoreToolSupport.entityColumn))" : ""
                    let linked = try storedRows(
                        "SELECT d.\(Self.pk)\(entityColumn) FROM \(quote(otherEntity.table)) AS d JOIN \(quote(table)) AS j ON j.\(quote(otherColumn)) = d.\(Self.pk) WHERE j.\(quote(reference.column)) = ? ORDER BY d.\(Self.pk)",
                        [row.key], of: otherEntity)
                    for linkedRow in linked where !deleted.contains(linkedRow) {
                        if clearedSeen.insert("\(linkedRow.entity.table)\u{0}\(linkedRow.key)\u{0}\(other.name)").inserted {
                            set.cleared.append((linkedRow, other.name))
                        }
                    }
                }
            }
        }
        set.cleared.removeAll { deleted.contains($0.row) }
        // By entity and relationship, then key: the order of the tables' foreign keys means nothing.
        set.cleared.sort { ($0.row.entity.name, $0.relationship, $0.row.key) < ($1.row.entity.name, $1.relationship, $1.row.key) }
        return set
    }

    /// The relationship whose own column of the join table `table` is `column`.
    private func relationshipOfJoinTable(_ table: String, column: String) -> StoreDescription.Relationship? {
        for entity in description.entities {
            if let relationship = entity.relationships.first(where: {
                $0.storage.kind == "joinTable" && $0.storage.table == table && $0.storage.column == column
            }) {
                return relationship
            }
        }
        return nil
    }

    /// A foreign key of the store's tables: the column that refers to another table's rows, and what
    /// deleting one of them does to the referring rows.
    struct ForeignKeyReference {
        /// The table whose column it is.
        enum Source {
            /// A link column of an entity's table (the hierarchy's root's entity).
            case entity(StoreDescription.Entity)
            /// A column of a many-to-many relationship's join table.
            case joinTable(String)
        }

        /// The referring table.
        let source: Source
        /// The referring column.
        let column: String
        /// `CASCADE`, `SET NULL`, `NO ACTION`…
        let onDelete: String
    }

    /// The foreign keys referring to each table, as the store's tables declare them (external-storage side
    /// tables, which go with their rows, left out).
    func foreignKeyReferences() throws -> [String: [ForeignKeyReference]] {
        var sources: [String: ForeignKeyReference.Source] = [:]
        // A hierarchy's table by its root's entity, whose rows are every class's.
        for entity in description.entities where entity.superentity == nil || sources[entity.table] == nil {
            sources[entity.table] = .entity(entity)
        }
        for entity in description.entities {
            for relationship in entity.relationships where relationship.storage.kind == "joinTable" {
                if let table = relationship.storage.table { sources[table] = .joinTable(table) }
            }
        }
        var references: [String: [ForeignKeyReference]] = [:]
        for (table, source) in sources.sorted(by: { $0.key < $1.key }) {
            for foreignKey in try Row.fetchAll(db, sql: "PRAGMA foreign_key_list(\(quote(table)))") {
                guard let referenced: String = foreignKey["table"], let column: String = foreignKey["from"] else { continue }
                let onDelete: String = foreignKey["on_delete"] ?? "NO ACTION"
                references[referenced, default: []].append(ForeignKeyReference(source: source, column: column, onDelete: onDelete.uppercased()))
            }
        }
        return references
    }

    // MARK: Deleting

    /// Deletes rows as one save's deletions: the delete rules decide what goes with them, a `.deny`
    /// relationship refuses with the app's error, the values of `.preserveValueOnDeletion` attributes are
    /// kept for the history, and the rows whose links the store clears are recorded as updated.
    mutating func delete(_ roots: [(entity: String, key: Int64)]) throws {
        var rows: [StoredRow] = []
        for (name, key) in roots {
            let row = try requireRow(entity: try entity(named: name), key: key)
            if !rows.contains(row) { rows.append(row) }
        }
        let set = try deletionSet(rows)
        guard set.denials.isEmpty else {
            throw StoreToolSupport.deleteDenied(
                set.denials.map { denial in
                    (denial.row.entity.name, denial.row.key, denial.relationship.name, denial.related.map { ($0.entity.name, $0.key) })
                },
                entityName: rows.first?.entity.name)
        }
        // The rows that lose related rows through a relationship whose inverse has count limits.
        for row in set.rows {
            for relationship in row.entity.relationships {
                guard let inverse = relationship.inverse.flatMap({ name in
                    description.entity(named: relationship.destination)?.relationships.first { $0.name == name }
                }), inverse.isToMany, (inverse.minimumCount ?? 0) > 0 || (inverse.maximumCount ?? 0) > 0
                else { continue }
                countCandidates += try relatedRows(of: row, through: relationship)
            }
        }
        let preserved = try set.rows.map(preservedValues)
        for row in set.rows {
            try execute("DELETE FROM \(quote(row.entity.table)) WHERE \(Self.pk) = ?", [row.key], entity: row.entity.name)
        }
        for (row, values) in zip(set.rows, preserved) { log.delete(row, preserved: values) }
        for (row, relationship) in set.cleared { log.link(row, relationship) }
    }

    /// The stored values of the row's `.preserveValueOnDeletion` attributes, in declaration order.
    func preservedValues(_ row: StoredRow) throws -> [DatabaseValue] {
        try row.entity.attributes.filter(\.preservesValueOnDeletion).map { attribute in
            let sql = attribute.externalTable.map { "SELECT \"value\" FROM \(quote($0)) WHERE \(Self.pk) = ?" }
                ?? "SELECT \(quote(attribute.name)) FROM \(quote(row.entity.table)) WHERE \(Self.pk) = ?"
            return try DatabaseValue.fetchOne(db, sql: sql, arguments: [row.key]) ?? .null
        }
    }
}
