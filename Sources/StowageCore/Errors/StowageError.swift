import Foundation
import GRDBSQLite

/// An error thrown by Stowage: a code to switch on, a message that says what to fix, and the context
/// it happened in (entity, property, SQL statement, SQLite result code, underlying error).
///
/// ```swift
/// do {
///     try context.save()
/// } catch let error as StowageError where error.code == .constraintViolation {
///     print(error.message, error.entityName ?? "")
/// }
/// ```
///
/// It is also SwiftData's `SwiftDataError` (``SwiftDataError`` is another name for it): code written
/// against SwiftData catches it and compares it with SwiftData's static members, and equality is
/// SwiftData's — two errors are equal when they are the same `SwiftDataError` case, whatever their
/// messages. Each ``code`` belongs to one case (``Code/swiftDataCode``); several of Stowage's finer
/// codes belong to `.loadIssueModelContainer`, as SwiftData reports every failure to open a store so.
///
/// ```swift
/// do {
///     container = try ModelContainer(for: schema, migrationPlan: Plan.self, configurations: configuration)
/// } catch SwiftDataError.backwardMigration {
///     // a newer version of the app wrote this store
/// } catch let error as SwiftDataError where error == .loadIssueModelContainer {
///     print(error.message)   // Stowage's detailed explanation
/// }
/// ```
public struct StowageError: Error, CustomStringConvertible, Hashable, @unchecked Sendable {
    // @unchecked Sendable: `underlying` is an immutable `any Error` captured at the throw site.

