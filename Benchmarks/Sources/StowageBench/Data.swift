import Foundation
import GRDBSQLite
import Stowage

/// The values of one row of the benchmark entity: an identifier, 3 Int, 3 Double and 3 String columns.
struct RowValues {
    var id: Int64
    var i1: Int, i2: Int, i3: Int
    var d1: Double, d2: Double, d3: Double
    var s1: String, s2: String, s3: String

    private static let cities = ["Lisbon", "Oslo", "Nairobi", "Quito", "Kyoto", "Perth", "Tunis", "Lima"]

    /// The deterministic row number `k` (0-based): `i1` cycles through 1,000 values (indexed equality),
    /// `d1` spreads over [0, 1000) (a range of width 100 keeps about 10% of rows).
    static func make(_ k: Int) -> RowValues {
        RowValues(
            id: Int64(k + 1),
            i1: k % 1000, i2: k, i3: k &* 7,
            d1: Double((k &* 7919) % 100_000) / 100, d2: Double(k) * 0.5, d3: Double(k % 365) + 0.25,
            s1: "Name \(k)", s2: cities[k % cities.count], s3: "A longer note for row number \(k)")
    }

    static func make(count: Int) -> [RowValues] { (0..<count).map(make) }
}

/// The table every contender but Stowage uses (Stowage creates its own from the model).
enum BenchTable {
    static let name = "item"
    static let create = """
        CREATE TABLE item (id INTEGER PRIMARY KEY, i1 INTEGER NOT NULL, i2 INTEGER NOT NULL, i3 INTEGER NOT NULL, \
        d1 REAL NOT NULL, d2 REAL NOT NULL, d3 REAL NOT NULL, s1 TEXT NOT NULL, s2 TEXT NOT NULL, s3 TEXT NOT NULL);
        CREATE INDEX item_i1 ON item(i1);
        """
    /// W9's table: the same, with `s1` unique, as `@Attribute(.unique) var s1: String` makes it.
    static let createKeyed = create + "CREATE UNIQUE INDEX item_s1 ON item(s1);"
}

/// A splitmix64 generator: the same random lookups in every run and for every contender.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// `count` distinct row identifiers in 1...rows, in random order.
func randomKeys(_ count: Int, of rows: Int, seed: UInt64) -> [Int64] {
    var generator = SplitMix64(state: seed)
    return Array((1...Int64(rows)).shuffled(using: &generator).prefix(count))
}

/// Fills `table` of the file at `path` with rows 0..<count through SQLite's C API, in one transaction.
/// Used to prepare the stores the read workloads run on, identically for every contender.
func bulkFill(path: String, table: String, primaryKey: String, count: Int) throws {
    let db = try RawConnection(path: path)
    // Stowage's unique String columns (W9) are indexed on stowage_nfc(…), which a connection writing
    // them needs; the other contenders' tables do not use it.
    StowageSQLFunctions.register(on: db.handle)
    try db.execute("BEGIN")
    let columns = [primaryKey, "i1", "i2", "i3", "d1", "d2", "d3", "s1", "s2", "s3"].map { "\"\($0)\"" }
    let statement = try db.prepare(
        "INSERT INTO \"\(table)\" (\(columns.joined(separator: ", "))) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
    defer { sqlite3_finalize(statement) }
    for k in 0..<count {
        RawConnection.bind(RowValues.make(k), to: statement, withID: true)
        guard sqlite3_step(statement) == SQLITE_DONE else { throw db.error() }
        sqlite3_reset(statement)
    }
    try db.execute("COMMIT")
}

/// Peak and current resident memory of this process, from /proc/self/status, in kilobytes.
func memoryStatus() -> (hwm: Int, rss: Int) {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
    func field(_ name: String) -> Int {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0
    }
    return (field("VmHWM"), field("VmRSS"))
}
