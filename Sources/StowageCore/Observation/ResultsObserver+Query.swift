import Foundation

/// One position of an observer's results: a stored row, or a model its context inserted and has not
/// saved (when the descriptor includes pending changes).
enum ResultsKey: Hashable {
    case row(Int64)
    case pending(ObjectIdentifier)
}

extension ResultsObserver {
    /// The section key path, with what the observer derives from it.
    struct SectionKey {
        let keyPath: PartialKeyPath<Element>
        /// The sorts put in front of the descriptor's: by title in SwiftData's default order for strings
        /// (localized standard), then exactly, so that titles differing only in case stay apart and
        /// every section's models are contiguous.
        let sorts: [SortDescriptor<Element>]
        let title: (Element) -> SectionTitle
        /// The title of a stored value of the section attribute (a missing title is `""`).
        let titleOfValue: (StorageValue) -> SectionTitle

        func prepended(to sort: [SortDescriptor<Element>]) -> [SortDescriptor<Element>] {
            sort.starts(with: sorts) ? sort : sorts + sort
        }
    }

    static func sectionKey(_ keyPath: PartialKeyPath<Element>) throws -> SectionKey {
        guard SectionTitle.self == String.self else {
            throw StowageError(.invalidValue, "ResultsObserver<\(Element.self), \(SectionTitle.self)> cannot have sections: they need a String SectionTitle.")
        }
        func title(_ value: StorageValue) -> SectionTitle {
            if case .text(let text) = value { return text as! SectionTitle }
            return "" as! SectionTitle
        }
        // SortDescriptor wants Sendable key paths; a model's stored-property key path is one (it captures
        // nothing), but the type of SwiftData's parameter does not say so.
        if let path = keyPath as? KeyPath<Element, String> {
            let path = unsafeBitCast(path, to: (KeyPath<Element, String> & Sendable).self)
            return SectionKey(
                keyPath: path,
                sorts: [SortDescriptor(path), SortDescriptor(path, comparator: .lexical)],
                title: { $0[keyPath: path] as! SectionTitle }, titleOfValue: title)
        }
        if let path = keyPath as? KeyPath<Element, String?> {
            let path = unsafeBitCast(path, to: (KeyPath<Element, String?> & Sendable).self)
            return SectionKey(
                keyPath: path,
                sorts: [SortDescriptor(path), SortDescriptor(path, comparator: .lexical)],
                title: { ($0[keyPath: path] ?? "") as! SectionTitle }, titleOfValue: title)
        }
        throw StowageError(.invalidValue, "A ResultsObserver's sectionBy must be a KeyPath<\(Element.self), String> or KeyPath<\(Element.self), String?>; \(keyPath) is neither.")
    }

    /// How the observer's query runs, worked out once per descriptor.
    struct Shape {
        /// The entities whose changes can change the results.
        let dependencies: Set<String>
        /// The ORDER BY terms, when SQL sorts.
        let sortTerms: [QuerySortTerm]
        /// The attributes the terms sort by, when each is a column of the entity (read with each key, so
        /// that a changed row can be put in its place without running the query again).
        let sortColumns: [Schema.Attribute]?
        /// Whether a few changed rows can be put in place: SQL does all the work and no limit or
        /// offset makes positions depend on other rows.
        let updatesInPlace: Bool
        /// The query without the context's unsaved changes (what SQL runs).
        let query: StoreQuery

        init(_ descriptor: FetchDescriptor<Element>, entity: Schema.Entity, context: ModelContext) throws {
            var probe = descriptor
            probe.includePendingChanges = false
            let plan = try FetchPlan(FetchRequest(probe), context: context)
            // The entity's rows include its subclasses', which saves report under their own names.
            var dependencies = Set(entity.entityNamesForFetch)
            if plan.evaluatesPredicateInSwift || plan.sortsInSwift {
                // Swift reads the models: anything reachable from them may matter.
                var queue = [entity]
                while let next = queue.popLast() {
                    for relationship in next.relationshipList {
                        guard let destination = relationship.destinationEntity, !dependencies.contains(destination.name) else { continue }
                        dependencies.formUnion(destination.entityNamesForFetch)
                        queue.append(destination)
                    }
                }
            }
            plan.query.filter?.collectRelatedEntities(into: &dependencies)
            for term in plan.query.sort { term.expression.collectRelatedEntities(into: &dependencies) }
            self.dependencies = dependencies
            sortTerms = plan.sortsInSwift ? [] : plan.query.sort
            var columns: [Schema.Attribute]? = []
            for term in sortTerms {
                if case .attribute(let attribute) = term.expression { columns?.append(attribute) } else { columns = nil }
            }
            sortColumns = plan.sortsInSwift ? nil : columns
            query = plan.query
            updatesInPlace = !plan.evaluatesPredicateInSwift && sortColumns != nil && !entity.isInHierarchy
                && descriptor.fetchLimit == nil && (descriptor.fetchOffset ?? 0) == 0
        }
    }