    /// What went wrong. An open set of codes: match the ones you handle, treat others generically.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name, as it appears in messages (`"schemaMismatch"`).
        public let rawValue: String
        /// A code with this name. Codes are compared by name: use the static members rather than making your own.
        public init(_ rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// The store file cannot be created or opened (unwritable directory, missing permissions).
        public static let storeOpenFailed = Code("storeOpenFailed")
        /// A configuration that does not allow saving (`allowsSave: false`) names a store that does not
        /// exist, or an empty file: Stowage does not create it.
        public static let storeNotFound = Code("storeNotFound")
        /// The file exists but is not an SQLite database, or a damaged one.
        public static let notADatabase = Code("notADatabase")
        /// The store's tables differ from the models and no migration plan says how to get there.
        public static let schemaMismatch = Code("schemaMismatch")
        /// A model type is used that is not part of the container's schema.
        public static let unknownModelType = Code("unknownModelType")
        /// A model that was deleted (and saved) is used again.
        public static let deletedModel = Code("deletedModel")
        /// A model of another context or container is used.
        public static let foreignModel = Code("foreignModel")
        /// `save()` on a configuration created with `allowsSave: false`, or on a store whose file or
        /// directory this process cannot write (permissions, a read-only file system): nothing was written.
        public static let readOnlyStore = Code("readOnlyStore")
        /// A UNIQUE, NOT NULL or foreign key constraint failed on save.
        public static let constraintViolation = Code("constraintViolation")
        /// A save changed a model whose row another context or process deleted since it was read
        /// (deletion is not undone by a later change); nothing was written and the context keeps its
        /// changes: roll back or delete the model, then save again.
        public static let saveConflict = Code("saveConflict")
        /// The store failed while saving; nothing was written.
        public static let saveFailed = Code("saveFailed")
        /// A save would delete a model whose `.deny` relationship still refers to models; nothing was written.
        public static let deleteDenied = Code("deleteDenied")
        /// A to-many relationship has fewer or more models than its minimum or maximum count.
        public static let relationshipCount = Code("relationshipCount")
        /// The store failed while fetching.
        public static let fetchFailed = Code("fetchFailed")
        /// A stored value cannot be read as the attribute's type.
        public static let invalidStoredValue = Code("invalidStoredValue")
        /// A value cannot be stored (for instance a Codable value that fails to encode).
        public static let invalidValue = Code("invalidValue")
        /// A predicate or sort that cannot run in SQL, in strict mode.
        public static let unsupportedPredicate = Code("unsupportedPredicate")
        /// The schema declared by the models is invalid.
        public static let invalidSchema = Code("invalidSchema")
        /// No model exists for an identifier.
        public static let modelNotFound = Code("modelNotFound")
        /// Another connection or process kept the store's write lock longer than the configuration's
        /// `busyTimeout`; nothing was written.
        public static let storeBusy = Code("storeBusy")
        /// The disk holding the store is full (SQLite's `SQLITE_FULL`); nothing was written and the context
        /// keeps its changes: free space, then save again.
        public static let diskFull = Code("diskFull")
        /// The operating system failed a read, write or sync of the store's files (SQLite's `SQLITE_IOERR`);
        /// a save that reports it wrote nothing, unless the failure was the flush (`fsync`) of its commit:
        /// then its change may be found when the store is next opened (the message says so, and
        /// ``StowageError/sqliteCode`` is `SQLITE_IOERR_FSYNC`).
        public static let ioError = Code("ioError")
        /// SQLite could not allocate memory (`SQLITE_NOMEM`); a save that reports it wrote nothing.
        public static let outOfMemory = Code("outOfMemory")
        /// A configuration asks for CloudKit sync (`cloudKitDatabase: .private(_:)`), which Stowage does not do.
        public static let cloudKitUnavailable = Code("cloudKitUnavailable")
        /// A database server could not be reached, or refused the connection (server down, wrong user or
        /// password, timeout, every pooled connection busy for the whole timeout).
        public static let connectionFailed = Code("connectionFailed")
        /// The connection to a database server dropped during an operation: its transaction did not
        /// commit, and the next operation reconnects.
        public static let connectionLost = Code("connectionLost")
        /// A blocking operation was called on a SwiftNIO event loop thread, which it would stop.
        public static let blocksEventLoop = Code("blocksEventLoop")

        // SwiftData's own cases (see ``SwiftDataError``), thrown as they are where Stowage has no finer code.

        /// A store cannot be opened: SwiftData's case for every such failure.
        public static let loadIssueModelContainer = Code("loadIssueModelContainer")
        /// The store was written by a newer version of the models than the container's (a migration
        /// plan lists the store's version after the container's).
        public static let backwardMigration = Code("backwardMigration")
        /// The container's schema is not one of its migration plan's versions.
        public static let unknownSchema = Code("unknownSchema")
        /// The store matches none of the migration plan's versions.
        public static let unknownDataStoreSchema = Code("unknownDataStoreSchema")
        /// A sort that cannot run in SQL, in strict mode.
        public static let unsupportedSortDescriptor = Code("unsupportedSortDescriptor")
        /// A key path that cannot be used in a query.
        public static let unsupportedKeyPath = Code("unsupportedKeyPath")
        /// A fetch asked for pending changes and a batch size together.
        public static let includePendingChangesWithBatchSize = Code("includePendingChangesWithBatchSize")
        /// A fetch of identifiers that includes pending changes cannot be sorted.
        public static let sortingPendingChangesWithIdentifiers = Code("sortingPendingChangesWithIdentifiers")
        /// A history token older than the history kept.
        public static let historyTokenExpired = Code("historyTokenExpired")
        /// A history fetch that cannot be run.
        public static let invalidTransactionFetchRequest = Code("invalidTransactionFetchRequest")
        /// A configuration's name holds characters a file name cannot.
        public static let configurationFileNameContainsInvalidCharacters = Code("configurationFileNameContainsInvalidCharacters")
        /// A configuration's name is too long for a file name.
        public static let configurationFileNameTooLong = Code("configurationFileNameTooLong")
        /// A configuration's schema has a model the container's schema does not.
        public static let configurationSchemaNotFoundInContainerSchema = Code("configurationSchemaNotFoundInContainerSchema")
        /// Two configurations of a container have the same name or store the same model.
        public static let duplicateConfiguration = Code("duplicateConfiguration")
        /// A save breaks a constraint of the models (uniqueness, a required value, a relationship's
        /// count, a `.deny` delete rule).
        public static let modelValidationFailure = Code("modelValidationFailure")
        /// A model that belongs to no context is used where one is needed.
        public static let missingModelContext = Code("missingModelContext")

        /// The `SwiftDataError` case this code belongs to: SwiftData's own codes are their own case;
        /// Stowage's finer codes map to the case SwiftData reports in their place
        /// (`.storeOpenFailed`, `.storeNotFound`, `.notADatabase`, `.schemaMismatch`, `.invalidSchema` and
        /// `.cloudKitUnavailable` to `.loadIssueModelContainer`; `.constraintViolation`, `.relationshipCount` and
        /// `.deleteDenied` to `.modelValidationFailure`); a code SwiftData has no case for is its own.
        public var swiftDataCode: Code {
            switch self {
            case .storeOpenFailed, .storeNotFound, .notADatabase, .schemaMismatch, .invalidSchema, .cloudKitUnavailable: .loadIssueModelContainer
            case .constraintViolation, .relationshipCount, .deleteDenied: .modelValidationFailure
            default: self
            }
        }
    }

