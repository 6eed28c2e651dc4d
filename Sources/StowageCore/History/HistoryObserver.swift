import Foundation
import Observation

/// Watches a container's stores and counts the saves that concern you: SwiftData's `HistoryObserver`.
///
/// ```swift
/// let observer = try HistoryObserver(observedModels: [Budget.self], modelContainer: container)
/// withObservationTracking { _ = observer.eventCounter } onChange: { print("budgets changed") }
/// ```
///
/// Each save of the container that changes a model of ``observedModels`` (any model when it is empty),
/// by one of ``authors`` (any author when it is empty), adds one to ``eventCounter`` and moves
/// ``historyTokens`` to the save's transaction: saves of this process's contexts and actors, and saves
/// of other processes (or other containers) on the same store files, which Stowage notices within about
/// 20 ms (see ``ModelContainer/storeRemoteChange``). Read the transactions themselves with
/// ``ModelContext/fetchHistory(_:)`` from the tokens you kept.
///
/// An observer created on an actor (the main actor, a ``ModelActor``) updates there; one created outside
/// any actor updates on a thread of its own. Its properties can be read from anywhere.
public final class HistoryObserver: Observable {
    /// The container whose stores the observer watches.
    public let modelContainer: ModelContainer
    /// The model types whose changes count; empty: every change counts.
    public let observedModels: [any PersistentModel.Type]
    /// The transaction authors (``ModelContext/author``) whose saves count; empty: every author's.
    public let authors: Set<String>

    /// How many relevant saves the observer has seen: one more at each. Observable.
    public var eventCounter: Int {
        registrar.access(self, keyPath: \.eventCounter)
        return core.state.withLock { $0.eventCounter }
    }

    /// Where the observer is in each store's history, by store identifier: the token of the newest
    /// transaction it has taken into account. Keep them (they are `Codable`) to start a later observer
    /// where this one stopped. Observable.
    public var historyTokens: [String: any HistoryToken] {
        registrar.access(self, keyPath: \.historyTokens)
        return core.state.withLock { state in
            Dictionary(uniqueKeysWithValues: state.positions.map { ($0.key, DefaultHistoryToken([$0.key: $0.value]) as any HistoryToken) })
        }
    }

    private let registrar = ObservationRegistrar()
    private let core: Core
    private var task: Task<Void, Never>?

    /// What the observer's task updates: Sendable, and weakly tied to the observer.
    private final class Core: @unchecked Sendable {
        // @unchecked Sendable: `state` is locked; `observer` is only set in the initializer, then read.
        struct State {
            var eventCounter = 0
            var positions: [String: Int64] = [:]
        }

        let state = Locked(State())
        let entityNames: Set<String>
        let authors: Set<String>
        weak var observer: HistoryObserver?

        init(entityNames: Set<String>, authors: Set<String>) {
            self.entityNames = entityNames
            self.authors = authors
        }

        func isRelevant(entities: Set<String>, author: String?) -> Bool {
            (entityNames.isEmpty || !entityNames.isDisjoint(with: entities))
                && (authors.isEmpty || author.map(authors.contains) == true)
        }
    }

