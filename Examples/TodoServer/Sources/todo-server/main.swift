import Foundation
import TodoServerKit

// `swift run todo-server [--store PATH | --postgres URL] [--host ADDRESS] [--port N]`: serves the API
// until SIGINT or SIGTERM. The first line of output is the address it listens on.
do {
    guard let options = try TodoServerOptions(parsing: Array(CommandLine.arguments.dropFirst())) else {
        print(TodoServerOptions.usage)
        exit(0)
    }
    let container = try options.makeContainer()
    let store = switch options.store {
    case .file(let path): "SQLite file \(path)"
    case .postgres: "PostgreSQL"
    }
    let app = TodoServer.application(container: container, options: options) { port in
        // Written unbuffered: a script (or a test) starting the server reads this line to find the port.
        FileHandle.standardOutput.write(Data("todo-server listening on http://\(options.host):\(port) (\(store))\n".utf8))
    }
    try await app.runService()
} catch let error as TodoServerError {
    FileHandle.standardError.write(Data("todo-server: \(error)\n".utf8))
    exit(64)
} catch {
    FileHandle.standardError.write(Data("todo-server: \(error)\n".utf8))
    exit(1)
}
