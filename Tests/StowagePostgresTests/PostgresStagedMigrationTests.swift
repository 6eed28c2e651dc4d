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
}
