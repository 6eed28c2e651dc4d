import Foundation
import GRDB
import Stowage
import Testing

/// Reading rows: the common types are read from SQLite typed (no intermediate value), everything
/// else and every unexpected storage class through the attribute's codec. These tests write rows
/// with plain SQL, as another program sharing the file could, and check that both paths give the same
/// values and the same typed errors.
@Suite struct RowDecodingTests {
    enum Kind: String, Codable { case small, large }

    @Model final class Shape {
        var count: Int
        var maybeCount: Int?
        var ratio: Double
        var maybeRatio: Double?
        var name: String
        var nickname: String?
        var flag: Bool
        var maybeFlag: Bool?
        var when: Date
        var maybeWhen: Date?
        var kind: Kind

        init(count: Int, ratio: Double, name: String, flag: Bool, when: Date, kind: Kind) {
            self.count = count
            self.ratio = ratio
            self.name = name
            self.flag = flag
            self.when = when
            self.kind = kind
        }
    }

    /// Saves one `Shape`, then runs `sql` on the file outside Stowage and returns what a new context
    /// fetches (or the error it throws).
    private func fetchAfter(_ sql: String, _ configure: (Shape) -> Void = { _ in }) throws -> Result<Shape, StowageError> {
        try withFileStore([Shape.self]) { url, open in
            let container = try open()
            let context = ModelContext(container)
            let shape = Shape(count: 7, ratio: 0.5, name: "seven", flag: true, when: Date(timeIntervalSinceReferenceDate: 1_000), kind: .large)
            configure(shape)
            context.insert(shape)
            try context.save()
            if !sql.isEmpty {
                let queue = try DatabaseQueue(path: url.path)
                try queue.write { try $0.execute(sql: sql) }
            }
            do {
                return .success(try #require(try ModelContext(container).fetch(FetchDescriptor<Shape>()).first))
            } catch let error as StowageError {
                return .failure(error)
            }
        }
    }

    @Test func everyCommonTypeRoundTripsWithAndWithoutValues() throws {
        let plain = try fetchAfter("").get()
        #expect(plain.count == 7 && plain.maybeCount == nil)
        #expect(plain.ratio == 0.5 && plain.maybeRatio == nil)
        #expect(plain.name == "seven" && plain.nickname == nil)
        #expect(plain.flag == true && plain.maybeFlag == nil)
        #expect(plain.when == Date(timeIntervalSinceReferenceDate: 1_000) && plain.maybeWhen == nil)
        #expect(plain.kind == .large)

        let filled = try fetchAfter("") { shape in
            shape.maybeCount = -3
            shape.maybeRatio = -0.25
            shape.nickname = "sev\u{0}en ✓"
            shape.maybeFlag = false
            shape.maybeWhen = Date(timeIntervalSinceReferenceDate: -1.5)
        }.get()
        #expect(filled.maybeCount == -3)
        #expect(filled.maybeRatio == -0.25)
        #expect(filled.nickname == "sev\u{0}en ✓")
        #expect(filled.maybeFlag == false)
        #expect(filled.maybeWhen == Date(timeIntervalSinceReferenceDate: -1.5))
    }

    @Test func valuesOfAnotherStorageClassConvertLikeTheCodec() throws {
        // A whole real in an INTEGER column is stored as an integer by SQLite; 2.5 stays a real and an
        // Int reads it only when exact. An integer in a REAL column reads as a Double.
        #expect(try fetchAfter(#"UPDATE "Shape" SET "count" = 4.0, "ratio" = 3"#).get().count == 4)
        #expect(try fetchAfter(#"UPDATE "Shape" SET "ratio" = 3"#).get().ratio == 3.0)
        #expect(try fetchAfter(#"UPDATE "Shape" SET "maybeCount" = 9"#).get().maybeCount == 9)
    }

    @Test func aValueThatIsNotOfTheAttributesTypeIsATypedErrorNamingTheProperty() throws {
        let cases: [(sql: String, property: String)] = [
            (#"UPDATE "Shape" SET "count" = 'many'"#, "count"),
            (#"UPDATE "Shape" SET "count" = 2.5"#, "count"),
            (#"UPDATE "Shape" SET "maybeCount" = 'some'"#, "maybeCount"),
            (#"UPDATE "Shape" SET "ratio" = 'half'"#, "ratio"),
            (#"UPDATE "Shape" SET "name" = x'00ff'"#, "name"),
            (#"UPDATE "Shape" SET "kind" = 'medium'"#, "kind"),
        ]
        for (sql, property) in cases {
            guard case .failure(let error) = try fetchAfter(sql) else {
                Issue.record("\(sql) was read without an error")
                continue
            }
            #expect(error.code == .invalidStoredValue, "\(sql)")
            #expect(error.entityName == "Shape", "\(sql)")
            #expect(error.propertyName == property, "\(sql)")
        }
    }
}
