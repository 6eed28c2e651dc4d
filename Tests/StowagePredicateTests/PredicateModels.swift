import Foundation
import Stowage

// The model the predicate tests run on, in a file of its own so that the predicate fuzzer
// (Reliability/Fuzz/Sources/fuzz-predicates) compiles the same one through a symlink.

/// A status stored as its raw value.
enum Status: String, Codable, CaseIterable {
    case draft, active, archived
}

/// The model predicates are tested on: one attribute of each kind a predicate compares.
@Model
final class Item {
    var number: Int
    var count: Int
    var price: Double
    var name: String
    var note: String?
    var rank: Int?
    var flag: Bool
    var date: Date
    var status: Status
    var previous: Status?
    var token: UUID

    init(
        number: Int, count: Int = 0, price: Double = 0, name: String = "", note: String? = nil, rank: Int? = nil,
        flag: Bool = false, date: Date = Date(timeIntervalSinceReferenceDate: 0), status: Status = .draft,
        previous: Status? = nil, token: UUID = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
    ) {
        self.number = number
        self.count = count
        self.price = price
        self.name = name
        self.note = note
        self.rank = rank
        self.flag = flag
        self.date = date
        self.status = status
        self.previous = previous
        self.token = token
    }
}
