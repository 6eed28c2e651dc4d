import Foundation
import Logging
import Observation
import Synchronization

/// Models matching a fetch descriptor, kept up to date as the store changes: SwiftData's
/// `ResultsObserver`, the `@Query` of code that does not use SwiftUI.
///
/// ```swift
/// let observer = try ResultsObserver<Expense, Never>(
///     filterBy: #Predicate { $0.amount > 100 }, sortBy: [SortDescriptor(\.date)], modelContext: context)
/// for expense in observer.results { print(expense.title) }
/// ```
///
/// The observer follows its context's unsaved inserts, changes and deletions (when the descriptor's
/// `includePendingChanges` is `true`, the default), the saves of every context and actor of the
/// container, and the saves of other processes on the same store file. It re-runs its query only when
/// an entity its predicate, sort or sections read has changed, and for a few changed rows of its own
/// entity it updates its list in place (one lookup of those rows) instead of re-running it.
///
/// **When it updates.** An observer created on an actor (the main actor, a ``ModelActor``…) updates
/// there shortly after each relevant change, and at once when you read ``results`` or ``sections``.
/// One created outside any actor updates when you next read them. Either way ``results`` is
/// observable: `withObservationTracking` (or a SwiftUI view on Apple platforms) hears of each update.
/// Each update also says what changed (``lastUpdate``), and ``updates()`` streams them.
///
/// **Large results.** Results load their models in batches as you read them; models you do not hold
/// are released. Up to ``listLimit`` rows the observer keeps the identifiers of every match (and their
/// sort values), which makes updates precise and cheap; past it, it keeps only the count and reads
/// pages on demand, so a result of millions of rows opens in the time of a count and one page.
public final class ResultsObserver<Element: PersistentModel, SectionTitle: Hashable>: Observable {
    /// The context the observer fetches from and whose changes it follows.
    public let modelContext: ModelContext

    /// The most matches for which the observer keeps every identifier (see "Large results" above).
    /// Larger results are read page by page, and their updates carry no difference.
    public static var listLimit: Int { ResultsObserverLimits.listLimit ?? 100_000 }

    let registrar = ObservationRegistrar()
    /// The key paths Observation is told of at each read and update, made once (a generic class's key
    /// paths are otherwise instantiated at each use).
    private let resultsKeyPath: KeyPath<ResultsObserver, FetchResultsCollection<Element>> = \.results
    private let sectionsKeyPath: KeyPath<ResultsObserver, SectionedResults<Element, SectionTitle>?> = \.sections
    let container: ModelContainer
    let entity: Schema.Entity
    let signal: ObserverSignal
    let inbox: ContextInbox
    var descriptor: FetchDescriptor<Element>
    var section: SectionKey?
    var shape: Shape
    var listing: Listing
    var current: Published
    private var changesPendingInContext = false
    private var isUpdating = false
    /// Whether the descriptor changed and its query has not run since (it failed): the next update
    /// plans and runs the query instead of updating the listing in place.
    private var needsRerun = false
    private var streams: [UUID: AsyncStream<ResultsUpdates<Element, SectionTitle>.Handoff>.Continuation] = [:]

    /// Creates an observer; the public initializers (SwiftData's) are in the extensions below.
    init(
        descriptor: FetchDescriptor<Element>, sectionBy keyPath: PartialKeyPath<Element>?, context: ModelContext,
        isolation: isolated (any Actor)?
    ) throws {
        modelContext = context
        container = context.container
        entity = try context.entity(for: Element.self)
        if let keyPath { section = try Self.sectionKey(keyPath) }
        var descriptor = descriptor
        if let section { descriptor.sortBy = section.prepended(to: descriptor.sortBy) }
        self.descriptor = descriptor
        let signal = ObserverSignal(isolation: isolation)
        self.signal = signal
        inbox = signal.makeInbox(interest: [entity.name])
        shape = try Shape(descriptor, entity: entity, context: context)
        listing = Listing()
        current = Published(results: FetchResultsCollection(count: 0, batchSize: 1) { _ in [] }, sections: nil)
        inbox.setInterest(shape.dependencies)
        container.register(inbox, for: ObjectIdentifier(signal))
        listing = try runQuery()
        current = publish(listing)
        current.difference = ResultsDifference(
            results: CollectionDifference([])!, updated: [], sectionTitles: section == nil ? nil : CollectionDifference([])!, sections: [:])
        signal.observer = self
        followPendingChanges(descriptor.includePendingChanges)
    }

