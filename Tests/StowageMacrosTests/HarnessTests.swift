import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// The assertion helper itself must fail on a wrong expansion or a missing diagnostic, or none of the
/// snapshot tests could fail.
@Suite struct HarnessTests {
    @Test func aWrongSnapshotIsRecordedAsAnIssue() {
        withKnownIssue {
            assertExpansion(
                "#Index<Person>([\\.last])",
                expandedSource: "#Index<Person>([\\.last])")
        }
    }

    @Test func anUnexpectedDiagnosticIsRecordedAsAnIssue() {
        withKnownIssue {
            assertExpansion(
                "@Model struct Point {}",
                expandedSource: "struct Point {}")
        }
    }
}
