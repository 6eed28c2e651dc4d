import Foundation

/// What one update of a ``ResultsObserver`` changed, for list UIs that animate and for servers that push
/// deltas: the models removed, inserted and moved (as a `CollectionDifference` of identifiers, moves
/// paired through `associatedWith`) and those changed in place, for the whole results and, when the
/// observer is sectioned, per section (like `NSFetchedResultsController`'s delegate callbacks).
///
/// Applying ``results`` to the identifiers of the previous results gives those of the new ones:
///
/// ```swift
/// let before = observer.results.map(\.persistentModelID)
/// // … a save …
/// let update = observer.lastUpdate
/// assert(before.applying(update.results) == observer.results.map(\.persistentModelID))
/// ```
public struct ResultsDifference<SectionTitle: Hashable>: Hashable {
    /// The changes of positions: removals at offsets of the previous results, insertions at offsets of
    /// the new ones; a model that moved is removed and inserted, the two associated.
    public let results: CollectionDifference<PersistentIdentifier>
    /// The offsets, in the new results, of models that stayed in place and whose properties the update
    /// changed (saved by any context, or changed unsaved in the observer's own context).
    public let updated: [Int]
    /// The section titles removed and inserted (as offsets in the old and new ``SectionedResults``), or
    /// `nil` when the observer is not sectioned.
    public let sectionTitles: CollectionDifference<SectionTitle>?
    /// For each section whose models changed, the changes within it (offsets within the section; a
    /// model that moved to another section is removed from one and inserted in the other). A section
    /// that appeared lists all its models as inserted, one that disappeared all as removed.
    public let sections: [SectionTitle: SectionDifference]

    /// The changes within one section.
    public struct SectionDifference: Hashable {
        /// Removals and insertions at offsets within the section.
        public let results: CollectionDifference<PersistentIdentifier>
        /// Offsets, in the new section, of models changed in place.
        public let updated: [Int]
    }

    /// Whether the update changed nothing the observer shows.
    public var isEmpty: Bool {
        results.isEmpty && updated.isEmpty && (sectionTitles?.isEmpty ?? true) && sections.isEmpty
    }

    init(results: CollectionDifference<PersistentIdentifier>, updated: [Int],
         sectionTitles: CollectionDifference<SectionTitle>?, sections: [SectionTitle: SectionDifference]) {
        self.results = results
        self.updated = updated
        self.sectionTitles = sectionTitles
        self.sections = sections
    }
}

extension ResultsDifference: Sendable where SectionTitle: Sendable {}

extension ResultsDifference.SectionDifference: Sendable {}

/// Computes differences between two ordered lists of unique keys in time linear in their length: the
/// common prefix and suffix are skipped, the rest is matched by hashing, and of the models found in both
/// those off the longest increasing run of old positions are reported as moved (the fewest moves).
enum ResultsDiffing {
    struct Changes {
        var difference: CollectionDifference<PersistentIdentifier>
        var updated: [Int]
    }

    /// - Parameters:
    ///   - old: The previous keys; `new`: the current ones. Each list has no duplicates.
    ///   - identifier: The identifier reported for a key.
    ///   - changed: The keys whose models the update changed (reported as updated when they neither
    ///     moved nor were inserted).
    static func changes<Key: Hashable>(
        from old: [Key], to new: [Key], identifier: (Key) -> PersistentIdentifier, changed: Set<Key>
    ) -> Changes {
        var start = 0
        while start < old.count && start < new.count && old[start] == new[start] { start += 1 }
        var oldEnd = old.count, newEnd = new.count
        while oldEnd > start && newEnd > start && old[oldEnd - 1] == new[newEnd - 1] {
            oldEnd -= 1
            newEnd -= 1
        }
        var steps: [CollectionDifference<PersistentIdentifier>.Change] = []
        var moved: Set<Int> = []  // new offsets of moved models
        if start < oldEnd || start < newEnd {
            var oldOffsets: [Key: Int] = [:]
            oldOffsets.reserveCapacity(oldEnd - start)
            for offset in start..<oldEnd { oldOffsets[old[offset]] = offset }
            // Models in both, in new order, with their old offsets.
            var common: [(old: Int, new: Int)] = []
            var newKeys = Set<Key>()
            newKeys.reserveCapacity(newEnd - start)
            for offset in start..<newEnd {
                newKeys.insert(new[offset])
                if let before = oldOffsets[new[offset]] { common.append((before, offset)) }
            }
            let kept = longestIncreasingRun(common.map(\.old))
            var movedFrom: [Int: Int] = [:]  // old offset → new offset
            var movedTo: [Int: Int] = [:]  // new offset → old offset
            for (index, pair) in common.enumerated() where !kept.contains(index) {
                movedFrom[pair.old] = pair.new
                movedTo[pair.new] = pair.old
                moved.insert(pair.new)
            }
            for offset in start..<oldEnd {
                if let to = movedFrom[offset] {
                    steps.append(.remove(offset: offset, element: identifier(old[offset]), associatedWith: to))
                } else if !newKeys.contains(old[offset]) {
                    steps.append(.remove(offset: offset, element: identifier(old[offset]), associatedWith: nil))
                }
            }
            for offset in start..<newEnd {
                if let from = movedTo[offset] {
                    steps.append(.insert(offset: offset, element: identifier(new[offset]), associatedWith: from))
                } else if oldOffsets[new[offset]] == nil {
                    steps.append(.insert(offset: offset, element: identifier(new[offset]), associatedWith: nil))
                }
            }
        }
        let difference = CollectionDifference(steps)!
        var inserted = Set(difference.insertions.map { change -> Int in
            if case .insert(let offset, _, _) = change { return offset }
            return -1
        })
        inserted.formUnion(moved)
        var updated: [Int] = []
        if changed.count <= 8 {
            // A few changed models (the common case): a scan per key beats hashing every key.
            for key in changed {
                if let offset = new.firstIndex(of: key), !inserted.contains(offset) { updated.append(offset) }
            }
            updated.sort()
        } else {
            for (offset, key) in new.enumerated() where !inserted.contains(offset) && changed.contains(key) { updated.append(offset) }
        }
        return Changes(difference: difference, updated: updated)
    }

    /// The indices of a longest strictly increasing subsequence of `values` (patience sorting).
    static func longestIncreasingRun(_ values: [Int]) -> Set<Int> {
        guard !values.isEmpty else { return [] }
        var tails: [Int] = []  // index into values of the smallest tail of each run length
        var previous = [Int](repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var run: Set<Int> = []
        var index = tails.last!
        while index >= 0 {
            run.insert(index)
            index = previous[index]
        }
        return run
    }
}
