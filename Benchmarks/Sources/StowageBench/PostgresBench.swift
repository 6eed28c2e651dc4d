#if Postgres
import Foundation
import Logging
import PostgresNIO
import Stowage
import StowagePostgres

// The PostgreSQL workloads (`--postgres URL`, built with `--traits Postgres`): W1, W2, W3, W5 and W9 on
// one server, Stowage against hand-written postgres-nio queries (the floor) and Fluent's PostgreSQL
// driver (with `--traits Postgres,Fluent`); P1, save throughput of 4 writer processes against pgbench;
// P2, the latency from one process's save to another process's ResultsObserver update.

/// A persistence layer on PostgreSQL. Each contender works in databases of its own, created for it.
///
/// Contenders run off the main actor, on Swift's global executor, as a server's request handlers do:
/// postgres-nio's async rows are read there without a hop to the main actor for each.
protocol PostgresContender: AnyObject, Sendable {
    var name: String { get }
    /// W1: inserts `rows` into the empty database at `url`, in one transaction (one save).
    func insert(_ rows: [RowValues], url: URL) async throws -> [Sample]
    /// Creates the table of W2, W3 and W5 in the database at `url`, filled with `rows` rows.
    func prepareRead(url: URL, rows: Int) async throws
    /// W2: fetches every row into objects.
    func fetchAll() async throws -> [Sample]
    /// W3a: the rows whose unindexed `d1` is in `range`.
    func fetchRange(_ range: Range<Double>) async throws -> [Sample]
    /// W3b: for each value, the rows whose indexed `i1` equals it.
    func fetchEqual(_ values: [Int]) async throws -> [Sample]
    /// W5: changes `i2` and `d2` of the rows with these identifiers, in one transaction.
    func update(_ keys: [Int64], run: Int) async throws -> [Sample]
    /// W9: creates its table (a unique `s1`) in the database at `url`, filled with `rows` rows.
    func prepareKeyed(url: URL, rows: Int) async throws
    /// W9: fetches the row whose unique `s1` equals each key.
    func lookupByKey(_ keys: [String]) async throws -> [Sample]
    /// Closes what the contender holds open.
    func close() async throws
}

/// Async time of `body`, in milliseconds.
func time(_ body: () async throws -> Void) async rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try await body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

/// Connections and databases on the benchmark's server.
enum PostgresServer {
    static let logger: Logger = {
        var logger = Logger(label: "stowage-bench.postgres")
        logger.logLevel = .critical
        return logger
    }()

    /// postgres-nio's configuration of the database at `url` (`postgres://user[:password]@host:port/db`).
    static func configuration(_ url: URL) throws -> PostgresConnection.Configuration {
        guard let host = url.host, let user = url.user else { throw BenchError(description: "--postgres takes postgres://user@host:port/database") }
        return PostgresConnection.Configuration(
            host: host, port: url.port ?? 5432, username: user, password: url.password,
            database: String(url.path.dropFirst()), tls: .disable)
    }

    static func connect(_ url: URL) async throws -> PostgresConnection {
        try await PostgresConnection.connect(configuration: try configuration(url), id: 1, logger: logger)
    }

    /// A new, empty database on the server of `server`, and its URL.
    static func createDatabase(_ server: URL, _ name: String) async throws -> URL {
        let admin = try await connect(server)
        defer { Task { try? await admin.close() } }
        try await admin.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: logger)
        try await admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name) ENCODING 'UTF8' TEMPLATE template0"), logger: logger)
        var components = URLComponents(url: server, resolvingAgainstBaseURL: false)!
        components.path = "/" + name
        return components.url!
    }

    static func dropDatabase(_ server: URL, _ name: String) async throws {
        let admin = try await connect(server)
        try await admin.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: logger)
        try await admin.close()
    }

    /// Fills `table` (columns `key`, i1…s3) with rows 0..<count, 1,000 rows per INSERT, untimed; then sets
    /// the table's key sequence past them and analyzes it.
    static func fill(_ connection: PostgresConnection, table: String, key: String, count: Int) async throws {
        var start = 0
        while start < count {
            let end = min(start + 1000, count)
            var bindings = PostgresBindings(capacity: (end - start) * 10)
            var tuples: [String] = []
            for k in start..<end {
                let v = RowValues.make(k)
                let base = (k - start) * 10
                tuples.append("(" + (1...10).map { "$\(base + $0)" }.joined(separator: ", ") + ")")
                bindings.append(v.id); bindings.append(v.i1); bindings.append(v.i2); bindings.append(v.i3)
                bindings.append(v.d1); bindings.append(v.d2); bindings.append(v.d3)
                bindings.append(v.s1); bindings.append(v.s2); bindings.append(v.s3)
            }
            let sql = "INSERT INTO \"\(table)\" (\"\(key)\", i1, i2, i3, d1, d2, d3, s1, s2, s3) VALUES " + tuples.joined(separator: ", ")
            try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
            start = end
        }
        try await connection.query(PostgresQuery(unsafeSQL: "SELECT setval(pg_get_serial_sequence('\"\(table)\"', '\(key)'), \(count + 1))"), logger: logger)
        try await connection.query(PostgresQuery(unsafeSQL: "ANALYZE \"\(table)\""), logger: logger)
    }
}

