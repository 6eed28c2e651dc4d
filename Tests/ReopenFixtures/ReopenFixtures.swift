import Foundation
import Stowage

// Models and checks shared by the reopening tests and `stowage-reopen-probe`, the program those tests
// launch to open a store in a fresh process (Swift seeds its hashing per process, so `Set` and
// `Dictionary` orders differ between launches).

/// A shelf holds books; `Book` and `Lamp` are reachable from it through relationships.
@Model
public final class Shelf {
    #Index<Shelf>([\.room, \.label])
    @Attribute(.unique) public var label: String
    public var room: String
    @Relationship(deleteRule: .cascade, inverse: \Book.shelf)
    public var books: [Book] = []
    public var reading: Lamp?

    public init(label: String, room: String) {
        self.label = label
        self.room = room
    }
}

@Model
public final class Book {
    #Unique<Book>([\.title, \.author])
    public var title: String
    public var author: String
    public var pages: Int = 0
    @Attribute(.externalStorage) public var scan: Data?
    public var shelf: Shelf?
    public var tags: [Tag] = []

    public init(title: String, author: String, pages: Int) {
        self.title = title
        self.author = author
        self.pages = pages
    }
}

@Model
public final class Lamp {
    public var watts: Double
    public var color: String?
    public init(watts: Double) { self.watts = watts }
}

/// Many-to-many with `Book`.
@Model
public final class Tag {
    @Attribute(.unique) public var name: String
    @Relationship(inverse: \Book.tags) public var books: [Book] = []
    public init(name: String) { self.name = name }
}

public enum ReopenFixtures {
    /// The model types by name.
    public static var types: [String: any PersistentModel.Type] {
        [
            "Shelf": Shelf.self, "Book": Book.self, "Lamp": Lamp.self, "Tag": Tag.self,
        ]
    }

    /// Opens the store at `url` for the named types, in that order (names unknown to ``types`` throw).
    public static func open(_ url: URL, types names: [String]) throws -> ModelContainer {
        try open(url, types: names, from: types)
    }

    /// Opens the store at `url` for the types of `fixtures` named `names`, in that order.
    public static func open(_ url: URL, types names: [String], from fixtures: [String: any PersistentModel.Type]) throws -> ModelContainer {
        let modelTypes = try names.map { name in
            guard let type = fixtures[name] else { throw StowageError(.unknownModelType, "No fixture model named \(name)") }
            return type
        }
        return try ModelContainer(for: Schema(modelTypes), configurations: ModelConfiguration(url: url))
    }

    /// Fills a new store: one shelf with two books sharing a tag, and a lamp.
    public static func fill(_ container: ModelContainer) throws {
        let context = ModelContext(container)
        let shelf = Shelf(label: "A1", room: "study")
        let lamp = Lamp(watts: 40)
        shelf.reading = lamp
        let tag = Tag(name: "classic")
        let first = Book(title: "Emma", author: "Austen", pages: 474)
        let second = Book(title: "Persuasion", author: "Austen", pages: 249)
        first.scan = Data([1, 2, 3])
        first.tags = [tag]
        second.tags = [tag]
        shelf.books = [first, second]
        context.insert(shelf)
        try context.save()
    }

    /// What a store filled by ``fill(_:)`` holds, as one line: reading it touches every table.
    public static func summary(_ container: ModelContainer) throws -> String {
        let context = ModelContext(container)
        let shelves = try context.fetch(FetchDescriptor<Shelf>(sortBy: [SortDescriptor(\.label)]))
        return shelves.map { shelf in
            let books = shelf.books.sorted { $0.title < $1.title }.map { book in
                "\(book.title)/\(book.author)/\(book.pages)/\(book.scan?.count ?? -1)/\(book.tags.map(\.name).sorted().joined(separator: "+"))"
            }
            return "\(shelf.label)@\(shelf.room) lamp=\(shelf.reading?.watts ?? -1) [\(books.joined(separator: ", "))]"
        }.joined(separator: "; ")
    }
}
