import Foundation
import Hummingbird
import Stowage

/// A list as the API shows it.
public struct ListJSON: ResponseCodable, Equatable {
    /// The list's identifier.
    public var id: UUID
    /// Its name.
    public var name: String
    /// When it was created.
    public var createdAt: Date
    /// How many items it has.
    public var itemCount: Int
    /// How many of them are not done.
    public var openCount: Int

    init(_ list: TodoList) {
        id = list.id
        name = list.name
        createdAt = list.createdAt
        itemCount = list.items.count
        openCount = list.items.count { !$0.isDone }
    }
}

/// An item as the API shows it.
public struct ItemJSON: ResponseCodable, Equatable {
    /// The item's identifier.
    public var id: UUID
    /// The identifier of its list.
    public var listID: UUID?
    /// What to do.
    public var title: String
    /// Whether it is done.
    public var isDone: Bool
    /// Its priority.
    public var priority: Int
    /// When it is due.
    public var dueDate: Date?
    /// When it was created.
    public var createdAt: Date

    init(_ item: TodoItem) {
        id = item.id
        listID = item.list?.id
        title = item.title
        isDone = item.isDone
        priority = item.priority
        dueDate = item.dueDate
        createdAt = item.createdAt
    }
}

/// The body of `POST /lists` and `PATCH /lists/{id}`.
struct ListInput: Decodable {
    var name: String

    func validName() throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw HTTPError(.badRequest, message: "A list needs a name.") }
        return trimmed
    }
}

/// The body of `POST /lists/{id}/items`.
struct NewItem: Decodable {
    var title: String
    var priority: Int?
    var dueDate: Date?
}

/// The body of `PATCH /items/{id}`: absent members stay as they are; `"dueDate": null` clears the date.
struct ItemChange: Decodable {
    var title: String?
    var isDone: Bool?
    var priority: Int?
    /// `nil` when absent, `.some(nil)` when `null`.
    var dueDate: Date??

    private enum CodingKeys: String, CodingKey { case title, isDone, priority, dueDate }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        isDone = try container.decodeIfPresent(Bool.self, forKey: .isDone)
        priority = try container.decodeIfPresent(Int.self, forKey: .priority)
        if container.contains(.dueDate) {
            dueDate = .some(try container.decodeNil(forKey: .dueDate) ? nil : try container.decode(Date.self, forKey: .dueDate))
        }
    }
}

/// The query of `GET /lists/{id}/items`, turned into a predicate and sort descriptors that run in SQL.
struct ItemQuery {
    var done: Bool?
    var search = ""
    var minPriority = Int.min
    var dueBefore: Date?
    var sort = "created"
    var ascending = true
    var limit = 100
    var offset = 0

    /// Reads the query's parameters through `parameters`, which gives a parameter's value by name.
    init(_ parameters: (String) -> Substring?) throws {
        if let text = parameters("done") {
            guard let done = Bool(String(text)) else { throw Self.invalid("done", text, "true or false") }
            self.done = done
        }
        search = parameters("search").map(String.init) ?? ""
        if let text = parameters("minPriority") {
            guard let value = Int(text) else { throw Self.invalid("minPriority", text, "an integer") }
            minPriority = value
        }
        if let text = parameters("dueBefore") {
            guard let date = try? Date(String(text), strategy: .iso8601) else { throw Self.invalid("dueBefore", text, "an ISO 8601 date") }
            dueBefore = date
        }
        if let text = parameters("sort") {
            guard ["created", "title", "priority", "due"].contains(text) else { throw Self.invalid("sort", text, "created, title, priority or due") }
            sort = String(text)
        }
        if let text = parameters("order") {
            guard text == "asc" || text == "desc" else { throw Self.invalid("order", text, "asc or desc") }
            ascending = text == "asc"
        }
        if let text = parameters("limit") {
            guard let value = Int(text), (1...1000).contains(value) else { throw Self.invalid("limit", text, "from 1 to 1000") }
            limit = value
        }
        if let text = parameters("offset") {
            guard let value = Int(text), value >= 0 else { throw Self.invalid("offset", text, "0 or more") }
            offset = value
        }
    }

    private static func invalid(_ name: String, _ value: Substring, _ expected: String) -> HTTPError {
        HTTPError(.badRequest, message: "\(name)=\(value): expected \(expected).")
    }

    /// The items of the list with identifier `list` that pass the query's filters.
    func predicate(list: UUID) -> Predicate<TodoItem> {
        let anyState = done == nil, state = done ?? false
        let anyTitle = search.isEmpty, search = search
        let minPriority = minPriority
        let anyDate = dueBefore == nil, dueBefore = dueBefore ?? .distantFuture
        return #Predicate<TodoItem> { item in
            item.list?.id == list
                && (anyState || item.isDone == state)
                && (anyTitle || item.title.localizedStandardContains(search))
                && item.priority >= minPriority
                && (anyDate || (item.dueDate != nil && item.dueDate! < dueBefore))
        }
    }

    /// The requested order, then creation time and identifier, so that pages do not overlap.
    var sortDescriptors: [SortDescriptor<TodoItem>] {
        let order: SortOrder = ascending ? .forward : .reverse
        let first: SortDescriptor<TodoItem>? = switch sort {
        case "title": SortDescriptor(\.title, comparator: .localizedStandard, order: order)
        case "priority": SortDescriptor(\.priority, order: order)
        case "due": SortDescriptor(\.dueDate, order: order)
        default: nil
        }
        return (first.map { [$0] } ?? []) + [SortDescriptor(\.createdAt, order: order), SortDescriptor(\.id)]
    }
}

/// Turns the store's typed errors into HTTP statuses with their message: a conflict is 409, a store
/// that cannot be reached 503, anything else the store refused 500.
struct StoreErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as StowageError {
            let status: HTTPResponse.Status = switch error.code {
            case .constraintViolation, .saveConflict: .conflict
            case .connectionFailed, .connectionLost, .storeBusy: .serviceUnavailable
            default: .internalServerError
            }
            context.logger.error("\(error)")
            throw HTTPError(status, message: error.message)
        }
    }
}
