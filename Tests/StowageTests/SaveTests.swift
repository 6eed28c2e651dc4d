import Foundation
import GRDB
import Stowage
@testable import StowageCore
import Testing

/// Item 9: saves are atomic, typed on failure, minimal and durable.
@Suite struct SaveTests {
    @Test func aFailedSaveWritesNothingAndKeepsTheChanges() throws {
        try withFileStore([Tag.self]) { url, open in
            let container = try open()
            let context = ModelContext(container)
            let keep = Tag(code: "keep", label: "Keep")
            let doomed = Tag(code: "doomed", label: "Doomed")
            let conflicting = Tag(code: "c", label: "C")
            context.insert(keep)
            context.insert(doomed)
            context.insert(conflicting)
            try context.save()

            context.delete(doomed)
            keep.label = "Changed"
            context.insert(Tag(code: "new", label: "New"))
            conflicting.code = "keep"   // UNIQUE violation on UPDATE
            let error = try #require(stowageError { try context.save() })
            #expect(error.code == .constraintViolation)
            #expect(error.entityName == "Tag")
            #expect(error.sqliteCode == 2067)  // SQLITE_CONSTRAINT_UNIQUE
            #expect(error.message.hasPrefix("The save failed and nothing was written"))
            #expect(error.sql?.hasPrefix("UPDATE") == true)

            // Nothing was written.
            let stored = try rawRead(url) { db in
                try String.fetchAll(db, sql: "SELECT code || ':' || label FROM Tag ORDER BY code")
            }
            #expect(stored == ["c:C", "doomed:Doomed", "keep:Keep"])

            // The context kept every change.
            #expect(context.hasChanges)
            #expect(context.insertedModelsArray.count == 1)
            #expect(context.deletedModelsArray.count == 1)
            #expect(context.changedModelsArray.count == 2)
            #expect(keep.label == "Changed" && conflicting.code == "keep" && doomed.isDeleted)

            // Fixing the problem lets the same changes save.
            conflicting.code = "fixed"
            try context.save()
            let saved = try rawRead(url) { db in
                try String.fetchAll(db, sql: "SELECT code || ':' || label FROM Tag ORDER BY code")
            }
            #expect(saved == ["fixed:C", "keep:Changed", "new:New"])
            #expect(!context.hasChanges)
        }
    }

