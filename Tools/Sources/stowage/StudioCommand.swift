#if canImport(StowageStudio)
import ArgumentParser
import Foundation
import StowageStudio

/// `stowage studio STORE`: the store in the browser.
struct StudioCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "studio",
        abstract: "Browse a store in the browser, live as apps save; edit it with --write.",
        discussion: """
            The first line of output is the page's address, with its token: open it in a browser on this \
            machine. Read-only unless --write, and read-only leaves every byte of the store as it was. \
            Edits are saves recorded in the store's history by the author stowage-studio, which running \
            apps see at once.
            """)

    @Argument(help: "The store file (an SQLite file a Stowage app made).", completion: .file())
    var store: String
    @Flag(help: "Allow editing, adding and deleting rows.") var write = false
    @Option(help: "The address to listen on (only this machine by default).") var host = "127.0.0.1"
    @Option(help: "The port; 0 picks a free one.") var port = 0

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port takes a number from 0 to 65535") }
    }

    func run() async throws {
        let studio = try StowageStudio(storePath: store, writable: write, host: host)
        let host = self.host
        let token = studio.token ?? ""
        let app = studio.application(host: host, port: port) { port in
            let shown = host.contains(":") ? "[\(host)]" : host
            // Unbuffered, first: a script (or a test) reads this line to find the page.
            FileHandle.standardOutput.write(Data("http://\(shown):\(port)/?token=\(token)\n".utf8))
        }
        // The pages' live connections end when the server is told to stop, so that it stops at once.
        let stops = [SIGINT, SIGTERM].map { signal in
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .global())
            source.setEventHandler { studio.stopLiveUpdates() }
            source.resume()
            return source
        }
        defer { stops.forEach { $0.cancel() } }
        try await app.runService()
    }
}
#endif