    /// A section: its title and its positions in the results.
    struct SectionRun {
        let title: SectionTitle
        var range: Range<Int>
    }

    /// The observer's current matches.
    struct Listing {
        /// Every match, in order (empty when windowed).
        var keys: [ResultsKey] = []
        /// The sort values of each key, `Shape.sortColumns.count` per key, when SQL sorts by columns.
        var sortValues: [StorageValue] = []
        /// The unsaved models among the keys.
        var pending: [ObjectIdentifier: Element] = [:]
        var runs: [SectionRun] = []
        var count = 0
        /// The query of a result too large to list: pages are read on demand.
        var window: StoreQuery?
        var isWindowed: Bool { window != nil }

        /// The key a previous listing's key has now: an unsaved model that was saved since is its row.
        func resolve(_ key: ResultsKey, from old: Listing) -> ResultsKey {
            guard case .pending(let object) = key, case .row(let pk)? = old.pending[object]?.persistentBackingData.key else { return key }
            return .row(pk)
        }

        /// The offset of a key, when the listing has its keys (not windowed).
        func position(of key: ResultsKey) -> Int? {
            isWindowed ? nil : keys.firstIndex(of: key)
        }
    }

    /// What the observer publishes; ``sections`` are built when first read.
    struct Published {
        var results: FetchResultsCollection<Element>
        var sections: SectionedResults<Element, SectionTitle>?
        var difference: ResultsDifference<SectionTitle>?
    }

    /// Models are loaded this many at a time as the results are read.
    static var batchSize: Int { ModelContext.iterationBatchLimit }

    // MARK: - Running the query

    /// Runs the query: keys (and sort values) only when SQL does everything, else the models.
    func runQuery() throws -> Listing {
        let plan = try FetchPlan(FetchRequest(descriptor), context: modelContext)
        var listing = Listing()
        if plan.runsEntirelyInSQL, let columns = shape.sortColumns {
            var query = plan.query
            query.attributes = columns
            query.foreignKeys = []
            if query.limit.map({ $0 > Self.listLimit }) ?? true { query.limit = Self.listLimit + 1 }
            try modelContext.store.fetch(query) { row in
                listing.keys.append(.row(row.primaryKey))
                for offset in columns.indices { listing.sortValues.append(row.value(at: offset)) }
            }
            if listing.keys.count > Self.listLimit { return try windowed(plan.query, columns: columns) }
            listing.count = listing.keys.count
            if let section {
                let stride = columns.count
                listing.runs = Self.runs(listing.keys.indices.lazy.map { section.titleOfValue(listing.sortValues[$0 * stride]) })
            }
            return listing
        }
        let models = try modelContext.fetch(descriptor)
        listing.keys.reserveCapacity(models.count)
        for model in models {
            if case .row(let pk)? = model.persistentBackingData.key {
                listing.keys.append(.row(pk))
            } else {
                listing.keys.append(.pending(ObjectIdentifier(model)))
                listing.pending[ObjectIdentifier(model)] = model
            }
        }
        listing.count = models.count
        if let section { listing.runs = Self.runs(models.lazy.map(section.title)) }
        return listing
    }

    /// A result too large to list: its count, and its sections from the section column alone.
    private func windowed(_ query: StoreQuery, columns: [Schema.Attribute]) throws -> Listing {
        var listing = Listing()
        listing.window = query
        listing.count = try modelContext.store.count(query)
        if let section {
            var titles = query
            titles.attributes = [columns[0]]
            titles.foreignKeys = []
            var runs = SectionRuns()
            try modelContext.store.fetch(titles) { row in runs.append(section.titleOfValue(row.value(at: 0))) }
            listing.runs = runs.runs
        }
        return listing
    }

