import Foundation
import ReopenFixtures
import Stowage
import Testing

@Suite("PostgreSQL: writers killed mid-save", .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct PostgresKillTests {
    /// `stowage-reopen-probe`, built with the tests, beside the test bundle.
    static let writer = executableBesideTests(named: "stowage-reopen-probe")

    /// A writer process saves in a loop (each save a Mark and one more on the Tally) and is killed with
    /// SIGKILL at a random moment, round after round: every save it acknowledged is stored, and no save
    /// is stored in part (the tally counts the marks). `STOWAGE_POSTGRES_KILL_ROUNDS` sets the rounds
    /// (30 here; RELIABILITY.md reports 200).
    @Test func noAcknowledgedSaveLostNoPartialSave() throws {
        let executable = try #require(Self.writer, "stowage-reopen-probe is built with the tests")
        let database = try TestDatabase()
        let rounds = ProcessInfo.processInfo.environment["STOWAGE_POSTGRES_KILL_ROUNDS"].flatMap(Int.init) ?? 30
        var random = SystemRandomNumberGenerator()
        var acknowledged: Set<Int> = []
        for round in 0..<rounds {
            let process = Process()
            process.executableURL = executable
            process.arguments = ["postgres-writer", database.url.absoluteString, String(round * 1_000_000)]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            // Let it acknowledge a few saves, then kill it at a random moment of the next.
            let wanted = Int.random(in: 1...4, using: &random)
            var buffer = Data()
            var lines: [String] = []
            while lines.count < wanted {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                lines = String(decoding: buffer, as: UTF8.self).split(separator: "\n").map(String.init)
            }
            usleep(UInt32.random(in: 0...4_000, using: &random))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            // The server finishes what the killed writer sent (a commit may land now): the next writer
            // starts once that session is gone, or it could read the tally before that commit and
            // write it back one short, which is a lost update of the test's own making, not a partial save.
            let deadline = Date().addingTimeInterval(30)
            while try TestServer.sessions(on: database.name) > 0, Date() < deadline { usleep(10_000) }
            buffer.append(output.fileHandleForReading.readDataToEndOfFile())
            for line in String(decoding: buffer, as: UTF8.self).split(separator: "\n") where line.hasPrefix("ack ") {
                if let sequence = Int(line.dropFirst(4)) { acknowledged.insert(sequence) }
            }
        }
        let context = ModelContext(try ModelContainer(for: Tally.self, Mark.self, configurations: try database.configuration()))
        let marks = try context.fetch(FetchDescriptor<Mark>()).map(\.sequence)
        let tally = try context.fetch(FetchDescriptor<Tally>()).first?.count ?? 0
        #expect(tally == marks.count, "a save was kept in part: the tally says \(tally), there are \(marks.count) marks")
        #expect(acknowledged.isSubset(of: Set(marks)), "acknowledged saves lost: \(acknowledged.subtracting(marks).sorted())")
        print("writer killed \(rounds) times: \(acknowledged.count) saves acknowledged, \(marks.count) stored (\(marks.count - acknowledged.count) committed before the kill but not yet acknowledged)")
    }
}
