import ExampleTestSupport
import Foundation
import GRDB
import Stowage
import StowageTools
import Testing

// The models and helpers of StoreEditorTests: models with every delete rule, a unique attribute, an
// enumeration, preserved values, external storage, an ordered to-many, a many-to-many, one-to-one links,
// a count limit and a class hierarchy (what the editor must handle as the app does), and the means to
// compare a store the editor changed with a copy the app changed the same way.

enum EditKind: String, Codable, CaseIterable {
    case monthly, yearly
    case once = "one-off"
}

@Model final class EditAccount {
    var name: String
    @Relationship(deleteRule: .deny, inverse: \EditBudget.account) var budgets: [EditBudget] = []
    init(name: String) { self.name = name }
}

@Model final class EditBudget {
    @Attribute(.unique) var name: String
    var limit: Double
    var kind: EditKind
    @Attribute(.preserveValueOnDeletion) var code: String?
    @Attribute(.externalStorage) var attachment: Data?
    var account: EditAccount?
    @Relationship(deleteRule: .cascade, inverse: \EditEntry.budget) var entries: [EditEntry] = []
    @Relationship(deleteRule: .nullify, inverse: \EditNote.budget) var notes: [EditNote] = []
    @Relationship(inverse: \EditTag.budgets) var tags: [EditTag] = []
    init(name: String, limit: Double, kind: EditKind = .monthly, code: String? = nil) {
        self.name = name
        self.limit = limit
        self.kind = kind
        self.code = code
    }
}

@Model final class EditEntry {
    @Attribute(.preserveValueOnDeletion) var title: String
    var amount: Double
    var budget: EditBudget?
    @Relationship(deleteRule: .cascade, inverse: \EditReceipt.entry) var receipts: [EditReceipt] = []
    init(title: String, amount: Double) {
        self.title = title
        self.amount = amount
    }
}

@Model final class EditReceipt {
    var scan: String
    var entry: EditEntry?
    init(scan: String) { self.scan = scan }
}

@Model final class EditNote {
    var text: String
    var budget: EditBudget?
    init(text: String) { self.text = text }
}

@Model final class EditTag {
    var name: String
    var budgets: [EditBudget] = []
    init(name: String) { self.name = name }
}

@Model class EditTrip {
    var name: String
    @Attribute(.externalStorage) var photo: Data?
    @Relationship(deleteRule: .cascade, inverse: \EditStop.trip) var stops: [EditStop] = []
    init(name: String) { self.name = name }
}

@Model final class EditBusinessTrip: EditTrip {
    var client: String
    init(name: String, client: String) {
        self.client = client
        super.init(name: name)
    }
}

@Model final class EditStop {
    var place: String
    var trip: EditTrip?
    init(place: String) { self.place = place }
}

/// One-to-one: a passport's owner is stored on the passport (its side's name sorts first), the person's
/// passport is its inverse.
@Model final class EditPerson {
    var name: String
    @Relationship(inverse: \EditPassport.owner) var passport: EditPassport?
    init(name: String) { self.name = name }
}

@Model final class EditPassport {
    var number: String
    var owner: EditPerson?
    init(number: String) { self.number = number }
}

/// A to-many relationship with a maximum count.
@Model final class EditShelf {
    var name: String
    @Relationship(maximumModelCount: 2, inverse: \EditBook.shelf) var books: [EditBook] = []
    init(name: String) { self.name = name }
}

@Model final class EditBook {
    var title: String
    var shelf: EditShelf?
    init(title: String) { self.title = title }
}

/// Two to-many relationships sharing one to-one inverse (Backyard Birds' leading and trailing plants),
/// in a store of their own: links the editor refuses to set.
@Model final class EditYard {
    var name: String
    @Relationship(inverse: \EditPlant.yard) var leadingPlants: [EditPlant] = []
    @Relationship(inverse: \EditPlant.yard) var trailingPlants: [EditPlant] = []
    init(name: String) { self.name = name }
}

@Model final class EditPlant {
    var name: String
    var yard: EditYard?
    init(name: String) { self.name = name }
}

/// A to-many relationship without an inverse (its links in a join table of its own), in a store of
/// its own.
@Model final class EditPlaylist {
    var name: String
    var songs: [EditSong] = []
    init(name: String) { self.name = name }
}

@Model final class EditSong {
    var title: String
    init(title: String) { self.title = title }
}

nonisolated(unsafe) let editModels: [any PersistentModel.Type] = [
    EditAccount.self, EditBudget.self, EditEntry.self, EditReceipt.self, EditNote.self, EditTag.self, EditTrip.self, EditBusinessTrip.self,
    EditStop.self, EditPerson.self, EditPassport.self, EditShelf.self, EditBook.self,
]

/// The composed and decomposed spellings of one name: equal `String`s in Swift.
let composedCafe = "Caf\u{E9}"
let decomposedCafe = "Cafe\u{301}"

