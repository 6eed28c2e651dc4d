import ReliabilityKit
import Testing

// The concurrency scenarios at their quick sizes. They assert counts and invariants, never timings
// (the latency figures are only checked in full runs of a release build).

@Suite("Concurrency")
struct ConcurrencyTests {
    @Test func eightWritersFourReadersAndTwoObserversLoseNothing() async throws {
        let report = try await runQuick("concurrent-saves")
        #expect(report.integer("rows") == 800)
        #expect(report.integer("rows after reopening") == 800)
        #expect(report.integer("complete rows") == 800)
        #expect(report.integer("busy errors") == 0)
        #expect(report.integer("other save errors") == 0)
        #expect(report.integer("reader count decreases") == 0)
        #expect(report.integer("incomplete rows read") == 0)
        #expect(report.integer("gaps in a writer's rows") == 0)
        #expect(report[figure: "readers' final counts"] == "800, 800, 800, 800")
        #expect(report[figure: "observers' final rows"] == "800, 800")
        #expect(report[figure: "observers converged"] == "2/2")
        #expect((report.integer("reads while writing") ?? 0) > 0, "the readers read while the writers saved")
    }

    @Test func readersNeverSeeHalfATransfer() async throws {
        let report = try await runQuick("snapshot-isolation")
        #expect(report[figure: "transfers"] == "300 of 2 × 150")
        #expect(report.integer("violations") == 0)
        #expect(report.integer("observer violations") == 0)
        #expect(report.integer("final sum") == 20_000)
        #expect(report.integer("accounts off their expected balance") == 0)
        #expect(report.integer("busy errors") == 0)
        #expect((report.integer("reads while transferring") ?? 0) > 0, "the auditors read while the tellers saved")
        #expect((report.integer("observer snapshots") ?? 0) > 1, "the observer published updates")
    }

    @Test func conflictingEditsHaveTheDocumentedResultEveryRound() async throws {
        // Two engine bugs this scenario found are fixed and have regression tests of their own
        // (`ExternalStorageConflictTests`): an external-storage change saved to a deleted row was a
        // constraint violation, and a context with unsaved changes kept stale external values.
        let report = try await runQuick("conflicting-edits")
        #expect(report.integer("rounds") == 160)
        #expect(report.integer("undefined results") == 0)
        #expect(report.integer("unrelated properties lost") == 0)
        #expect(report.integer("never-changed property lost") == 0)
        #expect(report.integer("deleted rows stored again") == 0)
        #expect(report.integer("failed saves that wrote part of their changes") == 0)
        #expect(report.integer("stale views after fetching") == 0)
        #expect(report[figure: "same property: last writer won"] == "40/40")
        #expect(report[figure: "change to a model known deleted: saveConflict"] == "20/20")
        // 20 rounds delete, then change: x, blob and owner in turn (8, 6 and 6 rounds), each a typed conflict.
        #expect(report[figure: "change of x saved to a deleted row"] == "saveConflict 8")
        #expect(report[figure: "change of owner saved to a deleted row"] == "saveConflict 6")
        let blob = report[figure: "change of blob saved to a deleted row"]
        #expect(blob == "saveConflict 6" || blob == "constraintViolation 6", "typed, one code every round")
    }

    @Test func identicalUniqueKeysInsertedAtOnceMakeOneRowEach() async throws {
        let report = try await runQuick("unique-race")
        #expect(report.integer("rows") == 40)
        #expect(report.integer("keys") == 40)
        #expect(report.integer("keys with more than one row") == 0)
        #expect(report.integer("keys missing") == 0)
        #expect(report.integer("rows mixing two inserts") == 0)
        #expect(report.integer("errors") == 0)
        #expect(report.integer("saves") == 320)
        #expect(report.integer("keys whose tasks got different identifiers") == 0)
    }

    @Test func twoProcessesSavingAtOnceLoseNothing() async throws {
        let report = try await runQuick("two-processes")
        #expect(report.integer("saves acknowledged") == 400)
        #expect(report.integer("rows") == 400)
        #expect(report.integer("rows after reopening") == 400)
        #expect(report.integer("busy errors") == 0)
        #expect(report.integer("other save errors") == 0)
        #expect(report.integer("parent count decreases") == 0)
        #expect(report.integer("gaps in a process's rows") == 0)
        #expect(report.integer("incomplete rows read") == 0)
        #expect(report.integer("observer's last count") == 400)
    }

    @Test func fourProcessesSavingBackToBackAllGetTheirTurn() async throws {
        // 4 × 300 saves. No save may give up waiting for the write lock (`.storeBusy`); how long the
        // waits were is a figure of full runs, not checked here.
        let report = try await runQuick("many-writers")
        #expect(report.integer("saves acknowledged") == 1_200)
        #expect(report.integer("rows after reopening") == 1_200)
        #expect(report.integer("updated rows after reopening") == 120)
        #expect(report.integer("busy errors") == 0)
        #expect(report.integer("other save errors") == 0)
    }
}
