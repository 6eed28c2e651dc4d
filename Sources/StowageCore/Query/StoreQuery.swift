import Foundation

/// What a context asks its store to read, in storage-neutral terms: the store turns it into SQL (or
/// whatever its language is). Built from a ``FetchDescriptor`` by the predicate and sort translators.
struct StoreQuery {
    let entity: Schema.Entity
    /// The rows to keep, or `nil` for all rows. Changing it forgets ``template``.
    var filter: QueryExpression? { didSet { template = nil } }
    /// The values of the filter's ``QueryExpression/parameter(_:)`` expressions.
    var parameters: [StorageValue] = []
    /// The cached translation ``filter`` comes from, when it does: queries with the same template,
    /// sort, columns and presence of limit and offset have the same SQL text (see `SQLiteStore`).
    var template: PredicateTemplate?
    /// The order of the rows; the primary key always breaks ties, so results are deterministic.
    var sort: [QuerySortTerm] = []
    var limit: Int?
    var offset: Int?
    /// The attributes to read for each row. The primary key is always read.
    var attributes: [Schema.Attribute]
    /// To-one relationships whose foreign key column is read after the attributes.
    var foreignKeys: [Schema.Relationship]
    /// Restricts the query to these rows.
    var primaryKeys: [Int64]?
    /// The `FetchDescriptor` the query comes from, for a store that takes descriptors rather than
    /// filters (a custom ``DataStore``; see ``ModelStore/acceptsDescriptors``).
    var descriptor: Any?

    /// Whether the query reads every column of the entity's rows, in the entity's order (not a partial
    /// fetch, nor the columns of a sort read in the sort's order, which a full-row read would return
    /// in another order).
    var readsFullRow: Bool {
        !entity.isInHierarchy && Self.same(attributes, entity.columnAttributes) && Self.same(foreignKeys, entity.foreignKeyRelationships)
    }

    /// The column (after the primary key) naming each row's entity, read last, when the entity is part
    /// of a class hierarchy.
    var entityColumnIndex: Int? { entity.isInHierarchy ? attributes.count + foreignKeys.count : nil }

    /// Whether two arrays hold the same objects in the same order: a loop rather than
    /// `elementsEqual(_:by:)`, which ran unspecialised (about 1,000 instructions per check, three checks
    /// per fetch).
    private static func same<Element: AnyObject>(_ left: [Element], _ right: [Element]) -> Bool {
        guard left.count == right.count else { return false }
        for index in left.indices where left[index] !== right[index] { return false }
        return true
    }

    init(entity: Schema.Entity, attributes: [Schema.Attribute]? = nil, primaryKeys: [Int64]? = nil) {
        self.entity = entity
        self.attributes = attributes ?? entity.fetchAttributes
        self.foreignKeys = entity.fetchForeignKeys
        self.primaryKeys = primaryKeys
    }
}

/// One ORDER BY term.
struct QuerySortTerm: Equatable {
    var expression: QueryExpression
    var ascending: Bool
    /// How text compares; `nil` for non-text values.
    var collation: QueryCollation?
}

/// How strings compare in a sort or a comparison.
enum QueryCollation: Equatable {
    /// Unicode code point order (`String.StandardComparator.lexical`, SQLite's BINARY).
    case binary
    /// Finder-like order: case-insensitive, digits compared as numbers (`localizedStandardCompare`).
    /// SwiftData's default for `SortDescriptor` on strings.
    case localizedStandard
    /// Case-insensitive comparison (`localizedCaseInsensitiveCompare`).
    case caseInsensitive
    /// Locale-aware comparison (`localizedCompare`).
    case localized
    /// Not strings: `Decimal`s, stored as text (numbers in PostgreSQL), compared as Swift compares them
    /// (``DecimalOrder``).
    case decimal
}

/// The writes of one save, applied by the store in one transaction.
struct ChangeSet {
    struct Insert {
        let entity: Schema.Entity
        let model: AnyObject
    }

    struct Update {
        let entity: Schema.Entity
        let model: AnyObject
        let primaryKey: Int64
        let attributes: [Schema.Attribute]

        /// Whether `other` writes the same columns of the same entity (the save gives models changed in
        /// the same properties one shared list, so this is usually one pointer comparison per column).
        func hasShape(of other: Update) -> Bool {
            entity === other.entity && attributes.elementsEqual(other.attributes, by: ===)
        }
    }

    struct Delete {
        let entity: Schema.Entity
        let primaryKey: Int64
    }

    /// Links of one relationship of one model to write after the rows exist (inserted models get their
    /// primary keys first, then every link is written).
    struct RelationshipWrite {
        let model: AnyObject
        let relationship: Schema.Relationship
    }