    /// The sections of a list of titles in results order: each run of one title.
    struct SectionRuns {
        private(set) var runs: [SectionRun] = []
        private var count = 0

        mutating func append(_ title: SectionTitle) {
            if let last = runs.last, last.title == title {
                runs[runs.count - 1].range = last.range.lowerBound..<(count + 1)
            } else {
                runs.append(SectionRun(title: title, range: count..<(count + 1)))
            }
            count += 1
        }
    }

    static func runs(_ titles: some Sequence<SectionTitle>) -> [SectionRun] {
        var runs = SectionRuns()
        for title in titles { runs.append(title) }
        return runs.runs
    }

    /// Updates `listing` after a save that changed a few rows of the observer's own entity and nothing
    /// else it reads: those rows are taken out and, when they still match, put back in their place by a
    /// binary search on the sort values, with one query that reads just them; the changes come from
    /// those rows' old and new offsets. Returns `nil`, with `listing` untouched, when the query must run
    /// again instead; the listing is changed only after that query succeeded.
    ///
    /// The listing is changed where it is: its sort values are copied only if something else holds them.
    func updateInPlace(_ listing: inout Listing, after saved: SavedChanges) throws -> ResultsDiffing.Changes? {
        guard shape.updatesInPlace, !listing.isWindowed, listing.pending.isEmpty, let columns = shape.sortColumns,
              !saved.refreshAll, saved.erased.isDisjoint(with: shape.dependencies) else { return nil }
        for name in shape.dependencies where name != entity.name {
            if saved.updated[name] != nil || saved.deleted[name] != nil { return nil }
        }
        let updated = saved.updated[entity.name] ?? []
        let deleted = saved.deleted[entity.name] ?? []
        guard updated.count + deleted.count <= 64 else { return nil }
        // Unsaved changes of the type: the full query merges them in.
        if descriptor.includePendingChanges && modelContext.hasChanges {
            let models = [modelContext.insertedModelsArray, modelContext.changedModelsArray, modelContext.deletedModelsArray].joined()
            if models.contains(where: { $0 is Element }) { return nil }
        }
        // The changed rows that still match, with their sort values.
        var rows: [(pk: Int64, values: [StorageValue])] = []
        if !updated.isEmpty {
            var query = shape.query
            query.attributes = columns
            query.foreignKeys = []
            query.primaryKeys = updated.sorted()
            query.sort = []
            try modelContext.store.fetch(query) { row in
                rows.append((row.primaryKey, columns.indices.map { row.value(at: $0) }))
            }
        }
        // Where the changed rows were: one pass over the keys.
        let changed = updated.union(deleted).sorted()
        var oldOffsets: [Int64: Int] = [:]
        if let first = changed.first, let last = changed.last {
            for (offset, key) in listing.keys.enumerated() {
                guard case .row(let pk) = key, pk >= first, pk <= last, changed[changed.partitioningIndex { $0 >= pk }] == pk else { continue }
                oldOffsets[pk] = offset
                if oldOffsets.count == changed.count { break }
            }
        }
        guard listing.keys.count - oldOffsets.count + rows.count <= Self.listLimit else { return nil }
        // Out from the last to the first, so that offsets stay valid; back in by binary search.
        let stride = columns.count
        for offset in oldOffsets.values.sorted(by: >) {
            listing.keys.remove(at: offset)
            listing.sortValues.removeSubrange((offset * stride)..<((offset + 1) * stride))
        }
        var newOffsets: [Int64: Int] = [:]
        for (pk, values) in rows {
            // The first position whose row sorts after this one.
            let low = listing.keys.indices.partitioningIndex {
                Self.sortsBefore(values, pk, listing, at: $0, terms: shape.sortTerms, stride: stride)
            }
            listing.keys.insert(.row(pk), at: low)
            listing.sortValues.insert(contentsOf: values, at: low * stride)
            for (other, offset) in newOffsets where offset >= low { newOffsets[other] = offset + 1 }
            newOffsets[pk] = low
        }
        listing.count = listing.keys.count
        if let section {
            let sortValues = listing.sortValues
            listing.runs = Self.runs(listing.keys.indices.lazy.map { section.titleOfValue(sortValues[$0 * stride]) })
        }
        return Self.changes(moving: oldOffsets, to: newOffsets, updated: updated) {
            self.modelContext.identifier(entity: self.entity, primaryKey: $0)
        }
    }

