import Foundation

/// What the translator reads of a `SortDescriptor`, without its model type (see ``FetchRequest``).
@usableFromInline
struct SortKey {
    /// The key path sorted by; `nil` for a descriptor with a custom comparator.
    @usableFromInline let keyPath: AnyKeyPath?
    @usableFromInline let isForward: Bool
    /// The descriptor's string comparator, when it has one.
    @usableFromInline let stringComparator: String.StandardComparator?

    @inlinable
    init<T>(_ descriptor: SortDescriptor<T>) {
        keyPath = descriptor.keyPath
        isForward = descriptor.order == .forward
        stringComparator = descriptor.stringComparator
    }
}

/// Translates `SortDescriptor`s into ORDER BY terms.
enum SortTranslator {
    /// The ORDER BY terms, or `nil` when a descriptor cannot be sorted in SQL (the fetch then sorts in
    /// Swift with Foundation's `SortDescriptor`, or throws in strict mode).
    ///
    /// - Throws: ``StowageError`` with code ``StowageError/Code/unsupportedSortDescriptor`` in strict mode.
    static func translate(_ descriptors: [SortKey], entity: Schema.Entity, strict: Bool) throws -> [QuerySortTerm]? {
        var terms: [QuerySortTerm] = []
        for descriptor in descriptors {
            let term = term(for: descriptor, entity: entity)
            let attribute = descriptor.keyPath.flatMap { entity.attribute(for: $0) }
            let problem: String? = if term != nil {
                nil
            } else if let attribute {
                orderingProblem(attribute)
            } else {
                descriptor.keyPath == nil
                    ? "it has a custom comparator"
                    : "its key path is neither a stored attribute nor an attribute reached through to-one relationships"
            }
            if let problem {
                let message = "The sort \(descriptor.keyPath.map { "\($0)" } ?? "") cannot run in SQL: \(problem)"
                if strict { throw StowageError(.unsupportedSortDescriptor, message + ".", entityName: entity.name) }
                PredicateTranslator.logger.warning("\(message); Stowage sorts in Swift.", metadata: ["entity": "\(entity.name)"])
                return nil
            }
            guard let term else { return nil }
            terms.append(term)
        }
        return terms
    }

    /// The ORDER BY term of one descriptor, or `nil` when SQL cannot order by it.
    static func term<T: PersistentModel>(for descriptor: SortDescriptor<T>, entity: Schema.Entity) -> QuerySortTerm? {
        term(for: SortKey(descriptor), entity: entity)
    }

    /// The ORDER BY term of one sort, or `nil` when SQL cannot order by it.
    static func term(for descriptor: SortKey, entity: Schema.Entity) -> QuerySortTerm? {
        guard let keyPath = descriptor.keyPath else { return nil }
        let expression: QueryExpression
        let attribute: Schema.Attribute
        if let direct = entity.attribute(for: keyPath) {
            (expression, attribute) = (.attribute(direct), direct)
        } else if let (path, related) = KeyPathProbe.resolve(keyPath, entity: entity) {
            // `\.budget?.name`: the attribute of the row the to-one path reaches.
            (expression, attribute) = (.relatedAttribute(path, related), related)
        } else {
            return nil
        }
        guard orderingProblem(attribute) == nil else { return nil }
        var collation: QueryCollation? = nil
        if attribute.accessor.codecKind == .native, let natural = TypeTraits.collation(for: attribute.valueType) {
            collation = natural == .binary ? collationOf(descriptor.stringComparator) : natural
        }
        return QuerySortTerm(expression: expression, ascending: descriptor.isForward, collation: collation)
    }

    /// Why SQL cannot order rows by `attribute` as Swift orders its values, or `nil` when it can.
    private static func orderingProblem(_ attribute: Schema.Attribute) -> String? {
        if attribute.isExternalStorage { return "the attribute is kept in external storage" }
        if attribute.accessor.codecKind == .rawValue {
            return "an enum's order is its own Comparable conformance, not its raw value's"
        }
        return TypeTraits.orderingProblem(attribute.valueType)
    }

    /// SwiftData sorts strings with `.localizedStandard` unless told otherwise. On Linux a key-path
    /// `SortDescriptor` on a `String` has no comparator (`nil`): Stowage applies SwiftData's default.
    static func collationOf(_ comparator: String.StandardComparator?) -> QueryCollation {
        guard let comparator else { return .localizedStandard }
        if comparator == .lexical { return .binary }
        let probe = String.StandardComparator(comparator, order: .forward)
        let numeric = probe.compare("a2", "a10") == .orderedAscending
        let caseless = probe.compare("a", "A") == .orderedSame
        if numeric { return .localizedStandard }
        if caseless { return .caseInsensitive }
        return .localized
    }
}
