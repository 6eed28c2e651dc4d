import Foundation
import GRDB
import Stowage
@testable import StowageCore
import Testing

/// Failures the system reports while saving (a full disk, a store that cannot be written) reach the
/// caller as typed errors, and a failed save writes nothing. The reliability suite (Reliability/) runs
/// the same on a real full tmpfs, through an I/O-fault VFS and as an unprivileged user.
@Suite("Store failures are typed")
struct StoreFailureTests {
    @Test func aSaveThatOutgrowsTheStoresSpaceThrowsDiskFullWritesNothingAndSucceedsOnceThereIsRoom() throws {
        try withFileStore([Item.self]) { url, open in
            let container = try open()
            let context = ModelContext(container)
            context.insert(Item(name: "first", value: 0))
            try context.save()
            let writer = sqliteStore(container).writer
            // SQLite's page limit reports SQLITE_FULL exactly as a full disk does.
            let pages = try writer.read { try Int.fetchOne($0, sql: "PRAGMA page_count") ?? 0 }
            try writer.writeWithoutTransaction { try $0.execute(sql: "PRAGMA max_page_count = \(pages)") }
            for index in 0..<200 { context.insert(Item(name: String(repeating: "x", count: 1000), value: index)) }
            let error = try #require(throws: StowageError.self) { try context.save() }
            #expect(error.code == .diskFull, "\(error)")
            #expect(error.message.contains("nothing was written"), "\(error.message)")
            #expect(error.sqliteCode.map { $0 & 0xff } == 13)  // SQLITE_FULL
            #expect(context.hasChanges, "the context keeps its changes")
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<Item>()) == 1, "the failed save wrote nothing")

            try writer.writeWithoutTransaction { try $0.execute(sql: "PRAGMA max_page_count = 1073741823") }
            try context.save()
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<Item>()) == 201)
        }
    }

    @Test func sqliteFailuresMapToTheirOwnCodes() {
        // Extended result codes: the primary code is the low byte.
        #expect(StowageError.Code(sqlite: 13, else: .saveFailed) == .diskFull)
        #expect(StowageError.Code(sqlite: 10 | (3 << 8), else: .saveFailed) == .ioError)  // SQLITE_IOERR_WRITE
        #expect(StowageError.Code(sqlite: 10 | (12 << 8), else: .saveFailed) == .outOfMemory)  // SQLITE_IOERR_NOMEM
        #expect(StowageError.Code(sqlite: 7, else: .fetchFailed) == .outOfMemory)
        #expect(StowageError.Code(sqlite: 8 | (6 << 8), else: .saveFailed) == .readOnlyStore)  // SQLITE_READONLY_DIRECTORY
        #expect(StowageError.Code(sqlite: 11, else: .fetchFailed) == .notADatabase)  // SQLITE_CORRUPT
        #expect(StowageError.Code(sqlite: 5, else: .saveFailed) == .storeBusy)
        #expect(StowageError.Code(sqlite: 19 | (8 << 8), else: .saveFailed) == .constraintViolation)
        #expect(StowageError.Code(sqlite: 1, else: .saveFailed) == .saveFailed, "a plain SQL error keeps the fallback")
        #expect(StowageError.Code(sqlite: 1, else: .fetchFailed) == .fetchFailed)
    }
}

