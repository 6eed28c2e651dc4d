import Foundation
import StowageCore

/// A PostgreSQL database as a container's store: the same models, queries and saves as on SQLite, in
/// a database that several processes on several hosts share.
///
/// ```swift
/// let url = URL(string: "postgres://app:secret@db.internal:5432/trips")!
/// let container = try ModelContainer(for: Trip.self, configurations: PostgresConfiguration(url: url))
/// ```
///
/// The container creates the tables it needs in the database (in the schema `public`), and checks
/// them on later opens. See the "PostgreSQL" article for pool sizing, several instances and
/// migrations at deploy time.
public struct PostgresConfiguration: DataStoreConfiguration, Sendable {
    /// The store of a PostgreSQL configuration, as a ``DataStore``.
    public typealias Store = PostgresStore

    /// How to reach the server.
    public enum Endpoint: Hashable, Sendable {
        /// A TCP host and port.
        case tcp(host: String, port: Int)
        /// The path of the server's Unix-domain socket (`/run/postgresql/.s.PGSQL.5432`).
        case unixSocket(path: String)
    }

    /// The configuration's name, unique among a container's configurations.
    public let name: String
    /// The models the database holds, or `nil` for all of the container's.
    public var schema: Schema?
    /// Where the server is.
    public var endpoint: Endpoint
    /// The user to connect as.
    public var username: String
    /// The user's password, if the server asks for one.
    public var password: String?
    /// The database.
    public var database: String
    /// The most connections the container opens (besides one that listens for other processes' saves).
    /// Each is used by one operation at a time; an operation waits for one at most ``connectTimeout``.
    public var maximumConnections: Int = 8
    /// How long opening a connection, or waiting for a free one, may take before the operation fails.
    public var connectTimeout: Duration = .seconds(10)
    /// Whether the container may save.
    public var allowsSave: Bool = true

    /// A configuration for the server at `endpoint`.
    public init(name: String = "default", schema: Schema? = nil, endpoint: Endpoint, username: String, password: String? = nil, database: String) {
        self.name = name
        self.schema = schema
        self.endpoint = endpoint
        self.username = username
        self.password = password
        self.database = database
    }

    /// A configuration from a URL: `postgres://user:password@host:port/database` (or `postgresql://`),
    /// or, for a Unix-domain socket, `postgres://user@/database?host=/run/postgresql` naming the socket's
    /// directory (the server's port picks the socket file, 5432 unless `port=` says otherwise).
    ///
    /// - Throws: ``StowageError`` (``StowageError/Code/storeOpenFailed``) for a URL that is not one of
    ///   these forms.
    public init(name: String = "default", schema: Schema? = nil, url: URL) throws {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql"
        else {
            throw StowageError(.storeOpenFailed, "\(url.absoluteString) is not a PostgreSQL URL: write postgres://user:password@host:port/database.")
        }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty else {
            throw StowageError(.storeOpenFailed, "The PostgreSQL URL \(Self.redacted(url)) names no database: end it with /database.")
        }
        guard let user = components.user, !user.isEmpty else {
            throw StowageError(.storeOpenFailed, "The PostgreSQL URL \(Self.redacted(url)) names no user: write postgres://user@host/\(database).")
        }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        let port = components.port ?? query["port"].flatMap(Int.init) ?? 5432
        let endpoint: Endpoint
        if let directory = query["host"], directory.hasPrefix("/") {
            endpoint = .unixSocket(path: directory + "/.s.PGSQL.\(port)")
        } else if let host = components.host, !host.isEmpty {
            endpoint = .tcp(host: host, port: port)
        } else {
            endpoint = .unixSocket(path: "/var/run/postgresql/.s.PGSQL.\(port)")
        }
        self.init(name: name, schema: schema, endpoint: endpoint, username: user.removingPercentEncoding ?? user,
                  password: components.password.map { $0.removingPercentEncoding ?? $0 }, database: database)
        if let connections = query["pool_max_conns"].flatMap(Int.init), connections > 0 { maximumConnections = connections }
        if let seconds = query["connect_timeout"].flatMap(Int.init), seconds > 0 { connectTimeout = .seconds(seconds) }
    }

    /// The URL without its password, for messages.
    static func redacted(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "(a URL)" }
        if components.password != nil { components.password = "•••" }
        return components.string ?? "(a URL)"
    }

    /// Equal when they name the same database, as the same user.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.name == rhs.name && lhs.endpoint == rhs.endpoint && lhs.database == rhs.database && lhs.username == rhs.username
    }

    /// Hashes what ``==`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(endpoint)
        hasher.combine(database)
        hasher.combine(username)
    }

    /// Where the store is, for messages: `host:port/database` or the socket's path and the database.
    package var location: String {
        switch endpoint {
        case .tcp(let host, let port): "\(host):\(port)/\(database)"
        case .unixSocket(let path): "\(path) \(database)"
        }
    }
}

extension PostgresConfiguration: PostgreSQLStoreConfiguration {
    package func makeDriver() throws -> any PostgreSQLDriver {
        try PostgresDriver(self)
    }
}
