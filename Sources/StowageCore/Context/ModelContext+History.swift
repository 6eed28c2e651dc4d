import Foundation

extension ModelContext {
    /// The transactions of the container's history that `descriptor` selects: every save of every
    /// context, actor and process, oldest first unless `descriptor.sortBy` says otherwise.
    ///
    /// ```swift
    /// var descriptor = HistoryDescriptor<DefaultHistoryTransaction>()
    /// descriptor.predicate = #Predicate { $0.token > savedToken && $0.author != "sync" }
    /// for transaction in try context.fetchHistory(descriptor) {
    ///     for change in transaction.changes { … }
    /// }
    /// ```
    ///
    /// The predicate is evaluated in Swift over the transactions (their changes are read only for
    /// those it keeps, unless it reads them itself). A container with several configurations has one
    /// history per store; their transactions are merged by time.
    ///
    /// - Throws: ``StowageError`` `.historyTokenExpired` when the predicate compares with a token some
    ///   of whose following transactions were deleted (``deleteHistory(_:)``): the client may have missed
    ///   changes, and should start again from the current data and a new token.
    ///   `.invalidTransactionFetchRequest` for a transaction type other than ``DefaultHistoryTransaction``.
    public func fetchHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws -> [T] {
        if let custom = container.store as? any CustomStoreHistory { return try custom.fetchHistory(descriptor) }
        return try selectHistory(Self.defaultDescriptor(descriptor), withChanges: true) as! [T]
    }

    /// Deletes the transactions of the history that `descriptor` selects (its `fetchLimit` applies),
    /// to give back their space once every client has read them. A token before one of them has then
    /// expired: fetching with it throws `.historyTokenExpired`.
    ///
    /// ```swift
    /// try context.deleteHistory(HistoryDescriptor<DefaultHistoryTransaction>(predicate: #Predicate { $0.token < oldestClientToken }))
    /// ```
    public func deleteHistory<T: HistoryTransaction>(_ descriptor: HistoryDescriptor<T>) throws {
        if let refusal = container.saveRefusal {
            throw StowageError(.readOnlyStore, "\(refusal), so its history cannot be deleted. Nothing was deleted.")
        }
        if let custom = container.store as? any CustomStoreHistory { return try custom.deleteHistory(descriptor) }
        let selected = try selectHistory(Self.defaultDescriptor(descriptor), withChanges: false)
        for store in container.store.historyStores {
            try store.deleteHistory(selected.filter { $0.storeIdentifier == store.identifier }.map(\.transactionIdentifier))
        }
    }

    private static func defaultDescriptor<T>(_ descriptor: HistoryDescriptor<T>) throws -> HistoryDescriptor<DefaultHistoryTransaction> {
        guard let descriptor = descriptor as? HistoryDescriptor<DefaultHistoryTransaction> else {
            throw StowageError(
                .invalidTransactionFetchRequest,
                "Stowage's stores record their history as DefaultHistoryTransaction; a HistoryDescriptor<\(T.self)> cannot select it.")
        }
        return descriptor
    }

