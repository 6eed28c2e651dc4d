import ReliabilityKit
import Testing

@Suite("Disk full")
struct DiskFullTests {
    @Test func aSaveOnAFullDiskThrowsDiskFullWritesNothingAndSucceedsOnceSpaceIsFreed() async throws {
        let report = try await runQuick("disk-full")
        #expect(report[figure: "error when full"] == "diskFull")
        let saved = try #require(report.integer("notes saved before the disk was full"))
        #expect(saved > 0)
        #expect(report.integer("notes in the store after the failed save") == saved)
        #expect(report[figure: "the same save after freeing space"] == "ok")
        #expect(report.integer("notes after reopening") == saved + 10)
        #expect(report[figure: "integrity_check"] == "ok")
    }
}
