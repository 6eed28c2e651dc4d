import Stowage

// Models exercising every macro feature, compiled against the real runtime.

@Model
final class Budget {
    var name: String
    var limit: Double
    @Relationship(deleteRule: .cascade, inverse: \Transaction.budget)
    var transactions: [Transaction] = []

    /// A computed property: not persisted.
    var total: Double { transactions.reduce(0) { $0 + $1.amount } }

    /// A static property: not persisted.
    static var all: FetchDescriptor<Budget> {
        FetchDescriptor(sortBy: [SortDescriptor(\Budget.name, order: .reverse)])
    }

    init(name: String, limit: Double) {
        self.name = name
        self.limit = limit
    }

    func addTransaction(_ transaction: Transaction) {
        transactions.append(transaction)
    }
}

@Model
final class Transaction {
    var note: String
    var amount: Double
    var date: Date
    var hasReceipt: Bool = false
    var budget: Budget?

    init(note: String, amount: Double, date: Date, hasReceipt: Bool = false) {
        self.note = note
        self.amount = amount
        self.date = date
        self.hasReceipt = hasReceipt
    }
}

@Model
final class Photo {
    var id: UUID
    @Attribute(.unique) var slug: String
    @Attribute(.externalStorage, originalName: "x") var image: Data
    var caption: String?
    private(set) var views: Int = 0
    @Transient var isSelected = false

    init(id: UUID = UUID(), slug: String, image: Data, caption: String? = nil) {
        self.id = id
        self.slug = slug
        self.image = image
        self.caption = caption
    }

    func recordView() {
        views += 1
    }
}

@Model
final class Person {
    #Unique<Person>([\.email], [\.first, \.last])
    #Index<Person>([\.last])

    var email: String
    var first: String
    var last: String

    init(email: String, first: String, last: String) {
        self.email = email
        self.first = first
        self.last = last
    }
}

/// The migration seed's versioned schema: a model nested in an enum.
enum SpendTrackerSchemaV1 {
    @Model
    final class Budget {
        var name: String
        var limit: Double

        @Relationship(.cascade)
        var transactions: [Transaction] = []

        init(name: String, limit: Double) {
            self.name = name
            self.limit = limit
        }
    }
}
