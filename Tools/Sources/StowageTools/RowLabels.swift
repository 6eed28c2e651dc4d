import GRDB
import StowageCore

/// How rows are named to a person beside their keys: by the value of their entity's first `String`
/// attribute ("Groceries" for a `Budget`), as Datasette names a foreign key's row by its label column.
package enum RowLabels {
    /// The attribute whose value names rows of `entity`: its first stored `String` attribute (inherited
    /// ones come first, so it names every row of a class hierarchy), or `nil` when it has none.
    package static func attribute(of entity: StoreDescription.Entity) -> StoreDescription.Attribute? {
        entity.attributes.first { $0.kind == .string && $0.externalTable == nil }
    }

    /// A stored value as a label: on one line, at most 60 characters; `nil` when it is empty.
    package static func label(_ text: String) -> String? {
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        guard !line.isEmpty else { return nil }
        return line.count > 60 ? line.prefix(59) + "…" : line
    }

    /// The labels of the rows `keys` of `entity`, by key, read in one statement per 500 keys. A row
    /// without one (no `String` attribute, an empty or nil value, no such row) is left out.
    package static func labels(of entity: StoreDescription.Entity, keys: Set<Int64>, in db: Database) throws -> [Int64: String] {
        guard let attribute = attribute(of: entity), !keys.isEmpty else { return [:] }
        var labels: [Int64: String] = [:]
        let sorted = keys.sorted()
        for start in stride(from: 0, to: sorted.count, by: 500) {
            let chunk = Array(sorted[start..<min(start + 500, sorted.count)])
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            let pk = quote(StoreToolSupport.primaryKeyColumn)
            let rows = try Row.fetchCursor(
                db, sql: "SELECT \(pk), \(quote(attribute.name)) FROM \(quote(entity.table)) WHERE \(pk) IN (\(placeholders))",
                arguments: StatementArguments(chunk))
            while let row = try rows.next() {
                if let key = Int64.fromDatabaseValue(row[0]), let text = String.fromDatabaseValue(row[1]), let label = label(text) {
                    labels[key] = label
                }
            }
        }
        return labels
    }
}
