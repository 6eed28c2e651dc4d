import Foundation

// Persistent history, with SwiftData's names (iOS 18). Every save of a store that records history
// (``ModelConfiguration/recordsHistory``, on by default as in SwiftData) writes one transaction in the
// save's own SQL transaction: who saved (``ModelContext/author``), when, and one change per model
// inserted, updated (with the properties it changed) or deleted (with the values of its
// `.preserveValueOnDeletion` attributes). ``ModelContext/fetchHistory(_:)`` reads it back, oldest first;
// a ``DefaultHistoryToken`` saved by a client asks later for "what changed since".

/// A saved transaction of a store's history: one save.
public protocol HistoryTransaction: Hashable, Identifiable, Sendable {
    /// The type of ``token``.
    associatedtype TokenType: Comparable, Hashable, Identifiable, Sendable
    /// The type of ``transactionIdentifier``.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// When the save committed.
    var timestamp: Date { get }
    /// The models the save inserted, updated and deleted, in that order.
    var changes: [HistoryChange] { get }
    /// A bookmark of the store's history just after this transaction.
    var token: TokenType { get }
    /// The transaction's number in its store, increasing with each save.
    var transactionIdentifier: TransactionIdentifier { get }
    /// The identifier of the store the transaction was saved to.
    var storeIdentifier: String { get }
    /// The ``ModelContext/author`` of the context that saved.
    var author: String? { get }
}

/// A bookmark of a store's history that a client keeps (it is `Codable`) to ask later for the
/// transactions saved since.
public protocol HistoryToken: Comparable, Codable, Hashable, Identifiable, Sendable {
    /// The type of ``tokenValue``.
    associatedtype TokenType: Codable, Hashable, Sendable
    /// What the token holds.
    var tokenValue: TokenType? { get }
}

/// The history token of Stowage's SQLite stores: for each store of the container, the number of the
/// last transaction it includes (a store it does not name counts as none read yet).
///
/// The transactions ``ModelContext/fetchHistory(_:)`` returns carry tokens covering every store: the
/// last transaction of each store up to that one, in time order. Keep the last one; later,
/// `#Predicate { $0.token > saved }` keeps the transactions saved after it in each store, and
/// `$0.token < saved` those before it. (Inside a predicate, a transaction's token is compared on its
/// own store.) Two tokens are otherwise ordered when one is at or before the other in every store.
public struct DefaultHistoryToken: HistoryToken {
    /// Store identifiers and transaction numbers.
    public typealias TokenType = [String: Int64]

    let transactions: [String: Int64]
    /// For a transaction's own token while a predicate is evaluated, its store: the token is then
    /// compared on that store alone.
    let transactionStore: String?

    init(_ transactions: [String: Int64], transactionStore: String? = nil) {
        self.transactions = transactions
        self.transactionStore = transactionStore
    }

    /// The stores the token covers and the number of the last transaction of each.
    public var tokenValue: [String: Int64]? { transactions }

    /// The token's hash value.
    public var id: Int { hashValue }

    /// Equal when they cover the same stores up to the same transactions.
    public static func == (lhs: DefaultHistoryToken, rhs: DefaultHistoryToken) -> Bool {
        lhs.transactions == rhs.transactions
    }

    /// Hashes the stores and transaction numbers.
    public func hash(into hasher: inout Hasher) { hasher.combine(transactions) }

    /// Whether `lhs` is before `rhs`: on a transaction's own store when one of them is a transaction's
    /// token in a predicate; otherwise when `lhs` is at or before `rhs` in every store, and differs.
    public static func < (lhs: DefaultHistoryToken, rhs: DefaultHistoryToken) -> Bool {
        switch (lhs.transactionStore, rhs.transactionStore) {
        case (let store?, let other?) where store != other:
            // Transactions of two stores (sorting by token): an arbitrary but consistent order.
            return (store, lhs.transactions[store] ?? 0) < (other, rhs.transactions[other] ?? 0)
        case (let store?, _), (_, let store?):
            return (lhs.transactions[store] ?? 0) < (rhs.transactions[store] ?? 0)
        case (nil, nil):
            let stores = Set(lhs.transactions.keys).union(rhs.transactions.keys)
            return lhs != rhs && stores.allSatisfy { (lhs.transactions[$0] ?? 0) <= (rhs.transactions[$0] ?? 0) }
        }
    }

    /// Decodes a token encoded by ``encode(to:)``: a dictionary of store identifiers and numbers.
    public init(from decoder: any Decoder) throws {
        transactions = try decoder.singleValueContainer().decode([String: Int64].self)
        transactionStore = nil
    }

    /// Encodes the token as a dictionary of store identifiers and transaction numbers.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(transactions)
    }
}

/// A transaction of the history of Stowage's SQLite stores.
public struct DefaultHistoryTransaction: HistoryTransaction {
    /// A transaction's number in its store.
    public typealias TransactionIdentifier = Int64
    /// The token of Stowage's stores.
    public typealias TokenType = DefaultHistoryToken