    @Test func reinsertingADeletedAndSavedModelWritesNothing() throws {
        let container = try inMemoryContainer(Item.self)
        let context = ModelContext(container)
        let first = Item(name: "first", value: 1)
        let second = Item(name: "second", value: 2)
        context.insert(first)
        context.insert(second)
        try context.save()
        context.delete(second)
        try context.save()

        context.insert(Item(name: "third", value: 3))
        first.name = "renamed"
        context.insert(second)
        let error = try #require(stowageError { try context.save() })
        #expect(error.code == .deletedModel)
        #expect(error.entityName == "Item")
        let stored = try ModelContext(container).fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.value)]))
        #expect(stored.map(\.name) == ["first"])
        #expect(context.hasChanges)
        #expect(first.name == "renamed")
    }

    @Test func notANumberIsRefusedWithATypedError() throws {
        let container = try inMemoryContainer(Everything.self)
        let context = ModelContext(container)
        let valid = Everything()
        context.insert(valid)
        let model = Everything()
        model.optionalDouble = .nan
        context.insert(model)
        let error = try #require(stowageError { try context.save() })
        #expect(error.code == .invalidValue)
        #expect(error.entityName == "Everything")
        #expect(error.propertyName == "optionalDouble")
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Everything>()) == 0)
        #expect(context.hasChanges)
        model.optionalDouble = 1
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Everything>()) == 2)
    }

    @Test func onlyChangedColumnsAreWritten() throws {
        let capture = StatementCapture()
        let container = try inMemoryContainer(Item.self)
        let context = ModelContext(container)
        let item = Item(name: "a", value: 1)
        context.insert(item)
        try context.save()
        // The save's own writes; its history rows are HistoryTests' business.
        func writes() -> [SQLStatementEvent] { capture.writes(of: container).filter { !isHistoryStatement($0.sql) } }
        let insert = try #require(writes().last)
        #expect(insert.sql == #"INSERT INTO "Item" ("name", "value", "order", "note", "tags") VALUES (?, ?, ?, ?, ?)"#)
        #expect(insert.expandedSQL == #"INSERT INTO "Item" ("name", "value", "order", "note", "tags") VALUES ('a', 1, 0, NULL, '[]')"#)

        capture.removeAll()
        item.value = 2
        try context.save()
        #expect(writes().map(\.sql) == [#"UPDATE "Item" SET "value" = ? WHERE "_pk" = ?"#])

        capture.removeAll()
        item.order = 3
        item.note = "it's"
        try context.save()
        #expect(writes().map(\.sql) == [#"UPDATE "Item" SET "order" = ?, "note" = ? WHERE "_pk" = ?"#])
        #expect(writes().map(\.expandedSQL) == [#"UPDATE "Item" SET "order" = 3, "note" = 'it''s' WHERE "_pk" = 1"#])

        capture.removeAll()
        context.delete(item)
        try context.save()
        #expect(writes().map(\.sql) == [#"DELETE FROM "Item" WHERE "_pk" = ?"#])

        // A save with nothing to write runs no statement.
        capture.removeAll()
        try context.save()
        #expect(capture.sql(of: container).isEmpty)
    }

    @Test func aSaveIsOneTransaction() throws {
        let capture = StatementCapture()
        let container = try inMemoryContainer(Item.self)
        let context = ModelContext(container)
        for value in 0..<3 { context.insert(Item(name: "\(value)", value: value)) }
        try context.save()
        let statements = capture.sql(of: container)
        let begins = statements.filter { $0.uppercased().hasPrefix("BEGIN") }
        let commits = statements.filter { $0.uppercased().hasPrefix("COMMIT") }
        #expect(begins.count == 1 && commits.count == 1)
        #expect(statements.first?.uppercased().hasPrefix("BEGIN") == true)
        #expect(statements.last?.uppercased().hasPrefix("COMMIT") == true)
        #expect(statements.filter { $0.hasPrefix(#"INSERT INTO "Item""#) }.count == 3)
        #expect(statements.filter(isHistoryStatement).count >= 2, "the history rows are written inside the save's transaction")
    }

    @Test func concurrentSavesFromSeveralContexts() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let container = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: directory.file()))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    let context = ModelContext(container)
                    for batch in 0..<10 {
                        for index in 0..<25 { context.insert(Item(name: "w\(worker)", value: batch * 25 + index)) }
                        try context.save()
                    }
                }
            }
            try await group.waitForAll()
        }
        let context = ModelContext(container)
        #expect(try context.fetchCount(FetchDescriptor<Item>()) == 1_000)
        for worker in 0..<4 {
            let name = "w\(worker)"
            let values = try context.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.name == name })).map(\.value).sorted()
            #expect(values == Array(0..<250))
        }
    }

    @Test func identifiersStayValidAcrossLaunches() throws {
        try withFileStore([Item.self]) { url, open in
            let encoded: Data
            do {
                let context = ModelContext(try open())
                let item = Item(name: "remembered", value: 5)
                context.insert(item)
                try context.save()
                encoded = try JSONEncoder().encode(item.persistentModelID)
            }
            let identifier = try JSONDecoder().decode(PersistentIdentifier.self, from: encoded)
            let container = try open()
            let context = ModelContext(container)
            let item = try #require(context.model(for: identifier) as? Item)
            #expect(item.name == "remembered" && item.value == 5)
            #expect(item.persistentModelID == identifier)
            #expect(try context.fetch(FetchDescriptor<Item>()).first === item)
        }
    }

    @Test func writesAreDurableWhenSaveReturns() throws {
        try withFileStore([Item.self]) { url, open in
            let container = try open()
            let store = sqliteStore(container)
            let writerLevel = try store.writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
            let readerLevel = try store.writer.read { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
            #expect(writerLevel == 2)  // FULL
            #expect(readerLevel == 2)
            let mode = try store.writer.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
            #expect(mode == "wal")
        }
    }
}

