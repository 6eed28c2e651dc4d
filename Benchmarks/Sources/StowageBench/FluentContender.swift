#if Fluent
import FluentKit
import FluentSQLiteDriver
import Foundation

/// The benchmark entity as a Fluent model, on the same `item` table as raw SQLite and GRDB.
final class FluentRow: Model, @unchecked Sendable {
    static let schema = BenchTable.name

    @ID(custom: "id", generatedBy: .database) var id: Int?
    @Field(key: "i1") var i1: Int
    @Field(key: "i2") var i2: Int
    @Field(key: "i3") var i3: Int
    @Field(key: "d1") var d1: Double
    @Field(key: "d2") var d2: Double
    @Field(key: "d3") var d3: Double
    @Field(key: "s1") var s1: String
    @Field(key: "s2") var s2: String
    @Field(key: "s3") var s3: String

    init() {}

    init(_ v: RowValues) {
        (i1, i2, i3, d1, d2, d3, s1, s2, s3) = (v.i1, v.i2, v.i3, v.d1, v.d2, v.d3, v.s1, v.s2, v.s3)
    }
}

/// A running total that Fluent's `@Sendable` streaming closures can add to (they run one at a time).
private final class Tally: @unchecked Sendable {
    var count = 0
    var sum = 0
}

/// Fluent (fluent-kit with fluent-sqlite-driver) without Vapor: one event loop, one connection, its
/// EventLoopFuture API waited on from the benchmark's thread. WAL and `synchronous = FULL` as the others.
final class FluentContender: Contender {
    let name = "Fluent"
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private let threadPool = NIOThreadPool(numberOfThreads: 1)
    private var databases: [Databases] = []
    private var readDatabase: (any Database)!
    private var iterationDatabase: (any Database)!

    init() { threadPool.start() }

    private func open(_ path: String) throws -> any Database {
        let databases = Databases(threadPool: threadPool, on: group)
        let id = DatabaseID(string: path)
        databases.use(.sqlite(.file(path)), as: id)
        self.databases.append(databases)
        let database = databases.database(id, logger: Logger(label: "fluent-bench"), on: group.any())!
        let sql = database as! any SQLDatabase
        try sql.raw("PRAGMA journal_mode = WAL").run().wait()
        try sql.raw("PRAGMA synchronous = FULL").run().wait()
        return database
    }

    func prepareReadStore(path: String, rows: Int) throws {
        try RawConnection(path: path).execute(BenchTable.create)
        try bulkFill(path: path, table: BenchTable.name, primaryKey: "id", count: rows)
        readDatabase = try open(path)
    }

    func prepareIterationStore(path: String, rows: Int) throws {
        try RawConnection(path: path).execute(BenchTable.create)
        try bulkFill(path: path, table: BenchTable.name, primaryKey: "id", count: rows)
        iterationDatabase = try open(path)
    }

    func insert(_ rows: [RowValues], path: String) throws -> [Sample] {
        try RawConnection(path: path).execute(BenchTable.create)
        let database = try open(path)
        let ms = try time {
            try database.transaction { tx in
                EventLoopFuture.andAllSucceed(rows.map { FluentRow($0).create(on: tx) }, on: tx.eventLoop)
            }.wait()
        }
        return [Sample(name, ms, rows.count)]
    }

    func fetchAll() throws -> [Sample] {
        var count = 0
        let ms = try time { count = try FluentRow.query(on: readDatabase).all().wait().count }
        return [Sample(name, ms, count)]
    }

    func fetchRange(_ range: Range<Double>) throws -> [Sample] {
        var count = 0
        let ms = try time {
            count = try FluentRow.query(on: readDatabase)
                .filter(\.$d1 >= range.lowerBound).filter(\.$d1 < range.upperBound).all().wait().count
        }
        return [Sample(name, ms, count)]
    }

    func fetchEqual(_ values: [Int]) throws -> [Sample] {
        var count = 0
        let ms = try time {
            for value in values { count += try FluentRow.query(on: readDatabase).filter(\.$i1 == value).all().wait().count }
        }
        return [Sample(name, ms, count)]
    }

    // W9 is not measured for Fluent (its migration would need the unique index on s1).
    func prepareKeyedStore(path: String, rows: Int) throws {}
    func lookupByKey(_ keys: [String]) throws -> [Sample] { [] }

    func lookup(_ keys: [Int64], hits: Bool) throws -> [Sample] {
        var found = 0
        let ms = try time {
            for key in keys {
                if let row = try FluentRow.find(Int(key), on: readDatabase).wait() {
                    blackHole(row.i1)
                    found += 1
                }
            }
        }
        return [Sample(name, ms, found)]
    }

    func update(_ keys: [Int64], run: Int) throws -> [Sample] {
        let all = try FluentRow.query(on: readDatabase).sort(\.$id).all().wait()
        let ms = try time {
            try readDatabase.transaction { tx in
                EventLoopFuture.andAllSucceed(keys.map { key in
                    let index = Int(key - 1)
                    let row = all[index]
                    row.i2 = run * 1_000_000 + index
                    row.d2 = Double(run) + 0.125
                    return row.update(on: tx)
                }, on: tx.eventLoop)
            }.wait()
        }
        return [Sample(name, ms, keys.count)]
    }

    func iterate(batchSize: Int) throws -> [Sample] {
        let tally = Tally()
        let ms = try time {
            try FluentRow.query(on: iterationDatabase).chunk(max: batchSize) { chunk in
                for case .success(let row) in chunk {
                    tally.sum &+= row.i1 &+ row.s1.utf8.count
                    tally.count += 1
                }
            }.wait()
        }
        blackHole(tally.sum)
        return [Sample(name, ms, tally.count)]
    }

    func memoryInsert(path: String, rows: Int, saveEvery: Int) throws {
        try RawConnection(path: path).execute(BenchTable.create)
        let database = try open(path)
        var k = 0
        while k < rows {
            let range = k..<min(k + saveEvery, rows)
            try database.transaction { tx in
                EventLoopFuture.andAllSucceed(range.map { FluentRow(.make($0)).create(on: tx) }, on: tx.eventLoop)
            }.wait()
            k += saveEvery
        }
    }

    func memoryIterate(path: String) throws -> Int {
        iterationDatabase = try open(path)
        return try iterate(batchSize: 5000)[0].rows
    }
}
#endif
