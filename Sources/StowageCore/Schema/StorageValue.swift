import Foundation

/// A value as a store keeps it: one of SQLite's storage classes.
///
/// Every attribute type converts to exactly one ``StorageType`` (see ``StorageRepresentable``), so
/// the column of an attribute has one declared type and predicates compare like with like.
public enum StorageValue: Hashable, Sendable, CustomStringConvertible {
    /// SQL `NULL`: the value of a `nil` optional.
    case null
    /// A 64-bit signed integer: booleans and every integer type.
    case integer(Int64)
    /// A 64-bit floating-point number: `Double`, `Float` and `Date`.
    case real(Double)
    /// Text: strings, UUIDs, URLs, decimals and JSON.
    case text(String)
    /// Bytes: `Data`.
    case blob(Data)

    /// Whether the two values are the same stored bytes: unlike `==`, text compares byte for byte, not
    /// by Swift's canonical equivalence (`"é"` and `"e\u{301}"` are equal but not identical).
    @usableFromInline
    func isIdentical(to other: StorageValue) -> Bool {
        if case .text(let a) = self, case .text(let b) = other { return a.utf8.elementsEqual(b.utf8) }
        return self == other
    }

    /// The value as SQL writes it: `NULL`, a number, quoted text, or the size of a blob.
    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let v): return String(v)
        case .text(let v): return "'" + v.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'"
        case .blob(let v): return "<\(v.count) bytes>"
        }
    }
}

/// The declared type of a column.
public enum StorageType: String, Hashable, Sendable {
    /// `INTEGER`: booleans and every integer type.
    case integer = "INTEGER"
    /// `REAL`: `Double`, `Float` and `Date`.
    case real = "REAL"
    /// `TEXT`: strings, UUIDs, URLs, decimals and JSON.
    case text = "TEXT"
    /// `BLOB`: `Data`.
    case blob = "BLOB"
}

/// A type with a native column representation.
///
/// Stowage conforms `Bool`, every integer width, `Double`, `Float`, `Decimal`, `String`, `Date`,
/// `UUID`, `URL` and `Data`. `RawRepresentable` types whose raw value is one of these are stored as
/// their raw value; any other `Codable` type is stored as JSON text.
public protocol StorageRepresentable: Codable {
    /// The column type values of this type are stored in.
    static var storageType: StorageType { get }
    /// The stored form of this value.
    var storageValue: StorageValue { get }
    /// Decodes a stored value.
    ///
    /// - Throws: ``StowageError`` with code ``StowageError/Code/invalidStoredValue`` when the stored
    ///   value does not represent a value of this type.
    init(storageValue: StorageValue) throws
}

func invalidStoredValue<T>(_ value: StorageValue, as type: T.Type) -> StowageError {
    StowageError(.invalidStoredValue, "The stored value \(value) cannot be read as \(T.self).")
}

extension Bool: StorageRepresentable {
    public static var storageType: StorageType { .integer }
    public var storageValue: StorageValue { .integer(self ? 1 : 0) }
    public init(storageValue: StorageValue) throws {
        switch storageValue {
        case .integer(let v): self = v != 0
        case .real(let v): self = v != 0
        default: throw invalidStoredValue(storageValue, as: Bool.self)
        }
    }
}

/// Integers are stored as 64-bit INTEGER. Unsigned values above `Int64.max` keep their bit pattern, so
/// they round-trip exactly but compare as negative numbers in SQL.
public protocol StorageRepresentableInteger: StorageRepresentable, FixedWidthInteger {}

extension StorageRepresentableInteger {
    public static var storageType: StorageType { .integer }
    public var storageValue: StorageValue {
        if Self.isSigned || bitWidth < 64 { return .integer(Int64(self)) }
        return .integer(Int64(bitPattern: UInt64(self)))
    }
    public init(storageValue: StorageValue) throws {
        guard case .integer(let v) = storageValue else {
            if case .real(let d) = storageValue, let exact = Self(exactly: d) { self = exact; return }
            throw invalidStoredValue(storageValue, as: Self.self)
        }
        if !Self.isSigned && Self.bitWidth == 64 {
            self = Self(truncatingIfNeeded: UInt64(bitPattern: v))
        } else if let exact = Self(exactly: v) {
            self = exact
        } else {
            throw invalidStoredValue(storageValue, as: Self.self)
        }
    }
}

