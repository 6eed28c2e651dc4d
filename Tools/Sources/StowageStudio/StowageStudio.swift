import Foundation
import Hummingbird
import Logging
import StowageCore
import StowageTools

/// Stowage Studio: a store in the browser — its entities, rows, relationships, schema diagram, SQL and
/// history — live as the app saves, and editable when allowed.
///
/// `stowage studio STORE` serves it on its own. An app can mount it in its own Hummingbird server,
/// behind its own authentication; edits then go through a ``ModelContext`` of the app's container, so
/// they are the app's saves:
///
/// ```swift
/// let studio = try StowageStudio(container: container, allowsEditing: true)
/// studio.addRoutes(to: router.group("admin/studio").add(middleware: AdminAuthentication()))
/// ```
///
/// Every request must carry the studio's ``token`` when it has one (the URL's `token` parameter, once:
/// the page then keeps it in a cookie; or `Authorization: Bearer`); a form's post must carry the page's
/// CSRF token; every answer forbids other origins' scripts, frames and connections.
public struct StowageStudio: Sendable {
    let site: StudioSite
    let feed: ChangeFeed
    /// The secret every request must carry; `nil` when the app's own authentication guards the routes.
    public let token: String?
    /// The host names a request's `Host` header may have (`nil`: any), against DNS rebinding.
    let allowedHosts: Set<String>?
    let cookieName: String

    /// A studio over an app's container, for the app's own server.
    ///
    /// - Parameters:
    ///   - container: the app's container; its store must be an SQLite file.
    ///   - allowsEditing: whether the pages may edit rows (through a `ModelContext` of `container`, with
    ///     the author `stowage-studio`).
    ///   - token: a secret every request must carry, for a server without authentication of its own;
    ///     `nil` (the default) leaves access to the routes' middleware.
    /// - Throws: an error when the container's store is not an SQLite file.
    public init(container: ModelContainer, allowsEditing: Bool = false, token: String? = nil) throws {
        self.init(backend: try ContainerBackend(container: container, writable: allowsEditing), token: token, allowedHosts: nil)
    }

    /// A studio over a store file, as `stowage studio` serves it: a new random token, and only `host` and
    /// the loopback names accepted in the `Host` header.
    package init(storePath: String, writable: Bool, host: String) throws {
        self.init(backend: try FileBackend(path: storePath, writable: writable), token: Self.randomToken(), allowedHosts: [host])
    }

    init(backend: any StudioBackend, token: String?, allowedHosts: Set<String>?) {
        site = StudioSite(backend: backend, csrf: Self.randomToken())
        feed = ChangeFeed(backend: backend)
        self.token = token
        self.allowedHosts = allowedHosts.map { $0.union(["127.0.0.1", "localhost", "::1"]).reduce(into: Set<String>()) { names, name in
            names.insert(name.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]")))
        } }
        cookieName = "stowage_studio_" + String(Self.randomToken().prefix(8))
    }