    /// The transactions a descriptor selects, in its order.
    private func selectHistory(_ descriptor: HistoryDescriptor<DefaultHistoryTransaction>, withChanges: Bool) throws -> [DefaultHistoryTransaction] {
        let inspection = descriptor.predicate.map { HistoryPredicateInspection($0.expression) } ?? HistoryPredicateInspection()
        var transactions: [DefaultHistoryTransaction] = []
        var bounds: [String: Int64] = [:]
        for store in container.store.historyStores {
            if !inspection.tokens.isEmpty {
                let deletedThrough = try store.historyDeletedThrough()
                for token in inspection.tokens {
                    if let seen = token.transactions[store.identifier], seen < deletedThrough {
                        throw StowageError(
                            .historyTokenExpired,
                            "The history token \(token.transactions) has expired: the history of store \(store.identifier) after its transaction \(seen) was deleted (through transaction \(deletedThrough)). Discard the token, read the current data, and keep the token of the newest transaction.")
                    }
                }
            }
            // `$0.token > saved` (alone or in a conjunction) reads only the transactions after `saved`.
            let after = descriptor.predicate.flatMap { ($0.expression as? any HistoryLowerBound)?.transactionsAfter(in: store.identifier) } ?? 0
            bounds[store.identifier] = after
            let headers = try store.historyHeaders(after: after, detailedOnly: true)
            if inspection.readsChanges {
                transactions += try historyTransactions(headers, of: store)
            } else {
                transactions += headers.map { DefaultHistoryTransaction(header: $0, storeIdentifier: store.identifier, changes: []) }
            }
        }
        if let predicate = descriptor.predicate {
            transactions = try transactions.filter { try predicate.evaluate($0) }
        }
        if descriptor.sortBy.isEmpty {
            if container.store.historyStores.count > 1 { transactions = Self.inTimeOrder(transactions) }
        } else {
            transactions.sort(using: descriptor.sortBy)
        }
        if descriptor.fetchLimit > 0, transactions.count > descriptor.fetchLimit {
            transactions.removeSubrange(Int(descriptor.fetchLimit)...)
        }
        // The tokens given back cover every store: in time order, each store's last transaction so far,
        // starting from what the predicate's token had already seen.
        var seen: [String: Int64] = [:]
        for store in container.store.historyStores { seen[store.identifier] = bounds[store.identifier] ?? 0 }
        var tokens: [TransactionKey: DefaultHistoryToken] = [:]
        for transaction in Self.inTimeOrder(transactions) {
            seen[transaction.storeIdentifier] = max(seen[transaction.storeIdentifier] ?? 0, transaction.transactionIdentifier)
            tokens[TransactionKey(transaction)] = DefaultHistoryToken(seen)
        }
        guard withChanges else {
            return transactions.map { DefaultHistoryTransaction(header: $0.header, storeIdentifier: $0.storeIdentifier, changes: $0.changes, token: tokens[TransactionKey($0)]) }
        }
        // Each store's changes, read once for the range of its transactions kept.
        var changes: [String: [Int64: [HistoryChange]]] = [:]
        for store in container.store.historyStores where !inspection.readsChanges {
            let kept = transactions.filter { $0.storeIdentifier == store.identifier }
            guard let first = kept.map(\.transactionIdentifier).min(), let last = kept.map(\.transactionIdentifier).max() else { continue }
            changes[store.identifier] = try historyChanges(from: first, through: last, of: store)
        }
        return transactions.map { transaction in
            DefaultHistoryTransaction(
                header: transaction.header, storeIdentifier: transaction.storeIdentifier,
                changes: inspection.readsChanges ? transaction.changes : changes[transaction.storeIdentifier]?[transaction.transactionIdentifier] ?? [],
                token: tokens[TransactionKey(transaction)])
        }
    }

    /// Transactions in the order they happened: each store's in the order of their numbers (a number is
    /// given in commit order), the stores' merged by time.
    static func inTimeOrder(_ transactions: [DefaultHistoryTransaction]) -> [DefaultHistoryTransaction] {
        var stores: [String: [DefaultHistoryTransaction]] = [:]
        for transaction in transactions { stores[transaction.storeIdentifier, default: []].append(transaction) }
        var queues = stores.values.map { $0.sorted { $0.transactionIdentifier < $1.transactionIdentifier }[...] }
        guard queues.count > 1 else { return Array(queues.first ?? []) }
        var merged: [DefaultHistoryTransaction] = []
        merged.reserveCapacity(transactions.count)
        while let next = queues.indices.filter({ !queues[$0].isEmpty }).min(by: { a, b in
            let (x, y) = (queues[a].first!, queues[b].first!)
            return (x.timestamp, x.storeIdentifier) < (y.timestamp, y.storeIdentifier)
        }) {
            merged.append(queues[next].removeFirst())
        }
        return merged
    }

