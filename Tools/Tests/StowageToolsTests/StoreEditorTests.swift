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

    /// Setting a many-to-many relationship to a list of keys writes the join table as the app's
    /// assignment of the array and save do: the links that go and those that come, the row's positions,
    /// and the positions of each related row whose own array gains or loses the row (renumbered from 0);
    /// the row and those related rows are recorded as updated, as the app records them. From either side,
    /// and twice in one edit.
    @Test func manyToManyListsAreWrittenAsTheAppWritesThem() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-editor-many-to-many")
        defer { directory.remove() }
        let url = try makeEditStore(directory)
        // A third tag, on Travel and Café: Food has red and blue, Travel red and green, Café green.
        try appEdit(url) { context in
            let budgets = try modelsByName(context, \EditBudget.name)
            let green = EditTag(name: "green")
            context.insert(green)
            green.budgets = [budgets["Travel"]!, budgets[composedCafe]!]
        }
        let appCopy = try copyStore(url, as: "app.store")
        let (food, travel, cafe) = (try rowKey(url, "EditBudget", "Food"), try rowKey(url, "EditBudget", "Travel"), try rowKey(url, "EditBudget", composedCafe))
        let (red, blue, green) = (try rowKey(url, "EditTag", "red"), try rowKey(url, "EditTag", "blue"), try rowKey(url, "EditTag", "green"))

        // From the budget's side: Food keeps blue (now first), loses red and gains green.
        var before = try newestTransaction(url)
        try appEdit(appCopy) { context in
            let (budgets, tags) = (try modelsByName(context, \EditBudget.name), try modelsByName(context, \EditTag.name))
            budgets["Food"]!.tags = [tags["blue"]!, tags["green"]!]
        }
        let outcome = try withEditor(url) {
            try $0.apply([.update(entity: "EditBudget", key: food, values: ["tags": .array([.integer(blue), .integer(green)])])])
        }
        #expect(outcome.updated == [StoreEditor.RowKeys(entity: "EditBudget", keys: [food]), StoreEditor.RowKeys(entity: "EditTag", keys: [red, green])])
        #expect(try storedRows(url) == storedRows(appCopy), "join rows and both sides' positions as the app writes them")
        var history = try appHistory(url, after: before)
        #expect(history == (try appHistory(appCopy, after: before)))
        #expect(history == [[
            "author: stowage-studio", "update EditBudget/p\(food) EditBudget.tags", "update EditTag/p\(red) EditTag.budgets",
            "update EditTag/p\(green) EditTag.budgets",
        ]])
        do {
            let context = ModelContext(try ModelContainer(for: Schema(editModels.reversed()), configurations: ModelConfiguration(url: url)))
            let (budgets, tags) = (try modelsByName(context, \EditBudget.name), try modelsByName(context, \EditTag.name))
            #expect(budgets["Food"]?.tags.map(\.name) == ["blue", "green"])
            #expect(tags["red"]?.budgets.map(\.name) == ["Travel"])
            #expect(tags["green"]?.budgets.map(\.name) == ["Travel", composedCafe, "Food"], "Food at the end of green's budgets")
        }

        // From the tags' side, two lists in one edit: green loses Travel and puts Food first, red gains
        // Café before Travel.
        before = try newestTransaction(url)
        try appEdit(appCopy) { context in
            let (budgets, tags) = (try modelsByName(context, \EditBudget.name), try modelsByName(context, \EditTag.name))
            tags["green"]!.budgets = [budgets["Food"]!, budgets[composedCafe]!]
            tags["red"]!.budgets = [budgets[composedCafe]!, budgets["Travel"]!]
        }
        _ = try withEditor(url) {
            try $0.apply([
                .update(entity: "EditTag", key: green, values: ["budgets": .array([.integer(food), .integer(cafe)])]),
                .update(entity: "EditTag", key: red, values: ["budgets": .array([.integer(cafe), .integer(travel)])]),
            ])
        }
        #expect(try storedRows(url) == storedRows(appCopy))
        history = try appHistory(url, after: before)
        #expect(history == (try appHistory(appCopy, after: before)))
        #expect(history == [[
            "author: stowage-studio", "update EditTag/p\(green) EditTag.budgets", "update EditBudget/p\(travel) EditBudget.tags",
            "update EditTag/p\(red) EditTag.budgets", "update EditBudget/p\(cafe) EditBudget.tags",
        ]])
        let context = ModelContext(try ModelContainer(for: Schema(editModels.reversed()), configurations: ModelConfiguration(url: url)))
        let (budgets, tags) = (try modelsByName(context, \EditBudget.name), try modelsByName(context, \EditTag.name))
        #expect(tags["green"]?.budgets.map(\.name) == ["Food", composedCafe])
        #expect(tags["red"]?.budgets.map(\.name) == [composedCafe, "Travel"])
        #expect(budgets["Travel"]?.tags.map(\.name) == ["red"])
        #expect(budgets[composedCafe]?.tags.map(\.name) == ["green", "red"])
        #expect(budgets["Food"]?.tags.map(\.name) == ["blue", "green"])
    }

    /// Setting a one-to-many relationship (the children's foreign key) to a list of keys: a child that
    /// leaves has no parent, a child that comes leaves its previous parent (whose list is renumbered),
    /// the children get their places in the list — written and recorded as the app's assignment does,
    /// for a `.nullify` list, a `.cascade` list of a subclass's row and a list with a maximum count.
    @Test func oneToManyListsMoveChildrenAsInTheApp() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-editor-one-to-many")
        defer { directory.remove() }
        let url = try makeEditStore(directory)
        let appCopy = try copyStore(url, as: "app.store")
        let before = try newestTransaction(url)
        let (food, travel) = (try rowKey(url, "EditBudget", "Food"), try rowKey(url, "EditBudget", "Travel"))
        let (early, winter, market) = (
            try rowKey(url, "EditNote", "book early", column: "text"), try rowKey(url, "EditNote", "cheaper in winter", column: "text"),
            try rowKey(url, "EditNote", "market on Saturdays", column: "text")
        )
        let (weekend, pitch) = (try rowKey(url, "EditTrip", "Weekend"), try rowKey(url, "EditTrip", "Pitch"))
        let (hotel, lake, office, airport) = (
            try rowKey(url, "EditStop", "Hotel", column: "place"), try rowKey(url, "EditStop", "Lake", column: "place"),
            try rowKey(url, "EditStop", "Office", column: "place"), try rowKey(url, "EditStop", "Airport", column: "place")
        )
        let top = try rowKey(url, "EditShelf", "Top")
        let (dune, emma) = (try rowKey(url, "EditBook", "Dune", column: "title"), try rowKey(url, "EditBook", "Emma", column: "title"))
        try appEdit(appCopy) { context in
            let budgets = try modelsByName(context, \EditBudget.name)
            let notes = try modelsByName(context, \EditNote.text)
            budgets["Food"]!.notes = [notes["book early"]!, notes["cheaper in winter"]!]
            let trips = try modelsByName(context, \EditTrip.name)
            let stops = try modelsByName(context, \EditStop.place)
            trips["Pitch"]!.stops = [stops["Hotel"]!, stops["Lake"]!, stops["Office"]!]
            let books = try modelsByName(context, \EditBook.title)
            try modelsByName(context, \EditShelf.name)["Top"]!.books = [books["Emma"]!, books["Dune"]!]
        }
        let outcome = try withEditor(url) {
            try $0.apply([
                .update(entity: "EditBudget", key: food, values: ["notes": .array([.integer(early), .integer(winter)])]),
                .update(entity: "EditTrip", key: pitch, values: ["stops": .array([.integer(hotel), .integer(lake), .integer(office)])]),
                .update(entity: "EditShelf", key: top, values: ["books": .array([.integer(emma), .integer(dune)])]),
            ])
        }
        #expect(outcome.updated.contains(StoreEditor.RowKeys(entity: "EditNote", keys: [market, early])), "\(outcome.updated)")
        #expect(try storedRows(url) == storedRows(appCopy), "links and positions as the app writes them")
        let history = try appHistory(url, after: before)
        #expect(history == (try appHistory(appCopy, after: before)))
        #expect(history == [[
            "author: stowage-studio",
            // Food, the note it loses, the note it takes and the budget that note leaves…
            "update EditBudget/p\(food) EditBudget.notes", "update EditNote/p\(market) EditNote.budget", "update EditNote/p\(early) EditNote.budget",
            "update EditBudget/p\(travel) EditBudget.notes",
            // …Pitch, the stop it loses, the stop it takes and that stop's trip…
            "update EditBusinessTrip/p\(pitch) EditBusinessTrip.stops", "update EditStop/p\(airport) EditStop.trip", "update EditStop/p\(lake) EditStop.trip",
            "update EditTrip/p\(weekend) EditTrip.stops",
            // …and the shelf whose books only change places (the books are not recorded).
            "update EditShelf/p\(top) EditShelf.books",
        ]])
        let context = ModelContext(try ModelContainer(for: Schema(editModels.reversed()), configurations: ModelConfiguration(url: url)))
        let budgets = try modelsByName(context, \EditBudget.name)
        #expect(budgets["Food"]?.notes.map(\.text) == ["book early", "cheaper in winter"])
        #expect(budgets["Travel"]?.notes.isEmpty == true)
        #expect(try modelsByName(context, \EditNote.text)["market on Saturdays"].map { $0.budget == nil } == true)
        let trips = try modelsByName(context, \EditTrip.name)
        #expect(trips["Pitch"]?.stops.map(\.place) == ["Hotel", "Lake", "Office"])
        #expect(trips["Weekend"]?.stops.map(\.place) == ["Hill"])
        #expect(try context.fetch(FetchDescriptor<EditStop>(predicate: #Predicate { $0.place == "Airport" })).map { $0.trip == nil } == [true], "left, not deleted")
        #expect(try modelsByName(context, \EditShelf.name)["Top"]?.books.map(\.title) == ["Emma", "Dune"])
    }

    /// A list longer than the relationship's `maximumModelCount` fails with the app's error and writes
    /// nothing.
    @Test func aListOverItsCountLimitIsRefusedAsInTheApp() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-editor-list-count")
        defer { directory.remove() }
        let url = try makeEditStore(directory)
        let appCopy = try copyStore(url, as: "app.store")
        let top = try rowKey(url, "EditShelf", "Top")
        let books = try ["Dune", "Emma", "Ulysses"].map { try rowKey(url, "EditBook", $0, column: "title") }
        let bytes = try fileBytes(url)
        let appError: StowageError
        do {
            let context = ModelContext(try ModelContainer(for: Schema(editModels), configurations: ModelConfiguration(url: appCopy)))
            let byTitle = try modelsByName(context, \EditBook.title)
            try modelsByName(context, \EditShelf.name)["Top"]!.books = ["Dune", "Emma", "Ulysses"].map { byTitle[$0]! }
            appError = try #require(throws: StowageError.self) { try context.save() }
        }
        let error = try withEditor(url) { editor in
            try #require(throws: StowageError.self) {
                try editor.apply([.update(entity: "EditShelf", key: top, values: ["books": .array(books.map(JSONValue.integer))])])
            }
        }
        #expect(error.code == .relationshipCount && error.code == appError.code)
        #expect(error.message == appError.message)
        #expect(error.entityName == appError.entityName && error.propertyName == appError.propertyName)
        #expect(try fileBytes(url) == bytes, "nothing was written")
    }

    /// An insert with to-many lists links the new row as the app's insert with the arrays set does: its
    /// join rows, the children it takes from their parents, and the related rows recorded as updated.
    @Test func anInsertWithListsLinksAsTheAppsInsert() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-editor-insert-lists")
        defer { directory.remove() }
        let url = try makeEditStore(directory)
        let appCopy = try copyStore(url, as: "app.store")
        let before = try newestTransaction(url)
        let (red, blue) = (try rowKey(url, "EditTag", "red"), try rowKey(url, "EditTag", "blue"))
        let (market, early) = (try rowKey(url, "EditNote", "market on Saturdays", column: "text"), try rowKey(url, "EditNote", "book early", column: "text"))
        let ulysses = try rowKey(url, "EditBook", "Ulysses", column: "title")
        try appEdit(appCopy) { context in
            let (tags, notes) = (try modelsByName(context, \EditTag.name), try modelsByName(context, \EditNote.text))
            let gifts = EditBudget(name: "Gifts", limit: 50)
            context.insert(gifts)
            // In declaration order, as the editor sets them.
            gifts.notes = [notes["market on Saturdays"]!, notes["book early"]!]
            gifts.tags = [tags["blue"]!, tags["red"]!]
            let middle = EditShelf(name: "Middle")
            context.insert(middle)
            middle.books = [try modelsByName(context, \EditBook.title)["Ulysses"]!]
        }
        let outcome = try withEditor(url) {
            try $0.apply([
                .insert(entity: "EditBudget", values: [
                    "name": .string("Gifts"), "limit": .number("50"), "kind": .string("monthly"),
                    "tags": .array([.integer(blue), .integer(red)]), "notes": .array([.integer(market), .integer(early)]),
                ]),
                .insert(entity: "EditShelf", values: ["name": .string("Middle"), "books": .array([.integer(ulysses)])]),
            ])
        }
        #expect(outcome.insertedKeys.count == 2)
        #expect(try storedRows(url) == storedRows(appCopy))
        #expect(try appHistory(url, after: before) == appHistory(appCopy, after: before))
        let context = ModelContext(try ModelContainer(for: Schema(editModels.reversed()), configurations: ModelConfiguration(url: url)))
        let budgets = try modelsByName(context, \EditBudget.name)
        #expect(budgets["Gifts"]?.tags.map(\.name) == ["blue", "red"])
        #expect(budgets["Gifts"]?.notes.map(\.text) == ["market on Saturdays", "book early"])
        #expect(budgets["Food"]?.notes.map(\.text) == ["cheaper in winter"])
        #expect(try modelsByName(context, \EditTag.name)["red"]?.budgets.map(\.name) == ["Food", "Travel", "Gifts"])
        let shelves = try modelsByName(context, \EditShelf.name)
        #expect(shelves["Middle"]?.books.map(\.title) == ["Ulysses"] && shelves["Bottom"]?.books.isEmpty == true)
    }

    /// An insert with lists that updates a stored row (an upsert) writes and records what the app's does:
    /// the row's join rows become the list's (the tags' own arrays gain the row at their end), the
    /// children listed move to it, but its other children stay (the inserted model is not the stored
    /// row's model, which only loses the children it gives up — and is recorded as updated for it).
    @Test func anUpsertWithListsWritesWhatTheAppsUpsertWrites() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-editor-upsert-lists")
        defer { directory.remove() }
        let url = try makeEditStore(directory)
        let appCopy = try copyStore(url, as: "app.store")
        let before = try newestTransaction(url)
        let (food, travel) = (try rowKey(url, "EditBudget", "Food"), try rowKey(url, "EditBudget", "Travel"))
        let (red, blue) = (try rowKey(url, "EditTag", "red"), try rowKey(url, "EditTag", "blue"))
        let (winter, early) = (try rowKey(url, "EditNote", "cheaper in winter", column: "text"), try rowKey(url, "EditNote", "book early", column: "text"))
        try appEdit(appCopy) { context in
            let (tags, notes) = (try modelsByName(context, \EditTag.name), try modelsByName(context, \EditNote.text))
            let food = EditBudget(name: "Food", limit: 999, kind: .once)
            context.insert(food)
            food.notes = [notes["cheaper in winter"]!, notes["book early"]!]
            food.tags = [tags["blue"]!, tags["red"]!]
        }
        let outcome = try withEditor(url) {
            try $0.apply([
                .insert(entity: "EditBudget", values: [
                    "name": .string("Food"), "limit": .number("999"), "kind": .string("one-off"),
                    "tags": .array([.integer(blue), .integer(red)]), "notes": .array([.integer(winter), .integer(early)]),
                ]),
            ])
        }
        #expect(outcome.insertedKeys == [food])
        #expect(try storedRows(url) == storedRows(appCopy))
        let history = try appHistory(url, after: before)
        #expect(history == (try appHistory(appCopy, after: before)))
        #expect(history.first?.prefix(3) == ["author: stowage-studio", "insert EditBudget/p\(food)", "update EditNote/p\(winter) EditNote.budget"])
        #expect(history.first?.contains("update EditBudget/p\(food) EditBudget.notes") == true, "the stored row's model lost a note")
        #expect(history.first?.contains("update EditBudget/p\(travel) EditBudget.notes") == true)
        let context = ModelContext(try ModelContainer(for: Schema(editModels.reversed()), configurations: ModelConfiguration(url: url)))
        let budgets = try modelsByName(context, \EditBudget.name)
        #expect(budgets["Food"]?.tags.map(\.name) == ["blue", "red"])
        #expect(budgets["Food"]?.notes.map(\.text) == ["cheaper in winter", "market on Saturdays", "book early"], "market stays, as in the app")
        #expect(budgets["Travel"]?.notes.isEmpty == true)
    }

    /// A to-many relationship without an inverse: its join table holds the list, in order, as the app
    /// writes it; only the row is recorded.
    @Test func aListWithoutInverseIsWrittenAsInTheApp() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-editor-no-inverse")
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("songs.store")
        let models: [any PersistentModel.Type] = [EditPlaylist.self, EditSong.self]
        try appEdit(url, models: models) { context in
            let playlist = EditPlaylist(name: "Mix")
            context.insert(playlist)
            playlist.songs = ["A", "B", "C"].map { EditSong(title: $0) }
        }
        let appCopy = try copyStore(url, as: "app.store")
        let before = try newestTransaction(url)
        let mix = try rowKey(url, "EditPlaylist", "Mix")
        let (a, c) = (try rowKey(url, "EditSong", "A", column: "title"), try rowKey(url, "EditSong", "C", column: "title"))
        try appEdit(appCopy, models: models) { context in
            let songs = try modelsByName(context, \EditSong.title)
            try modelsByName(context, \EditPlaylist.name)["Mix"]!.songs = [songs["C"]!, songs["A"]!]
        }
        _ = try withEditor(url) { try $0.apply([.update(entity: "EditPlaylist", key: mix, values: ["songs": .array([.integer(c), .integer(a)])])]) }
        #expect(try storedRows(url) == storedRows(appCopy))
        let history = try appHistory(url, after: before, models: models)
        #expect(history == (try appHistory(appCopy, after: before, models: models)))
        #expect(history.first?.count == 2, "the playlist only: \(history)")
        let context = ModelContext(try ModelContainer(for: Schema(models.reversed()), configurations: ModelConfiguration(url: url)))
        #expect(try modelsByName(context, \EditPlaylist.name)["Mix"]?.songs.map(\.title) == ["C", "A"])
        #expect(try context.fetchCount(FetchDescriptor<EditSong>()) == 3, "B is left, not deleted")
    }

    /// A to-many relationship that shares its to-one inverse with another, and that inverse, are refused
    /// (the app keeps their links in step in memory): nothing is written.
    @Test func relationshipsSharingAnInverseAreRefused() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-editor-shared-inverse")
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("yard.store")
        try appEdit(url, models: [EditYard.self, EditPlant.self]) { context in
            let yard = EditYard(name: "Front")
            context.insert(yard)
            yard.leadingPlants = [EditPlant(name: "Fern")]
            context.insert(EditPlant(name: "Rose"))
        }
        let yard = try rowKey(url, "EditYard", "Front")
        let (fern, rose) = (try rowKey(url, "EditPlant", "Fern"), try rowKey(url, "EditPlant", "Rose"))
        let bytes = try fileBytes(url)
        let refusals: [(StoreEditor.Change, String)] = [
            (.update(entity: "EditYard", key: yard, values: ["trailingPlants": .array([.integer(rose)])]),
             "EditYard.trailingPlants shares its inverse EditPlant.yard with leadingPlants, whose links the app keeps in step itself: set it in the app; nothing was written"),
            (.update(entity: "EditYard", key: yard, values: ["leadingPlants": .array([.integer(fern), .integer(rose)])]),
             "EditYard.leadingPlants shares its inverse EditPlant.yard with trailingPlants, whose links the app keeps in step itself: set it in the app; nothing was written"),
            (.update(entity: "EditPlant", key: rose, values: ["yard": .integer(yard)]),
             "EditPlant.yard is the inverse of several relationships of EditYard (leadingPlants, trailingPlants), whose links the app keeps in step itself: set it in the app; nothing was written"),
        ]
        for (change, message) in refusals {
            let error = try withEditor(url) { editor in try #require(throws: ToolError.self) { try editor.apply([change]) } }
            #expect(error.message == message)
            #expect(error.exitCode == 64)
            #expect(try fileBytes(url) == bytes, "nothing was written")
        }
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
        let (red, blue) = (try rowKey(url, "EditTag", "red"), try rowKey(url, "EditTag", "blue"))
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
             "change 4 of 4 (update EditBudget \(travel)): EditBudget has no attribute or relationship limitt; its attributes are name, limit, kind, code, attachment and its relationships account, entries, notes, tags; nothing was written"),
            (.update(entity: "EditBudget", key: travel, values: ["tags": .array([.integer(red), .integer(999)])]),
             "change 4 of 4 (update EditBudget \(travel)): EditBudget 'Travel': tags cannot link to EditTag 999, which does not exist; nothing was written"),
            (.update(entity: "EditBudget", key: travel, values: ["tags": .array([.integer(red), .integer(blue), .integer(red)])]),
             "change 4 of 4 (update EditBudget \(travel)): EditBudget 'Travel': tags lists EditTag \(red) more than once; nothing was written"),
            (.update(entity: "EditBudget", key: travel, values: ["tags": .integer(red)]),
             "change 4 of 4 (update EditBudget \(travel)): EditBudget 'Travel': tags takes an array of keys of EditTag rows (numbers), not \(red); nothing was written"),
            (.insert(entity: "EditShelf", values: ["name": .string("Middle"), "books": .array([.string("Dune")])]),
             "change 4 of 4 (insert EditShelf): a new EditShelf: books takes an array of keys of EditBook rows (numbers), not [\"Dune\"]; nothing was written"),
            (.update(entity: "EditTag", key: red, values: ["budgets": .array([.integer(food), .null])]),
             "change 4 of 4 (update EditTag \(red)): EditTag 'red': budgets takes an array of keys of EditBudget rows (numbers), not [\(food),null]; nothing was written"),
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
                if message.contains(": EditBudget 'Travel': ") || message.contains(": a new ") || message.contains(": EditTag 'red': ") {
                    #expect((thrown as? ToolError)?.exitCode == 65, "a value that does not fit: \(message)")
                }
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

    /// Two children taken from one parent leave it renumbered once, as the app writes it.
    @Test func childrenTakenFromOneParentAsInTheApp() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-editor-two-children")
        defer { directory.remove() }
        let url = try makeEditStore(directory)
        let appCopy = try copyStore(url, as: "app.store")
        let before = try newestTransaction(url)
        let weekend = try rowKey(url, "EditTrip", "Weekend")
        let stops = try ["Lake", "Hill", "Office", "Hotel"].map { try rowKey(url, "EditStop", $0, column: "place") }
        try appEdit(appCopy) { context in
            let trips = try modelsByName(context, \EditTrip.name)
            let places = try modelsByName(context, \EditStop.place)
            trips["Weekend"]!.stops = ["Lake", "Hill", "Office", "Hotel"].map { places[$0]! }
        }
        _ = try withEditor(url) { try $0.apply([.update(entity: "EditTrip", key: weekend, values: ["stops": .array(stops.map(JSONValue.integer))])]) }
        #expect(try storedRows(url) == storedRows(appCopy), "Pitch keeps Airport at position 0")
        #expect(try appHistory(url, after: before) == appHistory(appCopy, after: before))
    }

    /// A `@Relationship(.unique)` refuses, with the app's error and nothing written, what the app's save
    /// refuses: a badge (join table) or a locker (foreign key) another member holds.
    @Test func uniqueRelationshipsAreTheApps() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-editor-unique-links")
        defer { directory.remove() }
        let url = directory.url.appendingPathComponent("members.store")
        try appEdit(url, models: memberModels) { context in
            let ann = EditMember(name: "Ann")
            context.insert(ann)
            context.insert(EditMember(name: "Bob"))
            ann.badges = [EditBadge(title: "gold")]
            ann.locker = EditLocker(label: "L1")
            context.insert(EditBadge(title: "silver"))
        }
        let bob = try rowKey(url, "EditMember", "Bob")
        let (gold, silver) = (try rowKey(url, "EditBadge", "gold", column: "title"), try rowKey(url, "EditBadge", "silver", column: "title"))
        let locker = try rowKey(url, "EditLocker", "L1", column: "label")
        #expect(try StoreReader(path: url.path).description.entity(named: "EditMember")?.relationships.map(\.isUnique) == [true, true])
        let bytes = try fileBytes(url)
        let appCopy = try copyStore(url, as: "app.store")
        func appError(_ change: @escaping (ModelContext, EditMember) throws -> Void) throws -> StowageError {
            try #require(throws: StowageError.self) {
                try appEdit(appCopy, models: memberModels) { context in
                    let bob = try #require(try context.fetch(FetchDescriptor<EditMember>(predicate: #Predicate { $0.name == "Bob" })).first)
                    try change(context, bob)
                }
            }
        }
        let badgeError = try appError { context, bob in bob.badges = try context.fetch(FetchDescriptor<EditBadge>(predicate: #Predicate { $0.title == "gold" })) }
        let lockerError = try appError { context, bob in bob.locker = try context.fetch(FetchDescriptor<EditLocker>()).first }
        for (change, expected) in [
            (StoreEditor.Change.append(entity: "EditMember", key: bob, relationship: "badges", row: gold), badgeError),
            (.update(entity: "EditMember", key: bob, values: ["locker": .integer(locker)]), lockerError),
        ] {
            let thrown = try withEditor(url) { editor in try #require(throws: StowageError.self) { try editor.apply([change]) } }
            #expect(thrown.code == .constraintViolation)
            #expect(thrown.message == expected.message)
            #expect(try fileBytes(url) == bytes)
        }
        _ = try withEditor(url) { try $0.apply([.append(entity: "EditMember", key: bob, relationship: "badges", row: silver)]) }
        let context = ModelContext(try ModelContainer(for: Schema(memberModels.reversed()), configurations: ModelConfiguration(url: url)))
        #expect(try context.fetch(FetchDescriptor<EditMember>(predicate: #Predicate { $0.name == "Bob" })).first?.badges.map(\.title) == ["silver"])
    }

    /// Adding one row to a list and removing one are the app's `append` and `remove(at:)`: the same rows
    /// and history. The list is read when the edit is applied: a change saved after the editor was
    /// opened is kept, not overwritten with the list as it was.
    @Test func appendAndRemoveAreTheAppsAndKeepAnotherSave() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-editor-append")
        defer { directory.remove() }
        let url = try makeEditStore(directory)
        let (food, travel) = (try rowKey(url, "EditBudget", "Food"), try rowKey(url, "EditBudget", "Travel"))
        let (red, blue) = (try rowKey(url, "EditTag", "red"), try rowKey(url, "EditTag", "blue"))
        let note = try rowKey(url, "EditNote", "book early", column: "text")
        let appCopy = try copyStore(url, as: "app.store")
        let before = try newestTransaction(url)
        try appEdit(appCopy) { context in
            let (budgets, tags) = (try modelsByName(context, \EditBudget.name), try modelsByName(context, \EditTag.name))
            budgets["Travel"]!.tags.append(tags["blue"]!)
            let food = budgets["Food"]!
            food.notes.append(budgets["Travel"]!.notes.first { $0.text == "book early" }!)
        }
        try appEdit(appCopy) { context in
            let budgets = try modelsByName(context, \EditBudget.name)
            budgets["Food"]!.tags.removeAll { $0.name == "red" }
        }
        try withEditor(url) { editor in
            _ = try editor.apply([
                .append(entity: "EditBudget", key: travel, relationship: "tags", row: blue),
                .append(entity: "EditBudget", key: food, relationship: "notes", row: note),
            ])
            _ = try editor.apply([.remove(entity: "EditBudget", key: food, relationship: "tags", row: red)])
        }
        #expect(try storedRows(url) == storedRows(appCopy))
        #expect(try appHistory(url, after: before) == appHistory(appCopy, after: before))

        let refusals: [(StoreEditor.Change, String)] = [
            (.append(entity: "EditBudget", key: travel, relationship: "tags", row: blue),
             "tags of EditBudget 'Travel' already includes EditTag \(blue); nothing was written"),
            (.remove(entity: "EditBudget", key: food, relationship: "tags", row: red),
             "tags of EditBudget 'Food' does not include EditTag \(red); nothing was written"),
            (.append(entity: "EditBudget", key: food, relationship: "account", row: 1),
             "EditBudget.account is a to-one relationship: set it to a row's key; nothing was written"),
        ]
        for (change, message) in refusals {
            let thrown = try withEditor(url) { editor in try #require(throws: ToolError.self) { try editor.apply([change]) } }
            #expect(thrown.message == message)
        }

        // An editor opened before another process's save: its append keeps what that save did.
        let editor = StoreEditor(try StoreReader(path: url.path, writable: true))
        try appEdit(url) { context in
            let budgets = try modelsByName(context, \EditBudget.name)
            budgets["Travel"]!.tags.removeAll { $0.name == "red" }
        }
        _ = try editor.apply([.append(entity: "EditBudget", key: travel, relationship: "tags", row: red)])
        let context = ModelContext(try ModelContainer(for: Schema(editModels.reversed()), configurations: ModelConfiguration(url: url)))
        #expect(try modelsByName(context, \EditBudget.name)["Travel"]?.tags.map(\.name) == ["blue", "red"])
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