    /// Follows the context's unsaved changes, or stops (the descriptor's `includePendingChanges`).
    private func followPendingChanges(_ follow: Bool) {
        modelContext.pendingChangeListeners[ObjectIdentifier(self)] = follow ? PendingChangeListenerReference(listener: self) : nil
    }

    deinit {
        container.unregister(ObjectIdentifier(signal))
        for continuation in streams.values { continuation.finish() }
    }

    // MARK: - What it shows

    /// The models matching ``fetchDescriptor``, loaded in batches as you read them.
    ///
    /// Settable, as in SwiftData: the observer then shows the collection you set (observers are told)
    /// until its next update, which replaces it with the matches of the store. ``lastUpdate`` still
    /// describes the observer's own latest update.
    public var results: FetchResultsCollection<Element> {
        get {
            applyPendingChanges()
            registrar.access(self, keyPath: resultsKeyPath)
            return current.results
        }
        set {
            registrar.withMutation(of: self, keyPath: resultsKeyPath) { current.results = newValue }
        }
    }

    /// The results grouped by ``sectionBy``, in the order of each section's first model; `nil` when the
    /// observer has no sections (`SectionTitle == Never`).
    ///
    /// Settable, as in SwiftData: the observer then shows the sections you set (observers are told)
    /// until its next update; setting `nil` on an observer with sections makes it build them again from
    /// ``results`` when next read.
    public var sections: SectionedResults<Element, SectionTitle>? {
        get {
            applyPendingChanges()
            registrar.access(self, keyPath: sectionsKeyPath)
            return currentSections()
        }
        set {
            registrar.withMutation(of: self, keyPath: sectionsKeyPath) { current.sections = newValue }
        }
    }

    /// The sections of the current results, built when first asked for.
    private func currentSections() -> SectionedResults<Element, SectionTitle>? {
        guard section != nil else { return nil }
        if current.sections == nil { current.sections = sections(of: listing, results: current.results) }
        return current.sections
    }

    /// What the latest update changed (empty before the first one); `nil` when the results are larger
    /// than ``listLimit`` before or after it (read them again).
    public var lastUpdate: ResultsDifference<SectionTitle>? {
        applyPendingChanges()
        registrar.access(self, keyPath: resultsKeyPath)
        return current.difference
    }

    /// The error of the latest query, if it failed (the observer then keeps its previous results and
    /// tries again at the next change); `nil` after a query that succeeded.
    public private(set) var lastError: (any Error)?

    /// The descriptor of the observer's query: ``filterBy`` and ``sortBy`` change it.
    ///
    /// SwiftData's is read-only. Stowage also lets you set it: the query runs again once, before the
    /// setter returns, where setting ``filterBy`` then ``sortBy`` would run it twice. With sections, the
    /// section key path is put back in front of the new sort.
    public var fetchDescriptor: FetchDescriptor<Element> {
        get {
            registrar.access(self, keyPath: \.fetchDescriptor)
            return descriptor
        }
        set {
            registrar.withMutation(of: self, keyPath: \.fetchDescriptor) {
                descriptor = newValue
                if let section { descriptor.sortBy = section.prepended(to: newValue.sortBy) }
            }
            followPendingChanges(newValue.includePendingChanges)
            rerun()
        }
    }

