import Foundation
import Stowage
import StowageQueries
import Testing

/// SwiftData's `DataStore` protocol (from Stowage) and the queries layer's `QueryStore` are both usable
/// by their plain names in a file that imports both modules.
private func notesCount<Store: DataStore>(in store: Store) throws -> Int {
    try store.fetchCount(try notesRequest(store))
}

private func notesRequest<Store: DataStore>(_ store: Store) throws -> DataStoreFetchRequest<Note> {
    // Requests come from contexts; a fetch through a context reaches the store with one.
    throw DataStoreError.unsupportedFeature
}

@Suite("DataStore and QueryStore side by side")
struct DataStoreNamesTests {
    @Test func bothNamesResolveWithoutModuleQualifiers() throws {
        let queryStore: QueryStore = try makeStore([("a", 1), ("b", 2)])
        #expect(try queryStore.count(NoteFilter.all) == 2)
        let store = try DefaultStore(ModelConfiguration(schema: Schema([Note.self]), isStoredInMemoryOnly: true))
        #expect(!store.identifier.isEmpty)
        #expect(throws: DataStoreError.unsupportedFeature) { try notesCount(in: store) }
    }
}
