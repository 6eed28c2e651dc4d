import Foundation
import GRDB

/// What the two GRDB record variants have in common.
protocol BenchRecord: FetchableRecord, MutablePersistableRecord {
    init(_ values: RowValues)
    var i1: Int { get }
    var s1: String { get }
    var i2: Int { get set }
    var d2: Double { get set }
}

/// GRDB's idiomatic record: `Codable` does the encoding and decoding.
struct CodableRecord: Codable, BenchRecord {
    static let databaseTableName = BenchTable.name
    var id: Int64?
    var i1: Int, i2: Int, i3: Int
    var d1: Double, d2: Double, d3: Double
    var s1: String, s2: String, s3: String

    init(_ v: RowValues) {
        (i1, i2, i3, d1, d2, d3, s1, s2, s3) = (v.i1, v.i2, v.i3, v.d1, v.d2, v.d3, v.s1, v.s2, v.s3)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// GRDB's fastest record: `init(row:)` decodes by column index, `encode(to:)` by hand.
struct ManualRecord: BenchRecord {
    static let databaseTableName = BenchTable.name
    var id: Int64?
    var i1: Int, i2: Int, i3: Int
    var d1: Double, d2: Double, d3: Double
    var s1: String, s2: String, s3: String

    init(_ v: RowValues) {
        (i1, i2, i3, d1, d2, d3, s1, s2, s3) = (v.i1, v.i2, v.i3, v.d1, v.d2, v.d3, v.s1, v.s2, v.s3)
    }

    init(row: Row) throws {
        id = row[0]
        i1 = row[1]; i2 = row[2]; i3 = row[3]
        d1 = row[4]; d2 = row[5]; d3 = row[6]
        s1 = row[7]; s2 = row[8]; s3 = row[9]
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["i1"] = i1; container["i2"] = i2; container["i3"] = i3
        container["d1"] = d1; container["d2"] = d2; container["d3"] = d3
        container["s1"] = s1; container["s2"] = s2; container["s3"] = s3
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// GRDB 7 records on a `DatabasePool` (WAL) with `synchronous = FULL`, through its query interface.
final class GRDBContender<Record: BenchRecord>: Contender {
    let name: String
    private var pool: DatabasePool!

    init(name: String) { self.name = name }

    static func open(_ path: String) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.prepareDatabase { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        let pool = try DatabasePool(path: path, configuration: configuration)
        // GRDB's WAL set-up lowers the writer to NORMAL after `prepareDatabase`.
        try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        return pool
    }

    func prepareReadStore(path: String, rows: Int) throws {
        try RawConnection(path: path).execute(BenchTable.create)
        try bulkFill(path: path, table: BenchTable.name, primaryKey: "id", count: rows)
        pool = try Self.open(path)
    }

    func prepareIterationStore(path: String, rows: Int) throws {
        try prepareReadStore(path: path, rows: rows)
    }

    func insert(_ rows: [RowValues], path: String) throws -> [Sample] {
        let pool = try Self.open(path)
        try pool.write { try $0.execute(sql: BenchTable.create) }
        let ms = try time {
            try pool.write { db in
                for values in rows {
                    var record = Record(values)
                    try record.insert(db)
                }
            }
        }
        try pool.close()
        return [Sample(name, ms, rows.count)]
    }

    func fetchAll() throws -> [Sample] {
        var count = 0
        let ms = try time { count = try pool.read { try Record.fetchAll($0) }.count }
        return [Sample(name, ms, count)]
    }

    func fetchRange(_ range: Range<Double>) throws -> [Sample] {
        var count = 0
        let ms = try time {
            count = try pool.read { db in
                try Record.filter(Column("d1") >= range.lowerBound && Column("d1") < range.upperBound).fetchAll(db)
            }.count
        }
        return [Sample(name, ms, count)]
    }

    func fetchEqual(_ values: [Int]) throws -> [Sample] {
        var count = 0
        let ms = try time {
            try pool.read { db in
                for value in values { count += try Record.filter(Column("i1") == value).fetchAll(db).count }
            }
        }
        return [Sample(name, ms, count)]
    }

    private var keyedPool: DatabasePool!

    func prepareKeyedStore(path: String, rows: Int) throws {
        try RawConnection(path: path).execute(BenchTable.createKeyed)
        try bulkFill(path: path, table: BenchTable.name, primaryKey: "id", count: rows)
        keyedPool = try Self.open(path)
    }

    func lookupByKey(_ keys: [String]) throws -> [Sample] {
        var found = 0
        let ms = try time {
            try keyedPool.read { db in
                for key in keys {
                    if let record = try Record.filter(Column("s1") == key).fetchOne(db) {
                        blackHole(record.i1)
                        found += 1
                    }
                }
            }
        }
        return [Sample(name, ms, found)]
    }

    func lookup(_ keys: [Int64], hits: Bool) throws -> [Sample] {
        var found = 0
        let ms = try time {
            try pool.read { db in
                for key in keys {
                    if let record = try Record.fetchOne(db, key: key) {
                        blackHole(record)
                        found += 1
                    }
                }
            }
        }
        return [Sample(name, ms, found)]
    }

    func update(_ keys: [Int64], run: Int) throws -> [Sample] {
        var records = try pool.read { try Record.order(Column("id")).fetchAll($0) }
        let ms = try time {
            try pool.write { db in
                for key in keys {
                    let index = Int(key - 1)
                    try records[index].updateChanges(db) {
                        $0.i2 = run * 1_000_000 + index
                        $0.d2 = Double(run) + 0.125
                    }
                }
            }
        }
        return [Sample(name, ms, keys.count)]
    }

    func iterate(batchSize: Int) throws -> [Sample] {
        var count = 0
        var sum = 0
        let ms = try time {
            try pool.read { db in
                let cursor = try Record.fetchCursor(db)
                while let record = try cursor.next() {
                    sum &+= record.i1 &+ record.s1.utf8.count
                    count += 1
                }
            }
        }
        blackHole(sum)
        return [Sample(name, ms, count)]
    }

    func memoryInsert(path: String, rows: Int, saveEvery: Int) throws {
        let pool = try Self.open(path)
        try pool.write { try $0.execute(sql: BenchTable.create) }
        var k = 0
        while k < rows {
            try pool.write { db in
                for index in k..<min(k + saveEvery, rows) {
                    var record = Record(.make(index))
                    try record.insert(db)
                }
            }
            k += saveEvery
        }
    }

    func memoryIterate(path: String) throws -> Int {
        pool = try Self.open(path)
        return try iterate(batchSize: 0)[0].rows
    }
}