/// Many rows changed in the same columns are written by one `UPDATE … FROM (VALUES …)` per batch of 64
/// rows: the rows, the columns left alone, the failures and what they leave must be those of one
/// UPDATE per row.
@Suite struct BatchedUpdateTests {
    @Test func rowsChangedInTheSameColumnsAreWrittenInBatchesAndReadBackAfterReopening() throws {
        try withFileStore([Item.self]) { url, open in
            let capture = StatementCapture()
            do {
                let container = try open()
                let context = ModelContext(container)
                for number in 0 ..< 150 { context.insert(Item(name: "n\(number)", value: number, note: "keep \(number)")) }
                try context.save()
                capture.removeAll()
                // Changed in order of value; the first and the 101st also get a new name: a second shape
                // between runs of 99 and 49 rows changed in `value` only.
                let items = try context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.value)]))
                for item in items {
                    item.value = item.value * 10 + 1
                    if item.value % 1000 == 1 { item.name = "renamed \(item.value)" }
                }
                try context.save()
                let updates = capture.writes(of: container).map(\.sql).filter { $0.hasPrefix("UPDATE \"Item\"") }
                let batched = updates.filter { $0.contains("FROM (VALUES") }
                #expect(batched.count == 1, "the run of 99 rows changed in `value` holds one batch of 64")
                #expect(updates.count == 150 - 63)
            }
            // A fresh container reads every row as saved: changed columns written, the others untouched.
            let context = ModelContext(try open())
            let stored = try context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.note)]))
            #expect(stored.count == 150)
            for item in stored {
                let number = Int(item.note!.dropFirst("keep ".count))!
                #expect(item.value == number * 10 + 1)
                #expect(item.name == (item.value % 1000 == 1 ? "renamed \(item.value)" : "n\(number)"))
            }
            let raw = try rawRead(url) { db in try Int.fetchOne(db, sql: "SELECT sum(value) FROM Item") }
            #expect(raw == (0 ..< 150).reduce(0) { $0 + $1 * 10 + 1 })
        }
    }

    @Test func rowsChangedOutOfKeyOrderAreWrittenOneStatementEach() throws {
        try withFileStore([Item.self]) { _, open in
            let capture = StatementCapture()
            do {
                let container = try open()
                let context = ModelContext(container)
                for number in 0 ..< 100 { context.insert(Item(name: "n\(number)", value: number)) }
                try context.save()
                capture.removeAll()
                // Changed from the last row to the first: a batch would cost SQLite more than it saves.
                let items = try context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.value, order: .reverse)]))
                for item in items { item.value += 1000 }
                try context.save()
                let updates = capture.writes(of: container).map(\.sql).filter { $0.hasPrefix("UPDATE \"Item\"") }
                #expect(updates.count == 100)
                #expect(!updates.contains { $0.contains("FROM (VALUES") })
            }
            let values = try ModelContext(try open()).fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.value)])).map(\.value)
            #expect(values == Array(1000 ..< 1100))
        }
    }

    @Test func aRowDeletedElsewhereInsideABatchIsAConflictAndNothingIsWritten() throws {
        try withFileStore([Item.self]) { url, open in
            let container = try open()
            do {
                let context = ModelContext(container)
                for number in 0 ..< 100 { context.insert(Item(name: "n\(number)", value: number)) }
                try context.save()
            }
            let editor = ModelContext(container)
            let items = try editor.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.value)]))
            let remover = ModelContext(container)
            try remover.delete(model: Item.self, where: #Predicate { $0.value == 10 })
            try remover.save()
            let gone = items[10].persistentModelID

            for item in items { item.value += 1000 }
            let error = try #require(stowageError { try editor.save() })
            #expect(error.code == .saveConflict)
            #expect(error.entityName == "Item")
            #expect(error.message.contains("Item/p\(gone.primaryKey ?? -1)"))
            // Nothing was written, and the context kept every change.
            let values = try rawRead(url) { db in try Int.fetchAll(db, sql: "SELECT value FROM Item ORDER BY value") }
            #expect(values == (0 ..< 100).filter { $0 != 10 })
            #expect(editor.changedModelsArray.count == 100)
            #expect(items.allSatisfy { $0.value >= 1000 })
        }
    }

    @Test func aUniqueViolationInsideABatchWritesNothing() throws {
        try withFileStore([Tag.self]) { url, open in
            let container = try open()
            let context = ModelContext(container)
            for number in 0 ..< 80 { context.insert(Tag(code: "c\(number)", label: "l\(number)")) }
            try context.save()
            let tags = try context.fetch(FetchDescriptor<Tag>())  // in key order: one run
            for (offset, tag) in tags.enumerated() { tag.code = offset == 30 ? "x\(offset - 1)" : "x\(offset)" }
            let error = try #require(stowageError { try context.save() })
            #expect(error.code == .constraintViolation)
            #expect(error.entityName == "Tag")
            #expect(error.sql?.contains("FROM (VALUES") == true, "the violation happened in a batch")
            let codes = try rawRead(url) { db in try String.fetchAll(db, sql: "SELECT code FROM Tag WHERE code LIKE 'x%'") }
            #expect(codes.isEmpty)
        }
    }
}

