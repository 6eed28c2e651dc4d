#if !canImport(Darwin)
// `import SwiftData` through Stowage's SwiftData module, with SwiftData's qualified spellings. (On Apple
// platforms this target is Apple's SwiftData's, and is not compiled: see Package.swift.)
import Foundation
import SwiftData
import Testing

@Model
final class Note {
    var title: String
    var createdAt: Date

    init(title: String, createdAt: Date = .now) {
        self.title = title
        self.createdAt = createdAt
    }
}

@Suite("import SwiftData")
struct ImportSwiftDataTests {
    @Test func qualifiedNamesAndMacrosCompileAndRun() throws {
        let schema = SwiftData.Schema([Note.self])
        let configuration = SwiftData.ModelConfiguration(schema: schema, isStoredInMemoryOnly: true)
        let container: SwiftData.ModelContainer = try SwiftData.ModelContainer(for: schema, configurations: [configuration])
        let context = SwiftData.ModelContext(container)
        context.insert(Note(title: "groceries"))
        context.insert(Note(title: "Garden"))
        context.insert(Note(title: "taxes"))
        try context.save()

        let descriptor = SwiftData.FetchDescriptor<Note>(
            predicate: #Predicate { $0.title.localizedStandardContains("g") },
            sortBy: [SortDescriptor(\.title, comparator: .localizedStandard)])
        #expect(try context.fetch(descriptor).map(\.title) == ["Garden", "groceries"])
        #expect(schema.entities.map(\.name) == ["Note"])
        let note: any SwiftData.PersistentModel = try #require(try context.fetch(FetchDescriptor<Note>()).first)
        #expect(note.persistentModelID.entityName == "Note")
    }

    /// A store written through `import SwiftData` reopens in a new container.
    @Test func savesAndReopens() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("import-swiftdata-\(UUID().uuidString).store")
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            let container = try ModelContainer(for: Note.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(Note(title: "kept"))
            try context.save()
        }
        let container = try ModelContainer(for: Note.self, configurations: ModelConfiguration(url: url))
        #expect(try ModelContext(container).fetch(FetchDescriptor<Note>()).map(\.title) == ["kept"])
    }
}
#endif