    private func historyTransactions(_ headers: [HistoryHeader], of store: any HistoryStore) throws -> [DefaultHistoryTransaction] {
        guard let first = headers.first?.id, let last = headers.last?.id else { return [] }
        let changes = try historyChanges(from: first, through: last, of: store)
        return headers.map { DefaultHistoryTransaction(header: $0, storeIdentifier: store.identifier, changes: changes[$0.id] ?? []) }
    }

    /// The changes of a store's transactions, by transaction. Changes of models the schema no longer
    /// has are left out (they have no model type to be described with).
    private func historyChanges(from first: Int64, through last: Int64, of store: any HistoryStore) throws -> [Int64: [HistoryChange]] {
        var changes: [Int64: [HistoryChange]] = [:]
        for run in try store.historyRuns(from: first, through: last) {
            guard let entity = schema.entitiesByName[run.entity] else { continue }
            changes[run.transaction, default: []] += HistoryRunDecoder(run: run, entity: entity, storeIdentifier: store.identifier).changes(entity.modelType)
        }
        return changes
    }
}

/// A transaction told apart by its store and number.
private struct TransactionKey: Hashable {
    let store: String
    let number: Int64
    init(_ transaction: DefaultHistoryTransaction) {
        store = transaction.storeIdentifier
        number = transaction.transactionIdentifier
    }
}

extension DefaultHistoryTransaction {
    var header: HistoryHeader {
        HistoryHeader(id: transactionIdentifier, timestamp: timestamp, author: author, bundleIdentifier: bundleIdentifier, processIdentifier: processIdentifier)
    }
}

/// Turns a stored run of changes into ``HistoryChange``s of its model type.
private struct HistoryRunDecoder {
    let run: SQLiteHistory.Run
    let entity: Schema.Entity
    let storeIdentifier: String

    func changes<Model: PersistentModel>(_: Model.Type) -> [HistoryChange] {
        let transaction = run.transaction
        func identifiers(_ offset: Int) -> (change: Int64, model: PersistentIdentifier) {
            (transaction << 32 | Int64(run.position + offset),
             PersistentIdentifier(entityName: entity.name, storeIdentifier: storeIdentifier, key: .row(run.keys[offset])))
        }
        switch run.kind {
        case .insert:
            return run.keys.indices.map { offset in
                let (change, model) = identifiers(offset)
                return .insert(DefaultHistoryInsert<Model>(changeIdentifier: change, transactionIdentifier: transaction, changedPersistentIdentifier: model))
            }
        case .update:
            let keyPaths: [any PartialKeyPath<Model> & Sendable] = run.properties.compactMap { name in
                let keyPath: AnyKeyPath? = switch entity.storedPropertiesByName[name] {
                case let attribute as Schema.Attribute: attribute.keyPath
                case let relationship as Schema.Relationship: relationship.keypath
                default: nil
                }
                return (keyPath as? PartialKeyPath<Model>).map(sendableKeyPath)
            }
            return run.keys.indices.map { offset in
                let (change, model) = identifiers(offset)
                return .update(DefaultHistoryUpdate<Model>(
                    changeIdentifier: change, transactionIdentifier: transaction, changedPersistentIdentifier: model, updatedAttributes: keyPaths))
            }
        case .delete:
            let attributes = run.properties.map { entity.storedPropertiesByName[$0] as? Schema.Attribute }
            return run.keys.indices.map { offset in
                let (change, model) = identifiers(offset)
                var values: [(keyPath: PartialKeyPath<Model>, value: any Sendable)] = []
                if offset < run.values.count {
                    for (attribute, stored) in zip(attributes, run.values[offset]) {
                        guard let attribute, let keyPath = attribute.keyPath as? PartialKeyPath<Model>,
                              let value = try? attribute.accessor.tombstoneValue(stored)
                        else { continue }
                        values.append((keyPath, value))
                    }
                }
                return .delete(DefaultHistoryDelete<Model>(
                    changeIdentifier: change, transactionIdentifier: transaction, changedPersistentIdentifier: model,
                    tombstone: HistoryTombstone(values: values)))
            }
        }
    }
}