@Suite struct BatchedInsertTests {
    @Test func rowsInsertedInBatchesGetTheKeysOfTheirOwnRows() throws {
        try withFileStore([Item.self, Stranger.self]) { url, open in
            let capture = StatementCapture()
            var keys: [Int64: Int] = [:]
            do {
                let container = try open()
                let context = ModelContext(container)
                // Keys 1…10, then 6…10 deleted: the next rows must not reuse them.
                for number in 1 ... 10 { context.insert(Item(name: "old\(number)", value: -number)) }
                try context.save()
                try context.delete(model: Item.self, where: #Predicate { $0.value <= -6 })
                try context.save()
                capture.removeAll()
                // Runs of 70 and 80 Items around a Stranger: two batches of 64, the rest a row each.
                var items: [Item] = []
                for number in 0 ..< 70 { items.append(Item(name: "n\(number)", value: number)) }
                let stranger = Stranger(name: "between")
                for number in 70 ..< 150 { items.append(Item(name: "n\(number)", value: number)) }
                for item in items[..<70] { context.insert(item) }
                context.insert(stranger)
                for item in items[70...] { context.insert(item) }
                try context.save()

                let inserts = capture.writes(of: container).map(\.sql).filter { $0.hasPrefix("INSERT INTO \"Item\"") }
                #expect(inserts.filter { $0.components(separatedBy: "), (").count == 64 }.count == 2)
                #expect(inserts.count == 2 + 6 + 16)
                for item in items {
                    let key = try #require(item.persistentModelID.primaryKey)
                    #expect(key > 10, "a key is never reused")
                    #expect(keys.updateValue(item.value, forKey: key) == nil, "each model has a key of its own")
                }
                #expect(stranger.persistentModelID.primaryKey != nil)
            }
            // Each model's key is its own row's, as stored and after reopening.
            let storedKeys = try rawRead(url) { db in try Int64.fetchAll(db, sql: "SELECT _pk FROM Item WHERE value >= 0 ORDER BY _pk") }
            let storedValues = try rawRead(url) { db in try Int.fetchAll(db, sql: "SELECT value FROM Item WHERE value >= 0 ORDER BY _pk") }
            #expect(Dictionary(uniqueKeysWithValues: zip(storedKeys, storedValues)) == keys)
            let reopened = try ModelContext(try open()).fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.value >= 0 }))
            #expect(reopened.count == keys.count)
            for item in reopened {
                #expect(keys[try #require(item.persistentModelID.primaryKey)] == item.value)
                #expect(item.name == "n\(item.value)")
            }
        }
    }

    @Test func aBadValueInsideABatchWritesNothing() throws {
        try withFileStore([Everything.self]) { url, open in
            let container = try open()
            let context = ModelContext(container)
            let models = (0 ..< 100).map { _ in Everything() }
            models[70].optionalDouble = .nan
            for model in models { context.insert(model) }
            let error = try #require(stowageError { try context.save() })
            #expect(error.code == .invalidValue)
            #expect(error.propertyName == "optionalDouble")
            #expect(try rawRead(url) { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM Everything") } == 0)
            models[70].optionalDouble = 1
            try context.save()
            #expect(try ModelContext(try open()).fetchCount(FetchDescriptor<Everything>()) == 100)
        }
    }
}

