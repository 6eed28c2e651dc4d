import ReliabilityKit
import Testing

@Suite("I/O errors")
struct IOFaultTests {
    /// Every 3rd failure point of a save, a close and a migration (WAL and rollback journal), once and
    /// persistently: each operation succeeds or throws a typed error, the store stays intact and holds
    /// all the old or all the new contents.
    @Test func everyFailurePointEndsInSuccessOrATypedErrorWithIntactAllOrNothingContents() async throws {
        let report = try await runQuick("io-errors")
        let points = try #require(report.integer("failure points"))
        #expect(points >= 100)
        #expect(report.integer("faults injected") == points)
        for phase in ["save", "close", "migration-wal", "migration-journal"] {
            for mode in ["once", "persistent"] {
                #expect(report.integer("\(phase), \(mode): failure points") ?? 0 > 0, "\(phase), \(mode)")
            }
        }
        // The saves hit by a fault throw StowageError.ioError; none throws anything else untyped.
        #expect(report.integer("saves that threw") ?? 0 > 0)
        #expect(report.integer("ioError") ?? 0 > 0)
        #expect(report.integer("untyped errors") == 0)
        #expect(report.integer("crashes") == 0)
        #expect(report.integer("hangs") == 0)
        // Afterwards: intact, all-old or all-new, nothing acknowledged lost, a transient fault retried.
        #expect(report.integer("integrity failures") == 0)
        #expect(report.integer("partial states") == 0)
        #expect(report.integer("succeeded but lost") == 0)
        #expect(report.integer("saves that threw yet were committed") == 0)
        // Releasing the container (its contexts dropped with unsaved changes) closes the store.
        #expect(report.integer("stores left open once released (after a transient fault)") == 0)
        #expect(report.integer("retries that failed") == 0)
        #expect(report[figure: "retries after a transient fault"]?.hasPrefix("ok × ") == true)
        // The migration wrote through a rollback journal; the checkpoint at close truncated the file.
        #expect(report.integer("rollback-journal operations of the migration-journal") ?? 0 > 0)
        #expect(report.integer("rollback-journal operations of the migration-wal") == 0)
        #expect(report[figure: "first failed operation"]?.contains("truncate@db") == true)
    }
}
