import Foundation
import GRDB
import Stowage
@testable import StowageCore
import Testing

/// `#Index` with index kinds (SwiftData, iOS 18): `.binary` indexes are SQLite indexes.
@Model final class Journey {
    #Index<Journey>(.binary([\.name, \.startDate]), .binary([\.endDate]))
    var name: String
    var startDate: Date
    var endDate: Date

    init(name: String, startDate: Date, endDate: Date) {
        self.name = name
        self.startDate = startDate
        self.endDate = endDate
    }
}

/// An R-tree index the macro cannot see (named through a static property): refused when a container
/// opens.
@Model final class Place {
    static var spatial: Schema.Index<Place>.Types<Place> { .rtree([\.latitude, \.longitude]) }
    #Index<Place>(Place.spatial)
    var latitude: Double = 0
    var longitude: Double = 0

    init() {}
}

/// `NotesV1.Note` (see LightweightMigrationTests) with indexes of kinds added.
enum NotesTypedIndex {
    @Model final class Note {
        #Index<Note>(.binary([\.title, \.pages]), .binary([\.body]))
        var title: String
        var body: String?
        var pages: Int
        init(title: String) {
            self.title = title
            self.pages = 1
        }
    }
}

@Suite struct IndexTypeTests {
    private func indexes(_ url: URL, table: String) throws -> [String: String] {
        try rawRead(url) { db in
            let rows = try GRDB.Row.fetchAll(
                db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
                arguments: [table])
            return Dictionary(uniqueKeysWithValues: rows.map { ($0["name"] as String, $0["sql"] as String) })
        }
    }

    @Test func binaryIndexesAreCreatedReportedAndSurviveReopening() throws {
        let entity = try #require(Schema([Journey.self]).entitiesByName["Journey"])
        #expect(entity.indices == [["name", "startDate"], ["endDate"]])
        let declared = Schema.Index<Journey>(.binary([\.name, \.startDate]), .binary([\.endDate]))
        #expect(declared == Schema.Index<Journey>([\.name, \.startDate], [\.endDate]))
        #expect(declared.indices.map(\.keyPaths.count) == [2, 1])
        try withFileStore([Journey.self]) { url, open in
            do {
                let context = ModelContext(try open())
                context.insert(Journey(name: "Alps", startDate: .distantPast, endDate: .distantFuture))
                try context.save()
            }
            let found = try indexes(url, table: "Journey")
            #expect(found["Journey_name_startDate_index"]?.contains("stowage_nfc(\"name\"), \"startDate\"") == true, "\(found)")
            #expect(found["Journey_endDate_index"] != nil, "\(found)")
            // Reopening finds the store's indexes identical to the model's.
            let context = ModelContext(try open())
            #expect(try context.fetchCount(FetchDescriptor<Journey>()) == 1)
        }
    }

    @Test func fetchesUseTheIndexes() throws {
        let capture = StatementCapture()
        try withFileStore([Journey.self]) { _, open in
            let container = try open()
            let context = ModelContext(container)
            for day in 0..<50 {
                let start = Date(timeIntervalSinceReferenceDate: Double(day) * 86_400)
                context.insert(Journey(name: "trip \(day)", startDate: start, endDate: start + 3_600))
            }
            try context.save()
            let limit = Date(timeIntervalSinceReferenceDate: 10 * 86_400)
            // (A range on its own keeps the primary-key order without stats; equality and sorts use it.)
            let byEnd = try plan(container, capture, FetchDescriptor<Journey>(predicate: #Predicate { $0.endDate == limit }))
            #expect(byEnd.contains("USING INDEX Journey_endDate_index"), "\(byEnd)")
            let sorted = try plan(container, capture, FetchDescriptor<Journey>(sortBy: [SortDescriptor(\.endDate)]))
            #expect(sorted.contains("USING INDEX Journey_endDate_index"), "\(sorted)")
            let byName = try plan(container, capture, FetchDescriptor<Journey>(predicate: #Predicate { $0.name == "trip 3" }))
            #expect(byName.contains("USING INDEX Journey_name_startDate_index"), "\(byName)")
        }
    }

    @Test func anRTreeIndexIsRefusedWhenTheContainerOpens() throws {
        let error = stowageError { _ = try inMemoryContainer(Place.self) }
        #expect(error?.code == .invalidSchema)
        #expect(error?.message.contains("R-tree index over latitude, longitude") == true, "\(String(describing: error))")
        #expect(error?.message.contains(".binary([\\.latitude, \\.longitude])") == true, "\(String(describing: error))")
        #expect(Place._$rtreeIndices.count == 1 && Place._$indices.isEmpty)
    }

    @Test func aMigrationAddsIndexesOfKinds() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        do {
            let context = ModelContext(try ModelContainer(for: NotesV1.Note.self, configurations: ModelConfiguration(url: url)))
            context.insert(NotesV1.Note(title: "a", body: "x", pages: 2))
            try context.save()
        }
        #expect(try indexes(url, table: "Note").isEmpty)
        do {
            let context = ModelContext(try ModelContainer(for: NotesTypedIndex.Note.self, configurations: ModelConfiguration(url: url)))
            #expect(try context.fetch(FetchDescriptor<NotesTypedIndex.Note>()).map(\.pages) == [2])
        }
        let found = try indexes(url, table: "Note")
        #expect(Set(found.keys) == ["Note_title_pages_index", "Note_body_index"], "\(found)")
        // And the migrated store reopens as is.
        let context = ModelContext(try ModelContainer(for: NotesTypedIndex.Note.self, configurations: ModelConfiguration(url: url)))
        #expect(try context.fetchCount(FetchDescriptor<NotesTypedIndex.Note>()) == 1)
    }

    /// SQLite's plan for the last SELECT a fetch ran.
    private func plan<T: PersistentModel>(
        _ container: ModelContainer, _ capture: StatementCapture, _ descriptor: FetchDescriptor<T>
    ) throws -> String {
        _ = try ModelContext(container).fetch(descriptor)
        let select = try #require(capture.statements(of: container).last { $0.sql.hasPrefix("SELECT") })
        return try sqliteStore(container).writer.read { db in
            let arguments = StatementArguments([String?](repeating: nil, count: select.sql.filter { $0 == "?" }.count))
            return try GRDB.Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + select.sql, arguments: arguments)
                .map { $0["detail"] as String }.joined(separator: " | ")
        }
    }
}
