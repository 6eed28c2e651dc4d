import Foundation
import GRDB
import Stowage
@testable import StowageCore
import Testing

// Versions of a small library whose relationships are renamed (`originalName`), gain an inverse, or
// change destination, to check that a lightweight migration keeps every link, in order.

enum LibraryV1 {
    @Model final class Shelf {
        var name: String
        @Relationship(inverse: \Book.shelf) var books: [Book] = []
        init(name: String) { self.name = name }
    }

    @Model final class Book {
        var title: String
        var shelf: Shelf?
        /// To-many without an inverse: a join table of its own.
        var tags: [Tag] = []
        /// To-one without an inverse, to the same entity: a foreign-key column.
        var sequel: Book?
        init(title: String) { self.title = title }
    }

    @Model final class Tag {
        var name: String
        init(name: String) { self.name = name }
    }
}

/// Every relationship of V1 renamed, and `Book.tags` given an inverse (`Tag.titles`): a many-to-many.
enum LibraryV2 {
    @Model final class Shelf {
        var name: String
        @Relationship(originalName: "books", inverse: \Book.rack) var volumes: [Book] = []
        init(name: String) { self.name = name }
    }

    @Model final class Book {
        var title: String
        @Relationship(originalName: "shelf") var rack: Shelf?
        @Relationship(originalName: "tags") var labels: [Tag] = []
        @Relationship(originalName: "sequel") var next: Book?
        init(title: String) { self.title = title }
    }

    @Model final class Tag {
        var name: String
        @Relationship(inverse: \Book.labels) var titles: [Book] = []
        init(name: String) { self.name = name }
    }
}

/// V2 with the many-to-many's inverse renamed (`Tag.titles` → `Tag.works`), which renames the join
/// table's position column.
enum LibraryV3 {
    @Model final class Shelf {
        var name: String
        @Relationship(inverse: \Book.rack) var volumes: [Book] = []
        init(name: String) { self.name = name }
    }

    @Model final class Book {
        var title: String
        var rack: Shelf?
        var labels: [Tag] = []
        var next: Book?
        init(title: String) { self.title = title }
    }

    @Model final class Tag {
        var name: String
        @Relationship(originalName: "titles", inverse: \Book.labels) var works: [Book] = []
        init(name: String) { self.name = name }
    }
}

/// V1 with `Book.shelf` renamed onto another destination: not a lightweight change.
enum LibraryRetargeted {
    @Model final class Book {
        var title: String
        @Relationship(originalName: "shelf") var rack: Tag?
        var tags: [Tag] = []
        var sequel: Book?
        init(title: String) { self.title = title }
    }

    @Model final class Tag {
        var name: String
        init(name: String) { self.name = name }
    }
}

@Suite("Relationship migration")
struct RelationshipMigrationTests {
    /// A V1 store: two shelves, four books with ordered tags and sequels. Returns identifiers by name.
    private func makeV1Store(at url: URL) throws -> [String: PersistentIdentifier] {
        let context = ModelContext(try ModelContainer(for: LibraryV1.Book.self, configurations: ModelConfiguration(url: url)))
        let fiction = LibraryV1.Shelf(name: "fiction"), poetry = LibraryV1.Shelf(name: "poetry")
        let tags = ["red", "green", "blue"].map(LibraryV1.Tag.init)
        let books = ["d", "a", "c", "b"].map(LibraryV1.Book.init)
        for model in [fiction, poetry] as [any PersistentModel] + tags + books { context.insert(model) }
        fiction.books = [books[0], books[1], books[2]]  // an order that is not the insertion's or the title's
        fiction.books = [books[2], books[0], books[1]]
        poetry.books = [books[3]]
        books[0].tags = [tags[2], tags[0]]
        books[1].tags = [tags[1], tags[2], tags[0]]
        books[0].sequel = books[1]
        books[1].sequel = books[3]
        try context.save()
        var identifiers: [String: PersistentIdentifier] = [:]
        for shelf in [fiction, poetry] { identifiers[shelf.name] = shelf.persistentModelID }
        for tag in tags { identifiers[tag.name] = tag.persistentModelID }
        for book in books { identifiers[book.title] = book.persistentModelID }
        return identifiers
    }

    @Test func renamedRelationshipsKeepTheirLinksInOrderAndAnAddedInverseSeesThem() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        let identifiers = try makeV1Store(at: url)