    /// The predicate the results match. Setting it runs the query again before the setter returns
    /// (seed 003's mutable filter: search as you type).
    public var filterBy: Predicate<Element>? {
        get { fetchDescriptor.predicate }
        set {
            registrar.withMutation(of: self, keyPath: \.fetchDescriptor) { descriptor.predicate = newValue }
            rerun()
        }
    }

    /// The order of the results. With sections, the section key path comes first (it is put back in
    /// front when you set a sort without it). Setting it runs the query again before the setter returns.
    /// Models that compare equal are in primary-key order.
    public var sortBy: [SortDescriptor<Element>] {
        get { fetchDescriptor.sortBy }
        set {
            registrar.withMutation(of: self, keyPath: \.fetchDescriptor) {
                descriptor.sortBy = section.map { $0.prepended(to: newValue) } ?? newValue
            }
            rerun()
        }
    }

    /// The key path whose value groups the results into ``sections``, or `nil`. SwiftData sets it at
    /// creation only; Stowage also lets you change it (to a `KeyPath<Element, String>` or
    /// `KeyPath<Element, String?>`, for an observer whose `SectionTitle` is `String`), which sorts by
    /// it first and runs the query again.
    public var sectionBy: PartialKeyPath<Element>? {
        get {
            registrar.access(self, keyPath: \.fetchDescriptor)
            return section?.keyPath
        }
        set {
            var key: SectionKey?
            if let newValue {
                do {
                    key = try Self.sectionKey(newValue)
                } catch {
                    preconditionFailure("\(error)")
                }
            }
            registrar.withMutation(of: self, keyPath: \.fetchDescriptor) {
                let userSort = section.map { descriptor.sortBy.dropping($0.sorts) } ?? descriptor.sortBy
                section = key
                descriptor.sortBy = key.map { $0.prepended(to: userSort) } ?? userSort
            }
            rerun()
        }
    }

    /// The model at `indexPath` (section, then item), or `nil` when the observer has no sections or
    /// the path is out of bounds.
    public func element(at indexPath: IndexPath) -> Element? {
        guard indexPath.count == 2, let sections, sections.indices.contains(indexPath[0]) else { return nil }
        let section = sections[indexPath[0]]
        return section.indices.contains(indexPath[1]) ? section[indexPath[1]] : nil
    }

    /// The position (section, item) of a model, or `nil` when it is not in the results, the observer
    /// has no sections, or the results are larger than ``listLimit`` (they are not all listed).
    public func indexPath(for element: Element) -> IndexPath? {
        guard let sections else { return nil }
        let key: ResultsKey
        switch element.persistentBackingData.key {
        case .row(let pk)?: key = .row(pk)
        default: key = .pending(ObjectIdentifier(element))
        }
        guard let offset = listing.position(of: key) else { return nil }
        for (index, section) in sections.enumerated() where section.range.contains(offset) {
            return IndexPath(indexes: [index, offset - section.range.lowerBound])
        }
        return nil
    }

    /// The observer's updates as they happen, starting with its current results: for code that does
    /// not use Observation (a server pushing deltas to its clients). Read it in the observer's
    /// isolation; it ends when the observer is released or the reading task is cancelled.
    ///
    /// An observer made outside any actor updates only when ``results`` or ``sections`` is read, so its
    /// sequence yields nothing after the first snapshot until then: make the observer on an actor (the
    /// main actor, a ``ModelActor``) to stream its updates.
    ///
    /// ```swift
    /// for await snapshot in observer.updates() {
    ///     send(snapshot.difference)
    /// }
    /// ```
    public func updates() -> ResultsUpdates<Element, SectionTitle> {
        applyPendingChanges()
        let (stream, continuation) = AsyncStream<ResultsUpdates<Element, SectionTitle>.Handoff>.makeStream()
        streams[UUID()] = continuation
        let everything = listing.isWindowed ? nil : ResultsDiffing.changes(
            from: [], to: listing.keys, identifier: { self.identifier(of: $0, in: self.listing) }, changed: [])
        continuation.yield(.init(ResultsSnapshot(
            results: current.results, sections: currentSections(),
            difference: everything.map { self.difference($0, old: Listing(), new: listing) })))
        return ResultsUpdates(stream: stream)
    }