    /// The difference of an update that took a few rows out of the list and put some back: the other
    /// rows kept their order, so only the changed rows can have been removed, inserted or moved. A
    /// changed row that is in both lists stayed in place when as many unchanged rows precede it before
    /// and after, and its order among such rows is kept (the longest increasing run of their old
    /// offsets); the others moved.
    static func changes(
        moving oldOffsets: [Int64: Int], to newOffsets: [Int64: Int], updated: Set<Int64>, identifier: (Int64) -> PersistentIdentifier
    ) -> ResultsDiffing.Changes {
        let oldSorted = oldOffsets.values.sorted(), newSorted = newOffsets.values.sorted()
        func unchangedBefore(_ offset: Int, _ changedOffsets: [Int]) -> Int {
            offset - changedOffsets.prefix { $0 < offset }.count
        }
        // Rows in both lists, by new offset, that keep their place among the unchanged rows.
        let common = newOffsets.filter { oldOffsets[$0.key] != nil }.sorted { $0.value < $1.value }
        let candidates = common.filter { unchangedBefore(oldOffsets[$0.key]!, oldSorted) == unchangedBefore($0.value, newSorted) }
        let run = ResultsDiffing.longestIncreasingRun(candidates.map { oldOffsets[$0.key]! })
        var inPlace: Set<Int64> = []
        for (index, candidate) in candidates.enumerated() where run.contains(index) { inPlace.insert(candidate.key) }
        var steps: [CollectionDifference<PersistentIdentifier>.Change] = []
        for (pk, offset) in oldOffsets where !inPlace.contains(pk) {
            steps.append(.remove(offset: offset, element: identifier(pk), associatedWith: newOffsets[pk]))
        }
        for (pk, offset) in newOffsets where !inPlace.contains(pk) {
            steps.append(.insert(offset: offset, element: identifier(pk), associatedWith: oldOffsets[pk]))
        }
        let updatedOffsets = inPlace.filter(updated.contains).map { newOffsets[$0]! }.sorted()
        return ResultsDiffing.Changes(difference: CollectionDifference(steps)!, updated: updatedOffsets)
    }

    /// Whether the row (`values`, `pk`) comes before the listing's row at `position` in SQL's order.
    private static func sortsBefore(
        _ values: [StorageValue], _ pk: Int64, _ listing: Listing, at position: Int, terms: [QuerySortTerm], stride: Int
    ) -> Bool {
        for (index, term) in terms.enumerated() {
            let order = SwiftOrdering.compare(values[index], listing.sortValues[position * stride + index], collation: term.collation)
            if order != .orderedSame { return term.ascending ? order == .orderedAscending : order == .orderedDescending }
        }
        guard case .row(let other) = listing.keys[position] else { return true }
        return pk < other
    }

    // MARK: - Publishing

