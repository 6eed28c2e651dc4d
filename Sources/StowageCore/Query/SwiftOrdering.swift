import Foundation

/// Sorts models in Swift exactly as SQLite orders their rows, for fetches that merge unsaved changes
/// into SQL results: same storage-class order (NULL, numbers, text, blobs), same collations, primary key
/// as the final tie-break (unsaved models last, in insertion order).
enum SwiftOrdering {
    static func sort<T: PersistentModel>(_ models: [T], by terms: [QuerySortTerm]) throws -> [T] {
        let keyed: [(model: T, keys: [StorageValue], position: Int)] = try models.enumerated().map { position, model in
            (model, try terms.map { try value(of: $0.expression, in: model) }, position)
        }
        return keyed.sorted { lhs, rhs in
            for (index, term) in terms.enumerated() {
                let order = compare(lhs.keys[index], rhs.keys[index], collation: term.collation)
                if order != .orderedSame { return term.ascending ? order == .orderedAscending : order == .orderedDescending }
            }
            return tieBreak(lhs.model, lhs.position, rhs.model, rhs.position)
        }.map(\.model)
    }

    /// Sorts by descriptors some of which SQL cannot express: those that map to an attribute compare
    /// stored values exactly as SQL would (SwiftData's `localizedStandard` default for strings), the
    /// others use Foundation's `SortDescriptor` comparison.
    static func sort<T: PersistentModel>(_ models: [T], by descriptors: [SortDescriptor<T>], entity: Schema.Entity) throws -> [T] {
        let terms = descriptors.map { SortTranslator.term(for: $0, entity: entity) }
        let keyed: [(model: T, keys: [StorageValue?], position: Int)] = try models.enumerated().map { position, model in
            (model, try terms.map { term in try term.map { try value(of: $0.expression, in: model) } }, position)
        }
        return keyed.sorted { lhs, rhs in
            for (index, descriptor) in descriptors.enumerated() {
                let order: ComparisonResult
                if let term = terms[index], let a = lhs.keys[index], let b = rhs.keys[index] {
                    let ascending = compare(a, b, collation: term.collation)
                    order = term.ascending ? ascending : ascending == .orderedAscending ? .orderedDescending
                        : ascending == .orderedDescending ? .orderedAscending : .orderedSame
                } else {
                    order = descriptor.compare(lhs.model, rhs.model)
                }
                if order != .orderedSame { return order == .orderedAscending }
            }
            return tieBreak(lhs.model, lhs.position, rhs.model, rhs.position)
        }.map(\.model)
    }

    private static func tieBreak<T: PersistentModel>(_ lhs: T, _ lhsPosition: Int, _ rhs: T, _ rhsPosition: Int) -> Bool {
        switch (lhs.persistentBackingData.key, rhs.persistentBackingData.key) {
        case (.row(let a)?, .row(let b)?): return a < b
        case (.row?, _): return true
        case (_, .row?): return false
        default: return lhsPosition < rhsPosition
        }
    }

    private static func value(of expression: QueryExpression, in model: AnyObject) throws -> StorageValue {
        switch expression {
        case .attribute(let attribute): return try attribute.accessor.read(model)
        case .value(let value): return value
        case .relatedAttribute(let path, let attribute):
            var current: AnyObject = model
            for relationship in path {
                RelationshipGraph.ensureLoaded(relationship, of: current)
                guard let next = relationship.accessor?.related(current).first else { return .null }
                current = next
            }
            // Related models are loaded with all their columns; one fetched partially sorts as NULL.
            return attribute.accessor.isLoaded(current) ? try attribute.accessor.read(current) : .null
        default:
            throw StowageError(.unsupportedSortDescriptor, "Stowage cannot sort unsaved models by this expression in Swift.")
        }
    }

    /// SQLite's ordering of two values.
    static func compare(_ lhs: StorageValue, _ rhs: StorageValue, collation: QueryCollation?) -> ComparisonResult {
        func rank(_ value: StorageValue) -> Int {
            switch value {
            case .null: 0
            case .integer, .real: 1
            case .text: 2
            case .blob: 3
            }
        }
        switch (lhs, rhs) {
        case (.integer(let a), .integer(let b)): return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
        case (.integer(let a), .real(let b)): return compareDoubles(Double(a), b)
        case (.real(let a), .integer(let b)): return compareDoubles(a, Double(b))
        case (.real(let a), .real(let b)): return compareDoubles(a, b)
        case (.text(let a), .text(let b)): return compareText(a, b, collation: collation ?? .binary)
        case (.blob(let a), .blob(let b)):
            return a.lexicographicallyPrecedes(b) ? .orderedAscending : a == b ? .orderedSame : .orderedDescending
        default:
            let (a, b) = (rank(lhs), rank(rhs))
            return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
        }
    }

    private static func compareDoubles(_ a: Double, _ b: Double) -> ComparisonResult {
        a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
    }

    static func compareText(_ a: String, _ b: String, collation: QueryCollation) -> ComparisonResult {
        switch collation {
        case .binary:
            // Swift's own String order, as SQL has it by comparing `stowage_nfc` keys (SwiftTextKey).
            return a == b ? .orderedSame : a < b ? .orderedAscending : .orderedDescending
        case .localizedStandard: return a.localizedStandardCompare(b)
        case .caseInsensitive: return a.localizedCaseInsensitiveCompare(b)
        case .localized: return a.localizedCompare(b)
        case .decimal: return DecimalOrder.compare(a, b)
        }
    }
}
