import Foundation
import GRDBSQLite

struct BenchError: Error, CustomStringConvertible {
    let description: String
}

/// A connection through SQLite's C API with the durable settings every contender uses: WAL and
/// `synchronous = FULL` (Stowage's own settings).
final class RawConnection {
    let handle: OpaquePointer
    nonisolated(unsafe) static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(path: String) throws {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
              let handle else {
            sqlite3_close(handle)
            throw BenchError(description: "cannot open \(path)")
        }
        self.handle = handle
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = FULL")
    }

    deinit { sqlite3_close_v2(handle) }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw error() }
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
              let statement else { throw error() }
        return statement
    }

    func error() -> BenchError {
        BenchError(description: String(cString: sqlite3_errmsg(handle)))
    }

    @inline(__always)
    static func bindText(_ text: String, at index: Int32, in statement: OpaquePointer) {
        var text = text
        text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) {
                _ = sqlite3_bind_text(statement, index, $0.baseAddress, Int32($0.count), transient)
            }
        }
    }

    /// Binds the columns of `row` by index (the identifier first when `withID`).
    @inline(__always)
    static func bind(_ row: RowValues, to statement: OpaquePointer, withID: Bool) {
        var index: Int32 = 1
        if withID {
            sqlite3_bind_int64(statement, 1, row.id)
            index = 2
        }
        sqlite3_bind_int64(statement, index, Int64(row.i1))
        sqlite3_bind_int64(statement, index + 1, Int64(row.i2))
        sqlite3_bind_int64(statement, index + 2, Int64(row.i3))
        sqlite3_bind_double(statement, index + 3, row.d1)
        sqlite3_bind_double(statement, index + 4, row.d2)
        sqlite3_bind_double(statement, index + 5, row.d3)
        bindText(row.s1, at: index + 6, in: statement)
        bindText(row.s2, at: index + 7, in: statement)
        bindText(row.s3, at: index + 8, in: statement)
    }

    @inline(__always)
    static func text(_ statement: OpaquePointer, _ index: Int32) -> String {
        let count = Int(sqlite3_column_bytes(statement, index))
        guard let bytes = sqlite3_column_text(statement, index) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Decodes `id, i1 … s3` by index.
    @inline(__always)
    static func decode(_ statement: OpaquePointer) -> RowValues {
        RowValues(
            id: sqlite3_column_int64(statement, 0),
            i1: Int(sqlite3_column_int64(statement, 1)), i2: Int(sqlite3_column_int64(statement, 2)),
            i3: Int(sqlite3_column_int64(statement, 3)),
            d1: sqlite3_column_double(statement, 4), d2: sqlite3_column_double(statement, 5),
            d3: sqlite3_column_double(statement, 6),
            s1: text(statement, 7), s2: text(statement, 8), s3: text(statement, 9))
    }
}

/// The physical floor: SQLite's C API, one prepared statement per operation, bind and decode by index.
final class RawContender: Contender {
    let name = "raw SQLite"
    private var store: RawConnection!
    private static let columns = "id, i1, i2, i3, d1, d2, d3, s1, s2, s3"

    func prepareReadStore(path: String, rows: Int) throws {
        try RawConnection(path: path).execute(BenchTable.create)
        try bulkFill(path: path, table: BenchTable.name, primaryKey: "id", count: rows)
        store = try RawConnection(path: path)
    }

    func prepareIterationStore(path: String, rows: Int) throws {
        try prepareReadStore(path: path, rows: rows)
    }

