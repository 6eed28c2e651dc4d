import Foundation
import Stowage

// Models shared by the tests of this target.

/// The seed's budget, with its expenses (a relationship: `Expense` is reachable from `Budget`).
@Model
final class Budget {
    var name: String
    var limit: Double
    @Relationship(deleteRule: .cascade, inverse: \Expense.budget)
    var expenses: [Expense] = []

    init(name: String, limit: Double) {
        self.name = name
        self.limit = limit
    }
}

@Model
final class Expense {
    var title: String
    var amount: Double
    var budget: Budget?

    init(title: String, amount: Double) {
        self.title = title
        self.amount = amount
    }
}

/// A plain model for context and container tests. `order` is an SQL keyword on purpose.
@Model
final class Item {
    var name: String
    var value: Int
    var order: Int = 0
    var note: String?
    var tags: [String] = []

    init(name: String, value: Int, note: String? = nil) {
        self.name = name
        self.value = value
        self.note = note
    }
}

/// A model that no container of the tests lists.
@Model
final class Stranger {
    var name: String
    init(name: String) { self.name = name }
}

enum Mood: String, Codable, CaseIterable {
    case happy, sad
    case quoted = "it's quoted"
}

enum Priority: Int, Codable {
    case low = 1
    case high = 10
    case extreme = -7
}

struct Address: Codable, Hashable {
    var street: String
    var zip: Int
    var unit: String?
}

enum Shape: Codable, Hashable {
    case circle(radius: Double)
    case rectangle(width: Double, height: Double)
    case labelled(String, Address)
    case empty
}

/// Every supported attribute type, and optionals of each.
@Model
final class Everything {
    var bool: Bool = false
    var int: Int = 0
    var int8: Int8 = 0
    var int16: Int16 = 0
    var int32: Int32 = 0
    var int64: Int64 = 0
    var uint: UInt = 0
    var uint8: UInt8 = 0
    var uint16: UInt16 = 0
    var uint32: UInt32 = 0
    var uint64: UInt64 = 0
    var double: Double = 0
    var float: Float = 0
    var decimal: Decimal = 0
    var string: String = ""
    var date: Date = Date(timeIntervalSinceReferenceDate: 0)
    var uuid: UUID = UUID()
    var url: URL = URL(string: "https://example.com")!
    var data: Data = Data()
    var mood: Mood = .happy
    var priority: Priority = .low
    var address: Address = Address(street: "", zip: 0)
    var shape: Shape = .empty
    var strings: [String] = []
    var addresses: [Address] = []
    var counts: [String: Int] = [:]
    var shapesByName: [String: Shape] = [:]

    var optionalBool: Bool?
    var optionalInt: Int?
    var optionalInt8: Int8?
    var optionalInt16: Int16?
    var optionalInt32: Int32?
    var optionalInt64: Int64?
    var optionalUInt: UInt?
    var optionalUInt8: UInt8?
    var optionalUInt16: UInt16?
    var optionalUInt32: UInt32?
    var optionalUInt64: UInt64?
    var optionalDouble: Double?
    var optionalFloat: Float?
    var optionalDecimal: Decimal?
    var optionalString: String?
    var optionalDate: Date?
    var optionalUUID: UUID?
    var optionalURL: URL?
    var optionalData: Data?
    var optionalMood: Mood?
    var optionalPriority: Priority?
    var optionalAddress: Address?
    var optionalShape: Shape?
    var optionalStrings: [String]?
    var optionalCounts: [String: Int]?

    init() {}
}

/// `@Attribute(.unique)`: inserting a model with a stored code updates that row.
@Model
final class Tag {
    @Attribute(.unique) var code: String
    var label: String
    var uses: Int = 0

    init(code: String, label: String, uses: Int = 0) {
        self.code = code
        self.label = label
        self.uses = uses
    }
}

/// `#Unique` over two properties.
@Model
final class Person {
    #Unique<Person>([\.firstName, \.lastName])
    var firstName: String
    var lastName: String
    var age: Int

    init(firstName: String, lastName: String, age: Int) {
        self.firstName = firstName
        self.lastName = lastName
        self.age = age
    }
}

/// A large-result row.
@Model
final class Row {
    var index: Int
    var label: String

    init(index: Int, label: String) {
        self.index = index
        self.label = label
    }
}

/// `.externalStorage` attributes live in a side table, loaded on first access.
@Model
final class Photo {
    var caption: String
    @Attribute(.externalStorage) var original: Data
    @Attribute(.externalStorage) var thumbnail: Data = Data()

    init(caption: String, original: Data) {
        self.caption = caption
        self.original = original
    }
}