/// Hand-written postgres-nio: one connection, statements with bindings, rows decoded by position into
/// structs. The floor no layer over postgres-nio goes below.
final class RawPostgresContender: PostgresContender, @unchecked Sendable {
    // @unchecked Sendable: used by one task at a time.
    let name = "raw postgres-nio"
    private var read: PostgresConnection?
    private var keyed: PostgresConnection?

    static let create = """
        CREATE TABLE item (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, i1 bigint NOT NULL, i2 bigint NOT NULL, \
        i3 bigint NOT NULL, d1 double precision NOT NULL, d2 double precision NOT NULL, d3 double precision NOT NULL, \
        s1 text NOT NULL, s2 text NOT NULL, s3 text NOT NULL)
        """

    /// Creates the `item` table and its index on `i1` (and a unique one on `s1`, W9's).
    static func makeTable(_ connection: PostgresConnection, uniqueKey: Bool) async throws {
        try await connection.query(PostgresQuery(unsafeSQL: create), logger: PostgresServer.logger)
        try await connection.query("CREATE INDEX item_i1 ON item (i1)", logger: PostgresServer.logger)
        if uniqueKey { try await connection.query("CREATE UNIQUE INDEX item_s1 ON item (s1)", logger: PostgresServer.logger) }
    }

    func insert(_ rows: [RowValues], url: URL) async throws -> [Sample] {
        let connection = try await PostgresServer.connect(url)
        try await Self.makeTable(connection, uniqueKey: false)
        let logger = PostgresServer.logger
        let ms = try await time {
            try await connection.query("BEGIN", logger: logger)
            for v in rows {
                _ = try await connection.query(
                    "INSERT INTO item (i1, i2, i3, d1, d2, d3, s1, s2, s3) VALUES (\(v.i1), \(v.i2), \(v.i3), \(v.d1), \(v.d2), \(v.d3), \(v.s1), \(v.s2), \(v.s3)) RETURNING id",
                    logger: logger
                ).collect()
            }
            try await connection.query("COMMIT", logger: logger)
        }
        try await connection.close()
        return [Sample(name, ms, rows.count)]
    }

    func prepareRead(url: URL, rows: Int) async throws {
        let connection = try await PostgresServer.connect(url)
        try await Self.makeTable(connection, uniqueKey: false)
        try await PostgresServer.fill(connection, table: "item", key: "id", count: rows)
        read = connection
    }

    private func decode(_ rows: PostgresRowSequence) async throws -> [RowValues] {
        var values: [RowValues] = []
        for try await (id, i1, i2, i3, d1, d2, d3, s1, s2, s3) in rows.decode((Int64, Int, Int, Int, Double, Double, Double, String, String, String).self) {
            values.append(RowValues(id: id, i1: i1, i2: i2, i3: i3, d1: d1, d2: d2, d3: d3, s1: s1, s2: s2, s3: s3))
        }
        return values
    }

    func fetchAll() async throws -> [Sample] {
        let connection = read!
        var count = 0
        let ms = try await time {
            let rows = try await connection.query("SELECT id, i1, i2, i3, d1, d2, d3, s1, s2, s3 FROM item", logger: PostgresServer.logger)
            count = try await decode(rows).count
        }
        return [Sample(name, ms, count)]
    }

    func fetchRange(_ range: Range<Double>) async throws -> [Sample] {
        let connection = read!
        var count = 0
        let ms = try await time {
            let rows = try await connection.query(
                "SELECT id, i1, i2, i3, d1, d2, d3, s1, s2, s3 FROM item WHERE d1 >= \(range.lowerBound) AND d1 < \(range.upperBound)",
                logger: PostgresServer.logger)
            count = try await decode(rows).count
        }
        return [Sample(name, ms, count)]
    }

    func fetchEqual(_ values: [Int]) async throws -> [Sample] {
        let connection = read!
        var count = 0
        let ms = try await time {
            for value in values {
                let rows = try await connection.query("SELECT id, i1, i2, i3, d1, d2, d3, s1, s2, s3 FROM item WHERE i1 = \(value)", logger: PostgresServer.logger)
                count += try await decode(rows).count
            }
        }
        return [Sample(name, ms, count)]
    }

