import ReliabilityKit
import Testing

@Suite("Soak")
struct SoakTests {
    /// The quick run is too short for a memory figure that means anything (the full run checks it): it
    /// checks that mixed work from several threads loses no row and that the observer ends in step.
    @Test func mixedWorkFromSeveralThreadsKeepsExactCountsAndTheObserverInStep() async throws {
        let report = try await runQuick("soak")
        #expect(report.integer("errors") == 0)
        #expect((report.integer("saves") ?? 0) > 0)
        #expect((report.integer("reads") ?? 0) > 0)
        #expect((report.integer("observer updates") ?? 0) > 0)
        #expect(report.failures.isEmpty, "rows and the observer match the saves")
    }
}