    /// The transaction's number in its store (``transactionIdentifier``).
    public var id: Int64 { transactionIdentifier }
    /// When the save committed (taken just before its commit).
    public let timestamp: Date
    /// The models the save inserted, updated and deleted, in that order, each in the save's order.
    public let changes: [HistoryChange]
    /// A token covering every store of the container up to this transaction (see
    /// ``DefaultHistoryToken``).
    public let token: DefaultHistoryToken
    /// The transaction's number in its store, increasing with each save and never reused.
    public let transactionIdentifier: Int64
    /// The identifier of the store the transaction was saved to.
    public let storeIdentifier: String
    /// The bundle identifier of the program that saved (its executable's name when it has none).
    public let bundleIdentifier: String
    /// The process identifier of the program that saved.
    public let processIdentifier: String
    /// The ``ModelContext/author`` of the context that saved.
    public let author: String?

    init(header: HistoryHeader, storeIdentifier: String, changes: [HistoryChange], token: DefaultHistoryToken? = nil) {
        timestamp = header.timestamp
        self.changes = changes
        self.token = token ?? DefaultHistoryToken([storeIdentifier: header.id], transactionStore: storeIdentifier)
        transactionIdentifier = header.id
        self.storeIdentifier = storeIdentifier
        bundleIdentifier = header.bundleIdentifier
        processIdentifier = header.processIdentifier
        author = header.author
    }

    /// Equal when they are the same transaction of the same store.
    public static func == (lhs: DefaultHistoryTransaction, rhs: DefaultHistoryTransaction) -> Bool {
        lhs.transactionIdentifier == rhs.transactionIdentifier && lhs.storeIdentifier == rhs.storeIdentifier
    }

    /// Hashes the store and the transaction number.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(transactionIdentifier)
        hasher.combine(storeIdentifier)
    }
}

/// A transaction as its store row holds it, without its changes.
struct HistoryHeader: Sendable {
    let id: Int64
    let timestamp: Date
    let author: String?
    let bundleIdentifier: String
    let processIdentifier: String
    /// The store object that saved it (``SQLiteStore/origin``); 0 when not read.
    var origin: Int64 = 0
    /// Whether its changes were recorded (see ``SQLiteHistory``).
    var detailed = true
}

/// One model's change in a history transaction.
public enum HistoryChange: Sendable {
    /// The model was inserted.
    case insert(any HistoryInsert)
    /// The model's attributes or relationships changed.
    case update(any HistoryUpdate)
    /// The model was deleted.
    case delete(any HistoryDelete)

    /// The identifier of the model that changed.
    public var changedPersistentIdentifier: PersistentIdentifier {
        switch self {
        case .insert(let change): change.changedPersistentIdentifier
        case .update(let change): change.changedPersistentIdentifier
        case .delete(let change): change.changedPersistentIdentifier
        }
    }
}

/// An insertion recorded in the history.
public protocol HistoryInsert<Model>: Sendable {
    /// The model type that changed.
    associatedtype Model: PersistentModel
    /// The type of ``transactionIdentifier``.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The type of ``changeIdentifier``.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// The change's identifier, unique in the store's history.
    var changeIdentifier: ChangeIdentifier { get }
    /// The identifier of the transaction the change belongs to.
    var transactionIdentifier: TransactionIdentifier { get }
    /// The model inserted.
    var changedPersistentIdentifier: PersistentIdentifier { get }
}

/// An update recorded in the history.
public protocol HistoryUpdate<Model>: Sendable {
    /// The model type that changed.
    associatedtype Model: PersistentModel
    /// The type of ``transactionIdentifier``.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The type of ``changeIdentifier``.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// A key path of a property the update changed.
    typealias PropertyUpdate = PartialKeyPath<Model> & Sendable
    /// The change's identifier, unique in the store's history.
    var changeIdentifier: ChangeIdentifier { get }
    /// The identifier of the transaction the change belongs to.
    var transactionIdentifier: TransactionIdentifier { get }
    /// The model updated.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The attributes and relationships the update changed (their new values are the store's).
    var updatedAttributes: [any PartialKeyPath<Model> & Sendable] { get }
}

/// A deletion recorded in the history.
public protocol HistoryDelete<Model>: Sendable {
    /// The model type that changed.
    associatedtype Model: PersistentModel
    /// The type of ``transactionIdentifier``.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The type of ``changeIdentifier``.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// The change's identifier, unique in the store's history.
    var changeIdentifier: ChangeIdentifier { get }
    /// The identifier of the transaction the change belongs to.
    var transactionIdentifier: TransactionIdentifier { get }
    /// The model deleted.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The values of the deleted model's `.preserveValueOnDeletion` attributes.
    var tombstone: HistoryTombstone<Model> { get }
}

/// An insertion in the history of Stowage's SQLite stores.
public struct DefaultHistoryInsert<Model: PersistentModel>: HistoryInsert, Hashable {
    /// The number of a transaction in its store.
    public typealias TransactionIdentifier = Int64
    /// The transaction's number times 2³² plus the change's position in it.
    public typealias ChangeIdentifier = Int64
    /// The change's identifier: the transaction's number times 2³² plus the change's position in it.
    public let changeIdentifier: Int64
    /// The number of the transaction the change belongs to.
    public let transactionIdentifier: Int64
    /// The model that changed.
    public let changedPersistentIdentifier: PersistentIdentifier
}

