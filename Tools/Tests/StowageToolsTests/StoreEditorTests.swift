import ExampleTestSupport
import Foundation
import GRDB
import Stowage
import StowageTools
import Testing

@Suite("StoreEditor edits a store as the app's save would")
@MainActor
struct StoreEditorTests {
    /// An edited value is what the app fetches, and the history holds one transaction by the editor's
    /// author: an update of the model naming the properties set, as the app's own save of the change
    /// records it.
    @Test func anUpdateIsFetchedByTheAppAndRecordedAsOneSave() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-editor-update")
        defer { directory.remove() }
        let url = try makeEditStore(directory)
        let appCopy = try copyStore(url, as: "app.store")
        let before = try newestTransaction(url)
        let food = try rowKey(url, "EditBudget", "Food")

        let outcome = try withEditor(url) { try $0.apply([.update(entity: "EditBudget", key: food, values: ["limit": .number("450.5"), "kind": .string("one-off")])]) }
        #expect(outcome.transaction == before + 1)
        #expect(outcome.insertedKeys.isEmpty && outcome.deleted.isEmpty)
        #expect(outcome.updated == [StoreEditor.RowKeys(entity: "EditBudget", keys: [food])])

        do {
            let context = ModelContext(try ModelContainer(for: Schema(editModels.reversed()), configurations: ModelConfiguration(url: url)))
            let budget = try #require(try context.fetch(FetchDescriptor<EditBudget>(predicate: #Predicate { $0.name == "Food" })).first)
            #expect(budget.limit == 450.5)
            #expect(budget.kind == .once)
            #expect(budget.entries.count == 3, "the rest of the row and its links are as they were")
        }
        do {
            let context = ModelContext(try ModelContainer(for: Schema(editModels), configurations: ModelConfiguration(url: appCopy)))
            context.author = "stowage-studio"
            let budget = try #require(try context.fetch(FetchDescriptor<EditBudget>(predicate: #Predicate { $0.name == "Food" })).first)
            budget.kind = .once
            budget.limit = 450.5
            try context.save()
        }
        let history = try appHistory(url, after: before)
        #expect(history == [["author: stowage-studio", "update EditBudget/p\(food) EditBudget.limit,EditBudget.kind"]])
        #expect(history == (try appHistory(appCopy, after: before)), "recorded as the app's save of the same change")
        #expect(try storedRows(url) == storedRows(appCopy))
    }

    /// A deletion plan counts what the app's own deletion of the row removes; applied, the same rows
    /// remain as after the app's deletion (links cleared, join and side-table rows gone), and the history
    /// holds the app's deletions with the preserved values as tombstones, and the rows whose links the
    /// deletion cleared as updates of those relationships.
    @Test func aDeletionRemovesWhatTheAppsDeletionRemoves() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-editor-delete")
        defer { directory.remove() }
        let url = try makeEditStore(directory)
        let appCopy = try copyStore(url, as: "app.store")
        let before = try newestTransaction(url)
        let food = try rowKey(url, "EditBudget", "Food")
        let rowsBefore = try storedRows(url)

        do {
            let context = ModelContext(try ModelContainer(for: Schema(editModels), configurations: ModelConfiguration(url: appCopy)))
            context.author = "stowage-studio"
            context.delete(try #require(try context.fetch(FetchDescriptor<EditBudget>(predicate: #Predicate { $0.name == "Food" })).first))
            try context.save()
        }
        let appRows = try storedRows(appCopy)
        func removed(_ table: String) -> Int { (rowsBefore[table]?.count ?? 0) - (appRows[table]?.count ?? 0) }

        let plan = try withEditor(url) { try $0.deletePlan(entity: "EditBudget", key: food) }
        #expect(!plan.isDenied)
        #expect(plan.label == "EditBudget 'Food'")
        #expect(plan.deletions.map(\.entity) == ["EditBudget", "EditEntry", "EditReceipt"])
        for group in plan.deletions { #expect(group.keys.count == removed(group.entity), "\(group.entity)") }
        #expect(plan.deletedCount == 1 + 3 + 4)
        #expect(removed("EditBudget_attachment") == 1 && removed("EditBudget_tags") == 2, "the app's deletion removes the side and join rows")
        #expect(plan.clearedLinks.map { "\($0.entity).\($0.relationship) \($0.keys.count)" } == ["EditNote.budget 2", "EditTag.budgets 2"])
        #expect(plan.summary == "Deleting EditBudget 'Food' also deletes 3 EditEntry rows and 4 EditReceipt rows, and clears the budget of 2 EditNote rows and the budgets of 2 EditTag rows.")

        let outcome = try withEditor(url) { try $0.apply([.delete(entity: "EditBudget", key: food)]) }
        #expect(outcome.deleted == plan.deletions)
        #expect(try storedRows(url) == appRows, "the same rows remain as after the app's deletion")

        let appLines = try appHistory(appCopy, after: before)
        let editorLines = try appHistory(url, after: before)
        // The app's save records the deletions only; the editor also records the rows whose links the
        // deletion cleared, as updates of those relationships, so that a running app refreshes them.
        #expect(appLines.count == 1 && !appLines[0].contains { $0.hasPrefix("update") })
        let cleared = plan.clearedLinks.flatMap { links in links.keys.map { "update \(links.entity)/p\($0) \(links.entity).\(links.relationship)" } }
        #expect(editorLines == [[appLines[0][0]] + cleared + appLines[0].dropFirst()])
        #expect(appLines[0].contains { $0.hasPrefix("delete EditBudget/p\(food) EditBudget.code=") && $0.hasSuffix("\"F-1\")") }, "\(appLines)")
        #expect(appLines[0].contains { $0.hasPrefix("delete EditEntry/") && $0.hasSuffix(" EditEntry.title=Food 2") })

        // The app sees the same store through its models.
        let context = ModelContext(try ModelContainer(for: Schema(editModels.reversed()), configurations: ModelConfiguration(url: url)))
        #expect(try context.fetchCount(FetchDescriptor<EditEntry>()) == 2)
        #expect(try context.fetch(FetchDescriptor<EditNote>()).filter { $0.budget == nil }.map(\.text).sorted() == ["cheaper in winter", "market on Saturdays"])
        #expect(try context.fetch(FetchDescriptor<EditTag>()).map { $0.budgets.map(\.name) }.sorted { $0.count < $1.count } == [[], ["Travel"]])
    }

    /// A row of a class hierarchy named by its superclass is deleted as its own class: its cascade, its
    /// side-table row, and the history's deletion under the subclass's name, as in the app.
    @Test func aSubclassRowIsDeletedAsItsClass() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-editor-hierarchy")
        defer { directory.remove() }
        let url = try makeEditStore(directory)
        let appCopy = try copyStore(url, as: "app.store")
        let before = try newestTransaction(url)
        let pitch = try rowKey(url, "EditTrip", "Pitch")
        do {
            let context = ModelContext(try ModelContainer(for: Schema(editModels), configurations: ModelConfiguration(url: appCopy)))
            context.author = "stowage-studio"
            context.delete(try #require(try context.fetch(FetchDescriptor<EditBusinessTrip>()).first))
            try context.save()
        }
        let plan = try withEditor(url) { try $0.deletePlan(entity: "EditTrip", key: pitch) }
        #expect(plan.entity == "EditBusinessTrip" && plan.label == "EditBusinessTrip 'Pitch'")
        #expect(plan.summary == "Deleting EditBusinessTrip 'Pitch' also deletes 3 EditStop rows.")
        _ = try withEditor(url) { try $0.apply([.delete(entity: "EditTrip", key: pitch)]) }
        #expect(try storedRows(url) == storedRows(appCopy))
        #expect(try appHistory(url, after: before) == appHistory(appCopy, after: before))
    }

    /// A `.deny` relationship with related rows refuses the deletion with the app's error, and the store's
    /// bytes do not change; deleting the related rows in the same edit is allowed, as in one save.
    @Test func aDeniedDeletionWritesNothing() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-editor-deny")
        defer { directory.remove() }
        let url = try makeEditStore(directory)
        let appCopy = try copyStore(url, as: "app.store")
        let main = try rowKey(url, "EditAccount", "Main")
        let (food, travel) = (try rowKey(url, "EditBudget", "Food"), try rowKey(url, "EditBudget", "Travel"))
        let bytes = try fileBytes(url)

        let appError: StowageError
        do {
            let context = ModelContext(try ModelContainer(for: Schema(editModels), configurations: ModelConfiguration(url: appCopy)))
            context.delete(try #require(try context.fetch(FetchDescriptor<EditAccount>(predicate: #Predicate { $0.name == "Main" })).first))
            appError = try #require(throws: StowageError.self) { try context.save() }
        }
        let plan = try withEditor(url) { try $0.deletePlan(entity: "EditAccount", key: main) }
        #expect(plan.isDenied)
        #expect(plan.denials.map(\.relationship) == ["budgets"] && plan.denials.first?.related == [StoreEditor.RowKeys(entity: "EditBudget", keys: [food, travel])])
        #expect(plan.summary == "EditAccount 'Main' cannot be deleted: its budgets deny deletion while it has 2 EditBudget rows.")

        let error = try withEditor(url) { editor in try #require(throws: StowageError.self) { try editor.apply([.delete(entity: "EditAccount", key: main)]) } }
        #expect(error.code == .deleteDenied && error.code == appError.code)
        #expect(error.message == appError.message)
        #expect(error.entityName == appError.entityName)
        #expect(try fileBytes(url) == bytes, "nothing was written")
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))

        // The account with its budgets, in one edit as in one save: allowed, and the same rows remain.
        let before = try newestTransaction(url)
        do {
            let context = ModelContext(try ModelContainer(for: Schema(editModels), configurations: ModelConfiguration(url: appCopy)))
            context.author = "stowage-studio"
            for budget in try context.fetch(FetchDescriptor<EditBudget>(predicate: #Predicate { $0.account != nil }, sortBy: [SortDescriptor(\.name)])) {
                context.delete(budget)
            }
            context.delete(try #require(try context.fetch(FetchDescriptor<EditAccount>(predicate: #Predicate { $0.name == "Main" })).first))
            try context.save()
        }
        _ = try withEditor(url) {
            try $0.apply([.delete(entity: "EditBudget", key: food), .delete(entity: "EditBudget", key: travel), .delete(entity: "EditAccount", key: main)])
        }
        #expect(try storedRows(url) == storedRows(appCopy))
        let deletions = { (history: [[String]]) in history.map { $0.filter { $0.hasPrefix("delete") } } }
        #expect(deletions(try appHistory(url, after: before)) == deletions(try appHistory(appCopy, after: before)))
    }

    /// An update that gives a row another row's unique value fails with the code and message of the app's
    /// save of the same change — strings compared by their canonical form, as the unique index compares
    /// them — and writes nothing; an insert with a stored row's unique value updates that row, as the
    /// app's insert does.
    @Test func uniquenessIsTheApps() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-editor-unique")
        defer { directory.remove() }
        let url = try makeEditStore(directory)
        let appCopy = try copyStore(url, as: "app.store")
        let travel = try rowKey(url, "EditBudget", "Travel")
        let bytes = try fileBytes(url)

        for name in ["Food", decomposedCafe] {
            let appError: StowageError
            do {
                let context = ModelContext(try ModelContainer(for: Schema(editModels), configurations: ModelConfiguration(url: appCopy)))
                let budget = try #require(try context.fetch(FetchDescriptor<EditBudget>(predicate: #Predicate { $0.name == "Travel" })).first)
                budget.name = name
                appError = try #require(throws: StowageError.self) { try context.save() }
            }
            let error = try withEditor(url) { editor in
                try #require(throws: StowageError.self) { try editor.apply([.update(entity: "EditBudget", key: travel, values: ["name": .string(name)])]) }
            }
            #expect(error.code == .constraintViolation && error.code == appError.code, "\(name)")
            #expect(error.message == appError.message, "\(name)")
            #expect(error.entityName == appError.entityName)
            #expect(try fileBytes(url) == bytes, "nothing was written")
        }

        // An insert with an existing unique value: the app's upsert.
        let before = try newestTransaction(url)
        let food = try rowKey(url, "EditBudget", "Food")
        do {
            let context = ModelContext(try ModelContainer(for: Schema(editModels), configurations: ModelConfiguration(url: appCopy)))
            context.author = "stowage-studio"
            context.insert(EditBudget(name: "Food", limit: 999, kind: .once))
            try context.save()
        }
        let outcome = try withEditor(url) {
            try $0.apply([.insert(entity: "EditBudget", values: ["name": .string("Food"), "limit": .number("999"), "kind": .string("one-off")])])
        }
        #expect(outcome.insertedKeys == [food], "the existing row's key")
        #expect(try storedRows(url) == storedRows(appCopy))
        #expect(try appHistory(url, after: before) == appHistory(appCopy, after: before))
        let context = ModelContext(try ModelContainer(for: Schema(editModels.reversed()), configurations: ModelConfiguration(url: url)))
        let budgets = try context.fetch(FetchDescriptor<EditBudget>(predicate: #Predicate { $0.name == "Food" }))
        #expect(budgets.map(\.limit) == [999] && budgets.first?.entries.count == 3)
    }

    /// A change that leaves a to-many relationship with more rows than its `maximumModelCount` fails with
    /// the app's error, and writes nothing.
    @Test func countLimitsAreTheApps() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-editor-counts")
        defer { directory.remove() }
        let url = try makeEditStore(directory)
        let appCopy = try copyStore(url, as: "app.store")
        let (ulysses, top) = (try rowKey(url, "EditBook", "Ulysses", column: "title"), try rowKey(url, "EditShelf", "Top"))
        let bytes = try fileBytes(url)
        let appError: StowageError
        do {
            let context = ModelContext(try ModelContainer(for: Schema(editModels), configurations: ModelConfiguration(url: appCopy)))
            let book = try #require(try context.fetch(FetchDescriptor<EditBook>(predicate: #Predicate { $0.title == "Ulysses" })).first)
            let shelf = try #require(try context.fetch(FetchDescriptor<EditShelf>(predicate: #Predicate { $0.name == "Top" })).first)
            book.shelf = shelf
            appError = try #require(throws: StowageError.self) { try context.save() }
        }
        let error = try withEditor(url) { editor in
            try #require(throws: StowageError.self) { try editor.apply([.update(entity: "EditBook", key: ulysses, values: ["shelf": .integer(top)])]) }
        }
        #expect(error.code == .relationshipCount && error.code == appError.code)
        #expect(error.message == appError.message)
        #expect(error.entityName == appError.entityName && error.propertyName == appError.propertyName)
        #expect(try fileBytes(url) == bytes, "nothing was written")
    }

    /// Setting a to-one relationship moves the row to the end of its new parent's ordered list and
    /// renumbers both lists, as the app's save writes them, and records the row and both parents as the
    /// app records them; so does an insert that links to a parent.
    @Test func linksAreWrittenAndRecordedAsTheAppWritesThem() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-editor-links")
        defer { directory.remove() }
        let url = try makeEditStore(directory)
        let appCopy = try copyStore(url, as: "app.store")
        let before = try newestTransaction(url)
        let entry = try rowKey(url, "EditEntry", "Food 1", column: "title")
        let note = try rowKey(url, "EditNote", "book early", column: "text")
        let (food, travel) = (try rowKey(url, "EditBudget", "Food"), try rowKey(url, "EditBudget", "Travel"))
        do {
            let context = ModelContext(try ModelContainer(for: Schema(editModels), configurations: ModelConfiguration(url: appCopy)))
            context.author = "stowage-studio"
            let budgets = try context.fetch(FetchDescriptor<EditBudget>(sortBy: [SortDescriptor(\.name)]))
            let travelBudget = try #require(budgets.first { $0.name == "Travel" })
            let foodBudget = try #require(budgets.first { $0.name == "Food" })
            try #require(try context.fetch(FetchDescriptor<EditEntry>(predicate: #Predicate { $0.title == "Food 1" })).first).budget = travelBudget
            try #require(try context.fetch(FetchDescriptor<EditNote>(predicate: #Predicate { $0.text == "book early" })).first).budget = nil
            let snack = EditEntry(title: "Snack", amount: 4)
            context.insert(snack)
            snack.budget = foodBudget
            try context.save()
        }
        let outcome = try withEditor(url) {
            try $0.apply([
                .update(entity: "EditEntry", key: entry, values: ["budget": .integer(travel)]),
                .update(entity: "EditNote", key: note, values: ["budget": .null]),
                .insert(entity: "EditEntry", values: ["title": .string("Snack"), "amount": .number("4"), "budget": .integer(food)]),
            ])
        }
        #expect(outcome.insertedKeys.count == 1)
        #expect(try storedRows(url) == storedRows(appCopy), "links and positions as the app writes them")
        #expect(try appHistory(url, after: before) == appHistory(appCopy, after: before))
        let context = ModelContext(try ModelContainer(for: Schema(editModels.reversed()), configurations: ModelConfiguration(url: url)))
        let budgets = try context.fetch(FetchDescriptor<EditBudget>(sortBy: [SortDescriptor(\.name)]))
        #expect(budgets.first { $0.name == "Travel" }?.entries.map(\.title) == ["Train", "Hotel", "Food 1"])
        #expect(budgets.first { $0.name == "Food" }?.entries.map(\.title) == ["Food 2", "Food 3", "Snack"])
    }

    /// One-to-one links, from the side whose table holds the link and from the other: the partner a row
    /// takes loses its previous link, and the rows are recorded as the app records them.
    @Test func oneToOneLinksMoveAsInTheApp() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-editor-one-to-one")
        defer { directory.remove() }
        let url = try makeEditStore(directory)
        let appCopy = try copyStore(url, as: "app.store")
        let before = try newestTransaction(url)
        let (bob, cy) = (try rowKey(url, "EditPerson", "Bob"), try rowKey(url, "EditPerson", "Cy"))
        let (p1, p3) = (try rowKey(url, "EditPassport", "P-1", column: "number"), try rowKey(url, "EditPassport", "P-3", column: "number"))
        do {
            let context = ModelContext(try ModelContainer(for: Schema(editModels), configurations: ModelConfiguration(url: appCopy)))
            context.author = "stowage-studio"
            let people = try context.fetch(FetchDescriptor<EditPerson>(sortBy: [SortDescriptor(\.name)]))
            let passports = try context.fetch(FetchDescriptor<EditPassport>(sortBy: [SortDescriptor(\.number)]))
            people[1].passport = passports[0]   // Bob takes Ann's passport: Ann has none, P-2 no owner.
            passports[2].owner = people[2]      // P-3 goes to Cy.
            try context.save()
        }
        _ = try withEditor(url) {
            try $0.apply([
                .update(entity: "EditPerson", key: bob, values: ["passport": .integer(p1)]),
                .update(entity: "EditPassport", key: p3, values: ["owner": .integer(cy)]),
            ])
        }
        #expect(try storedRows(url) == storedRows(appCopy))
        #expect(try appHistory(url, after: before) == appHistory(appCopy, after: before))
        let context = ModelContext(try ModelContainer(for: Schema(editModels.reversed()), configurations: ModelConfiguration(url: url)))
        let people = try context.fetch(FetchDescriptor<EditPerson>(sortBy: [SortDescriptor(\.name)]))
        #expect(people.map { $0.passport?.number } == [nil, "P-1", "P-3"], "Ann lost P-1 to Bob; P-2 has no owner")
        #expect(try context.fetch(FetchDescriptor<EditPassport>(sortBy: [SortDescriptor(\.number)])).map { $0.owner?.name } == ["Bob", nil, "Cy"])
    }

    /// A change that fails makes the whole edit write nothing, whichever change fails and however.
    @Test func aFailedEditWritesNothing() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-editor-atomic")
        defer { directory.remove() }
        let url = try makeEditStore(directory)
        let bytes = try fileBytes(url)
        let (food, travel) = (try rowKey(url, "EditBudget", "Food"), try rowKey(url, "EditBudget", "Travel"))
        let main = try rowKey(url, "EditAccount", "Main")
        let entry = try rowKey(url, "EditEntry", "Food 1", column: "title")
        let note = try rowKey(url, "EditNote", "book early", column: "text")
        let good: [StoreEditor.Change] = [
            .update(entity: "EditBudget", key: food, values: ["limit": .number("1")]),
            .insert(entity: "EditTag", values: ["name": .string("green")]),
            .delete(entity: "EditNote", key: note),
        ]
        let failures: [(StoreEditor.Change, String?)] = [
            (.update(entity: "EditBudget", key: travel, values: ["limit": .string("lots")]),
             "change 4 of 4 (update EditBudget \(travel)): EditBudget 'Travel': limit is a Double, not \"lots\"; nothing was written"),
            (.update(entity: "EditBudget", key: travel, values: ["kind": .string("weekly")]),
             "change 4 of 4 (update EditBudget \(travel)): EditBudget 'Travel': kind is a EditKind, whose raw values are \"monthly\", \"yearly\", \"one-off\", not \"weekly\"; nothing was written"),
            (.update(entity: "EditBudget", key: travel, values: ["limitt": .number("1")]),
             "change 4 of 4 (update EditBudget \(travel)): EditBudget has no attribute or to-one relationship limitt; its attributes are name, limit, kind, code, attachment and its to-one relationships account; nothing was written"),
            (.insert(entity: "EditBudget", values: ["name": .string("New")]),
             "change 4 of 4 (insert EditBudget): a new EditBudget needs a value for limit, kind: they are not optional, and the editor does not know the model's default values; nothing was written"),
            (.update(entity: "EditEntry", key: entry, values: ["budget": .integer(999)]),
             "change 4 of 4 (update EditEntry \(entry)): EditEntry 'Food 1': budget cannot link to EditBudget 999, which does not exist; nothing was written"),
            (.delete(entity: "EditBudgets", key: food), nil),
            (.update(entity: "EditBudget", key: travel, values: ["name": .string("Food")]), nil),
            (.delete(entity: "EditAccount", key: main), nil),
        ]
        for (failing, message) in failures {
            let before = try newestTransaction(url)
            let thrown = try withEditor(url) { editor in try #require(throws: (any Error).self) { try editor.apply(good + [failing]) } }
            if let message {
                #expect((thrown as? ToolError)?.message == message)
            } else {
                #expect(thrown is ToolError || thrown is StowageError, "\(thrown)")
            }
            #expect(try fileBytes(url) == bytes, "\(failing.self): nothing was written")
            #expect(try newestTransaction(url) == before)
        }
        let unknownEntity = try withEditor(url) { editor in try #require(throws: ToolError.self) { try editor.apply([.delete(entity: "EditBudgets", key: food)]) } }
        #expect(unknownEntity.message == "the store has no entity EditBudgets; its entities are EditAccount, EditBook, EditBudget, EditBusinessTrip, EditEntry, EditNote, EditPassport, EditPerson, EditReceipt, EditShelf, EditStop, EditTag, EditTrip; nothing was written")
        // The same changes without the failing one are written.
        _ = try withEditor(url) { try $0.apply(good) }
        #expect(try fileBytes(url) != bytes)
    }
}

