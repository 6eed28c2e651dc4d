import Foundation
import MainActorModels
import Stowage
import Testing

/// A model the app declares on the main actor itself.
@MainActor @Model
final class MainActorNote {
    var title: String
    var stars: Int = 0
    var tags: [String] = []

    init(title: String, stars: Int = 0) {
        self.title = title
        self.stars = stars
    }
}

@Suite("Main-actor models")
@MainActor
struct IsolationTests {
    @Test func aMainActorModelSavesFetchesAndReopens() throws {
        try withFileStore([MainActorNote.self]) { url, open in
            do {
                let context = ModelContext(try open())
                context.insert(MainActorNote(title: "b", stars: 2))
                context.insert(MainActorNote(title: "a", stars: 5))
                try context.save()
            }
            let context = ModelContext(try ModelContainer(for: MainActorNote.self, configurations: ModelConfiguration(url: url)))
            let notes = try context.fetch(FetchDescriptor<MainActorNote>())
            #expect(notes.map(\.title).sorted() == ["a", "b"])
            notes[0].stars += 10
            notes[0].tags = ["edited"]
            try context.save()
            let again = try ModelContext(try ModelContainer(for: MainActorNote.self, configurations: ModelConfiguration(url: url)))
                .fetch(FetchDescriptor<MainActorNote>())
            #expect(again.first { $0.title == notes[0].title }?.tags == ["edited"])
            #expect(again.map(\.stars).sorted() == [notes[1].stars, notes[0].stars].sorted())
        }
    }

    @Test func untypedPropertiesOfAModelInAMainActorTarget() throws {
        try withFileStore([Scrapbook.self]) { _, open in
            do {
                let context = ModelContext(try open())
                let scrapbook = Scrapbook()
                scrapbook.count = 4
                scrapbook.tags = ["trip"]
                context.insert(scrapbook)
                try context.save()
            }
            let scrapbooks = try ModelContext(try open()).fetch(FetchDescriptor<Scrapbook>())
            #expect(scrapbooks.map(\.title) == ["blank"])
            #expect(scrapbooks.map(\.count) == [4])
            #expect(scrapbooks.map(\.tags) == [["trip"]])
        }
    }

    @Test func aContainerOfMainActorModelsIsBuiltOffTheMainActor() async throws {
        // The schema (and its key paths) is built on whatever thread creates the container.
        let container = try await Task.detached {
            try ModelContainer(for: Notebook.self, MainActorNote.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        }.value
        container.mainContext.insert(MainActorNote(title: "made off main"))
        try container.mainContext.save()
        #expect(try container.mainContext.fetchCount(FetchDescriptor<MainActorNote>()) == 1)
    }

    @Test func aDefaultMainActorTargetsModelsAndCodeWork() throws {
        try withFileStore([Notebook.self, Page.self, Sticker.self]) { url, open in
            do {
                let container = try open()
                let notebook = try writeNotebook("diary", pageCount: 12, in: container)
                #expect(notebook.pages.count == 12)
                container.mainContext.insert(Sticker(label: "star", size: 3))
                container.mainContext.insert(Sticker(label: "moon", size: 5))
                container.mainContext.insert(Sticker(label: "dot", size: 1))
                try container.mainContext.save()
                #expect(try stickerLabels(largerThan: 2, in: container.mainContext) == ["moon", "star"])
            }
            // Reopened with the models in another order.
            let container = try ModelContainer(for: Sticker.self, Page.self, Notebook.self, configurations: ModelConfiguration(url: url))
            let notebooks = try container.mainContext.fetch(FetchDescriptor<Notebook>())
            #expect(notebooks.map(\.title) == ["diary"])
            #expect(notebooks.first?.pages.map(\.number).sorted() == Array(1...12))
            #expect(notebooks.first?.pages.allSatisfy { $0.margin == "blank" } == true, "a default value computed by main-actor code")
            #expect(try stickerLabels(largerThan: 0, in: container.mainContext) == ["dot", "moon", "star"])
            // The unique title holds: a second "diary" updates the first (an upsert), adding no notebook.
            _ = try writeNotebook("diary", pageCount: 1, in: container)
            #expect(try container.mainContext.fetchCount(FetchDescriptor<Notebook>()) == 1)
            container.mainContext.delete(try container.mainContext.fetch(FetchDescriptor<Notebook>())[0])
            try container.mainContext.save()
            #expect(try container.mainContext.fetchCount(FetchDescriptor<Page>()) == 0, "the cascade ran")
        }
    }

    @Test func mainActorModelsWorkFromAModelActor() async throws {
        let container = try ModelContainer(for: Notebook.self, Page.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let id = try writeNotebook("shared", pageCount: 3, in: container).persistentModelID
        let importer = PageCounter(modelContainer: container)
        #expect(try await importer.pageCount(of: id) == 3)
    }
}

/// A background actor reading main-actor models' identifiers: it works with its own context.
@ModelActor
actor PageCounter {
    func pageCount(of id: PersistentIdentifier) throws -> Int {
        let pages = try modelContext.fetch(FetchDescriptor<Page>())
        return pages.count
    }
}
