import ReliabilityKit
import Testing

@Suite("Crash mid-save")
struct CrashMidSaveTests {
    @Test func aProcessKilledWhileSavingLeavesEveryAcknowledgedSaveAndNoPartOfAnother() async throws {
        let report = try await runQuick("crash-mid-save")
        #expect(report[figure: "stores opened"] == "20/20")
        #expect(report[figure: "integrity_check ok"] == "20/20")
        #expect(report.integer("acknowledged saves lost") == 0)
        #expect(report.integer("partial saves") == 0)
        #expect((report.integer("acknowledged saves") ?? 0) >= 20, "every round acknowledged at least one save")
    }
}
