import Foundation
import GRDBSQLite

/// Swift's `String` equality and order, in SQL, on an index.
///
/// Swift compares strings by canonical equivalence: `"é"` (U+00E9) equals `"e\u{301}"`, and `<` is the
/// order of the strings' NFC forms, scalar by scalar. Comparing NFC forms byte by byte in UTF-8 gives
/// exactly that answer, because UTF-8 preserves the order of scalars. So Stowage compares text as
/// `stowage_nfc(column) op ?`, binding the NFC form of the value, and keys the indexes and uniqueness
/// constraints of `String` attributes on `stowage_nfc(column)`: predicates, sorts, unique constraints
/// and upserts all agree with Swift's `==`, lookups and ranges use the index, and the stored text stays
/// byte for byte what the model held.
///
/// Most text is already in NFC: text whose bytes are all below `0xCC` (every scalar below U+0300, none
/// of which combines or decomposes) is returned as it is, without building a Swift string.
enum SwiftTextKey {
    /// The SQL function returning a text's key (NULL and other values unchanged).
    static let function = "stowage_nfc"

    /// The key of a Swift string: its NFC form.
    static func key(_ text: String) -> String {
        isItsOwnKey(text.utf8) ? text : text.precomposedStringWithCanonicalMapping
    }

    /// Whether UTF-8 text is already its key: every byte below `0xCC` (every scalar below U+0300).
    static func isItsOwnKey(_ utf8: some Sequence<UInt8>) -> Bool {
        utf8.allSatisfy { $0 < 0xCC }
    }

    /// `stowage_nfc(text)` for SQLite.
    static func register(on connection: OpaquePointer) {
        sqlite3_create_function_v2(
            connection, function, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, nil,
            { context, _, arguments in
                guard let value = arguments?[0] else { return sqlite3_result_null(context) }
                guard sqlite3_value_type(value) == SQLITE_TEXT, let text = sqlite3_value_text(value) else {
                    return sqlite3_result_value(context, value)
                }
                let bytes = UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(value)))
                if SwiftTextKey.isItsOwnKey(bytes) { return sqlite3_result_value(context, value) }
                var key = SwiftTextKey.key(String(decoding: bytes, as: UTF8.self))
                key.withUTF8 { utf8 in
                    // Not empty: the text has a byte at or above 0xCC, and so has its NFC form.
                    utf8.withMemoryRebound(to: CChar.self) { chars in
                        sqlite3_result_text64(
                            context, chars.baseAddress, sqlite3_uint64(chars.count), SQLiteStatement.transient, UInt8(SQLITE_UTF8))
                    }
                }
            },
            nil, nil, nil)
    }
}
