import Foundation
import Hummingbird
import Stowage

/// The JSON API over lists and their items. Each request works in a `ModelContext` of its own on the
/// shared container, as a SwiftData app gives each screen or task its own context.
///
/// | Method and path | What it does |
/// |---|---|
/// | `GET /lists` | every list, by name, with its counts |
/// | `POST /lists` `{"name"}` | creates a list (409 if the name is taken) |
/// | `GET`, `PATCH` `{"name"}`, `DELETE /lists/{id}` | one list; deleting it deletes its items |
/// | `GET /lists/{id}/items` | its items: `done`, `search`, `minPriority`, `dueBefore`, `sort` (`created`, `title`, `priority`, `due`), `order` (`asc`, `desc`), `limit`, `offset` |
/// | `POST /lists/{id}/items` `{"title", "priority"?, "dueDate"?}` | adds an item |
/// | `GET`, `PATCH` `{"title"?, "isDone"?, "priority"?, "dueDate"?}`, `DELETE /items/{id}` | one item (`"dueDate": null` clears the date) |
public struct TodoAPI: Sendable {
    /// The container every request's context works on.
    public let container: ModelContainer

    /// Creates the API over a container whose schema has ``TodoList`` and ``TodoItem``.
    public init(container: ModelContainer) {
        self.container = container
    }

    /// The models the API stores.
    public static var models: [any PersistentModel.Type] { [TodoList.self, TodoItem.self] }

    /// Adds the API's routes, and the middleware that turns store errors into HTTP statuses, to `router`.
    public func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.add(middleware: StoreErrorMiddleware())
        router.get("health") { _, _ in "ok" }
        let lists = router.group("lists")
        lists.get { _, _ in try allLists() }
        lists.post { request, context in
            try createList(try await request.decode(as: ListInput.self, context: context))
        }
        lists.get(":id") { _, context in ListJSON(try list(context).0) }
        lists.patch(":id") { request, context in
            try renameList(try list(context), to: try await request.decode(as: ListInput.self, context: context))
        }
        lists.delete(":id") { _, context in try delete(try list(context)) }
        lists.get(":id/items") { request, context in
            try items(of: try list(context), ItemQuery { request.uri.queryParameters[$0[...]] })
        }
        lists.post(":id/items") { request, context in
            try addItem(to: try list(context), try await request.decode(as: NewItem.self, context: context))
        }
        let itemRoutes = router.group("items")
        itemRoutes.get(":id") { _, context in ItemJSON(try item(context).0) }
        itemRoutes.patch(":id") { request, context in
            try changeItem(try item(context), try await request.decode(as: ItemChange.self, context: context))
        }
        itemRoutes.delete(":id") { _, context in try delete(try item(context)) }
    }

    // MARK: Lists

    private func allLists() throws -> [ListJSON] {
        let context = ModelContext(container)
        return try context.fetch(FetchDescriptor<TodoList>(sortBy: [SortDescriptor(\.name)])).map(ListJSON.init)
    }

    private func createList(_ input: ListInput) throws -> EditedResponse<ListJSON> {
        let context = ModelContext(container)
        let name = try input.validName()
        try requireFreeName(name, in: context)
        let list = TodoList(name: name)
        context.insert(list)
        try context.save()
        return EditedResponse(status: .created, headers: [.location: "/lists/\(list.id)"], response: ListJSON(list))
    }

    private func renameList(_ found: (TodoList, ModelContext), to input: ListInput) throws -> ListJSON {
        let (list, context) = found
        let name = try input.validName()
        if name != list.name { try requireFreeName(name, in: context) }
        list.name = name
        try context.save()
        return ListJSON(list)
    }

    /// Refuses a name another list has (409). Two requests racing past this check, on two servers, can
    /// still both save: the check is the API's, not a constraint of the store.
    private func requireFreeName(_ name: String, in context: ModelContext) throws {
        if try context.fetchCount(FetchDescriptor<TodoList>(predicate: #Predicate { $0.name == name })) > 0 {
            throw HTTPError(.conflict, message: "A list named \"\(name)\" already exists.")
        }
    }

    // MARK: Items

    private func items(of found: (TodoList, ModelContext), _ query: ItemQuery) throws -> [ItemJSON] {
        let (list, context) = found
        var descriptor = FetchDescriptor<TodoItem>(predicate: query.predicate(list: list.id), sortBy: query.sortDescriptors)
        descriptor.fetchLimit = query.limit
        descriptor.fetchOffset = query.offset
        return try context.fetch(descriptor).map(ItemJSON.init)
    }

    private func addItem(to found: (TodoList, ModelContext), _ input: NewItem) throws -> EditedResponse<ItemJSON> {
        let (list, context) = found
        let item = TodoItem(title: try validTitle(input.title), priority: input.priority ?? 0, dueDate: input.dueDate)
        context.insert(item)
        item.list = list
        try context.save()
        return EditedResponse(status: .created, headers: [.location: "/items/\(item.id)"], response: ItemJSON(item))
    }

    private func changeItem(_ found: (TodoItem, ModelContext), _ change: ItemChange) throws -> ItemJSON {
        let (item, context) = found
        if let title = change.title { item.title = try validTitle(title) }
        if let isDone = change.isDone { item.isDone = isDone }
        if let priority = change.priority { item.priority = priority }
        if let dueDate = change.dueDate { item.dueDate = dueDate }
        try context.save()
        return ItemJSON(item)
    }

    /// Deletes a list (and, by its delete rule, its items) or an item.
    private func delete(_ found: (some PersistentModel, ModelContext)) throws -> HTTPResponse.Status {
        let (model, context) = found
        context.delete(model)
        try context.save()
        return .noContent
    }

    // MARK: Lookups

    private func list(_ request: some RequestContext) throws -> (TodoList, ModelContext) {
        try find("list", try identifier(request)) { id in #Predicate<TodoList> { $0.id == id } }
    }

    private func item(_ request: some RequestContext) throws -> (TodoItem, ModelContext) {
        try find("item", try identifier(request)) { id in #Predicate<TodoItem> { $0.id == id } }
    }

    /// The model with identifier `id`, in a new context, or a 404 naming it a `noun`.
    private func find<Model: PersistentModel>(_ noun: String, _ id: UUID, _ matching: (UUID) -> Predicate<Model>) throws -> (Model, ModelContext) {
        let context = ModelContext(container)
        var descriptor = FetchDescriptor<Model>(predicate: matching(id))
        descriptor.fetchLimit = 1
        guard let model = try context.fetch(descriptor).first else {
            throw HTTPError(.notFound, message: "There is no \(noun) \(id).")
        }
        return (model, context)
    }

    private func identifier(_ request: some RequestContext) throws -> UUID {
        let text = try request.parameters.require("id")
        guard let id = UUID(uuidString: text) else {
            throw HTTPError(.notFound, message: "\"\(text)\" is not an identifier (a UUID).")
        }
        return id
    }

    private func validTitle(_ title: String) throws -> String {
        let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw HTTPError(.badRequest, message: "An item needs a title.") }
        return trimmed
    }
}
