import Foundation
import Stowage

@Model
final class Budget {
    var name: String
    var limit: Double
    @Relationship(deleteRule: .cascade)
    var transactions: [Transaction] = []

    init(name: String, limit: Double) {
        self.name = name
        self.limit = limit
    }

    func addTransaction(_ transaction: Transaction) { transactions.append(transaction) }
    var total: Double { transactions.reduce(0) { $0 + $1.amount } }
}

@Model
final class Transaction {
    var note: String
    var amount: Double
    var date: Date
    var hasReceipt: Bool = false
    @Relationship(inverse: \Budget.transactions)
    var budget: Budget?

    init(note: String, amount: Double, date: Date = Date(timeIntervalSinceReferenceDate: 0), hasReceipt: Bool = false) {
        self.note = note
        self.amount = amount
        self.date = date
        self.hasReceipt = hasReceipt
    }
}

@Model
final class Recipe {
    var name: String
    @Relationship var ingredients: [Ingredient] = []
    init(name: String) { self.name = name }
}

@Model
final class Ingredient {
    var name: String
    @Relationship(inverse: \Recipe.ingredients) var recipes: [Recipe] = []
    init(name: String) { self.name = name }
}

@Model
final class Owner {
    var name: String
    @Relationship(deleteRule: .deny) var pets: [Pet] = []
    init(name: String) { self.name = name }
}

@Model
final class Pet {
    var name: String
    var owner: Owner?
    init(name: String) { self.name = name }
}

/// A three-level cascade with a cycle back to the root (Folder → Folder children, Folder → Document).
@Model
final class Folder {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Folder.parent) var children: [Folder] = []
    var parent: Folder?
    @Relationship(deleteRule: .cascade) var documents: [Document] = []
    init(name: String) { self.name = name }
}

@Model
final class Document {
    var title: String
    var folder: Folder?
    init(title: String) { self.title = title }
}

@Model
final class Team {
    var name: String
    @Relationship(minimumModelCount: 1, maximumModelCount: 2) var members: [Member] = []
    init(name: String) { self.name = name }
}

@Model
final class Member {
    var name: String
    var team: Team?
    init(name: String) { self.name = name }
}

func memoryContainer(_ types: any PersistentModel.Type...) throws -> ModelContainer {
    try ModelContainer(for: Schema(types), configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
}

func temporaryStoreURL(_ name: String = "test") -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stowage-rel-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent("\(name).store")
}

/// A to-many with `.noAction`: deleting the shelf leaves the in-memory references alone (the store
/// still clears the foreign key, so nothing dangles there).
@Model
final class Shelf {
    var label: String
    @Relationship(deleteRule: .noAction, inverse: \Book.shelf) var books: [Book] = []
    init(label: String) { self.label = label }
}

@Model
final class Book {
    var title: String
    var shelf: Shelf?
    init(title: String) { self.title = title }
}