extension Int: StorageRepresentableInteger {}
extension Int8: StorageRepresentableInteger {}
extension Int16: StorageRepresentableInteger {}
extension Int32: StorageRepresentableInteger {}
extension Int64: StorageRepresentableInteger {}
extension UInt: StorageRepresentableInteger {}
extension UInt8: StorageRepresentableInteger {}
extension UInt16: StorageRepresentableInteger {}
extension UInt32: StorageRepresentableInteger {}
extension UInt64: StorageRepresentableInteger {}

extension Double: StorageRepresentable {
    public static var storageType: StorageType { .real }
    public var storageValue: StorageValue { .real(self) }
    public init(storageValue: StorageValue) throws {
        switch storageValue {
        case .real(let v): self = v
        case .integer(let v): self = Double(v)
        default: throw invalidStoredValue(storageValue, as: Double.self)
        }
    }
}

extension Float: StorageRepresentable {
    public static var storageType: StorageType { .real }
    public var storageValue: StorageValue { .real(Double(self)) }
    public init(storageValue: StorageValue) throws { self = Float(try Double(storageValue: storageValue)) }
}

extension String: StorageRepresentable {
    public static var storageType: StorageType { .text }
    public var storageValue: StorageValue { .text(self) }
    public init(storageValue: StorageValue) throws {
        guard case .text(let v) = storageValue else { throw invalidStoredValue(storageValue, as: String.self) }
        self = v
    }
}

/// Decimals are stored as TEXT holding every digit, so they round-trip exactly (`numeric` on
/// PostgreSQL); `Decimal.nan` as `-Infinity`. Predicates and sorts on them run in SQL with Swift's
/// `==` and `<`: SQLite compares the texts with Stowage's `decimal` collation.
extension Decimal: StorageRepresentable {
    public static var storageType: StorageType { .text }
    public var storageValue: StorageValue { .text(isNaN ? DecimalOrder.nanText : description) }
    public init(storageValue: StorageValue) throws {
        switch storageValue {
        case .text(let v):
            if v == DecimalOrder.nanText || v == "NaN" {
                self = .nan
                return
            }
            guard let d = Decimal(string: v, locale: Locale(identifier: "en_US_POSIX")) else {
                throw invalidStoredValue(storageValue, as: Decimal.self)
            }
            self = d
        case .integer(let v): self = Decimal(v)
        case .real(let v): self = Decimal(v)
        default: throw invalidStoredValue(storageValue, as: Decimal.self)
        }
    }
}

/// Dates are stored as REAL seconds since 2001-01-01 00:00:00 UTC (Core Data's reference date), which
/// is exactly how `Date` holds them: every date round-trips to the last bit. In the sqlite3 shell,
/// `datetime(date + 978307200, 'unixepoch')` shows one.
extension Date: StorageRepresentable {
    public static var storageType: StorageType { .real }
    public var storageValue: StorageValue { .real(timeIntervalSinceReferenceDate) }
    public init(storageValue: StorageValue) throws {
        self = Date(timeIntervalSinceReferenceDate: try Double(storageValue: storageValue))
    }
}

/// UUIDs are stored as their 36-character uppercase text, readable in the sqlite3 shell.
extension UUID: StorageRepresentable {
    public static var storageType: StorageType { .text }
    public var storageValue: StorageValue { .text(uuidString) }
    public init(storageValue: StorageValue) throws {
        guard case .text(let v) = storageValue, let uuid = UUID(uuidString: v) else {
            throw invalidStoredValue(storageValue, as: UUID.self)
        }
        self = uuid
    }
}

/// URLs are stored as their absolute string.
extension URL: StorageRepresentable {
    public static var storageType: StorageType { .text }
    public var storageValue: StorageValue { .text(absoluteString) }
    public init(storageValue: StorageValue) throws {
        guard case .text(let v) = storageValue, let url = URL(string: v) else {
            throw invalidStoredValue(storageValue, as: URL.self)
        }
        self = url
    }
}

extension Data: StorageRepresentable {
    public static var storageType: StorageType { .blob }
    public var storageValue: StorageValue { .blob(self) }
    public init(storageValue: StorageValue) throws {
        switch storageValue {
        case .blob(let v): self = v
        case .text(let v): self = Data(v.utf8)
        default: throw invalidStoredValue(storageValue, as: Data.self)
        }
    }
}
