import Foundation
import Stowage

// The models of the PostgreSQL kill test: each save of `stowage-reopen-probe postgres-writer` inserts a
// `Mark` and adds one to the `Tally`, so that a save kept in part would show as a count that differs
// from the number of marks.

@Model
public final class Tally {
    @Attribute(.unique) public var name: String
    public var count: Int

    public init(name: String, count: Int) {
        self.name = name
        self.count = count
    }
}

@Model
public final class Mark {
    public var sequence: Int
    public var process: Int

    public init(sequence: Int, process: Int) {
        self.sequence = sequence
        self.process = process
    }
}