    // MARK: - Following changes

    /// Applies what changed since the last update, if anything did (not while an update runs: code
    /// that Observation calls during one reads the results as they were).
    func applyPendingChanges() {
        guard !isUpdating else { return }
        let saved = inbox.take()
        let local = changesPendingInContext
        changesPendingInContext = false
        guard !saved.isEmpty || local else { return }
        update(saved, local: local)
    }

    private func rerun() {
        // Changes already posted are part of the new query's answer.
        _ = inbox.take()
        changesPendingInContext = false
        update(nil, local: false)
    }

    /// Brings the results up to date: after `saved` (and the context's own unsaved changes when
    /// `local`), or after the descriptor changed (`saved == nil`).
    private func update(_ saved: SavedChanges?, local: Bool) {
        isUpdating = true
        defer { isUpdating = false }
        // The in-place update changes a copy of the listing, published below with the results. The
        // listing keeps its keys and sections for what Observation's callbacks read meanwhile, and for
        // the difference; its sort values move to the copy, which then changes them where they are.
        var working = listing
        listing.sortValues = []
        let old = listing
        let new: Listing
        var known: ResultsDiffing.Changes?
        do {
            if saved == nil || needsRerun {
                needsRerun = true
                shape = try Shape(descriptor, entity: entity, context: modelContext)
                inbox.setInterest(shape.dependencies)
            }
            modelContext.processInbox()
            if let saved, !local, !needsRerun, let changes = try updateInPlace(&working, after: saved) {
                new = working
                known = changes
            } else {
                listing.sortValues = working.sortValues
                new = try runQuery()
                needsRerun = false
            }
            lastError = nil
        } catch {
            // `working` is unchanged when the in-place update fails: it reads before it changes anything.
            listing.sortValues = working.sortValues
            lastError = error
            ResultsObserverLog.logger.error("ResultsObserver<\(Element.self)> could not update its results: \(error)")
            return
        }
        var changedKeys: Set<ResultsKey> = []
        if let saved {
            for pk in saved.updated[entity.name] ?? [] { changedKeys.insert(.row(pk)) }
        }
        if local {
            for model in modelContext.changedModelsArray where model is Element {
                if case .row(let pk)? = model.persistentBackingData.key { changedKeys.insert(.row(pk)) }
            }
            for model in modelContext.insertedModelsArray where model is Element { changedKeys.insert(.pending(ObjectIdentifier(model))) }
        }
        let difference: ResultsDifference<SectionTitle>?
        if old.isWindowed || new.isWindowed {
            difference = nil
        } else {
            let changes: ResultsDiffing.Changes
            if let known {
                changes = known
            } else {
                let before = old.pending.isEmpty ? old.keys : old.keys.map { new.resolve($0, from: old) }
                changes = ResultsDiffing.changes(
                    from: before, to: new.keys, identifier: { self.identifier(of: $0, in: new, old) }, changed: changedKeys)
            }
            difference = self.difference(changes, old: old, new: new, changed: changedKeys)
        }
        if let difference, difference.isEmpty, saved != nil {
            // Nothing the observer shows changed: no one is told, and the latest update is this empty one.
            listing = new
            current.difference = difference
            return
        }
        registrar.withMutation(of: self, keyPath: resultsKeyPath) {
            registrar.withMutation(of: self, keyPath: sectionsKeyPath) {
                listing = new
                current = publish(new)
                current.difference = difference
            }
        }
        guard !streams.isEmpty else { return }
        let snapshot = ResultsUpdates<Element, SectionTitle>.Handoff(
            ResultsSnapshot(results: current.results, sections: currentSections(), difference: difference))
        for (key, continuation) in streams {
            if case .terminated = continuation.yield(snapshot) { streams[key] = nil }
        }
    }