/// A model's key path, as SwiftData's history declares it: `Sendable`. Key paths to a model's stored
/// properties hold no state but their components, so they can be shared.
private func sendableKeyPath<Model>(_ keyPath: PartialKeyPath<Model>) -> any PartialKeyPath<Model> & Sendable {
    unsafeBitCast(keyPath, to: (any PartialKeyPath<Model> & Sendable).self)
}

/// What a history predicate compares with and reads, found by walking its expression (a predicate's
/// nodes are plain values, so `Mirror` sees every captured value and key path).
private struct HistoryPredicateInspection {
    /// The tokens the predicate captured.
    var tokens: [DefaultHistoryToken] = []
    /// Whether it reads the transactions' changes (they are then read before it is evaluated).
    var readsChanges = false

    init() {}

    /// The key paths of what a transaction's row holds: any other reads its changes. (Immutable: key
    /// paths are values.)
    nonisolated(unsafe) private static let headerKeyPaths: Set<AnyKeyPath> = [
        \DefaultHistoryTransaction.token, \DefaultHistoryTransaction.timestamp, \DefaultHistoryTransaction.author,
        \DefaultHistoryTransaction.transactionIdentifier, \DefaultHistoryTransaction.id, \DefaultHistoryTransaction.storeIdentifier,
        \DefaultHistoryTransaction.bundleIdentifier, \DefaultHistoryTransaction.processIdentifier,
    ]

    init(_ expression: Any) { visit(expression, depth: 0) }

    private mutating func visit(_ value: Any, depth: Int) {
        guard depth < 64 else { return }
        if let token = value as? DefaultHistoryToken {
            tokens.append(token)
            return
        }
        if let keyPath = value as? AnyKeyPath {
            if type(of: keyPath).rootType == DefaultHistoryTransaction.self, !Self.headerKeyPaths.contains(keyPath) { readsChanges = true }
            return
        }
        for child in Mirror(reflecting: value).children { visit(child.value, depth: depth + 1) }
    }
}

/// A history predicate that only keeps transactions after some number in a store, so that the rows
/// before it need not be read: `$0.token > saved` or `$0.token >= saved`, alone or in `&&`. The
/// predicate is still evaluated on what is read, so a bound only has to never exclude a match.
private protocol HistoryLowerBound {
    /// The number after which every transaction of `store` the predicate keeps lies (0 when unknown).
    func transactionsAfter(in store: String) -> Int64
}

extension PredicateExpressions.Comparison: HistoryLowerBound
where LHS == PredicateExpressions.KeyPath<PredicateExpressions.Variable<DefaultHistoryTransaction>, DefaultHistoryToken>,
      RHS == PredicateExpressions.Value<DefaultHistoryToken> {
    func transactionsAfter(in store: String) -> Int64 {
        // A transaction's token covers its own store only: compared with `saved`, it is after it when its
        // number is after `saved`'s number for that store (see `DefaultHistoryToken.<`).
        guard lhs.keyPath == \DefaultHistoryTransaction.token, let seen = rhs.value.transactions[store] else { return 0 }
        switch op {
        case .greaterThan: return seen
        case .greaterThanOrEqual: return max(0, seen - 1)
        default: return 0
        }
    }
}

extension PredicateExpressions.Conjunction: HistoryLowerBound {
    func transactionsAfter(in store: String) -> Int64 {
        max((lhs as? any HistoryLowerBound)?.transactionsAfter(in: store) ?? 0,
            (rhs as? any HistoryLowerBound)?.transactionsAfter(in: store) ?? 0)
    }
}

/// What identifies a context's edits: SwiftData's `EditingState`, with the author its saves record.
public struct EditingState: Sendable, Identifiable, Hashable {
    /// The identity of the editing state: each context has its own.
    public let id: UUID
    /// The author recorded in the history of the saves (``ModelContext/author``).
    public var author: String?
}

extension ModelContext {
    /// The context's editing state: its identity and its ``author``. Setting it sets ``author`` (and
    /// the identity the context reports).
    public var editingState: EditingState {
        get { EditingState(id: editingStateID, author: author) }
        set {
            editingStateID = newValue.id
            author = newValue.author
        }
    }
}