@Suite("StoreEditor and a running app")
struct StoreEditorObserverTests {
    /// A container open on the store (another process's, as Stowage Studio's is) sees an edit through its
    /// change watcher: its `ResultsObserver` updates. The observer lives outside any actor (it updates
    /// when read), so that the main actor, which the other suites' tests keep busy, does not delay it.
    @Test func aRunningAppsObserverSeesTheEdit() async throws {
        let directory = try TemporaryDirectory(prefix: "stowage-editor-observer")
        defer { directory.remove() }
        let url = try await makeEditStore(at: directory.url.appendingPathComponent("edit.store"))
        let travel = try rowKey(url, "EditBudget", "Travel")
        let container = try ModelContainer(for: Schema(editModels.reversed()), configurations: ModelConfiguration(url: url))
        let observer = try ResultsObserver<EditBudget, Never>(sortBy: [SortDescriptor(\.name)], modelContainer: container)
        #expect(observer.results.map(\.name) == [composedCafe, "Food", "Travel"])

        let start = ContinuousClock.now
        _ = try withEditor(url) { try $0.apply([.update(entity: "EditBudget", key: travel, values: ["name": .string("Voyages"), "limit": .number("1000")])]) }
        var seen = false
        // A minute at most: the full test suite, running beside this on two cores, can keep the
        // threads the observer's update runs on busy for seconds.
        while !seen && ContinuousClock.now - start < .seconds(60) {
            seen = observer.results.map(\.name) == [composedCafe, "Food", "Voyages"]
            if !seen { try await Task.sleep(for: .milliseconds(10)) }
        }
        #expect(seen, "the observer's results after 60 s: \(observer.results.map(\.name))")
        print("StoreEditorTests: the running app's observer saw the edit after \(ContinuousClock.now - start)")
        #expect(observer.results.last?.limit == 1000)
    }
}

