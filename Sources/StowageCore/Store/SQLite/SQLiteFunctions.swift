import Foundation
import GRDBSQLite

/// Collations and functions Stowage registers on every connection, so that SQL compares and searches
/// strings exactly as Foundation does in Swift: each one calls the Swift code a predicate's
/// `evaluate` runs (string functions evaluate the very `PredicateExpressions` node).
///
/// They are registered through SQLite's C API, the same way on the connections GRDB opens (the writer,
/// in-memory stores) and on the readers Stowage opens itself (``SQLiteReaderPool``).
enum SQLiteFunctions {
    static func register(on connection: OpaquePointer) {
        SwiftTextKey.register(on: connection)
        addCollation(connection, "localizedStandard") { $0.localizedStandardCompare($1) }
        addCollation(connection, "caseInsensitive") { $0.localizedCaseInsensitiveCompare($1) }
        addCollation(connection, "localized") { $0.localizedCompare($1) }
        addDecimalCollation(connection)
        addTest(connection, .contains) { text, other in
            try PredicateExpressions.CollectionContainsCollection(base: PredicateExpressions.Value(text), other: PredicateExpressions.Value(other))
                .evaluate(PredicateBindings())
        }
        addTest(connection, .startsWith) { text, prefix in
            try PredicateExpressions.SequenceStartsWith(base: PredicateExpressions.Value(text), prefix: PredicateExpressions.Value(prefix))
                .evaluate(PredicateBindings())
        }
        addTest(connection, .localizedStandardContains) { text, other in
            #if canImport(Darwin)
            text.localizedStandardContains(other)
            #else
            try PredicateExpressions.StringLocalizedStandardContains(root: PredicateExpressions.Value(text), other: PredicateExpressions.Value(other))
                .evaluate(PredicateBindings())
            #endif
        }
        addComparison(connection, .caseInsensitiveCompare) { $0.caseInsensitiveCompare($1) }
        addComparison(connection, .localizedCompare) { $0.localizedCompare($1) }
        addFunction(connection, SQLiteSQL.functionName(.count), argumentCount: 1, deterministic: true) { context, arguments in
            guard let text = string(arguments[0]) else { return sqlite3_result_null(context) }
            sqlite3_result_int64(context, Int64(text.count))
        }
        // Swift's `!` on nil: the statement fails (not deterministic, so SQLite never evaluates it ahead
        // of time).
        addFunction(connection, "stowage_unwrap", argumentCount: 1, deterministic: false) { context, arguments in
            guard sqlite3_value_type(arguments[0]) != SQLITE_NULL else {
                return sqlite3_result_error(context, "Stowage: a predicate force-unwrapped (`!`) a nil value", -1)
            }
            sqlite3_result_value(context, arguments[0])
        }
    }

    /// A two-string test; NULL in, NULL out (as SQL operators do).
    private static func addTest(
        _ connection: OpaquePointer, _ function: QueryExpression.StringFunction,
        _ test: @escaping @Sendable (String, String) throws -> Bool
    ) {
        addFunction(connection, SQLiteSQL.functionName(function), argumentCount: 2, deterministic: true) { context, arguments in
            guard let text = string(arguments[0]), let other = string(arguments[1]) else { return sqlite3_result_null(context) }
            do {
                sqlite3_result_int64(context, try test(text, other) ? 1 : 0)
            } catch {
                sqlite3_result_error(context, "\(error)", -1)
            }
        }
    }

    /// A two-string comparison returning `ComparisonResult`'s raw value (-1, 0, 1); NULL in, NULL out.
    private static func addComparison(
        _ connection: OpaquePointer, _ function: QueryExpression.StringFunction,
        _ compare: @escaping @Sendable (String, String) -> ComparisonResult
    ) {
        addFunction(connection, SQLiteSQL.functionName(function), argumentCount: 2, deterministic: true) { context, arguments in
            guard let text = string(arguments[0]), let other = string(arguments[1]) else { return sqlite3_result_null(context) }
            sqlite3_result_int64(context, Int64(compare(text, other).rawValue))
        }
    }

