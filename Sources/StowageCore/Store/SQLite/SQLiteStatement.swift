import Foundation
import GRDBSQLite

/// Binding and reading values on a raw SQLite statement. Stowage prepares statements through GRDB
/// (which caches them per connection) and binds and reads them with SQLite's C API: values go straight
/// from models to the statement, text is bound with its byte length (so embedded NUL characters
/// survive) and rows are read by column index.
enum SQLiteStatement {
    nonisolated(unsafe) static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    static func bind(_ value: StorageValue, at index: Int32, in statement: OpaquePointer) {
        switch value {
        case .null:
            sqlite3_bind_null(statement, index)
        case .integer(let v):
            sqlite3_bind_int64(statement, index, v)
        case .real(let v):
            sqlite3_bind_double(statement, index, v)
        case .text(var text):
            text.withUTF8 { bytes in
                if let base = bytes.baseAddress {
                    base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                        _ = sqlite3_bind_text(statement, index, $0, Int32(bytes.count), transient)
                    }
                } else {
                    _ = sqlite3_bind_text(statement, index, "", 0, transient)
                }
            }
        case .blob(let data):
            data.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress, bytes.count > 0 {
                    _ = sqlite3_bind_blob(statement, index, base, Int32(bytes.count), transient)
                } else {
                    _ = sqlite3_bind_zeroblob(statement, index, 0)
                }
            }
        }
    }

    /// The value of a column of the current row (looked up once, see `SQLiteRow`).
    static func column(_ index: Int32, of statement: OpaquePointer) -> StorageValue {
        guard let value = sqlite3_column_value(statement, index) else { return .null }
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT:
            return .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            return .text(text(of: value))
        case SQLITE_BLOB:
            guard let blob = sqlite3_value_blob(value) else { return .blob(Data()) }
            return .blob(Data(bytes: blob, count: Int(sqlite3_value_bytes(value))))
        default:
            return .null
        }
    }

    /// The text of a value whose type is text. Invalid UTF-8 is repaired, as `String` does when
    /// decoding bytes.
    static func text(of value: OpaquePointer) -> String {
        // sqlite3_value_text first, then sqlite3_value_bytes: the order SQLite documents.
        guard let bytes = sqlite3_value_text(value) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
    }

    /// Binds `arguments` to a prepared statement, runs `body`, and resets the statement.
    static func run<Result>(
        _ statement: OpaquePointer, _ arguments: [StorageValue], _ body: (OpaquePointer) throws -> Result
    ) throws -> Result {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
        for (offset, argument) in arguments.enumerated() {
            bind(argument, at: Int32(offset + 1), in: statement)
        }
        defer { sqlite3_reset(statement) }
        return try body(statement)
    }

    /// Steps the statement: `true` when a row is available, `false` when done.
    static func step(_ statement: OpaquePointer) throws -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw error(of: statement)
        }
    }

    /// The error SQLite reports for a statement that failed, as a ``StowageError``: a failed read is
    /// `.fetchFailed`, a failed write `.saveFailed`, unless SQLite's code has a code of its own
    /// (`.constraintViolation`, `.diskFull`, `.ioError`, `.outOfMemory`, `.readOnlyStore`…).
    static func error(of statement: OpaquePointer) -> StowageError {
        let connection = sqlite3_db_handle(statement)
        let extended = sqlite3_extended_errcode(connection)
        let message = sqlite3_errmsg(connection).map { String(cString: $0) } ?? "unknown SQLite error"
        let code = StowageError.Code(sqlite: extended, else: sqlite3_stmt_readonly(statement) != 0 ? .fetchFailed : .saveFailed)
        return StowageError(code, message, sql: sqlite3_sql(statement).map { String(cString: $0) }, sqliteCode: extended)
    }
}

/// A row as a store returns it: the primary key in column 0, then the query's attributes (index 0 is
/// column 1). Either the current row of a SQLite statement, or values a store decoded itself (a
/// PostgreSQL row, a custom data store's snapshot), laid out the same way.
///
/// Besides ``value(at:)``, a row reads the common storage classes typed, without building a
/// ``StorageValue``: the column loaders `@Model` specialises (see `AttributeOperations`) try the typed
/// read of their type first, which saves an enum, a copy and a release per column. A concrete type, not
/// a protocol: those loaders run for every column of every row, and an existential row cost a
/// projection and a witness call per column. The values are borrowed, not retained: a row made from
/// values is valid only inside the call that receives it.
@usableFromInline
package struct StoreRow {
    /// The SQLite statement positioned on the row, or `nil` for a row of values.
    @usableFromInline let statement: OpaquePointer?
    /// The row's values, primary key first, when it is not a SQLite row.
    @usableFromInline let values: UnsafePointer<StorageValue>?

    init(statement: OpaquePointer) {
        self.statement = statement
        self.values = nil
    }

    /// A row over `values` (the primary key as an integer first, then the query's columns), valid while
    /// the buffer is.
    package init(values: UnsafeBufferPointer<StorageValue>) {
        self.statement = nil
        self.values = values.baseAddress
    }

    package var primaryKey: Int64 {
        if let statement { return sqlite3_column_int64(statement, 0) }
        if case .integer(let key) = values.unsafelyUnwrapped[0] { return key }
        preconditionFailure("Stowage internal error: a row of values without an integer primary key")
    }

    /// The stored value of the query's attribute at `index`.
    @usableFromInline
    package func value(at index: Int) -> StorageValue {
        if let statement { return SQLiteStatement.column(Int32(index + 1), of: statement) }
        return values.unsafelyUnwrapped[index + 1]
    }

    // Each read looks the column's value up once (`sqlite3_column_value`) and reads its type and
    // content from it: every `sqlite3_column_*` call repeats the lookup. SQLite calls such a value
    // "unprotected", which only matters when several threads share a connection; a statement being
    // stepped here always has its connection to itself.

    /// The value at `index` when it is stored as an integer, otherwise `nil`.
    @usableFromInline
    func integer(at index: Int) -> Int64? {
        guard let statement else {
            if case .integer(let number) = values.unsafelyUnwrapped[index + 1] { return number }
            return nil
        }
        guard let value = sqlite3_column_value(statement, Int32(index + 1)), sqlite3_value_type(value) == SQLITE_INTEGER else { return nil }
        return sqlite3_value_int64(value)
    }

    /// The value at `index` when it is stored as a real number, otherwise `nil`.
    @usableFromInline
    func real(at index: Int) -> Double? {
        guard let statement else {
            if case .real(let number) = values.unsafelyUnwrapped[index + 1] { return number }
            return nil
        }
        guard let value = sqlite3_column_value(statement, Int32(index + 1)), sqlite3_value_type(value) == SQLITE_FLOAT else { return nil }
        return sqlite3_value_double(value)
    }

    /// The value at `index` when it is stored as text, otherwise `nil`.
    @usableFromInline
    func text(at index: Int) -> String? {
        guard let statement else {
            if case .text(let string) = values.unsafelyUnwrapped[index + 1] { return string }
            return nil
        }
        guard let value = sqlite3_column_value(statement, Int32(index + 1)), sqlite3_value_type(value) == SQLITE_TEXT else { return nil }
        return SQLiteStatement.text(of: value)
    }
}