/// Budgets with entries (with receipts), notes and tags, two accounts, and trips of two classes; closed,
/// so that the store is one file.
@MainActor
func makeEditStore(_ directory: TemporaryDirectory) throws -> URL {
    try makeEditStore(at: directory.url.appendingPathComponent("edit.store"))
}

/// The store of ``makeEditStore(_:)`` at `url`.
@MainActor
func makeEditStore(at url: URL) throws -> URL {
    let context = ModelContext(try ModelContainer(for: Schema(editModels), configurations: ModelConfiguration(url: url)))
    let main = EditAccount(name: "Main")
    let spare = EditAccount(name: "Spare")
    let red = EditTag(name: "red")
    let blue = EditTag(name: "blue")
    for model in [main, spare, red, blue] as [any PersistentModel] { context.insert(model) }
    let food = EditBudget(name: "Food", limit: 300, code: "F-1")
    food.attachment = Data([1, 2, 3])
    let travel = EditBudget(name: "Travel", limit: 900, kind: .yearly, code: "T-2")
    let cafe = EditBudget(name: composedCafe, limit: 40, kind: .once)
    for budget in [food, travel, cafe] { context.insert(budget) }
    food.account = main
    travel.account = main
    food.entries = (1...3).map { EditEntry(title: "Food \($0)", amount: Double($0) * 10) }
    for (index, entry) in food.entries.enumerated() { entry.receipts = (0...index % 2).map { EditReceipt(scan: "\(entry.title) scan \($0)") } }
    travel.entries = [EditEntry(title: "Train", amount: 80), EditEntry(title: "Hotel", amount: 200)]
    food.notes = [EditNote(text: "cheaper in winter"), EditNote(text: "market on Saturdays")]
    travel.notes = [EditNote(text: "book early")]
    food.tags = [red, blue]
    travel.tags = [red]
    let weekend = EditTrip(name: "Weekend")
    let pitch = EditBusinessTrip(name: "Pitch", client: "Acme")
    pitch.photo = Data([9, 8, 7])
    context.insert(weekend)
    context.insert(pitch)
    for (name, number) in [("Ann", "P-1"), ("Bob", "P-2"), ("Cy", nil)] {
        let person = EditPerson(name: name)
        context.insert(person)
        if let number { person.passport = EditPassport(number: number) }
    }
    context.insert(EditPassport(number: "P-3"))
    let (top, bottom) = (EditShelf(name: "Top"), EditShelf(name: "Bottom"))
    context.insert(top)
    context.insert(bottom)
    top.books = [EditBook(title: "Dune"), EditBook(title: "Emma")]
    bottom.books = [EditBook(title: "Ulysses")]
    weekend.stops = [EditStop(place: "Lake"), EditStop(place: "Hill")]
    pitch.stops = [EditStop(place: "Office"), EditStop(place: "Airport"), EditStop(place: "Hotel")]
    try context.save()
    return url
}

/// A copy of a closed store, for the app to make the same change the editor makes.
func copyStore(_ url: URL, as name: String) throws -> URL {
    #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"), "the store is closed: one file")
    let copy = url.deletingLastPathComponent().appendingPathComponent(name)
    try FileManager.default.copyItem(at: url, to: copy)
    return copy
}

/// The key of the row of `table` whose `column` is `value`.
func rowKey(_ url: URL, _ table: String, _ value: String, column: String = "name") throws -> Int64 {
    try #require(try StoreReader(path: url.path).read { db in
        try Int64.fetchOne(db, sql: "SELECT _pk FROM \"\(table)\" WHERE \"\(column)\" = ?", arguments: [value])
    })
}

/// Every row of every table but Stowage's own (metadata, history), as text, sorted: what "the same
/// rows remain" compares, link columns, positions, join and side tables included.
func storedRows(_ url: URL) throws -> [String: [String]] {
    try StoreReader(path: url.path).read { db in
        let tables = try String.fetchAll(
            db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '\\_stowage%' ESCAPE '\\'")
        var rows: [String: [String]] = [:]
        for table in tables {
            rows[table] = try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\"").map { row in
                row.columnNames.map { "\($0)=\(row[$0] as DatabaseValue)" }.joined(separator: " ")
            }.sorted()
        }
        return rows
    }
}

/// The number of the store's newest history transaction.
func newestTransaction(_ url: URL) throws -> Int64 {
    try StoreReader(path: url.path).read { db in try Int64.fetchOne(db, sql: "SELECT max(id) FROM _stowage_history") ?? 0 }
}

/// The history after transaction `after`, as the app reads it (`fetchHistory`): one line per change,
/// each transaction's author first.
@MainActor
func appHistory(_ url: URL, after: Int64, models: [any PersistentModel.Type] = editModels.reversed()) throws -> [[String]] {
    let context = ModelContext(try ModelContainer(for: Schema(models), configurations: ModelConfiguration(url: url)))
    return try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        .filter { $0.transactionIdentifier > after }
        .map { transaction in ["author: \(transaction.author ?? "none")"] + transaction.changes.map(describe) }
}