enum MixedTag: String, Codable { case red, green }
struct MixedPoint: Codable, Equatable { var x: Double; var y: Double }

/// Every kind of stored property, interleaved in declaration order: an insert binds each column
/// attribute to its own parameter through the `_$store` `@Model` generates, and skips the others.
@Model
final class MixedRow {
    var name: String
    @Attribute(.ephemeral) var scratch: Int = 7
    var tag: MixedTag?
    @Attribute(.externalStorage) var blob: Data
    @Relationship var owner: Item?
    var when: Date
    var flag: Bool
    var maybe: Int?
    var point: MixedPoint
    var ratio: Float

    init(_ number: Int, owner: Item?) {
        name = String(format: "r%02d", number)
        tag = number % 3 == 0 ? nil : (number % 3 == 1 ? .red : .green)
        blob = Data([UInt8(number), 0xFF])
        self.owner = owner
        when = Date(timeIntervalSinceReferenceDate: Double(number) * 86_400.5)
        flag = number % 2 == 1
        maybe = number % 4 == 0 ? nil : number * 1_000
        point = MixedPoint(x: Double(number), y: -Double(number) / 4)
        ratio = Float(number) / 8
        scratch = number
    }
}

@Suite struct GeneratedBindingTests {
    @Test func eachKindOfPropertyLandsInItsOwnColumnInBatchesAndAlone() throws {
        try withFileStore([MixedRow.self, Item.self]) { url, open in
            do {
                let context = ModelContext(try open())
                let owner = Item(name: "owner", value: 1)
                // 70 rows: a batch of 64 and six rows inserted one at a time.
                for number in 0 ..< 70 { context.insert(MixedRow(number, owner: number % 2 == 0 ? owner : nil)) }
                try context.save()
            }
            // Reopened with the models listed the other way round.
            let container = try ModelContainer(for: Schema([Item.self, MixedRow.self]), configurations: ModelConfiguration(url: url))
            let rows = try ModelContext(container).fetch(FetchDescriptor<MixedRow>(sortBy: [SortDescriptor(\.name)]))
            try #require(rows.count == 70)
            for (number, row) in rows.enumerated() {
                let expected = MixedRow(number, owner: nil)
                #expect(row.name == expected.name)
                #expect(row.scratch == 7, "ephemeral: the declared initial value, not stored")
                #expect(row.tag == expected.tag)
                #expect(row.blob == expected.blob)
                #expect(row.owner?.name == (number % 2 == 0 ? "owner" : nil))
                #expect(row.when == expected.when)
                #expect(row.flag == expected.flag)
                #expect(row.maybe == expected.maybe)
                #expect(row.point == expected.point)
                #expect(row.ratio == expected.ratio)
            }
        }
    }
}