    /// The text of a function argument: TEXT as is, a BLOB read as UTF-8, `nil` for anything else.
    private static func string(_ value: OpaquePointer?) -> String? {
        guard let value else { return nil }
        switch sqlite3_value_type(value) {
        case SQLITE_TEXT:
            return SQLiteStatement.text(of: value)
        case SQLITE_BLOB:
            guard let bytes = sqlite3_value_blob(value) else { return "" }
            return String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
        default:
            return nil
        }
    }

    // MARK: - Registration through the C API

    private typealias Body = @Sendable (OpaquePointer?, UnsafeMutableBufferPointer<OpaquePointer?>) -> Void
    private final class FunctionBox: Sendable {
        let body: Body
        init(_ body: @escaping Body) { self.body = body }
    }

    private final class CollationBox: Sendable {
        let compare: @Sendable (String, String) -> ComparisonResult
        init(_ compare: @escaping @Sendable (String, String) -> ComparisonResult) { self.compare = compare }
    }

    /// Registers a scalar function. SQLite owns the box and releases it when the connection closes or the
    /// function is replaced.
    private static func addFunction(
        _ connection: OpaquePointer, _ name: String, argumentCount: Int32, deterministic: Bool, _ body: @escaping Body
    ) {
        let box = Unmanaged.passRetained(FunctionBox(body)).toOpaque()
        let flags = SQLITE_UTF8 | (deterministic ? SQLITE_DETERMINISTIC : 0)
        sqlite3_create_function_v2(
            connection, name, argumentCount, flags, box,
            { context, count, arguments in
                let box = Unmanaged<FunctionBox>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
                box.body(context, UnsafeMutableBufferPointer(start: arguments, count: Int(count)))
            },
            nil, nil,
            { box in box.map { Unmanaged<FunctionBox>.fromOpaque($0).release() } })
    }

    /// Registers a collation comparing UTF-8 text as Swift strings.
    private static func addCollation(
        _ connection: OpaquePointer, _ name: String, _ compare: @escaping @Sendable (String, String) -> ComparisonResult
    ) {
        let box = Unmanaged.passRetained(CollationBox(compare)).toOpaque()
        sqlite3_create_collation_v2(
            connection, name, SQLITE_UTF8, box,
            { box, leftCount, left, rightCount, right in
                let compare = Unmanaged<CollationBox>.fromOpaque(box!).takeUnretainedValue().compare
                let lhs = String(decoding: UnsafeRawBufferPointer(start: left, count: Int(leftCount)), as: UTF8.self)
                let rhs = String(decoding: UnsafeRawBufferPointer(start: right, count: Int(rightCount)), as: UTF8.self)
                return Int32(compare(lhs, rhs).rawValue)
            },
            { box in box.map { Unmanaged<CollationBox>.fromOpaque($0).release() } })
    }
}

extension SQLiteFunctions {
    /// Registers `decimal`, which compares the stored texts of `Decimal`s as Swift compares the values
    /// (``DecimalOrder``), on their bytes: no `String` is made for either side.
    fileprivate static func addDecimalCollation(_ connection: OpaquePointer) {
        sqlite3_create_collation_v2(
            connection, "decimal", SQLITE_UTF8, nil,
            { _, leftCount, left, rightCount, right in
                Int32(DecimalOrder.compare(
                    UnsafeRawBufferPointer(start: left, count: Int(leftCount)),
                    UnsafeRawBufferPointer(start: right, count: Int(rightCount))).rawValue)
            },
            nil)
    }
}

/// Stowage's SQL functions, for SQLite connections that Stowage did not open.
///
/// The indexes and unique constraints of `String` attributes are built on `stowage_nfc(column)` (see
/// "Strings compare as Swift compares them" in the "Where the Data Lives" article), so a connection that writes those columns
/// needs the function. Register it on connections you open yourself, with GRDB:
///
/// ```swift
/// var configuration = Configuration()
/// configuration.prepareDatabase { db in StowageSQLFunctions.register(on: db.sqliteConnection!) }
/// let queue = try DatabaseQueue(path: storeURL.path, configuration: configuration)
/// ```
///
/// or with SQLite's C API, right after `sqlite3_open_v2`. Reading needs nothing.
public enum StowageSQLFunctions {
    /// Registers Stowage's functions and collations on an open SQLite connection (`sqlite3 *`).
    public static func register(on connection: OpaquePointer) {
        SQLiteFunctions.register(on: connection)
    }
}
