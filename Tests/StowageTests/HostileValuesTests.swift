import Foundation
import Stowage
import Testing
@testable import StowageCore

/// Issue 16's "hostile values": text that breaks naive SQL (quotes, comment markers, NUL bytes), Unicode
/// that normalisation or bidirectional marks could change, LIKE's wildcards in `contains`, emoji in
/// every attribute type that holds text or bytes, and a 10 MB string. Each comes back byte for byte
/// after a reopen, and the SQL log shows only placeholders.
@Suite("Hostile values")
struct HostileValuesTests {
    static let hostile: [String] = [
        "it's", #"say "hi""#, "a'); DROP TABLE \"Everything\"; --", "; --", "/* comment */",
        "nul\u{0}inside", "\u{0}", "trailing nul\u{0}",
        "\u{202E}reversed\u{202C}", "\u{200F}rtl mark", "zero\u{200B}width",
        "e\u{301}", "é", "Å", "A\u{30A}", "ﬁ",  // decomposed and composed forms: stored as given
        "%", "_", "\\", "%_\\", "100%", "a_b", "C:\\path\\to",
        "👩‍👩‍👧‍👦", "🏳️‍🌈", "🇵🇹", "😀" + String(repeating: "🙂", count: 300),
        "line\nbreak\r\ncrlf\ttab", "", " ", "\u{FEFF}bom",
    ]

    @Test func everyValueComesBackByteForByteAfterAReopenAndTheSQLHasOnlyPlaceholders() throws {
        try withFileStore([Everything.self]) { url, open in
            let capture = StatementCapture()
            let container = try open()
            let context = ModelContext(container)
            for (index, text) in Self.hostile.enumerated() {
                let model = Everything()
                model.int = index
                model.string = text
                model.optionalString = text
                model.strings = [text, "plain", text]
                model.counts = [text: index]
                model.address = Address(street: text, zip: index, unit: text)
                model.data = Data(text.utf8)
                model.shape = .labelled(text, Address(street: text, zip: 1))
                context.insert(model)
            }
            try context.save()
            for statement in capture.sql(of: container) {
                for text in Self.hostile where text.count > 2 {
                    #expect(!statement.contains(text), "a value is in the SQL text: \(statement)")
                }
            }

            // A new container on the file, as a new process would see it.
            let reopened = ModelContext(try open())
            let models = try reopened.fetch(FetchDescriptor<Everything>(sortBy: [SortDescriptor(\.int)]))
            #expect(models.count == Self.hostile.count)
            for (model, text) in zip(models, Self.hostile) {
                let bytes = Array(text.utf8)
                #expect(Array(model.string.utf8) == bytes, "\(text.debugDescription)")
                #expect(model.optionalString.map { Array($0.utf8) } == bytes)
                #expect(model.strings.map { Array($0.utf8) } == [bytes, Array("plain".utf8), bytes])
                #expect(model.counts.keys.map { Array($0.utf8) } == [bytes])
                #expect(Array(model.address.street.utf8) == bytes)
                #expect(model.address.unit.map { Array($0.utf8) } == bytes)
                #expect(model.data == Data(bytes))
                if case .labelled(let label, let address) = model.shape {
                    #expect(Array(label.utf8) == bytes && Array(address.street.utf8) == bytes)
                } else {
                    Issue.record("shape of \(text.debugDescription) came back as \(model.shape)")
                }
            }
        }
    }

    @Test func equalityAndContainsMatchTheValueLiterallyInSQL() throws {
        try withFileStore([Everything.self]) { _, open in
            let context = ModelContext(try open())
            context.requiresSQLTranslation = true  // no silent fallback to Swift
            for (index, text) in Self.hostile.enumerated() {
                let model = Everything()
                model.int = index
                model.string = text
                context.insert(model)
            }
            try context.save()
            for text in Self.hostile {
                let equal = try context.fetch(FetchDescriptor<Everything>(predicate: #Predicate { $0.string == text }))
                // Swift's `==` on strings: canonical equivalence ("e\u{301}" == "é"), as Stowage compares.
                let expectedEqual = Self.hostile.filter { $0 == text }.count
                #expect(equal.count == expectedEqual, "== \(text.debugDescription)")
                guard !text.isEmpty else { continue }
                let containing = try context.fetch(FetchDescriptor<Everything>(predicate: #Predicate { $0.string.contains(text) }))
                // What Swift's own evaluation of the same predicate keeps.
                let predicate = #Predicate<Everything> { $0.string.contains(text) }
                let all = try context.fetch(FetchDescriptor<Everything>(sortBy: [SortDescriptor(\.int)]))
                let expected = try all.filter { try predicate.evaluate($0) }.map(\.int)
                #expect(containing.map(\.int).sorted() == expected, "contains \(text.debugDescription)")
            }
        }
    }

    @Test func aTenMegabyteStringRoundTrips() throws {
        try withFileStore([Everything.self]) { _, open in
            let text = String(repeating: "0123456789abcdef'\u{0}é🙂", count: 10 * 1024 * 1024 / 24)
            let context = ModelContext(try open())
            let model = Everything()
            model.string = text
            model.data = Data(text.utf8)
            context.insert(model)
            try context.save()
            let read = try #require(try ModelContext(try open()).fetch(FetchDescriptor<Everything>()).first)
            #expect(read.string.utf8.count == text.utf8.count)
            #expect(read.string.utf8.elementsEqual(text.utf8))
            #expect(read.data.count == text.utf8.count)
        }
    }
}
