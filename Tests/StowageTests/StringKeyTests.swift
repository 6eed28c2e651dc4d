import Foundation
import GRDB
import Stowage
@testable import StowageCore
import Testing

/// One meaning of string equality (Swift's: canonical equivalence) for unique constraints, upserts,
/// predicates, sorts and in-memory evaluation, with stored text kept byte for byte, and lookups by an
/// indexed or unique string that use the index (issue 11, bug 7).
@Suite struct StringKeyTests {
    static let composed = "Caf\u{E9}"        // é as one scalar
    static let decomposed = "Cafe\u{301}"    // e + combining acute accent

    @Test func canonicallyEquivalentKeysAreOneUniqueValueAndTheLastBytesWritten() throws {
        #expect(Self.composed == Self.decomposed)
        #expect(Array(Self.composed.utf8) != Array(Self.decomposed.utf8))
        try withFileStore([Tag.self]) { url, open in
            let container = try open()
            let context = ModelContext(container)
            context.insert(Tag(code: Self.composed, label: "first"))
            try context.save()
            context.insert(Tag(code: Self.decomposed, label: "second"))
            try context.save()
            context.insert(Tag(code: "K", label: "letter"))
            context.insert(Tag(code: "\u{212A}", label: "kelvin"))  // KELVIN SIGN, canonically "K"
            try context.save()

            let rows = try rawRead(url) { db in
                try GRDB.Row.fetchAll(db, sql: "SELECT code, label FROM Tag ORDER BY _pk").map { ($0["code"] as String, $0["label"] as String) }
            }
            #expect(rows.count == 2)
            // The upsert kept one row per key, with the text exactly as last saved.
            #expect(rows.map { Array($0.0.utf8) } == [Array(Self.decomposed.utf8), Array("\u{212A}".utf8)])
            #expect(rows.map(\.1) == ["second", "kelvin"])
        }
    }