    func publish(_ listing: Listing) -> Published {
        let context = modelContext, entity = entity
        if let window = listing.window {
            let cursor = WindowCursor()
            let columns = shape.sortColumns ?? []
            let terms = shape.sortTerms
            return Published(results: FetchResultsCollection(count: listing.count, batchSize: Self.batchSize) { range in
                context.processInbox()
                var query = window
                query.limit = range.count
                if range.lowerBound == cursor.end, let last = cursor.lastKey {
                    // The page after the previous one starts after its last row: no OFFSET to skip.
                    let after = Self.keyset(after: cursor.lastValues, key: last, terms: terms)
                    query.filter = window.filter.map { .and([$0, after]) } ?? after
                } else {
                    let offset = (window.offset ?? 0) + range.lowerBound
                    query.offset = offset > 0 ? offset : nil
                }
                var models = ContiguousArray<any PersistentModel>()
                try context.fetchObjects(query, into: &models)
                cursor.end = range.upperBound
                if let model = models.last, case .row(let key)? = model.persistentBackingData.key {
                    cursor.lastKey = key
                    cursor.lastValues = try columns.map { try $0.accessor.read(model) }
                }
                return [Element](castingElementsOf: models)
            })
        }
        let keys = listing.keys, pending = listing.pending
        return Published(results: FetchResultsCollection(count: keys.count, batchSize: Self.batchSize) { range in
            context.processInbox()
            // Models the context holds are used as they are (kept current by its refreshes), and held
            // from here on; the others are read in one query.
            var models: [Element?] = []
            models.reserveCapacity(range.count)
            var missing: [Int64] = []
            for key in keys[range] {
                switch key {
                case .row(let pk):
                    let held = context.registered[RowKey(entity: entity, primaryKey: pk)]?.model
                    if held == nil { missing.append(pk) }
                    models.append(held.map { unsafeDowncast($0 as AnyObject, to: Element.self) })
                case .pending(let object):
                    models.append(pending[object]!)
                }
            }
            guard !missing.isEmpty else { return models.map { $0! } }
            let loaded = try context.fetchObjectsByKey(StoreQuery(entity: entity, primaryKeys: missing))
            return zip(keys[range], models).map { key, model in
                if let model { return model }
                guard case .row(let pk) = key else { preconditionFailure("an unsaved model is always held") }
                // Deleted since this list was made: a model that reports `isDeleted`, in its place.
                let found = loaded[pk] ?? context.model(for: context.identifier(entity: entity, primaryKey: pk))
                return unsafeDowncast(found as AnyObject, to: Element.self)
            }
        })
    }

    func sections(of listing: Listing, results: FetchResultsCollection<Element>) -> SectionedResults<Element, SectionTitle> {
        SectionedResults(listing.runs.map { ResultsSection(title: $0.title, results: results, range: $0.range) })
    }

    /// Rows after (`values`, `key`) in the order of `terms` then primary key, as SQL orders them (NULL
    /// first): the condition that continues a read where the previous page ended. It starts with a
    /// range on the first term (`t1 >= v1` ascending), which lets SQLite walk an index on it in order
    /// instead of sorting every remaining row.
    static func keyset(after values: [StorageValue], key: Int64, terms: [QuerySortTerm]) -> QueryExpression {
        var alternatives: [QueryExpression] = []
        var equal: [QueryExpression] = []
        for (term, value) in zip(terms, values) {
            let expression = term.expression
            if value == .null {
                if term.ascending { alternatives.append(.conjunction(equal + [.not(.isNull(expression))])) }
                equal.append(.isNull(expression))
            } else {
                let beyond = QueryExpression.comparison(term.ascending ? .greater : .less, expression, .value(value), collation: term.collation)
                alternatives.append(.conjunction(equal + [term.ascending ? beyond : .or([beyond, .isNull(expression)])]))
                equal.append(.comparison(.equal, expression, .value(value), collation: term.collation))
            }
        }
        alternatives.append(.conjunction(equal + [.comparison(.greater, .primaryKey, .value(.integer(key)), collation: nil)]))
        guard let first = terms.first, let value = values.first, value != .null else { return .disjunction(alternatives) }
        let range: QueryExpression = first.ascending
            ? .comparison(.greaterOrEqual, first.expression, .value(value), collation: first.collation)
            : .or([.comparison(.lessOrEqual, first.expression, .value(value), collation: first.collation), .isNull(first.expression)])
        return .conjunction([range, .disjunction(alternatives)])
    }
}

/// Where the previous page of a windowed result ended.
private final class WindowCursor {
    var end = 0
    var lastKey: Int64?
    var lastValues: [StorageValue] = []
}

extension RandomAccessCollection {
    /// The first index whose element is past the boundary `isPast` draws (binary search), in a
    /// collection where every element past it comes after every element before it; `endIndex` when
    /// none is.
    func partitioningIndex(where isPast: (Element) throws -> Bool) rethrows -> Index {
        var low = startIndex, count = self.count
        while count > 0 {
            let half = count / 2
            let middle = index(low, offsetBy: half)
            if try isPast(self[middle]) {
                count = half
            } else {
                low = index(after: middle)
                count -= half + 1
            }
        }
        return low
    }
}