/// An update in the history of Stowage's SQLite stores.
public struct DefaultHistoryUpdate<Model: PersistentModel>: HistoryUpdate, Hashable {
    /// The number of a transaction in its store.
    public typealias TransactionIdentifier = Int64
    /// The transaction's number times 2³² plus the change's position in it.
    public typealias ChangeIdentifier = Int64
    /// A key path of a property the update changed.
    public typealias PropertyUpdate = PartialKeyPath<Model> & Sendable
    /// The change's identifier: the transaction's number times 2³² plus the change's position in it.
    public let changeIdentifier: Int64
    /// The number of the transaction the change belongs to.
    public let transactionIdentifier: Int64
    /// The model that changed.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The attributes and relationships the update changed.
    public let updatedAttributes: [any PartialKeyPath<Model> & Sendable]

    /// Equal when they are the same change.
    public static func == (lhs: DefaultHistoryUpdate, rhs: DefaultHistoryUpdate) -> Bool {
        lhs.changeIdentifier == rhs.changeIdentifier && lhs.changedPersistentIdentifier == rhs.changedPersistentIdentifier
    }

    /// Hashes the change's identifier and the model's.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(changeIdentifier)
        hasher.combine(changedPersistentIdentifier)
    }
}

/// A deletion in the history of Stowage's SQLite stores.
public struct DefaultHistoryDelete<Model: PersistentModel>: HistoryDelete, Hashable {
    /// The number of a transaction in its store.
    public typealias TransactionIdentifier = Int64
    /// The transaction's number times 2³² plus the change's position in it.
    public typealias ChangeIdentifier = Int64
    /// The change's identifier: the transaction's number times 2³² plus the change's position in it.
    public let changeIdentifier: Int64
    /// The number of the transaction the change belongs to.
    public let transactionIdentifier: Int64
    /// The model that changed.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The values of the model's `.preserveValueOnDeletion` attributes when it was deleted.
    public let tombstone: HistoryTombstone<Model>

    /// Equal when they are the same change.
    public static func == (lhs: DefaultHistoryDelete, rhs: DefaultHistoryDelete) -> Bool {
        lhs.changeIdentifier == rhs.changeIdentifier && lhs.changedPersistentIdentifier == rhs.changedPersistentIdentifier
    }

    /// Hashes the change's identifier and the model's.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(changeIdentifier)
        hasher.combine(changedPersistentIdentifier)
    }
}

/// The values a deleted model's `.preserveValueOnDeletion` attributes held when it was deleted.
///
/// ```swift
/// if case .delete(let deletion as DefaultHistoryDelete<Trip>) = change {
///     let name = deletion.tombstone[\.name] as? String
/// }
/// ```
///
/// As a sequence, its elements are `(keyPath: PartialKeyPath<Model>, value: any Sendable)` pairs, in
/// the order the model declares the attributes (an attribute whose value was `nil` is left out).
public struct HistoryTombstone<Model: PersistentModel>: Sequence, @unchecked Sendable {
    // @unchecked Sendable: immutable; the values are attribute values decoded from the store.
    let values: [(keyPath: PartialKeyPath<Model>, value: any Sendable)]

    /// The value the attribute at `keyPath` held, or `nil` when it was not preserved or was `nil`.
    public subscript(keyPath: PartialKeyPath<Model>) -> (any Sendable)? {
        values.first { $0.keyPath == keyPath }?.value
    }

    /// An iterator over the preserved `(keyPath, value)` pairs.
    public func makeIterator() -> Iterator { Iterator(base: values.makeIterator()) }

    /// Iterates the preserved values.
    public struct Iterator: IteratorProtocol {
        var base: IndexingIterator<[(keyPath: PartialKeyPath<Model>, value: any Sendable)]>
        /// The next `(keyPath: PartialKeyPath<Model>, value: any Sendable)` pair.
        public mutating func next() -> Any? { base.next() }
    }
}

/// Which history transactions a fetch returns, in which order, and how many.
public struct HistoryDescriptor<TransactionType: HistoryTransaction> {
    /// The transactions to keep; all when `nil`.
    public var predicate: Predicate<TransactionType>?
    /// The order of the transactions; oldest first when empty.
    public var sortBy: [SortDescriptor<TransactionType>]
    /// The most transactions returned; all when 0.
    public var fetchLimit: UInt64 = 0

    /// A descriptor of the transactions matching `predicate` (all when `nil`), oldest first.
    public init(predicate: Predicate<TransactionType>? = nil) {
        self.predicate = predicate
        self.sortBy = []
    }

    /// A descriptor of the transactions matching `predicate`, in the order of `sortBy`.
    public init(predicate: Predicate<TransactionType>? = nil, sortBy: [SortDescriptor<TransactionType>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
    }
}
