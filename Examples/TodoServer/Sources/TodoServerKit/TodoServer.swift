import Foundation
import Hummingbird
import Logging
import Stowage
import StowagePostgres

/// How `todo-server` was asked to run: `todo-server [--store PATH | --postgres URL] [--host H] [--port N]`.
public struct TodoServerOptions: Equatable, Sendable {
    /// Where the lists are stored.
    public enum Store: Equatable, Sendable {
        /// An SQLite file (created if missing).
        case file(String)
        /// A PostgreSQL database (`postgres://user:password@host:port/database`).
        case postgres(URL)
    }

    /// The store; an SQLite file `todo-server.store` in the current directory by default.
    public var store: Store = .file("todo-server.store")
    /// The address to listen on; loopback by default.
    public var host = "127.0.0.1"
    /// The port; 8080 by default, 0 for any free port.
    public var port = 8080

    /// What `--help` prints.
    public static let usage = """
        usage: todo-server [--store PATH | --postgres URL] [--host ADDRESS] [--port N]

        A JSON API over to-do lists and their items, stored with Stowage.
          --store PATH      an SQLite file (default: todo-server.store)
          --postgres URL    a PostgreSQL database, postgres://user:password@host:port/database
          --host ADDRESS    the address to listen on (default: 127.0.0.1)
          --port N          the port (default: 8080; 0 picks a free one)
        """

    /// Options with their defaults.
    public init() {}

    /// Reads the command line's arguments (without the program's name).
    /// - Returns: `nil` for `--help`.
    /// - Throws: ``TodoServerError/usage(_:)`` naming what is wrong.
    public init?(parsing arguments: [String]) throws {
        var remaining = arguments[...]
        func value(of option: String) throws -> String {
            guard let value = remaining.popFirst() else { throw TodoServerError.usage("\(option) needs a value.") }
            return value
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--help", "-h":
                return nil
            case "--store":
                store = .file(try value(of: argument))
            case "--postgres":
                let text = try value(of: argument)
                guard let url = URL(string: text), url.scheme == "postgres" || url.scheme == "postgresql" else {
                    throw TodoServerError.usage("--postgres takes a postgres:// URL, not \"\(text)\".")
                }
                store = .postgres(url)
            case "--host":
                host = try value(of: argument)
            case "--port":
                let text = try value(of: argument)
                guard let port = Int(text), (0...65535).contains(port) else {
                    throw TodoServerError.usage("--port takes a number from 0 to 65535, not \"\(text)\".")
                }
                self.port = port
            default:
                throw TodoServerError.usage("Unknown argument \"\(argument)\".")
            }
        }
    }

    /// Opens the store the options name, creating or migrating its tables.
    public func makeContainer() throws -> ModelContainer {
        let schema = Schema(TodoAPI.models)
        switch store {
        case .file(let path):
            return try ModelContainer(for: schema, configurations: ModelConfiguration(schema: schema, url: URL(fileURLWithPath: path)))
        case .postgres(let url):
            return try ModelContainer(for: schema, configurations: [PostgresConfiguration(schema: schema, url: url)])
        }
    }
}

/// Why `todo-server` could not start.
public enum TodoServerError: Error, CustomStringConvertible, Equatable {
    /// The command line is wrong (exit status 64).
    case usage(String)

    /// The message.
    public var description: String {
        switch self {
        case .usage(let message): "\(message)\n\n\(TodoServerOptions.usage)"
        }
    }
}

/// The server: the API's routes on a Hummingbird application.
public enum TodoServer {
    /// The application serving ``TodoAPI`` over `container` on the options' host and port.
    /// - Parameter onRunning: called with the port once the server listens (the actual port when the
    ///   options asked for 0).
    public static func application(
        container: ModelContainer, options: TodoServerOptions = TodoServerOptions(), logger: Logger? = nil,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router()
        TodoAPI(container: container).addRoutes(to: router)
        return Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(options.host, port: options.port), serverName: "todo-server"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? options.port) },
            logger: logger ?? Logger(label: "todo-server"))
    }
}