        let context = ModelContext(try ModelContainer(for: LibraryV2.Tag.self, LibraryV2.Shelf.self, LibraryV2.Book.self, configurations: ModelConfiguration(url: url)))
        let shelves = try context.fetch(FetchDescriptor<LibraryV2.Shelf>(sortBy: [SortDescriptor(\.name)]))
        #expect(shelves.map(\.persistentModelID) == [identifiers["fiction"], identifiers["poetry"]])
        #expect(shelves[0].volumes.map(\.title) == ["c", "d", "a"], "to-many order is kept")
        #expect(shelves[1].volumes.map(\.title) == ["b"])
        let books = Dictionary(uniqueKeysWithValues: try context.fetch(FetchDescriptor<LibraryV2.Book>()).map { ($0.title, $0) })
        #expect(books.mapValues(\.persistentModelID) == ["a", "b", "c", "d"].reduce(into: [:]) { $0[$1] = identifiers[$1] })
        #expect(books["d"]?.rack?.name == "fiction" && books["b"]?.rack?.name == "poetry")
        #expect(books["d"]?.labels.map(\.name) == ["blue", "red"])
        #expect(books["a"]?.labels.map(\.name) == ["green", "blue", "red"])
        #expect(books["d"]?.next?.title == "a" && books["a"]?.next?.title == "b" && books["c"]?.next == nil)
        let tags = Dictionary(uniqueKeysWithValues: try context.fetch(FetchDescriptor<LibraryV2.Tag>()).map { ($0.name, $0) })
        #expect(Set(tags["red"]?.titles.map(\.title) ?? []) == ["d", "a"], "the new inverse sees the links the to-many had")
        #expect(tags["green"]?.titles.map(\.title) == ["a"])
        let tables = try rawRead(url) { try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") }
        #expect(!tables.contains("Book_tags") && !tables.contains(where: { $0.hasPrefix("_stowage_new_") || $0.hasPrefix("_stowage_old_") }), "\(tables)")
        #expect(try rawRead(url) { try Int.fetchOne($0, sql: "PRAGMA foreign_key_check") } == nil)

        // The migrated store works: a new link saves and the inverse follows.
        books["c"]?.labels.append(tags["green"]!)
        try context.save()
        let reopened = ModelContext(try ModelContainer(for: LibraryV2.Book.self, LibraryV2.Shelf.self, LibraryV2.Tag.self, configurations: ModelConfiguration(url: url)))
        let green = try reopened.fetch(FetchDescriptor<LibraryV2.Tag>(predicate: #Predicate { $0.name == "green" }))
        #expect(Set(green.first?.titles.map(\.title) ?? []) == ["a", "c"])
    }

    @Test func aRenamedInverseRenamesTheJoinTablesColumnAndKeepsTheLinks() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        _ = try makeV1Store(at: url)
        _ = try ModelContainer(for: LibraryV2.Book.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(try ModelContainer(for: LibraryV3.Book.self, configurations: ModelConfiguration(url: url)))
        let tags = Dictionary(uniqueKeysWithValues: try context.fetch(FetchDescriptor<LibraryV3.Tag>()).map { ($0.name, $0) })
        #expect(Set(tags["blue"]?.works.map(\.title) ?? []) == ["d", "a"])
        let book = try #require(try context.fetch(FetchDescriptor<LibraryV3.Book>(predicate: #Predicate { $0.title == "a" })).first)
        #expect(book.labels.map(\.name) == ["green", "blue", "red"])
        let columns = try rawRead(url) { try GRDB.Row.fetchAll($0, sql: "PRAGMA table_info(\"Book_labels\")").map { $0["name"] as String } }
        #expect(columns.contains("works_position") && !columns.contains("titles_position"), "\(columns)")
    }

    @Test func aRelationshipRenamedOntoAnotherDestinationIsRefusedUntouched() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        _ = try makeV1Store(at: url)
        let before = try rawRead(url) { db in
            try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name")
                + GRDB.Row.fetchAll(db, sql: "SELECT * FROM \"Book\" ORDER BY _pk").map(\.description)
        }
        let error = try #require(throws: StowageError.self) {
            _ = try ModelContainer(for: LibraryRetargeted.Book.self, configurations: ModelConfiguration(url: url))
        }
        #expect(error.entityName == "Book" && error.propertyName == "rack")
        #expect(error.message.contains("Shelf") && error.message.contains("custom MigrationStage"), "\(error.message)")
        let after = try rawRead(url) { db in
            try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name")
                + GRDB.Row.fetchAll(db, sql: "SELECT * FROM \"Book\" ORDER BY _pk").map(\.description)
        }
        #expect(after == before)
    }
}
