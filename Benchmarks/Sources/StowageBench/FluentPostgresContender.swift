#if Fluent && Postgres
import FluentKit
import FluentPostgresDriver
import Foundation
import PostgresNIO

/// Fluent (fluent-kit with fluent-postgres-driver) without Vapor: one event loop, one connection per
/// database, its async API; the model is SQLite's `FluentRow`, on the raw contender's `item` table.
final class FluentPostgresContender: PostgresContender, @unchecked Sendable {
    // @unchecked Sendable: used by one task at a time.
    let name = "Fluent"
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    private let threadPool = NIOThreadPool(numberOfThreads: 1)
    private var databases: [Databases] = []
    private var read: (any Database)?
    private var keyed: (any Database)?

    init() { threadPool.start() }

    private func open(_ url: URL) throws -> any Database {
        let databases = Databases(threadPool: threadPool, on: group)
        let id = DatabaseID(string: url.path)
        let configuration = SQLPostgresConfiguration(
            hostname: url.host ?? "127.0.0.1", port: url.port ?? 5432, username: url.user ?? "postgres",
            password: url.password, database: String(url.path.dropFirst()), tls: .disable)
        databases.use(.postgres(configuration: configuration), as: id)
        self.databases.append(databases)
        return databases.database(id, logger: Logger(label: "fluent-bench"), on: group.any())!
    }

    private func makeTable(_ url: URL, uniqueKey: Bool) async throws -> PostgresConnection {
        let connection = try await PostgresServer.connect(url)
        try await RawPostgresContender.makeTable(connection, uniqueKey: uniqueKey)
        return connection
    }

    private func filled(_ url: URL, rows: Int, uniqueKey: Bool) async throws -> any Database {
        let connection = try await makeTable(url, uniqueKey: uniqueKey)
        try await PostgresServer.fill(connection, table: "item", key: "id", count: rows)
        try await connection.close()
        return try open(url)
    }

    func insert(_ rows: [RowValues], url: URL) async throws -> [Sample] {
        try await makeTable(url, uniqueKey: false).close()
        let database = try open(url)
        let ms = try await time {
            try await database.transaction { tx in
                for values in rows { try await FluentRow(values).create(on: tx) }
            }
        }
        return [Sample(name, ms, rows.count)]
    }

    func prepareRead(url: URL, rows: Int) async throws {
        read = try await filled(url, rows: rows, uniqueKey: false)
    }

    func fetchAll() async throws -> [Sample] {
        var count = 0
        let ms = try await time { count = try await FluentRow.query(on: read!).all().count }
        return [Sample(name, ms, count)]
    }

    func fetchRange(_ range: Range<Double>) async throws -> [Sample] {
        var count = 0
        let ms = try await time {
            count = try await FluentRow.query(on: read!).filter(\.$d1 >= range.lowerBound).filter(\.$d1 < range.upperBound).all().count
        }
        return [Sample(name, ms, count)]
    }

    func fetchEqual(_ values: [Int]) async throws -> [Sample] {
        var count = 0
        let ms = try await time {
            for value in values { count += try await FluentRow.query(on: read!).filter(\.$i1 == value).all().count }
        }
        return [Sample(name, ms, count)]
    }

    func update(_ keys: [Int64], run: Int) async throws -> [Sample] {
        let all = try await FluentRow.query(on: read!).sort(\.$id).all()
        let ms = try await time {
            try await read!.transaction { tx in
                for key in keys {
                    let index = Int(key - 1)
                    all[index].i2 = run * 1_000_000 + index
                    all[index].d2 = Double(run) + 0.125
                    try await all[index].update(on: tx)
                }
            }
        }
        return [Sample(name, ms, keys.count)]
    }

    func prepareKeyed(url: URL, rows: Int) async throws {
        keyed = try await filled(url, rows: rows, uniqueKey: true)
    }

    func lookupByKey(_ keys: [String]) async throws -> [Sample] {
        var count = 0
        let ms = try await time {
            for key in keys where try await FluentRow.query(on: keyed!).filter(\.$s1 == key).first() != nil { count += 1 }
        }
        return [Sample(name, ms, count)]
    }

    func close() async throws {
        for databases in self.databases { await databases.shutdownAsync() }
        databases = []
        read = nil
        keyed = nil
    }
}
#endif
