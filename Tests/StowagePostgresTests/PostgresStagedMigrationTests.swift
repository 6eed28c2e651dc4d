import Foundation
import Stowage
@testable import StowagePostgres
import Testing

enum ShelfV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Book.self] }

    @Model final class Book {
        var title: String
        var pages: Int?
        init(title: String, pages: Int?) {
            self.title = title
            self.pages = pages
        }
    }
}

enum ShelfV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Book.self, Shelf.self, Tag.self] }

    /// Titles become unique (the duplicates go in willMigrate); pages become required (with a default);
    /// a book gets a shelf (a new model) and tags (a new many-to-many).
    @Model final class Book {
        @Attribute(.unique) var title: String
        var pages: Int = 0
        var shelf: Shelf?
        @Relationship(inverse: \Tag.books) var tags: [Tag] = []
        init(title: String) { self.title = title }
    }

    @Model final class Shelf {
        var name: String
        @Relationship(deleteRule: .cascade, inverse: \Book.shelf) var books: [Book] = []
        init(name: String) { self.name = name }
    }

    @Model final class Tag {
        var label: String
        var books: [Book] = []
        init(label: String) { self.label = label }
    }
}

/// The book's tags renamed labels (a many-to-many relationship: its join table's name changes).
enum ShelfV3 {
    @Model final class Book {
        @Attribute(.unique) var title: String
        var pages: Int = 0
        var shelf: Shelf?
        @Relationship(originalName: "tags", inverse: \Tag.books) var labels: [Tag] = []
        init(title: String) { self.title = title }
    }

    @Model final class Shelf {
        var name: String
        @Relationship(deleteRule: .cascade, inverse: \Book.shelf) var books: [Book] = []
        init(name: String) { self.name = name }
    }

    @Model final class Tag {
        var label: String
        var books: [Book] = []
        init(label: String) { self.label = label }
    }
}

/// The plan's stages; `failing` makes didMigrate throw after it has saved.
enum ShelfPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [ShelfV1.self, ShelfV2.self] }
    static var stages: [MigrationStage] { [stage(failing: false)] }

    struct Refused: Error {}

    static func stage(failing: Bool) -> MigrationStage {
        .custom(
            fromVersion: ShelfV1.self, toVersion: ShelfV2.self,
            willMigrate: { context in
                var seen: Set<String> = []
                for book in try context.fetch(FetchDescriptor<ShelfV1.Book>(sortBy: [SortDescriptor(\.title), SortDescriptor(\.pages, order: .reverse)])) {
                    if !seen.insert(book.title).inserted { context.delete(book) }
                }
                try context.save()
            },
            didMigrate: { context in
                let shelf = ShelfV2.Shelf(name: "Migrated")
                context.insert(shelf)
                let tag = ShelfV2.Tag(label: "old")
                context.insert(tag)
                for book in try context.fetch(FetchDescriptor<ShelfV2.Book>()) {
                    book.shelf = shelf
                    book.tags = [tag]
                }
                try context.save()
                if failing { throw Refused() }
            })
    }
}

enum FailingShelfPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [ShelfV1.self, ShelfV2.self] }
    static var stages: [MigrationStage] { [ShelfPlan.stage(failing: true)] }
}

enum KennelV1 {
    @Model final class Owner {
        var name: String
        @Relationship(deleteRule: .nullify, inverse: \Pet.owner) var pets: [Pet] = []
        init(name: String) { self.name = name }
    }

    @Model final class Pet {
        var name: String
        var owner: Owner?
        init(name: String) { self.name = name }
    }
}

/// The pet's relationship renamed, and the owner's delete rule now cascade.
enum KennelV2 {
    @Model final class Owner {
        var name: String
        @Relationship(deleteRule: .cascade, inverse: \Pet.keeper) var pets: [Pet] = []
        init(name: String) { self.name = name }
    }

    @Model final class Pet {
        var name: String
        @Relationship(originalName: "owner") var keeper: Owner?
        init(name: String) { self.name = name }
    }
}

enum ZooV1 {
    @Model class Animal {
        var name: String
        init(name: String) { self.name = name }
    }
}

/// The animal gains a photo in external storage, and a subclass with a song in external storage and a
/// keeper (a new to-one relationship of the subclass).
enum ZooV2 {
    @Model class Animal {
        var name: String
        @Attribute(.externalStorage) var photo: Data?
        init(name: String) { self.name = name }
    }

    @Model class Bird: Animal {
        var wingspan: Double
        @Attribute(.externalStorage) var song: Data
        var keeper: Keeper?
        init(name: String, wingspan: Double, song: Data) {
            self.wingspan = wingspan
            self.song = song
            super.init(name: name)
        }
    }

    @Model final class Keeper {
        var name: String
        var badge: Data?
        @Relationship(inverse: \Bird.keeper) var birds: [Bird] = []
        init(name: String) { self.name = name }
    }
}

/// The bird's song leaves external storage; the keeper's badge enters it.
enum ZooV3 {
    @Model class Animal {
        var name: String
        @Attribute(.externalStorage) var photo: Data?
        init(name: String) { self.name = name }
    }

