import Foundation
import ReliabilityKit
import Testing

/// Runs a scenario of the suite at its quick size and returns its report, recording each failed
/// invariant as an issue.
func runQuick(_ name: String, rounds: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Report {
    let scenario = try #require(Suite.scenario(name), "no scenario \(name)", sourceLocation: sourceLocation)
    let report = try await scenario.run(quick: true, rounds: rounds)
    for failure in report.failures { Issue.record("\(name): \(failure)", sourceLocation: sourceLocation) }
    return report
}