    /// Whether a request's `Host` header names this studio: its host or a loopback name, on any port.
    /// A page of another site whose name an attacker made resolve to 127.0.0.1 (DNS rebinding) sends
    /// its own name.
    func acceptsHost(_ authority: String?) -> Bool {
        guard let names = allowedHosts else { return true }
        guard var name = authority?.lowercased() else { return false }
        if name.hasPrefix("[") {
            name = String(name.prefix { $0 != "]" }.dropFirst())
        } else if let colon = name.lastIndex(of: ":"), name.firstIndex(of: ":") == colon {
            name = String(name[..<colon])
        }
        return names.contains(name)
    }

    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(generator.next() as UInt64, radix: 16).leftPadded(to: 16) }.joined()
    }

    /// Adds the studio's pages to `router`, at its path: every page below it, the overview at its root.
    public func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
        router.get { request, context in try await self.handle(request, context: context, method: .get, rest: []) }
        router.get("**") { request, context in
            try await self.handle(request, context: context, method: .get, rest: context.parameters.getCatchAll().map(String.init))
        }
        router.post("**") { request, context in
            try await self.handle(request, context: context, method: .post, rest: context.parameters.getCatchAll().map(String.init))
        }
    }

    /// The headers of every answer: no caching, no referrer to other sites, and a
    /// Content-Security-Policy that allows only the studio's own scripts, styles and connections.
    static let securityHeaders: HTTPFields = [
        .init("Content-Security-Policy")!:
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        .init("X-Content-Type-Options")!: "nosniff",
        .init("Referrer-Policy")!: "same-origin",
        .init("Cross-Origin-Resource-Policy")!: "same-origin",
        .cacheControl: "no-store",
    ]

    private func handle<Context: RequestContext>(
        _ request: Request, context: Context, method: StudioRequest.Method, rest: [String]
    ) async throws -> Response {
        var request = request
        // The studio's own path, as this request reached it.
        var base = request.uri.path
        for _ in rest {
            if let slash = base.lastIndex(of: "/") { base = String(base[..<slash]) }
        }
        if base.hasSuffix("/") { base.removeLast() }
        let paths = Paths(base: base)
        let asJSON = rest.last.map { Format.split($0).1 == .json } ?? false

        // DNS rebinding: a page of another site that resolves its name to 127.0.0.1 sends its own Host.
        guard acceptsHost(request.head.authority) else {
            return Self.failure(421, "This studio answers only to its own address, not to \(request.head.authority ?? "a request without a Host").", asJSON: asJSON)
        }
        var setCookie: String?
        if let token {
            let query = StudioRequest.pairs(Substring(request.uri.query ?? ""))
            let bearer = request.headers[.authorization].flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil }
            let cookie = Self.cookie(cookieName, in: request.headers[.cookie])
            // Any credential the request presents may be the token: an app's own `Authorization` header
            // does not hide the studio's cookie.
            let presented = [query.first { $0.0 == "token" }?.1, bearer, cookie].compactMap { $0 }
            guard presented.contains(where: { Self.constantTimeEqual($0, token) }) else {
                return Self.failure(401, "Open the address `stowage studio` printed: it carries the studio's token.", asJSON: asJSON)
            }
            if cookie != token {
                // Lax, not Strict: the address is often opened from another application or site (a terminal, a
                // chat), whose navigation would not carry a Strict cookie; every request that changes the
                // store is a post, which Lax keeps to this site, and carries the CSRF token.
                setCookie = "\(cookieName)=\(token); Path=\(base.isEmpty ? "/" : base); HttpOnly; SameSite=Lax"
            }
            // The token leaves the address bar at once: the page's address is then safe to share or bookmark.
            if query.contains(where: { $0.0 == "token" }), method == .get {
                let kept = query.filter { $0.0 != "token" }
                var response = Self.redirect(request.uri.path + queryString(kept.map { ($0.0, $0.1) }))
                if let setCookie { response.headers[.setCookie] = setCookie }
                return response
            }
        }

        var form: [(String, String)] = []
        var json: JSONValue?
        if method == .post {
            let body = try await request.collectBody(upTo: 16 << 20)
            let text = String(buffer: body)
            if request.headers[.contentType]?.hasPrefix("application/json") == true {
                json = try? JSONValue(parsing: text)
                guard json != nil else { return Self.failure(400, "The body is not JSON.", asJSON: true) }
            } else {
                form = StudioRequest.pairs(Substring(text))
            }
            // Cross-site request forgery: a post carries the page's CSRF token, from the form or a header,
            // and, when the browser names its origin, comes from this studio's.
            let csrf = form.first { $0.0 == "csrf" }?.1 ?? request.headers[.init("X-CSRF-Token")!]
            guard let csrf, Self.constantTimeEqual(csrf, site.csrf) else {
                return Self.failure(403, "The post did not carry this page's CSRF token: reload the page and try again.", asJSON: asJSON)
            }
            if let origin = request.headers[.init("Origin")!], let host = request.head.authority,
               origin != "http://\(host)", origin != "https://\(host)" {
                return Self.failure(403, "The post came from another site (\(origin)).", asJSON: asJSON)
            }
        }
        if rest == ["events"], method == .get {
            let resumed = request.headers[.init("Last-Event-ID")!].flatMap { Int64($0) }
            let since = resumed ?? StudioRequest.pairs(Substring(request.uri.query ?? "")).first { $0.0 == "since" }.flatMap { Int64($0.1) }
            var response = events(since: since)
            if let setCookie { response.headers[.setCookie] = setCookie }
            return response
        }
        let studioRequest = StudioRequest(
            method: method, path: rest.map { $0.removingPercentEncoding ?? $0 },
            query: StudioRequest.pairs(Substring(request.uri.query ?? "")), form: form, json: json)
        let site = self.site
        let answer = try await Self.offload { try site.respond(studioRequest, paths: paths) }
        var response = try await respond(answer, paths: paths)
        if let setCookie { response.headers[.setCookie] = setCookie }
        return response
    }

    private func respond(_ answer: StudioResponse, paths: Paths) async throws -> Response {
        switch answer {
        case .html(let html): return Self.response(html, type: "text/html; charset=utf-8")
        case .json(let json): return Self.response(json.prettyText + "\n", type: "application/json")
        case .content(let text, let type): return Self.response(text, type: type)
        case .redirect(let location): return Self.redirect(location)
        case .failure(let status, let message, let asJSON): return Self.failure(status, message, asJSON: asJSON)
        case .failurePage(let status, let html): return Self.response(html, type: "text/html; charset=utf-8", status: HTTPResponse.Status(code: status))
        case .csv(let query): return csv(query)
        }
    }

    /// The store's saves, as Server-Sent Events `change` with the transaction's token and entities,
    /// from the transaction after `since` (the page's, or the browser's `Last-Event-ID`).
    private func events(since: Int64?) -> Response {
        let events = feed.events(since: since)
        var headers = Self.securityHeaders
        headers[.contentType] = "text/event-stream"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            try await writer.write(ByteBuffer(string: "retry: 1000\n: stowage studio\n\n"))
            for await event in events {
                switch event {
                case .change(let change):
                    try await writer.write(ByteBuffer(string: "id: \(change.token)\nevent: change\ndata: \(change.json.text)\n\n"))
                case .heartbeat:
                    try await writer.write(ByteBuffer(string: ": still here\n\n"))
                }
            }
            try await writer.finish(nil)
        })
    }

    /// Ends the pages' live-update connections and refuses new ones, so that a server stopping need
    /// not wait for them (each also ends by itself within a minute; the page then reconnects).
    public func stopLiveUpdates() {
        feed.stop()
    }

    /// An entity's rows as CSV, read a page at a time as the client takes them.
    private func csv(_ query: RowQuery) -> Response {
        var headers = Self.securityHeaders
        headers[.contentType] = "text/csv; charset=utf-8"
        headers[.contentDisposition] = "attachment; filename=\"\(query.entity.name).csv\""
        let site = self.site
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            var page = query
            page.limit = 2000
            let columns = page.columns
            try await writer.write(ByteBuffer(string: CSV.line(columns.map(\.name))))
            while true {
                let current = page
                let rows = try await Self.offload { try current.page(in: site.backend.reader()) }
                var text = ""
                for row in rows.rows { text += CSV.line(zip(columns, row).map { $0.text($1) ?? "" }) }
                try await writer.write(ByteBuffer(string: text))
                guard let next = rows.nextAfter else { break }
                page.after = next
            }
            try await writer.finish(nil)
        })
    }

    static func response(_ text: String, type: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = securityHeaders
        headers[.contentType] = type
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    static func redirect(_ location: String) -> Response {
        var headers = securityHeaders
        headers[.location] = location.isEmpty ? "/" : location
        return Response(status: .seeOther, headers: headers)
    }

    static func failure(_ status: Int, _ message: String, asJSON: Bool) -> Response {
        let code = HTTPResponse.Status(code: status)
        if asJSON { return response(JSONValue.object([("error", .string(message))]).prettyText + "\n", type: "application/json", status: code) }
        let html = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>\(status) · Stowage Studio</title></head>
            <body><main><h1>\(status) \(escape(code.reasonPhrase))</h1><p role="alert">\(escape(message))</p></main></body></html>
            """
        return response(html, type: "text/html; charset=utf-8", status: code)
    }

    static func cookie(_ name: String, in header: String?) -> String? {
        header?.split(separator: ";").lazy.map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) }
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let a = Array(a.utf8), b = Array(b.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// Runs blocking store work off the server's threads.
    static func offload<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
        }
    }
}

/// Fields of a CSV line (RFC 4180).
enum CSV {
    static func line(_ fields: [String]) -> String {
        fields.map { field in
            field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" })
                ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
        }.joined(separator: ",") + "\r\n"
    }
}

extension String {
    func leftPadded(to length: Int) -> String { count >= length ? self : String(repeating: "0", count: length - count) + self }
}

extension StowageStudio {
    /// A server of this studio alone, as `stowage studio` runs it.
    /// - Parameter onRunning: called with the port once the server listens (the one chosen for port 0).
    package func application(
        host: String, port: Int, onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router()
        addRoutes(to: router)
        var logger = Logger(label: "stowage-studio")
        logger.logLevel = .warning
        return Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: nil),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }
}
