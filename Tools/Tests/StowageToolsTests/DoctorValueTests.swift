import ExampleTestSupport
import Foundation
import GRDB
import Stowage
import StowageTools
import Testing

enum SampleColour: String, Codable { case red, green }
enum SampleSize: Int, Codable { case small = 1, large = 9 }
struct SamplePoint: Codable, Hashable {
    var x: Double
    var y: Double
}

/// Every kind of attribute, and a subclass adding its own: what `doctor`'s values check reads.
@Model class ValueSample {
    var flag: Bool
    var tiny: Int8
    var huge: UInt64
    var count: Int
    var ratio: Double
    var single: Float
    var name: String
    var when: Date
    var serial: UUID
    var site: URL
    var price: Decimal
    var bytes: Data
    var colour: SampleColour
    var size: SampleSize
    var point: SamplePoint
    var note: String?
    init(_ index: Int) {
        flag = index.isMultiple(of: 2)
        tiny = index == 0 ? .min : .max
        huge = index == 0 ? .max : 0
        count = index == 0 ? .min : index
        ratio = index == 0 ? .infinity : -0.0
        single = 1.5
        name = index == 0 ? "" : "Caf\u{E9}"
        when = index == 0 ? .distantPast : Date(timeIntervalSinceReferenceDate: 1.25)
        serial = UUID()
        site = URL(string: "https://example.com/\(index)")!
        price = index == 0 ? .nan : Decimal(string: "12345678901234567890.123")!
        bytes = index == 0 ? Data() : Data([0, 255])
        colour = .green
        size = .large
        point = SamplePoint(x: 1, y: -2)
        note = index == 0 ? nil : "a\nb"
    }
}

@Model final class LabelledSample: ValueSample {
    var rank: Int
    init(_ index: Int, rank: Int) {
        self.rank = rank
        super.init(index)
    }
}

@Suite("stowage doctor's values check")
struct DoctorValueTests {
    func makeStore(_ directory: TemporaryDirectory) throws -> URL {
        let url = directory.url.appendingPathComponent("samples.store")
        let context = ModelContext(try ModelContainer(for: ValueSample.self, LabelledSample.self, configurations: ModelConfiguration(url: url)))
        for index in 0..<3 { context.insert(ValueSample(index)) }
        context.insert(LabelledSample(3, rank: 7))
        try context.save()
        return url
    }

    @Test("Every value Stowage stores, of every kind and at its edges, is what its column holds")
    func whatStowageStoresPasses() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-doctor-values")
        defer { directory.remove() }
        let url = try makeStore(directory)
        #expect(try Doctor.examine(StoreReader(path: url.path)).map(\.text) == [])
    }

    @Test("Values another program stored with another storage class are counted, by the attribute's own model")
    func valuesWrittenByAnotherProgramAreFound() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-doctor-tampered")
        defer { directory.remove() }
        let url = try makeStore(directory)
        // Another program, with SQLite's loose column types: text in a Double, a fraction in an Int, a
        // blob in a String, text in the subclass's Int.
        try StoreReader(path: url.path, writable: true).withConnection { db in
            try db.execute(sql: #"UPDATE "ValueSample" SET "ratio" = 'lots' WHERE "_pk" IN (1, 2)"#)
            try db.execute(sql: #"UPDATE "ValueSample" SET "count" = 2.5 WHERE "_pk" = 3"#)
            try db.execute(sql: #"UPDATE "ValueSample" SET "name" = x'00ff' WHERE "_pk" = 1"#)
            try db.execute(sql: #"UPDATE "ValueSample" SET "rank" = 'first' WHERE "_pk" = 4"#)
        }
        let problems = try Doctor.examine(StoreReader(path: url.path))
        #expect(problems.map(\.check) == ["values", "values", "values", "values"])
        #expect(problems.map(\.problem) == [
            "1 value(s) of ValueSample.count, a Int, are not stored as INTEGER as Stowage stores them (another program wrote them): the app may fail to read them",
            "2 value(s) of ValueSample.ratio, a Double, are not stored as REAL as Stowage stores them (another program wrote them): the app may fail to read them",
            "1 value(s) of ValueSample.name, a String, are not stored as TEXT as Stowage stores them (another program wrote them): the app may fail to read them",
            "1 value(s) of LabelledSample.rank, a Int, are not stored as INTEGER as Stowage stores them (another program wrote them): the app may fail to read them",
        ])
        // The query each remedy gives finds exactly those rows.
        let reader = try StoreReader(path: url.path)
        let found = try problems.map { problem -> [Int64] in
            let command = try #require(problem.remedy.firstMatch(of: #/`stowage sql (\S+) "(.*)"`/#)).output
            #expect(command.1 == Substring(url.path))
            let sql = String(command.2).replacingOccurrences(of: "\\\"", with: "\"")
            return try reader.read { db in try Int64.fetchAll(db, sql: sql) }
        }
        #expect(found == [[3], [1, 2], [1], [4]])
    }

    @Test("Text in a Double's column is what the app cannot read")
    func theAppCannotReadWhatTheCheckFinds() throws {
        let directory = try TemporaryDirectory(prefix: "stowage-doctor-ratio")
        defer { directory.remove() }
        let url = try makeStore(directory)
        func fetchRatios() throws -> [Double] {
            let context = ModelContext(try ModelContainer(for: LabelledSample.self, ValueSample.self, configurations: ModelConfiguration(url: url)))
            return try context.fetch(FetchDescriptor<ValueSample>()).map(\.ratio)
        }
        #expect(try fetchRatios().count == 4)
        try StoreReader(path: url.path, writable: true).withConnection { db in
            try db.execute(sql: #"UPDATE "ValueSample" SET "ratio" = 'lots' WHERE "_pk" = 2"#)
        }
        #expect(try Doctor.examine(StoreReader(path: url.path)).map(\.check) == ["values"])
        #expect(throws: StowageError.self) { try fetchRatios() }
    }
}
