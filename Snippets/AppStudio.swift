// snippet.hide
// Stowage Studio mounted in an app's own Hummingbird server, behind the app's authentication. Built
// where the package has its servers (not with STOWAGE_WITHOUT_POSTGRES=1, the Thread Sanitizer run's).
#if canImport(StowageStudio)
import Foundation
import Hummingbird
import Stowage
import StowageStudio

@Model
final class Budget {
    @Attribute(.unique) var name: String
    var limit: Double
    init(name: String, limit: Double) {
        self.name = name
        self.limit = limit
    }
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("app-studio-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let storeURL = directory.appendingPathComponent("budgets.store")

// snippet.show
/// The app's own check: only administrators reach the studio. HTTP Basic authentication, which a
/// browser asks for once and then sends with every request of the pages.
struct AdministratorsOnly<Context: RequestContext>: RouterMiddleware {
    let credentials: String  // "name:password", base64-encoded as the header carries it
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.headers[.authorization] == "Basic \(credentials)" else {
            throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Basic realm=\"Studio\""])
        }
        return try await next(request, context)
    }
}

// Package.swift: .product(name: "StowageStudio", package: "Stowage")
let container = try ModelContainer(for: Budget.self, configurations: ModelConfiguration(url: storeURL))
let router = Router()
// … the app's own routes …

// Edits are saves of a ModelContext of `container`: the app's delete rules, uniqueness and observers.
let studio = try StowageStudio(container: container, allowsEditing: true)
let administrators = Data("admin:\(ProcessInfo.processInfo.environment["STUDIO_PASSWORD"] ?? "")".utf8).base64EncodedString()
studio.addRoutes(to: router.group("admin/studio").add(middleware: AdministratorsOnly(credentials: administrators)))

let app = Application(router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 8080)))
// try await app.runService()
// snippet.end
// snippet.hide
_ = app
#endif