    var inserts: [Insert] = []
    var updates: [Update] = []
    var deletes: [Delete] = []
    var relationshipWrites: [RelationshipWrite] = []
    /// Models this save deletes (directly or by cascade): links to them are written as absent.
    var removed: Set<ObjectIdentifier> = []
    /// The ``ModelContext/author`` recorded in the history.
    var author: String?
    /// The identity of the saving context's ``ModelContext/editingState``.
    var editingStateID: UUID?
}

/// What a store reports back from a save.
struct SaveResult {
    /// The primary key of each insert, in the order of ``ChangeSet/inserts``. An insert that matched a
    /// unique constraint reports the primary key of the row it updated.
    var insertedKeys: [Int64]
    /// The history transaction each store wrote, by store identifier (empty when none records history).
    var historyTransactions: [String: Int64] = [:]
}

/// A place models are stored: the SQLite store. The context only speaks to this protocol, except for
/// the rows it reads, which are ``StoreRow``s (the current row of a SQLite statement) so that the column
/// loaders `@Model` specialises call the row's typed reads directly: a second kind of store would make
/// `StoreRow` an enum of row sources.
protocol ModelStore: AnyObject, Sendable {
    /// The stable identifier of the store holding `entity`'s rows, part of every ``PersistentIdentifier``
    /// it issues.
    func identifier(for entity: Schema.Entity) -> String
    /// Streams the rows matching `query` to `body`.
    func fetch(_ query: StoreQuery, _ body: (StoreRow) throws -> Void) throws
    /// Counts the rows matching `query` (ignoring its attributes and sort).
    func count(_ query: StoreQuery) throws -> Int
    /// The primary keys of the rows matching `query`, in order.
    func primaryKeys(_ query: StoreQuery) throws -> [Int64]
    /// Reads one attribute kept outside the row (external storage).
    func externalValue(_ attribute: Schema.Attribute, of entity: Schema.Entity, primaryKey: Int64) throws -> StorageValue
    /// Streams the destination rows of a to-many (or inverse-stored to-one) relationship for several
    /// owners, grouped by owner in link order. Each row carries `query`'s columns; `body` receives the
    /// owner's primary key with it.
    func fetchRelated(_ relationship: Schema.Relationship, owners: [Int64], columns query: StoreQuery,
                      _ body: (Int64, StoreRow) throws -> Void) throws
    /// Applies a change set atomically: everything is written or nothing is.
    func apply(_ changes: ChangeSet) throws -> SaveResult
    /// Deletes every row of every entity, in one transaction per store, adding the entities emptied to
    /// `erased` as each store commits (so that a failure in a later store still reports the earlier).
    func eraseAll(_ erased: inout [String]) throws
    /// The SQLite stores (one per configuration), for what each keeps on its own (idle connections).
    var sqliteStores: [SQLiteStore] { get }
    /// The stores whose history the container reads (``ModelContext/fetchHistory(_:)``).
    var historyStores: [any HistoryStore] { get }
    /// Whether the store reads ``StoreQuery/descriptor`` rather than translated filters and sorts: the
    /// context then runs predicates and sorts in Swift over what it returns.
    var acceptsDescriptors: Bool { get }
}

/// A store that records the history of its saves: numbered transactions, each with runs of changes.
protocol HistoryStore: AnyObject {
    /// The store's identifier.
    var identifier: String { get }
    /// A number telling this store object's saves from other processes' (and other containers').
    var origin: Int64 { get }
    /// The transactions after `after`, oldest first, without their changes; `detailedOnly` leaves out
    /// those whose changes were not recorded.
    func historyHeaders(after: Int64, detailedOnly: Bool) throws -> [HistoryHeader]
    /// The change runs of the transactions numbered from `first` to `last`, in order.
    func historyRuns(from first: Int64, through last: Int64) throws -> [SQLiteHistory.Run]
    /// The number of the newest transaction of the history (0 when there is none).
    func newestHistoryTransaction() throws -> Int64
    /// The number of the newest transaction deleted from the history (0 when none was).
    func historyDeletedThrough() throws -> Int64
    /// Deletes transactions, recording that tokens up to the newest of them have expired.
    func deleteHistory(_ transactions: [Int64]) throws
}

extension ModelStore {
    /// The SQLite stores, whose history the container reads.
    var historyStores: [any HistoryStore] { sqliteStores }

    /// Stowage's own stores take translated queries.
    var acceptsDescriptors: Bool { false }

    /// Frees what the stores can after a read ran out of memory: their idle read connections, with
    /// their caches and prepared statements (reopened on demand).
    func releaseMemory() {
        for store in sqliteStores { store.releaseIdleReaders() }
    }
}
