import Foundation
import GRDBSQLite

/// Binding and reading values on a raw SQLite statement. Stowage prepares statements through GRDB
/// (which caches them per connection) and binds and reads them with SQLite's C API: values go straight
/// from models to the statement, text is bound with its byte length (so embedded NUL characters
/// survive) and rows are read by column index.
enum SQLiteStatement {
    nonisolated(unsafe) private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

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

    static func column(_ index: Int32, of statement: OpaquePointer) -> StorageValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            return .text(text(index, of: statement))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard let blob = sqlite3_column_blob(statement, index) else { return .blob(Data()) }
            return .blob(Data(bytes: blob, count: count))
        default:
            return .null
        }
    }

    /// The text of a column (whose storage class is text). Invalid UTF-8 is repaired, as `String`
    /// does when decoding bytes.
    static func text(_ index: Int32, of statement: OpaquePointer) -> String {
        // sqlite3_column_text first, then sqlite3_column_bytes: the order SQLite documents.
        guard let text = sqlite3_column_text(statement, index) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
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
    /// `.fetchFailed`, a failed write `.saveFailed` (or `.constraintViolation`).
    static func error(of statement: OpaquePointer) -> StowageError {
        let connection = sqlite3_db_handle(statement)
        let extended = sqlite3_extended_errcode(connection)
        let message = sqlite3_errmsg(connection).map { String(cString: $0) } ?? "unknown SQLite error"
        let code: StowageError.Code =
            if (extended & 0xff) == SQLITE_CONSTRAINT { .constraintViolation }
            else if sqlite3_stmt_readonly(statement) != 0 { .fetchFailed }
            else { .saveFailed }
        return StowageError(code, message, sql: sqlite3_sql(statement).map { String(cString: $0) }, sqliteCode: extended)
    }
}

/// The current row of a raw statement: primary key in column 0, attributes from column 1.
struct SQLiteRow: StoreRow {
    let statement: OpaquePointer
    var primaryKey: Int64 { sqlite3_column_int64(statement, 0) }
    func value(at index: Int) -> StorageValue { SQLiteStatement.column(Int32(index + 1), of: statement) }

    func integer(at index: Int) -> Int64? {
        let column = Int32(index + 1)
        return sqlite3_column_type(statement, column) == SQLITE_INTEGER ? sqlite3_column_int64(statement, column) : nil
    }

    func real(at index: Int) -> Double? {
        let column = Int32(index + 1)
        return sqlite3_column_type(statement, column) == SQLITE_FLOAT ? sqlite3_column_double(statement, column) : nil
    }

    func text(at index: Int) -> String? {
        let column = Int32(index + 1)
        return sqlite3_column_type(statement, column) == SQLITE_TEXT ? SQLiteStatement.text(column, of: statement) : nil
    }
}