@MainActor private func describe(_ change: HistoryChange) -> String {
    switch change {
    case .insert(let insert): "insert \(insert.changedPersistentIdentifier)"
    case .update(let update): "update \(update.changedPersistentIdentifier) \(updated(update))"
    case .delete(let delete): "delete \(delete.changedPersistentIdentifier) \(tombstone(delete))"
    }
}

@MainActor private func updated<U: HistoryUpdate>(_ update: U) -> String {
    update.updatedAttributes.map { propertyNames[$0 as AnyKeyPath] ?? "\($0)" }.joined(separator: ",")
}

@MainActor private func tombstone<D: HistoryDelete>(_ delete: D) -> String {
    delete.tombstone.map { element in
        guard let (keyPath, value) = element as? (keyPath: PartialKeyPath<D.Model>, value: any Sendable) else { return "\(element)" }
        return "\(propertyNames[keyPath] ?? "\(keyPath)")=\(value)"
    }.joined(separator: ",")
}

/// The names of the test models' properties by key path (on Linux a key path does not print its name).
@MainActor private let propertyNames: [AnyKeyPath: String] = [
    \EditAccount.name: "EditAccount.name", \EditAccount.budgets: "EditAccount.budgets",
    \EditBudget.name: "EditBudget.name", \EditBudget.limit: "EditBudget.limit", \EditBudget.kind: "EditBudget.kind",
    \EditBudget.code: "EditBudget.code", \EditBudget.attachment: "EditBudget.attachment", \EditBudget.account: "EditBudget.account",
    \EditBudget.entries: "EditBudget.entries", \EditBudget.notes: "EditBudget.notes", \EditBudget.tags: "EditBudget.tags",
    \EditEntry.title: "EditEntry.title", \EditEntry.amount: "EditEntry.amount", \EditEntry.budget: "EditEntry.budget",
    \EditEntry.receipts: "EditEntry.receipts", \EditReceipt.scan: "EditReceipt.scan", \EditReceipt.entry: "EditReceipt.entry",
    \EditNote.text: "EditNote.text", \EditNote.budget: "EditNote.budget", \EditTag.name: "EditTag.name", \EditTag.budgets: "EditTag.budgets",
    \EditTrip.name: "EditTrip.name", \EditTrip.photo: "EditTrip.photo", \EditTrip.stops: "EditTrip.stops",
    \EditBusinessTrip.client: "EditBusinessTrip.client", \EditBusinessTrip.name: "EditBusinessTrip.name", \EditBusinessTrip.photo: "EditBusinessTrip.photo",
    \EditBusinessTrip.stops: "EditBusinessTrip.stops", \EditStop.place: "EditStop.place", \EditStop.trip: "EditStop.trip",
    \EditShelf.name: "EditShelf.name", \EditShelf.books: "EditShelf.books", \EditBook.title: "EditBook.title", \EditBook.shelf: "EditBook.shelf",
]

/// Makes a change through the app on the store at `url` and saves it, as the editor's author: what the
/// editor's edit is compared with.
@MainActor
func appEdit(_ url: URL, models: [any PersistentModel.Type] = editModels, _ change: (ModelContext) throws -> Void) throws {
    let context = ModelContext(try ModelContainer(for: Schema(models), configurations: ModelConfiguration(url: url)))
    context.author = "stowage-studio"
    try change(context)
    try context.save()
}

/// The models of type `T` of the context by the value of `name` (a property naming them), loaded.
@MainActor
func modelsByName<T: PersistentModel>(_ context: ModelContext, _ name: KeyPath<T, String>) throws -> [String: T] {
    Dictionary(try context.fetch(FetchDescriptor<T>()).map { ($0[keyPath: name], $0) }, uniquingKeysWith: { first, _ in first })
}

/// The bytes of a file: what "nothing was written" compares.
func fileBytes(_ url: URL) throws -> Data {
    try Data(contentsOf: url)
}

/// Runs `body` with an editor of the store, closed when it returns (the store is then one file again).
func withEditor<T>(_ url: URL, _ body: (StoreEditor) throws -> T) throws -> T {
    try body(StoreEditor(try StoreReader(path: url.path, writable: true)))
}

/// `@Relationship(.unique)`: a badge (join table) and a locker (foreign key) belong to one member at most.
@Model final class EditMember {
    var name: String
    @Relationship(.unique) var badges: [EditBadge] = []
    @Relationship(.unique) var locker: EditLocker?
    init(name: String) { self.name = name }
}

@Model final class EditBadge {
    var title: String
    init(title: String) { self.title = title }
}

@Model final class EditLocker {
    var label: String
    init(label: String) { self.label = label }
}

nonisolated(unsafe) let memberModels: [any PersistentModel.Type] = [EditMember.self, EditBadge.self, EditLocker.self]