    /// The identifier of a key of `listings` (an unsaved model's key is in its listing's `pending`).
    func identifier(of key: ResultsKey, in listings: Listing...) -> PersistentIdentifier {
        switch key {
        case .row(let pk):
            return modelContext.identifier(entity: entity, primaryKey: pk)
        case .pending(let object):
            guard let model = listings.lazy.compactMap({ $0.pending[object] }).first else {
                preconditionFailure("ResultsObserver: an unsaved model of the results is missing from its listing")
            }
            return model.persistentModelID
        }
    }

    /// The whole difference, with the sections' when the observer has them.
    private func difference(
        _ changes: ResultsDiffing.Changes, old: Listing, new: Listing, changed: Set<ResultsKey> = []
    ) -> ResultsDifference<SectionTitle> {
        guard section != nil else {
            return ResultsDifference(results: changes.difference, updated: changes.updated, sectionTitles: nil, sections: [:])
        }
        let oldRuns = old.runs, newRuns = new.runs
        let titles = CollectionDifference(newRuns.map(\.title).difference(from: oldRuns.map(\.title)).inferringMoves())!
        var perSection: [SectionTitle: ResultsDifference<SectionTitle>.SectionDifference] = [:]
        let oldByTitle = Dictionary(oldRuns.map { ($0.title, $0.range) }, uniquingKeysWith: { a, _ in a })
        let newByTitle = Dictionary(newRuns.map { ($0.title, $0.range) }, uniquingKeysWith: { a, _ in a })
        for title in Set(oldByTitle.keys).union(newByTitle.keys) {
            let before = oldByTitle[title].map { old.keys[$0].map { new.resolve($0, from: old) } } ?? []
            let after = newByTitle[title].map { Array(new.keys[$0]) } ?? []
            let inSection = ResultsDiffing.changes(
                from: before, to: after, identifier: { self.identifier(of: $0, in: new, old) }, changed: changed)
            if !inSection.difference.isEmpty || !inSection.updated.isEmpty {
                perSection[title] = .init(results: inSection.difference, updated: inSection.updated)
            }
        }
        return ResultsDifference(results: changes.difference, updated: changes.updated, sectionTitles: titles, sections: perSection)
    }
}

extension ResultsObserver: PendingChangeListener {
    func contextDidChange() {
        guard !changesPendingInContext else { return }
        changesPendingInContext = true
        signal.wake()
    }
}

extension ResultsObserver: ScheduledRefreshing {
    func performScheduledRefresh() { applyPendingChanges() }

    func announceChangeOutsideIsolation() {
        registrar.withMutation(of: self, keyPath: resultsKeyPath) {}
    }
}

/// What a ``ResultsObserver`` shows at one moment, with what changed since the moment before.
public struct ResultsSnapshot<Element: PersistentModel, SectionTitle: Hashable> {
    /// The results.
    public let results: FetchResultsCollection<Element>
    /// The sections, when the observer has them.
    public let sections: SectionedResults<Element, SectionTitle>?
    /// What changed since the previous snapshot (for the first one: every model, inserted); `nil` when
    /// the results are larger than ``ResultsObserver/listLimit``.
    public let difference: ResultsDifference<SectionTitle>?
}

/// The updates of a ``ResultsObserver`` (see ``ResultsObserver/updates()``): an asynchronous sequence
/// of snapshots, to read in the observer's isolation.
public struct ResultsUpdates<Model: PersistentModel, SectionTitle: Hashable>: AsyncSequence {
    /// Each element is the observer's state after an update.
    public typealias Element = ResultsSnapshot<Model, SectionTitle>
    /// The sequence never throws: a failed query shows in ``ResultsObserver/lastError``.
    public typealias Failure = Never