    func insert(_ rows: [RowValues], path: String) throws -> [Sample] {
        let db = try RawConnection(path: path)
        try db.execute(BenchTable.create)
        let ms = try time {
            let statement = try db.prepare("INSERT INTO item (i1, i2, i3, d1, d2, d3, s1, s2, s3) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
            defer { sqlite3_finalize(statement) }
            try db.execute("BEGIN")
            for row in rows {
                RawConnection.bind(row, to: statement, withID: false)
                guard sqlite3_step(statement) == SQLITE_DONE else { throw db.error() }
                sqlite3_reset(statement)
            }
            try db.execute("COMMIT")
        }
        return [Sample(name, ms, rows.count)]
    }

    private func select(_ sql: String, _ bind: (OpaquePointer) -> Void = { _ in }) throws -> [RowValues] {
        let statement = try store.prepare(sql)
        defer { sqlite3_finalize(statement) }
        bind(statement)
        var rows: [RowValues] = []
        while sqlite3_step(statement) == SQLITE_ROW { rows.append(RawConnection.decode(statement)) }
        return rows
    }

    func fetchAll() throws -> [Sample] {
        var count = 0
        let ms = try time { count = try select("SELECT \(Self.columns) FROM item").count }
        return [Sample(name, ms, count)]
    }

    func fetchRange(_ range: Range<Double>) throws -> [Sample] {
        var count = 0
        let ms = try time {
            count = try select("SELECT \(Self.columns) FROM item WHERE d1 >= ? AND d1 < ?") {
                sqlite3_bind_double($0, 1, range.lowerBound)
                sqlite3_bind_double($0, 2, range.upperBound)
            }.count
        }
        return [Sample(name, ms, count)]
    }

    func fetchEqual(_ values: [Int]) throws -> [Sample] {
        var count = 0
        let ms = try time {
            let statement = try store.prepare("SELECT \(Self.columns) FROM item WHERE i1 = ?")
            defer { sqlite3_finalize(statement) }
            for value in values {
                sqlite3_bind_int64(statement, 1, Int64(value))
                var rows: [RowValues] = []
                while sqlite3_step(statement) == SQLITE_ROW { rows.append(RawConnection.decode(statement)) }
                count += rows.count
                sqlite3_reset(statement)
            }
        }
        return [Sample(name, ms, count)]
    }

    private var keyedStore: RawConnection!

    func prepareKeyedStore(path: String, rows: Int) throws {
        try RawConnection(path: path).execute(BenchTable.createKeyed)
        try bulkFill(path: path, table: BenchTable.name, primaryKey: "id", count: rows)
        keyedStore = try RawConnection(path: path)
    }

    func lookupByKey(_ keys: [String]) throws -> [Sample] {
        var found = 0
        let ms = try time {
            let statement = try keyedStore.prepare("SELECT \(Self.columns) FROM item WHERE s1 = ?")
            defer { sqlite3_finalize(statement) }
            for key in keys {
                RawConnection.bindText(key, at: 1, in: statement)
                if sqlite3_step(statement) == SQLITE_ROW {
                    blackHole(RawConnection.decode(statement))
                    found += 1
                }
                sqlite3_reset(statement)
            }
        }
        return [Sample(name, ms, found)]
    }

    func lookup(_ keys: [Int64], hits: Bool) throws -> [Sample] {
        var found = 0
        let ms = try time {
            let statement = try store.prepare("SELECT \(Self.columns) FROM item WHERE id = ?")
            defer { sqlite3_finalize(statement) }
            for key in keys {
                sqlite3_bind_int64(statement, 1, key)
                if sqlite3_step(statement) == SQLITE_ROW {
                    blackHole(RawConnection.decode(statement))
                    found += 1
                }
                sqlite3_reset(statement)
            }
        }
        return [Sample(name, ms, found)]
    }

    func update(_ keys: [Int64], run: Int) throws -> [Sample] {
        // The row objects exist before the timed part, as they do for the ORMs.
        var rows = try select("SELECT \(Self.columns) FROM item")
        let ms = try time {
            let statement = try store.prepare("UPDATE item SET i2 = ?, d2 = ? WHERE id = ?")
            defer { sqlite3_finalize(statement) }
            try store.execute("BEGIN")
            for key in keys {
                let index = Int(key - 1)
                rows[index].i2 = run * 1_000_000 + index
                rows[index].d2 = Double(run) + 0.125
                sqlite3_bind_int64(statement, 1, Int64(rows[index].i2))
                sqlite3_bind_double(statement, 2, rows[index].d2)
                sqlite3_bind_int64(statement, 3, key)
                guard sqlite3_step(statement) == SQLITE_DONE else { throw store.error() }
                sqlite3_reset(statement)
            }
            try store.execute("COMMIT")
        }
        return [Sample(name, ms, keys.count)]
    }

    func iterate(batchSize: Int) throws -> [Sample] {
        var count = 0
        var sum = 0
        let ms = try time {
            let statement = try store.prepare("SELECT \(Self.columns) FROM item")
            defer { sqlite3_finalize(statement) }
            while sqlite3_step(statement) == SQLITE_ROW {
                let row = RawConnection.decode(statement)
                sum &+= row.i1 &+ row.s1.utf8.count
                count += 1
            }
        }
        blackHole(sum)
        return [Sample(name, ms, count)]
    }

    func memoryInsert(path: String, rows: Int, saveEvery: Int) throws {
        let db = try RawConnection(path: path)
        try db.execute(BenchTable.create)
        let statement = try db.prepare("INSERT INTO item (i1, i2, i3, d1, d2, d3, s1, s2, s3) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
        defer { sqlite3_finalize(statement) }
        try db.execute("BEGIN")
        for k in 0..<rows {
            RawConnection.bind(RowValues.make(k), to: statement, withID: false)
            guard sqlite3_step(statement) == SQLITE_DONE else { throw db.error() }
            sqlite3_reset(statement)
            if (k + 1) % saveEvery == 0 { try db.execute("COMMIT; BEGIN") }
        }
        try db.execute("COMMIT")
    }

    func memoryIterate(path: String) throws -> Int {
        store = try RawConnection(path: path)
        return try iterate(batchSize: 0)[0].rows
    }
}
