import Foundation

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
public struct StowageError: Error, CustomStringConvertible, @unchecked Sendable {
    // @unchecked Sendable: `underlying` is an immutable `any Error` captured at the throw site.

    /// What went wrong. An open set of codes: match the ones you handle, treat others generically.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
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
        /// `save()` on a configuration created with `allowsSave: false`.
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

    public var description: String {
        var parts = ["StowageError.\(code): \(message)"]
        if let entityName { parts.append("entity: \(entityName)") }
        if let propertyName { parts.append("property: \(propertyName)") }
        if let sqliteCode { parts.append("SQLite code: \(sqliteCode)") }
        if let sql { parts.append("SQL: \(sql)") }
        return parts.joined(separator: "; ")
    }
}

extension StowageError: LocalizedError {
    public var errorDescription: String? { description }
}