    func update(_ keys: [Int64], run: Int) async throws -> [Sample] {
        let connection = read!
        let logger = PostgresServer.logger
        let ms = try await time {
            try await connection.query("BEGIN", logger: logger)
            for key in keys {
                let index = Int(key - 1)
                let i2 = run * 1_000_000 + index, d2 = Double(run) + 0.125
                try await connection.query("UPDATE item SET i2 = \(i2), d2 = \(d2) WHERE id = \(key)", logger: logger)
            }
            try await connection.query("COMMIT", logger: logger)
        }
        return [Sample(name, ms, keys.count)]
    }

    func prepareKeyed(url: URL, rows: Int) async throws {
        let connection = try await PostgresServer.connect(url)
        try await Self.makeTable(connection, uniqueKey: true)
        try await PostgresServer.fill(connection, table: "item", key: "id", count: rows)
        keyed = connection
    }

    func lookupByKey(_ keys: [String]) async throws -> [Sample] {
        let connection = keyed!
        var count = 0
        let ms = try await time {
            for key in keys {
                let rows = try await connection.query("SELECT id, i1, i2, i3, d1, d2, d3, s1, s2, s3 FROM item WHERE s1 = \(key)", logger: PostgresServer.logger)
                count += try await decode(rows).count
            }
        }
        return [Sample(name, ms, count)]
    }

    func close() async throws {
        try await read?.close()
        try await keyed?.close()
        read = nil
        keyed = nil
    }
}

/// Stowage through its SwiftData API on `PostgresConfiguration`.
final class StowagePostgresContender: PostgresContender, @unchecked Sendable {
    // @unchecked Sendable: used by one task at a time.
    let name = "Stowage"
    private var read: ModelContainer?
    private var keyed: ModelContainer?

    static func open(_ url: URL, _ types: [any PersistentModel.Type]) throws -> ModelContainer {
        try ModelContainer(for: Schema(types), configurations: [try PostgresConfiguration(url: url)])
    }

    func insert(_ rows: [RowValues], url: URL) async throws -> [Sample] {
        let context = ModelContext(try Self.open(url, [BenchRow.self]))
        let ms = try time {
            for values in rows { context.insert(BenchRow(values)) }
            try context.save()
        }
        return [Sample(name, ms, rows.count)]
    }

    /// Stowage makes its tables; they are filled through postgres-nio, as the raw contender's are.
    private func fill(_ url: URL, table: String, rows: Int) async throws {
        let connection = try await PostgresServer.connect(url)
        try await PostgresServer.fill(connection, table: table, key: "_pk", count: rows)
        try await connection.close()
    }

    func prepareRead(url: URL, rows: Int) async throws {
        read = try Self.open(url, [BenchRow.self])
        try await fill(url, table: "BenchRow", rows: rows)
    }

    func fetchAll() async throws -> [Sample] {
        let context = ModelContext(read!)
        var count = 0
        let ms = try time { count = try context.fetch(FetchDescriptor<BenchRow>()).count }
        return [Sample(name, ms, count)]
    }

    func fetchRange(_ range: Range<Double>) async throws -> [Sample] {
        let context = ModelContext(read!)
        let (low, high) = (range.lowerBound, range.upperBound)
        var count = 0
        let ms = try time {
            count = try context.fetch(FetchDescriptor<BenchRow>(predicate: #Predicate { $0.d1 >= low && $0.d1 < high })).count
        }
        return [Sample(name, ms, count)]
    }

    func fetchEqual(_ values: [Int]) async throws -> [Sample] {
        let context = ModelContext(read!)
        var count = 0
        let ms = try time {
            for value in values {
                count += try context.fetch(FetchDescriptor<BenchRow>(predicate: #Predicate { $0.i1 == value })).count
            }
        }
        return [Sample(name, ms, count)]
    }

    func update(_ keys: [Int64], run: Int) async throws -> [Sample] {
        // The models exist before the timed part (fetched in primary key order), as the raw rows do.
        let context = ModelContext(read!)
        let all = try context.fetch(FetchDescriptor<BenchRow>())
        let ms = try time {
            for key in keys {
                let index = Int(key - 1)
                all[index].i2 = run * 1_000_000 + index
                all[index].d2 = Double(run) + 0.125
            }
            try context.save()
        }
        withExtendedLifetime(all) {}
        return [Sample(name, ms, keys.count)]
    }

    func prepareKeyed(url: URL, rows: Int) async throws {
        keyed = try Self.open(url, [KeyedBenchRow.self])
        try await fill(url, table: "KeyedBenchRow", rows: rows)
    }

    func lookupByKey(_ keys: [String]) async throws -> [Sample] {
        let context = ModelContext(keyed!)
        var count = 0
        let ms = try time {
            for key in keys {
                var descriptor = FetchDescriptor<KeyedBenchRow>(predicate: #Predicate { $0.s1 == key })
                descriptor.fetchLimit = 1
                count += try context.fetch(descriptor).count
            }
        }
        return [Sample(name, ms, count)]
    }

    func close() async throws {
        read = nil
        keyed = nil
    }
}
#endif
