import ReliabilityKit
import Testing

@Suite("Permissions")
struct PermissionsTests {
    /// Each case: the store opens, its three notes read, a save throws `.readOnlyStore`, nothing written.
    @Test(arguments: ["read-only-file", "read-only-directory", "read-only-file-allowsSave-false"])
    func aStoreThisProcessCannotWriteReadsAndRefusesSavesWithReadOnlyStore(_ name: String) async throws {
        let report = try await runQuick("permissions")
        #expect(report[figure: name] == "open ok, read 3 notes, save readOnlyStore, after: 3 notes")
    }
}