/// A notes app before and after an update that adds an attribute (a lightweight migration).
enum MemoAppV1 {
    @Model final class Memo {
        var text: String
        init(text: String) { self.text = text }
    }
}

enum MemoAppV2 {
    @Model final class Memo {
        var text: String
        var pinned: Bool?
        init(text: String) { self.text = text }
    }
}

@Suite("StoreEditor and a migrated store")
struct StoreEditorMigrationTests {
    /// An editor opened before the app migrated the store checked its values against the old models:
    /// its edit is refused with a typed reason and writes nothing; opened again, it edits the new models.
    @Test func anEditAfterTheAppMigratedTheStoreIsRefusedUntilItIsOpenedAgain() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-editor-migrated")
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("memos.store")
        do {
            let context = ModelContext(try ModelContainer(for: MemoAppV1.Memo.self, configurations: ModelConfiguration(url: url)))
            context.insert(MemoAppV1.Memo(text: "first"))
            try context.save()
        }
        let key = try rowKey(url, "Memo", "first", column: "text")
        let editor = StoreEditor(try StoreReader(path: url.path, writable: true))
        do {
            let context = ModelContext(try ModelContainer(for: MemoAppV2.Memo.self, configurations: ModelConfiguration(url: url)))
            #expect(try context.fetch(FetchDescriptor<MemoAppV2.Memo>()).map(\.pinned) == [nil])
        }
        // The store and its -wal; the -shm is the WAL's index, which readers mark.
        func stored() throws -> [String: Data] { try snapshot(of: directory.url).filter { !$0.key.hasSuffix("-shm") } }
        let before = try stored()

        let refused = try #require(throws: ToolError.self) {
            try editor.apply([.update(entity: "Memo", key: key, values: ["text": .string("second")])])
        }
        #expect(refused.message == "\(url.path) was migrated since it was opened (its models changed); nothing was written: try again")
        #expect(refused.exitCode == ToolError.tryAgainExitCode)
        #expect(try stored() == before)

        _ = try withEditor(url) { try $0.apply([.update(entity: "Memo", key: key, values: ["text": .string("second"), "pinned": .bool(true)])]) }
        let context = ModelContext(try ModelContainer(for: MemoAppV2.Memo.self, configurations: ModelConfiguration(url: url)))
        let memos = try context.fetch(FetchDescriptor<MemoAppV2.Memo>())
        #expect(memos.map(\.text) == ["second"])
        #expect(memos.map(\.pinned) == [true])
    }
}