    /// A snapshot on its way from the observer to the reader. Both are in the observer's isolation
    /// (a snapshot's models belong to its context): the stream only carries it across the suspension.
    struct Handoff: @unchecked Sendable {
        let snapshot: ResultsSnapshot<Model, SectionTitle>
        init(_ snapshot: ResultsSnapshot<Model, SectionTitle>) { self.snapshot = snapshot }
    }

    let stream: AsyncStream<Handoff>

    /// An iterator that starts with the current results, then waits for each update.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator()) }

    /// The iterator of ``ResultsUpdates``.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<Handoff>.AsyncIterator

        /// The next snapshot, or `nil` once the observer is gone or the task is cancelled.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async -> ResultsSnapshot<Model, SectionTitle>? {
            await base.next(isolation: actor)?.snapshot
        }

        /// The next snapshot: see ``next(isolation:)``.
        public mutating func next() async -> ResultsSnapshot<Model, SectionTitle>? {
            await base.next()?.snapshot
        }
    }
}

/// A smaller ``ResultsObserver/listLimit`` for tests of large results (set with `withValue`).
enum ResultsObserverLimits {
    @TaskLocal static var listLimit: Int?
}

enum ResultsObserverLog {
    static let logger = Logger(label: "Stowage.ResultsObserver")
}

/// What an observer can be asked to do by its ``ObserverSignal``.
protocol ScheduledRefreshing: AnyObject {
    /// Applies pending changes (in the observer's isolation).
    func performScheduledRefresh()
    /// Tells Observation that the results are about to change (any thread; for an observer outside any
    /// actor, which applies the change when next read).
    func announceChangeOutsideIsolation()
}

/// The part of an observer that saving threads may touch: it schedules the update in the observer's
/// isolation and never reads the observer's state.
final class ObserverSignal: Sendable {
    /// The observer, set once it exists (a save may wake the signal while the observer's initializer
    /// still runs: it then finds no observer and the change waits in the inbox).
    private let reference = Locked(WeakObserver())
    let isolation: (any Actor)?
    private let scheduled = Atomic<Bool>(false)

    private struct WeakObserver: @unchecked Sendable {
        // @unchecked Sendable: only read under the lock, and only used in the observer's isolation
        // (or, outside any actor, to tell its thread-safe registrar).
        weak var observer: (any ScheduledRefreshing)?
    }

    var observer: (any ScheduledRefreshing)? {
        get { reference.withLock { $0.observer } }
        set { reference.withLock { $0.observer = newValue } }
    }

    init(isolation: (any Actor)?) { self.isolation = isolation }

    /// The inbox through which the container hands the observer the saves of `interest`'s entities.
    func makeInbox(interest: Set<String>) -> ContextInbox {
        ContextInbox(interest: interest) { [self] in wake() }
    }

    /// Changes arrived (called on the thread that saved, or in the observer's isolation for its
    /// context's unsaved changes).
    func wake() {
        if isolation == nil {
            observer?.announceChangeOutsideIsolation()
        } else {
            schedule()
        }
    }

    /// Runs one update in the observer's isolation soon (several wakes before it runs make one update).
    func schedule() {
        guard let isolation, !scheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if isolation === MainActor.shared {
            // Straight onto the main actor (a task with no isolation would start elsewhere, then hop).
            Task { @MainActor in Self.run(self, on: MainActor.shared) }
        } else {
            Task { await Self.run(self, on: isolation) }
        }
    }

    private static func run(_ signal: ObserverSignal, on actor: isolated any Actor) {
        signal.scheduled.store(false, ordering: .releasing)
        signal.observer?.performScheduledRefresh()
    }
}

extension Array {
    /// The array without `prefix` at its start (unchanged when it does not start with it).
    func dropping(_ prefix: [Element]) -> [Element] where Element: Equatable {
        starts(with: prefix) ? Array(dropFirst(prefix.count)) : self
    }
}