    @Model class Bird: Animal {
        var wingspan: Double
        var song: Data
        var keeper: Keeper?
        init(name: String, wingspan: Double, song: Data) {
            self.wingspan = wingspan
            self.song = song
            super.init(name: name)
        }
    }

    @Model final class Keeper {
        var name: String
        @Attribute(.externalStorage) var badge: Data?
        @Relationship(inverse: \Bird.keeper) var birds: [Bird] = []
        init(name: String) { self.name = name }
    }
}

@Suite("PostgreSQL: staged migrations", .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct PostgresStagedMigrationTests {
    private func fillVersion1(_ database: TestDatabase) throws {
        let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: ShelfV1.self), configurations: [try database.configuration()]))
        context.insert(ShelfV1.Book(title: "Dune", pages: 412))
        context.insert(ShelfV1.Book(title: "Dune", pages: nil))
        context.insert(ShelfV1.Book(title: "Emma", pages: nil))
        try context.save()
    }

    @Test func customStagesRunInTheMigrationsTransaction() throws {
        let database = try TestDatabase()
        try fillVersion1(database)
        let schema = Schema(versionedSchema: ShelfV2.self)
        _ = try ModelContainer(for: schema, migrationPlan: ShelfPlan.self, configurations: [try database.configuration()])
        // Reopened, with the models in another order.
        let reordered = Schema([ShelfV2.Tag.self, ShelfV2.Shelf.self, ShelfV2.Book.self], version: schema.version)
        let context = ModelContext(try ModelContainer(for: reordered, migrationPlan: ShelfPlan.self, configurations: [try database.configuration()]))
        let books = try context.fetch(FetchDescriptor<ShelfV2.Book>(sortBy: [SortDescriptor(\.title)]))
        #expect(books.map(\.title) == ["Dune", "Emma"])
        #expect(books.map(\.pages) == [412, 0])
        #expect(books.allSatisfy { $0.shelf?.name == "Migrated" && $0.tags.map(\.label) == ["old"] })
        // The new relationships work as any others: the shelf's delete cascades, the title is unique.
        context.insert(ShelfV2.Book(title: "Emma"))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<ShelfV2.Book>()) == 2)
        let shelf = try #require(try context.fetch(FetchDescriptor<ShelfV2.Shelf>()).first)
        context.delete(shelf)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<ShelfV2.Book>()) == 0)
        #expect(try context.fetch(FetchDescriptor<ShelfV2.Tag>()).first?.books.isEmpty == true)
    }

    @Test func aStageThatThrowsLeavesTheDatabaseAsItWas() throws {
        let database = try TestDatabase()
        try fillVersion1(database)
        #expect(throws: ShelfPlan.Refused.self) {
            try ModelContainer(for: Schema(versionedSchema: ShelfV2.self), migrationPlan: FailingShelfPlan.self, configurations: [try database.configuration()])
        }
        // Version 1 still opens it, with both duplicates (willMigrate's deletion was undone too).
        let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: ShelfV1.self), configurations: [try database.configuration()]))
        #expect(try context.fetch(FetchDescriptor<ShelfV1.Book>()).map(\.title).sorted() == ["Dune", "Dune", "Emma"])
        // And the plan that succeeds migrates it afterwards.
        let migrated = ModelContext(try ModelContainer(for: Schema(versionedSchema: ShelfV2.self), migrationPlan: ShelfPlan.self, configurations: [try database.configuration()]))
        #expect(try migrated.fetchCount(FetchDescriptor<ShelfV2.Book>()) == 2)
    }

    @Test func aLightweightMigrationAddsAModelRelatedToAnExistingOne() throws {
        let database = try TestDatabase()
        do {
            let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: ShelfV1.self), configurations: [try database.configuration()]))
            context.insert(ShelfV1.Book(title: "Dune", pages: 412))
            try context.save()
        }
        // Without a plan: the new models, relationships and uniqueness; the pages of the stored book kept.
        let context = ModelContext(try ModelContainer(for: Schema(versionedSchema: ShelfV2.self), configurations: [try database.configuration()]))
        let dune = try #require(try context.fetch(FetchDescriptor<ShelfV2.Book>()).first)
        #expect(dune.pages == 412 && dune.shelf == nil && dune.tags.isEmpty)
        let shelf = ShelfV2.Shelf(name: "Sci-fi")
        context.insert(shelf)
        dune.shelf = shelf
        try context.save()
        let reopened = ModelContext(try ModelContainer(for: Schema(versionedSchema: ShelfV2.self), configurations: [try database.configuration()]))
        #expect(try reopened.fetch(FetchDescriptor<ShelfV2.Shelf>()).first?.books.map(\.title) == ["Dune"])
    }

    @Test func aRenamedRelationshipKeepsItsLinksAndADeleteRuleReachesTheForeignKey() throws {
        let database = try TestDatabase()
        do {
            let context = ModelContext(try database.container([KennelV1.Owner.self, KennelV1.Pet.self]))
            let ada = KennelV1.Owner(name: "Ada")
            context.insert(ada)
            let rex = KennelV1.Pet(name: "Rex")
            context.insert(rex)
            rex.owner = ada
            try context.save()
        }
        func deleteAction() throws -> String? {
            let driver = try PostgresDriver(try database.configuration())
            defer { driver.shutdown() }
            return try driver.withConnection { connection in
                let rows = try connection.rows(#"SELECT confdeltype::text FROM pg_constraint WHERE conrelid = '"Pet"'::regclass AND contype = 'f'"#)
                if case .text(let action)? = rows.first?.first { return action }
                return nil
            }
        }
        #expect(try deleteAction() == "n")
        let context = ModelContext(try database.container([KennelV2.Pet.self, KennelV2.Owner.self]))
        let rex = try #require(try context.fetch(FetchDescriptor<KennelV2.Pet>()).first)
        #expect(rex.keeper?.name == "Ada")
        #expect(try deleteAction() == "c")
    }

    @Test func aModelGainsASubclassAndAttributesInExternalStorage() throws {
        let database = try TestDatabase()
        do {
            let context = ModelContext(try database.container([ZooV1.Animal.self]))
            context.insert(ZooV1.Animal(name: "Tortoise"))
            try context.save()
        }
        do {
            let context = ModelContext(try database.container([ZooV2.Animal.self, ZooV2.Bird.self, ZooV2.Keeper.self]))
            let tortoise = try #require(try context.fetch(FetchDescriptor<ZooV2.Animal>()).first)
            #expect(tortoise.name == "Tortoise" && !(tortoise is ZooV2.Bird) && tortoise.photo == nil)
            tortoise.photo = Data([1, 2, 3])
            let robin = ZooV2.Bird(name: "Robin", wingspan: 0.3, song: Data("tweet".utf8))
            context.insert(robin)
            let keeper = ZooV2.Keeper(name: "Kim")
            keeper.badge = Data([9])
            context.insert(keeper)
            robin.keeper = keeper
            try context.save()
        }
        // Reopened, with the models in another order.
        let context = ModelContext(try database.container([ZooV2.Keeper.self, ZooV2.Bird.self, ZooV2.Animal.self]))
        let animals = try context.fetch(FetchDescriptor<ZooV2.Animal>(sortBy: [SortDescriptor(\.name)]))
        #expect(animals.map(\.name) == ["Robin", "Tortoise"])
        let robin = try #require(animals.first as? ZooV2.Bird)
        #expect(robin.song == Data("tweet".utf8) && robin.wingspan == 0.3 && robin.keeper?.name == "Kim")
        #expect(animals.last?.photo == Data([1, 2, 3]))
        #expect(try context.fetchCount(FetchDescriptor<ZooV2.Bird>()) == 1)
        // Without the subclass, its row would become a plain animal: refused, the database untouched.
        let error = try #require(throws: StowageError.self) { try database.container([ZooV1.Animal.self]) }
        #expect(error.code == .schemaMismatch && error.message.contains("Bird"))
        #expect(try ModelContext(try database.container([ZooV2.Animal.self, ZooV2.Bird.self, ZooV2.Keeper.self])).fetchCount(FetchDescriptor<ZooV2.Bird>()) == 1)
        // Values move in and out of external storage with their attributes.
        for order in [[ZooV3.Animal.self, ZooV3.Bird.self, ZooV3.Keeper.self], [ZooV3.Keeper.self, ZooV3.Bird.self, ZooV3.Animal.self]] as [[any PersistentModel.Type]] {
            let context = ModelContext(try database.container(order))
            let bird = try #require(try context.fetch(FetchDescriptor<ZooV3.Bird>()).first)
            #expect(bird.song == Data("tweet".utf8) && bird.keeper?.badge == Data([9]))
            #expect(try context.fetch(FetchDescriptor<ZooV3.Animal>(predicate: #Predicate { $0.name == "Tortoise" })).first?.photo == Data([1, 2, 3]))
        }
    }

    @Test func aRenamedManyToManyRelationshipKeepsItsLinks() throws {
        let database = try TestDatabase()
        do {
            let context = ModelContext(try database.container([ShelfV2.Book.self, ShelfV2.Shelf.self, ShelfV2.Tag.self]))
            let dune = ShelfV2.Book(title: "Dune")
            context.insert(dune)
            let classic = ShelfV2.Tag(label: "classic"), desert = ShelfV2.Tag(label: "desert")
            context.insert(classic)
            context.insert(desert)
            dune.tags = [classic, desert]
            try context.save()
        }
        for order in [[ShelfV3.Book.self, ShelfV3.Shelf.self, ShelfV3.Tag.self], [ShelfV3.Tag.self, ShelfV3.Shelf.self, ShelfV3.Book.self]] as [[any PersistentModel.Type]] {
            let context = ModelContext(try database.container(order))
            let dune = try #require(try context.fetch(FetchDescriptor<ShelfV3.Book>()).first)
            #expect(dune.labels.map(\.label).sorted() == ["classic", "desert"])
            #expect(try context.fetch(FetchDescriptor<ShelfV3.Tag>()).allSatisfy { $0.books.map(\.title) == ["Dune"] })
        }
    }
}