@Suite("Failures while saving relationships")
struct RelationshipReadFailureTests {
    /// Found by the I/O-fault scenario: a cascade whose relationship could not be read was computed as
    /// empty, and the save reported success while SQLite's foreign keys deleted the related rows
    /// without the context, its notifications or the history hearing of them.
    @Test func aSaveWhoseDeleteRuleCannotReadItsRelationshipThrowsAndWritesNothing() throws {
        try withFileStore([Budget.self, Expense.self]) { url, open in
            let container = try open()
            let setUp = ModelContext(container)
            let food = Budget(name: "Food", limit: 100)
            setUp.insert(food)
            for title in ["bread", "milk"] {
                let expense = Expense(title: title, amount: 1)
                setUp.insert(expense)
                expense.budget = food
            }
            try setUp.save()

            let context = ModelContext(container)
            let budget = try #require(try context.fetch(FetchDescriptor<Budget>()).first)
            context.delete(budget)  // cascades to its expenses, not loaded yet
            let writer = sqliteStore(container).writer
            try writer.writeWithoutTransaction { try $0.execute(sql: #"ALTER TABLE "Expense" RENAME TO "Hidden""#) }
            let error = try #require(throws: StowageError.self) { try context.save() }
            #expect(error.message.hasPrefix("The save failed and nothing was written"), "\(error)")
            #expect(error.propertyName == "expenses", "\(error)")
            try writer.writeWithoutTransaction { try $0.execute(sql: #"ALTER TABLE "Hidden" RENAME TO "Expense""#) }
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<Budget>()) == 1, "nothing was written")
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<Expense>()) == 2)

            try context.save()  // the same save, once the relationship reads
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<Budget>()) == 0)
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<Expense>()) == 0)
            _ = url
        }
    }

    /// Found by the out-of-memory scenario: a container whose change watcher could not open its
    /// connection crashed releasing the watcher's timer, which had never run.
    @Test func aChangeWatcherThatCannotOpenItsConnectionIsDroppedWithoutCrashing() throws {
        try withFileStore([Item.self]) { _, open in
            let container = try open()
            #expect(StoreChangeWatcher(store: sqliteStore(container), path: "/nonexistent/directory/store", container: container) == nil)
        }
    }
}

@Model final class ConflictNote {
    var title: String
    @Attribute(.externalStorage) var blob: Data
    var tag: ConflictTag?
    init(title: String) {
        self.title = title
        blob = Data([1])
    }
}

@Model final class ConflictTag {
    var name: String
    @Relationship(inverse: \ConflictNote.tag) var notes: [ConflictNote] = []
    init(name: String) { self.name = name }
}

/// Found by the conflicting-edits scenario of the reliability suite.
@Suite("External storage and relationships under conflicting contexts")
struct ExternalStorageConflictTests {
    private func store(_ body: (ModelContainer) throws -> Void) throws {
        try withFileStore([ConflictNote.self, ConflictTag.self]) { _, open in
            let container = try open()
            let setUp = ModelContext(container)
            setUp.insert(ConflictNote(title: "n"))
            setUp.insert(ConflictTag(name: "t"))
            try setUp.save()
            try body(container)
        }
    }

    @Test func anExternalStorageChangeSavedToARowAnotherContextDeletedIsASaveConflict() throws {
        try store { container in
            let a = ModelContext(container), b = ModelContext(container)
            let mine = try #require(try a.fetch(FetchDescriptor<ConflictNote>()).first)
            let theirs = try #require(try b.fetch(FetchDescriptor<ConflictNote>()).first)
            a.delete(mine)
            try a.save()
            theirs.blob = Data([2])  // the only change: no UPDATE of the row's own columns
            let error = try #require(throws: StowageError.self) { try b.save() }
            #expect(error.code == .saveConflict, "\(error)")
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<ConflictNote>()) == 0)
        }
    }

    @Test func aContextWithOtherUnsavedChangesSeesExternalValuesAndToManyArraysAnotherContextSaved() throws {
        try store { container in
            let a = ModelContext(container), b = ModelContext(container)
            let noteA = try #require(try a.fetch(FetchDescriptor<ConflictNote>()).first)
            let tagA = try #require(try a.fetch(FetchDescriptor<ConflictTag>()).first)
            let noteB = try #require(try b.fetch(FetchDescriptor<ConflictNote>()).first)
            let tagB = try #require(try b.fetch(FetchDescriptor<ConflictTag>()).first)
            #expect(noteB.blob == Data([1]) && tagB.notes.isEmpty)  // loaded in b
            noteB.title = "changed in b"  // unsaved changes to both models in b
            tagB.name = "renamed in b"
            noteA.blob = Data([9, 9, 9])
            tagA.notes.append(noteA)
            try a.save()
            try b.save()
            #expect(noteB.blob == Data([9, 9, 9]), "b reads the blob a saved")
            #expect(tagB.notes.count == 1, "b reads the note a added")
            let stored = try #require(try ModelContext(container).fetch(FetchDescriptor<ConflictNote>()).first)
            #expect(stored.title == "changed in b" && stored.blob == Data([9, 9, 9]) && stored.tag?.name == "renamed in b")
        }
    }
}