    /// What went wrong.
    public let code: Code
    /// A sentence saying what happened and what to do about it.
    public let message: String
    /// The entity involved, if any.
    public var entityName: String?
    /// The property involved, if any.
    public var propertyName: String?
    /// The SQL statement that failed, if any.
    public var sql: String?
    /// SQLite's extended result code, when SQLite reported the failure.
    public var sqliteCode: Int32?
    /// The error that caused this one (a GRDB `DatabaseError`, a `DecodingError`…).
    public var underlying: (any Error)?

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, entityName: String? = nil, propertyName: String? = nil,
        sql: String? = nil, sqliteCode: Int32? = nil, underlying: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.entityName = entityName
        self.propertyName = propertyName
        self.sql = sql
        self.sqliteCode = sqliteCode
        self.underlying = underlying
    }

    /// The code, its `SwiftDataError` case when it differs, the message, and the entity, property, SQLite
    /// code and statement when known, on one line.
    public var description: String {
        let swiftData = code.swiftDataCode == code ? "" : " (SwiftDataError.\(code.swiftDataCode))"
        var parts = ["StowageError.\(code)\(swiftData): \(message)"]
        if let entityName { parts.append("entity: \(entityName)") }
        if let propertyName { parts.append("property: \(propertyName)") }
        if let sqliteCode { parts.append("SQLite code: \(sqliteCode)") }
        if let sql { parts.append("SQL: \(sql)") }
        return parts.joined(separator: "; ")
    }
}

extension StowageError {
    /// An error for a failure SQLite reported with the extended result code `extended`: the kinds a
    /// caller handles on their own (disk full, I/O error, out of memory, read-only, busy, damaged file,
    /// constraint) get their code and a sentence saying what to do; any other is `fallback`.
    /// - Parameter what: what failed and what that means for the data, e.g. "The save failed and nothing
    ///   was written".
    static func sqlite(
        _ extended: Int32, _ fallback: Code, _ what: String, message: String, sql: String? = nil,
        underlying: (any Error)? = nil
    ) -> StowageError {
        let code = Code(sqlite: extended, else: fallback)
        let advice = switch code {
        case .diskFull: " The disk holding the store is full: free space, then try again."
        case .ioError: " The operating system reported an I/O error on the store's files."
        case .outOfMemory: " SQLite could not allocate memory."
        case .readOnlyStore: " The store's file or its directory cannot be written by this process (permissions or a read-only file system); reading still works."
        case .notADatabase: " The store file is damaged."
        default: ""
        }
        return StowageError(code, "\(what): \(message).\(advice)", sql: sql, sqliteCode: extended, underlying: underlying)
    }
}

extension StowageError.Code {
    /// The code of a failure SQLite reported with the extended result code `extended`, or `fallback`
    /// for the kinds that have no code of their own.
    init(sqlite extended: Int32, else fallback: Self) {
        switch extended & 0xff {
        case SQLITE_FULL: self = .diskFull
        case SQLITE_NOMEM: self = .outOfMemory
        case SQLITE_IOERR: self = extended == SQLITE_IOERR | (12 << 8) /* SQLITE_IOERR_NOMEM */ ? .outOfMemory : .ioError
        case SQLITE_READONLY: self = .readOnlyStore
        case SQLITE_BUSY: self = .storeBusy
        case SQLITE_CORRUPT, SQLITE_NOTADB: self = .notADatabase
        case SQLITE_CONSTRAINT: self = .constraintViolation
        default: self = fallback
        }
    }
}

extension StowageError: LocalizedError {
    /// The error's ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
}

// MARK: - SwiftDataError

/// SwiftData's error type: in Stowage, another name for ``StowageError``, so `catch let error as
/// SwiftDataError`, `error == .backwardMigration` and `catch SwiftDataError.unsupportedPredicate` work
/// as they do with SwiftData, with Stowage's detailed ``StowageError/message`` still at hand.
public typealias SwiftDataError = StowageError

extension StowageError {
    /// Equal when both are the same `SwiftDataError` case (``Code/swiftDataCode``), as SwiftData compares
    /// its errors; compare ``code`` to tell Stowage's finer kinds apart.
    public static func == (lhs: StowageError, rhs: StowageError) -> Bool {
        lhs.code.swiftDataCode == rhs.code.swiftDataCode
    }

