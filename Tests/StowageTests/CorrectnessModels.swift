import Foundation
import Stowage

// Models of the correctness regression tests (issue 11).

/// Ephemeral attributes: tracked in memory, never stored.
@Model
final class Sketch {
    var title: String
    @Attribute(.ephemeral) var isSelected: Bool = false
    @Attribute(.ephemeral) var zoom: Double = 1.5
    @Attribute(.ephemeral) var draft: String?

    init(title: String) { self.title = title }
}

/// `.unique` on an ephemeral attribute: refused.
@Model
final class UniqueEphemeral {
    var name: String
    @Attribute(.unique, .ephemeral) var key: String = ""
    init(name: String) { self.name = name }
}

/// `#Index` over an ephemeral attribute: refused.
@Model
final class IndexedEphemeral {
    #Index<IndexedEphemeral>([\.name, \.cache])
    var name: String
    @Attribute(.ephemeral) var cache: Int = 0
    init(name: String) { self.name = name }
}

/// A non-optional ephemeral attribute without an initial value: refused (a fetched model has none).
@Model
final class EphemeralWithoutValue {
    var name: String
    @Attribute(.ephemeral) var scratch: Int
    init(name: String, scratch: Int) {
        self.name = name
        self.scratch = scratch
    }
}

/// `#Index` over a string: its lookups and ranges use the index.
@Model
final class Contact {
    #Index<Contact>([\.city])
    @Attribute(.unique) var email: String
    var city: String
    var visits: Int = 0

    init(email: String, city: String, visits: Int = 0) {
        self.email = email
        self.city = city
        self.visits = visits
    }
}
