import Foundation
import Stowage

struct Address: Codable, Hashable {
    var street: String
    var city: String
}

enum Priority: String, Codable {
    case low, normal, high
}

@Model final class Wallet {
    @Attribute(.unique) var handle: String
    var name: String
    var balance: Decimal
    var visits: Int
    var rating: Double
    var isActive: Bool
    var opened: Date
    var token: UUID
    var avatar: Data
    var address: Address
    var priority: Priority
    var nickname: String?
    var closed: Date?
    @Relationship(deleteRule: .cascade, inverse: \Payment.wallet) var payments: [Payment] = []
    @Relationship(inverse: \Badge.wallets) var badges: [Badge] = []

    init(handle: String, name: String, balance: Decimal = 0, visits: Int = 0, rating: Double = 0, isActive: Bool = true,
         opened: Date = Date(timeIntervalSinceReferenceDate: 800_000_000.123456789), token: UUID = UUID(), avatar: Data = Data([1, 2, 3]),
         address: Address = Address(street: "1 Rue", city: "Lyon"), priority: Priority = .normal) {
        self.handle = handle
        self.name = name
        self.balance = balance
        self.visits = visits
        self.rating = rating
        self.isActive = isActive
        self.opened = opened
        self.token = token
        self.avatar = avatar
        self.address = address
        self.priority = priority
    }
}

@Model final class Payment {
    var memo: String
    var amount: Int
    var wallet: Wallet?
    init(memo: String, amount: Int) {
        self.memo = memo
        self.amount = amount
    }
}

@Model final class Badge {
    var title: String
    var wallets: [Wallet] = []
    init(title: String) { self.title = title }
}

var allModels: [any PersistentModel.Type] { [Wallet.self, Payment.self, Badge.self] }

/// A model unrelated to the others.
@Model final class Memo {
    var text: String
    init(text: String) { self.text = text }
}

/// A class hierarchy, with external storage.
@Model class Document {
    var title: String
    @Attribute(.externalStorage) var body: Data
    init(title: String, body: Data) {
        self.title = title
        self.body = body
    }
}

@Model class Invoice: Document {
    var total: Decimal
    init(title: String, body: Data, total: Decimal) {
        self.total = total
        super.init(title: title, body: body)
    }
}

@ModelActor actor WalletImporter {
    func importWallets(_ handles: [String]) throws -> Int {
        for handle in handles { modelContext.insert(Wallet(handle: handle, name: handle.capitalized)) }
        try modelContext.save()
        return try modelContext.fetchCount(FetchDescriptor<Wallet>())
    }
}