    @Test func predicatesAgreeWithSwiftBeforeAndAfterSaving() throws {
        let container = try inMemoryContainer(Tag.self)
        let context = ModelContext(container)
        context.insert(Tag(code: Self.decomposed, label: "cafe"))
        context.insert(Tag(code: "Cafe", label: "plain"))
        let composed = Self.composed
        let equal = FetchDescriptor<Tag>(predicate: #Predicate { $0.code == composed })
        let notEqual = FetchDescriptor<Tag>(predicate: #Predicate { $0.code != composed }, sortBy: [SortDescriptor(\.label)])
        let list = [composed, "nothing"]
        let listed = FetchDescriptor<Tag>(predicate: #Predicate { list.contains($0.code) })
        // Unsaved: evaluated in Swift.
        #expect(try context.fetch(equal).map(\.label) == ["cafe"])
        #expect(try context.fetch(notEqual).map(\.label) == ["plain"])
        #expect(try context.fetch(listed).map(\.label) == ["cafe"])
        try context.save()
        // Saved: in SQL, the same answers.
        let fresh = ModelContext(container)
        #expect(try fresh.fetch(equal).map(\.label) == ["cafe"])
        #expect(try fresh.fetch(notEqual).map(\.label) == ["plain"])
        #expect(try fresh.fetch(listed).map(\.label) == ["cafe"])
        #expect(try fresh.fetchCount(equal) == 1)
    }

    /// Equality, order and sorting in SQL match Swift's `==`, `<` and `sorted()` over strings chosen to
    /// differ from a byte comparison: canonical equivalents, singletons, reordered combining marks,
    /// Hangul, compatibility characters (not equivalent), case, emoji.
    @Test func sqlComparesEveryPairAsSwiftDoes() throws {
        let corpus = [
            "", "a", "A", "b", "\u{E9}", "e\u{301}", "e", "f", "K", "\u{212A}", "k", "\u{C5}", "\u{212B}", "A\u{30A}",
            "\u{D55C}", "\u{1112}\u{1161}\u{11AB}", "\u{F1}", "n\u{303}", "z", "\u{DF}", "ss", "\u{1F600}",
            "a\u{301}\u{302}", "a\u{302}\u{301}", "q\u{323}\u{307}", "q\u{307}\u{323}", "\u{FB01}", "fi", "\u{1E9B}\u{323}",
            "Z\u{30C}", "\u{17D}", "x\u{300}y", "\u{F8}", "o\u{338}",
        ]
        let container = try inMemoryContainer(Contact.self)
        let context = ModelContext(container)
        for (index, text) in corpus.enumerated() {
            context.insert(Contact(email: "\(index)", city: text, visits: index))
        }
        try context.save()
        let fresh = ModelContext(container)
        let swiftOrder = corpus.indices.sorted { corpus[$0] < corpus[$1] || (corpus[$0] == corpus[$1] && $0 < $1) }
        let sqlOrder = try fresh.fetch(FetchDescriptor<Contact>(sortBy: [SortDescriptor(\.city, comparator: .lexical)])).map(\.visits)
        #expect(sqlOrder == swiftOrder)
        for probe in corpus {
            let equal = try fresh.fetch(FetchDescriptor<Contact>(predicate: #Predicate { $0.city == probe })).map(\.visits)
            #expect(equal == corpus.indices.filter { corpus[$0] == probe }, "== \(probe.unicodeScalars.map { String($0.value, radix: 16) })")
            let less = try fresh.fetch(FetchDescriptor<Contact>(predicate: #Predicate { $0.city < probe })).map(\.visits)
            #expect(less == corpus.indices.filter { corpus[$0] < probe }, "< \(probe.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test func lookupsAndRangesOnUniqueAndIndexedStringsUseTheirIndex() throws {
        let capture = StatementCapture()
        let container = try inMemoryContainer(Contact.self)
        let tags = try inMemoryContainer(Tag.self)
        let context = ModelContext(container)
        context.insert(Contact(email: "a@example.com", city: "Oslo"))
        try context.save()
        let email = "a@example.com"
        let city = "Oslo"
        let plans = try [
            plan(container, capture, FetchDescriptor<Contact>(predicate: #Predicate { $0.email == email })),
            plan(container, capture, FetchDescriptor<Contact>(predicate: #Predicate { $0.email >= "a" && $0.email < "b" })),
            plan(container, capture, FetchDescriptor<Contact>(predicate: #Predicate { $0.city == city })),
            plan(container, capture, FetchDescriptor<Contact>(predicate: #Predicate { ["Oslo", "Bergen"].contains($0.city) })),
        ]
        #expect(plans[0].contains("USING INDEX Contact_email_unique (<expr>=?)"), "\(plans[0])")
        #expect(plans[1].contains("USING INDEX Contact_email_unique (<expr>>? AND <expr><?)"), "\(plans[1])")
        #expect(plans[2].contains("USING INDEX Contact_city_index (<expr>=?)"), "\(plans[2])")
        #expect(plans[3].contains("USING INDEX Contact_city_index (<expr>=?)"), "\(plans[3])")
        // A string that is neither unique nor indexed is scanned.
        let label = "x"
        let scan = try plan(tags, capture, FetchDescriptor<Tag>(predicate: #Predicate { $0.label == label }))
        #expect(scan.contains("SCAN Tag"), "\(scan)")
    }

    @Test func otherConnectionsWriteUniqueStringsOnceTheyRegisterStowagesFunctions() throws {
        try withFileStore([Tag.self]) { url, open in
            let container = try open()
            let context = ModelContext(container)
            context.insert(Tag(code: Self.composed, label: "stowage"))
            try context.save()
            let insert = "INSERT INTO Tag (code, label, uses) VALUES (?, 'other', 0)"
            // Without the function SQLite cannot maintain the index: the write fails, nothing changes.
            let plain = try DatabaseQueue(path: url.path)
            #expect(throws: DatabaseError.self) { try plain.write { try $0.execute(sql: insert, arguments: [Self.decomposed]) } }
            try plain.close()
            var configuration = Configuration()
            configuration.prepareDatabase { db in StowageSQLFunctions.register(on: db.sqliteConnection!) }
            let registered = try DatabaseQueue(path: url.path, configuration: configuration)
            // With it, the unique index compares as Swift: a canonical equivalent is a duplicate.
            let error = #expect(throws: DatabaseError.self) { try registered.write { try $0.execute(sql: insert, arguments: [Self.decomposed]) } }
            #expect(error?.resultCode == .SQLITE_CONSTRAINT)
            try registered.write { try $0.execute(sql: insert, arguments: ["Cafe"]) }
            try registered.close()
            #expect(try ModelContext(container).fetch(FetchDescriptor<Tag>(sortBy: [SortDescriptor(\.label)])).map(\.label) == ["other", "stowage"])
        }
    }

    /// SQLite's plan for the SELECT a fetch runs, through the store's own connection (which has
    /// Stowage's functions).
    private func plan<T: PersistentModel>(
        _ container: ModelContainer, _ capture: StatementCapture, _ descriptor: FetchDescriptor<T>
    ) throws -> String {
        _ = try ModelContext(container).fetch(descriptor)
        let select = try #require(capture.statements(of: container).last { $0.sql.hasPrefix("SELECT") })
        return try sqliteStore(container).writer.read { db in
            // The plan does not depend on the values: bind NULLs.
            let arguments = StatementArguments([String?](repeating: nil, count: select.sql.filter { $0 == "?" }.count))
            return try GRDB.Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + select.sql, arguments: arguments).map { $0["detail"] as String }.joined(separator: " | ")
        }
    }
}