    /// Creates an observer of a container's history.
    ///
    /// - Parameters:
    ///   - historyTokens: where to start in each store's history, by store identifier (the observer's
    ///     ``historyTokens`` of an earlier run). The transactions saved since then count at once, as one
    ///     event. A store with no token, or `nil` for all, starts at its newest transaction: only the saves
    ///     from now on count.
    ///   - observedModels: the model types whose changes count; empty (the default) for every model.
    ///   - authors: the authors whose saves count; empty (the default) for every author.
    ///   - modelContainer: the container to watch.
    ///   - isolation: the actor the observer updates on; by default the caller's.
    /// - Throws: `SwiftDataError.historyTokenExpired` when the history after a token was deleted;
    ///   ``StowageError`` when the history cannot be read.
    public init(
        historyTokens: [String: any HistoryToken]? = nil, observedModels: [any PersistentModel.Type] = [],
        authors: Set<String> = [], modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation
    ) throws {
        self.modelContainer = modelContainer
        self.observedModels = observedModels
        self.authors = authors
        // A model's saves include its subclasses', which history records under their own names.
        let names = observedModels.flatMap { modelContainer.schema.entity(forType: $0)?.entityNamesForFetch ?? [String(describing: $0)] }
        let core = Core(entityNames: Set(names), authors: authors)
        self.core = core
        // Listening starts before the position is read: a save in between is seen once, and skipped if
        // the position already covers it.
        let changes = modelContainer.changes()
        var positions: [String: Int64] = [:]
        var given: [String: Int64] = [:]
        for store in modelContainer.store.historyStores {
            positions[store.identifier] = try store.newestHistoryTransaction()
            if let token = historyTokens?[store.identifier] as? DefaultHistoryToken,
               let seen = token.transactions[store.identifier] ?? token.transactions.values.max() {
                given[store.identifier] = seen
            }
        }
        var missed = 0
        if !given.isEmpty {
            // Saves since the given tokens: read from the history (which also checks the tokens).
            let token = DefaultHistoryToken(positions.merging(given) { _, seen in seen })
            let descriptor = HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token > token })
            let transactions = try ModelContext(modelContainer).fetchHistory(descriptor)
            let relevant = transactions.filter { transaction in
                transaction.transactionIdentifier <= positions[transaction.storeIdentifier] ?? 0
                    && core.isRelevant(entities: Set(transaction.changes.map(\.changedPersistentIdentifier.entityName)), author: transaction.author)
            }
            missed = relevant.isEmpty ? 0 : 1
        }
        core.state.withLock { $0 = Core.State(eventCounter: missed, positions: positions) }
        core.observer = self
        task = Task { [core] in
            for await change in changes {
                if let isolation {
                    await Self.receive(change, core, on: isolation)
                } else {
                    Self.receive(change, core)
                }
                if core.observer == nil { return }
            }
        }
    }

    deinit { task?.cancel() }

    private static func receive(_ change: ModelChanges, _ core: Core, on actor: isolated any Actor) {
        receive(change, core)
    }

    /// Counts a save if it is relevant and after the position.
    private static func receive(_ change: ModelChanges, _ core: Core) {
        guard let observer = core.observer else { return }
        let transactions = change.historyToken?.transactions ?? [:]
        let isNew = core.state.withLock { state in
            transactions.isEmpty || transactions.contains { store, id in id > state.positions[store] ?? 0 }
        }
        guard isNew else { return }
        let relevant = core.isRelevant(entities: change.entityNames, author: change.author)
        observer.registrar.withMutation(of: observer, keyPath: \.historyTokens) {
            core.state.withLock { state in
                for (store, id) in transactions { state.positions[store] = max(state.positions[store] ?? 0, id) }
            }
        }
        guard relevant else { return }
        observer.registrar.withMutation(of: observer, keyPath: \.eventCounter) {
            core.state.withLock { $0.eventCounter += 1 }
        }
    }
}

extension ModelContainer {
    /// The identifier of the store of the configuration named `name` (``ModelConfiguration/name``,
    /// `"default"` when none was given), or `nil` when the container has no such configuration.
    ///
    /// Store identifiers are those of ``PersistentIdentifier/storeIdentifier``, of history
    /// transactions and of ``HistoryObserver/historyTokens``: stable for a store file, and not the
    /// configuration's name.
    public func storeIdentifier(forConfigurationNamed name: String) -> String? {
        storeIdentifiersByConfiguration.first { $0.name == name }?.storeIdentifier
    }

    /// The name of the configuration whose store has this identifier, or `nil` when none has.
    public func configurationName(forStoreIdentifier identifier: String) -> String? {
        storeIdentifiersByConfiguration.first { $0.storeIdentifier == identifier }?.name
    }
}

extension HistoryToken {
    /// The identifier of the store the token covers: for a token whose value is a dictionary by store
    /// (``DefaultHistoryToken``'s), its one store, or the first in order of a token covering several;
    /// an empty string for a token of another shape.
    public var storeIdentifier: String {
        (tokenValue as? [String: Int64]).flatMap { $0.keys.min() } ?? ""
    }
}

extension DefaultHistoryToken {
    /// The identifier of the store the token covers: the store of the transaction that carries it, or
    /// the token's one store (``HistoryObserver/historyTokens`` holds one token per store). A token from
    /// ``ModelContext/fetchHistory(_:)`` on a container with several stores covers them all: this is
    /// then the first of their identifiers in order.
    public var storeIdentifier: String {
        transactionStore ?? transactions.keys.min() ?? ""
    }
}