    /// Hashes the `SwiftDataError` case (``Code/swiftDataCode``), consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code.swiftDataCode)
    }

    /// Matches an error that is this `SwiftDataError` case: `catch SwiftDataError.backwardMigration`.
    public static func ~= (lhs: StowageError, rhs: any Error) -> Bool {
        (rhs as? StowageError).map { $0 == lhs } ?? false
    }

    private init(swiftData code: Code) {
        self.init(code, "SwiftDataError.\(code)")
    }

    // SwiftData's static members, grouped as its documentation groups them.

    // Fetch errors
    /// SwiftData's `SwiftDataError.includePendingChangesWithBatchSize` (``Code/includePendingChangesWithBatchSize``), to compare thrown errors with.
    public static let includePendingChangesWithBatchSize = StowageError(swiftData: .includePendingChangesWithBatchSize)
    /// SwiftData's `SwiftDataError.sortingPendingChangesWithIdentifiers` (``Code/sortingPendingChangesWithIdentifiers``), to compare thrown errors with.
    public static let sortingPendingChangesWithIdentifiers = StowageError(swiftData: .sortingPendingChangesWithIdentifiers)
    /// SwiftData's `SwiftDataError.unsupportedKeyPath` (``Code/unsupportedKeyPath``), to compare thrown errors with.
    public static let unsupportedKeyPath = StowageError(swiftData: .unsupportedKeyPath)
    /// SwiftData's `SwiftDataError.unsupportedPredicate` (``Code/unsupportedPredicate``), to compare thrown errors with.
    public static let unsupportedPredicate = StowageError(swiftData: .unsupportedPredicate)
    /// SwiftData's `SwiftDataError.unsupportedSortDescriptor` (``Code/unsupportedSortDescriptor``), to compare thrown errors with.
    public static let unsupportedSortDescriptor = StowageError(swiftData: .unsupportedSortDescriptor)
    /// SwiftData's `SwiftDataError.historyTokenExpired` (``Code/historyTokenExpired``), to compare thrown errors with.
    public static let historyTokenExpired = StowageError(swiftData: .historyTokenExpired)
    /// SwiftData's `SwiftDataError.invalidTransactionFetchRequest` (``Code/invalidTransactionFetchRequest``), to compare thrown errors with.
    public static let invalidTransactionFetchRequest = StowageError(swiftData: .invalidTransactionFetchRequest)
    // Configuration errors
    /// SwiftData's `SwiftDataError.configurationFileNameContainsInvalidCharacters` (``Code/configurationFileNameContainsInvalidCharacters``), to compare thrown errors with.
    public static let configurationFileNameContainsInvalidCharacters = StowageError(swiftData: .configurationFileNameContainsInvalidCharacters)
    /// SwiftData's `SwiftDataError.configurationFileNameTooLong` (``Code/configurationFileNameTooLong``), to compare thrown errors with.
    public static let configurationFileNameTooLong = StowageError(swiftData: .configurationFileNameTooLong)
    /// SwiftData's `SwiftDataError.configurationSchemaNotFoundInContainerSchema` (``Code/configurationSchemaNotFoundInContainerSchema``), to compare thrown errors with.
    public static let configurationSchemaNotFoundInContainerSchema = StowageError(swiftData: .configurationSchemaNotFoundInContainerSchema)
    /// SwiftData's `SwiftDataError.duplicateConfiguration` (``Code/duplicateConfiguration``), to compare thrown errors with.
    public static let duplicateConfiguration = StowageError(swiftData: .duplicateConfiguration)
    // Container errors
    /// SwiftData's `SwiftDataError.loadIssueModelContainer` (``Code/loadIssueModelContainer``), to compare thrown errors with.
    public static let loadIssueModelContainer = StowageError(swiftData: .loadIssueModelContainer)
    // Context errors
    /// SwiftData's `SwiftDataError.modelValidationFailure` (``Code/modelValidationFailure``), to compare thrown errors with.
    public static let modelValidationFailure = StowageError(swiftData: .modelValidationFailure)
    /// SwiftData's `SwiftDataError.missingModelContext` (``Code/missingModelContext``), to compare thrown errors with.
    public static let missingModelContext = StowageError(swiftData: .missingModelContext)
    // Migration errors
    /// SwiftData's `SwiftDataError.backwardMigration` (``Code/backwardMigration``), to compare thrown errors with.
    public static let backwardMigration = StowageError(swiftData: .backwardMigration)
    /// SwiftData's `SwiftDataError.unknownSchema` (``Code/unknownSchema``), to compare thrown errors with.
    public static let unknownSchema = StowageError(swiftData: .unknownSchema)
    // Schema errors
    /// SwiftData's `SwiftDataError.unknownDataStoreSchema` (``Code/unknownDataStoreSchema``), to compare thrown errors with.
    public static let unknownDataStoreSchema = StowageError(swiftData: .unknownDataStoreSchema)
}
