import Dispatch
import Foundation
import Stowage
@testable import StowageCore
import Testing

/// A file store reads through connections Stowage opens itself (`SQLiteReaderPool`), an in-memory store
/// through GRDB's connection. Both must register the same functions and collations, trace the same way,
/// and see every committed save.
@Suite struct FileStoreReadTests {
    let directory: URL

    init() throws {
        directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("stowage-reads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    private func removeDirectory() { try? FileManager.default.removeItem(at: directory) }

    private static let names = ["file10", "File2", "\u{E9}clair", "e\u{301}clair", "Banana", "banana split", "apple", "Zebra"]

    private func fill(_ fixture: Fixture) throws {
        try fixture.insert(Self.names.enumerated().map { index, name in
            Item(number: index, name: name, note: index.isMultiple(of: 2) ? "ripe \(name)" : nil, rank: index < 3 ? nil : index)
        })
    }

    @Test func stringFunctionsAndCollationsGiveTheSameRowsOnFileAndInMemory() throws {
        defer { removeDirectory() }
        let file = try Fixture(storeURL: directory.appendingPathComponent("store.sqlite"))
        let memory = try Fixture()
        try fill(file)
        try fill(memory)
        let predicates: [Predicate<Item>] = [
            #Predicate { $0.name.localizedStandardContains("BAN") },
            #Predicate { $0.name.contains("an") },
            #Predicate { $0.name.starts(with: "\u{E9}") },
            #Predicate { $0.note?.localizedStandardContains("RIPE") == true },
            #Predicate { $0.name.count == 6 },
        ]
        for predicate in predicates {
            let onFile = try file.numbers(predicate)
            #expect(!onFile.isEmpty)
            #expect(onFile == (try memory.numbers(predicate)))
        }
        let sorts: [[SortDescriptor<Item>]] = [[SortDescriptor(\.name)], [SortDescriptor(\.name, comparator: .lexical)], [SortDescriptor(\.name, order: .reverse)]]
        for sort in sorts {
            let onFile = try file.numbers(#Predicate { _ in true }, sortBy: sort)
            #expect(onFile.count == Self.names.count)
            #expect(onFile == (try memory.numbers(#Predicate { _ in true }, sortBy: sort)))
        }
        let localized = Self.names.indices.sorted { Self.names[$0].localizedStandardCompare(Self.names[$1]) == .orderedAscending }
        #expect(try file.numbers(#Predicate { _ in true }, sortBy: [SortDescriptor(\.name)]) == localized)
    }

    @Test func aFailingFunctionFailsTheFetchWithATypedError() throws {
        defer { removeDirectory() }
        let file = try Fixture(storeURL: directory.appendingPathComponent("store.sqlite"))
        try fill(file)
        do {
            _ = try file.numbers(#Predicate { $0.rank! > 0 })
            Issue.record("force-unwrapping nil in SQL must fail the fetch")
        } catch let error as StowageError {
            #expect(error.code == .fetchFailed)
            #expect(error.message.contains("force-unwrapped"))
        }
    }

    @Test func readsOnAFileStoreAreTracedWithTheStoreIdentifier() throws {
        defer { removeDirectory() }
        let file = try Fixture(storeURL: directory.appendingPathComponent("store.sqlite"))
        try fill(file)
        let mark = file.statementCount
        _ = try file.numbers(#Predicate { $0.number == 3 })
        let reads = file.log.events(of: file.container).dropFirst(mark)
        let select = try #require(reads.first { $0.sql.hasPrefix("SELECT") })
        #expect(select.expandedSQL.contains("= 3"))
        #expect(select.storeIdentifier == (file.container.store as! SQLiteStore).identifier)
    }

    @Test func concurrentReadersSeeEveryCommittedSave() throws {
        defer { removeDirectory() }
        let url = directory.appendingPathComponent("store.sqlite")
        let container = try ModelContainer(for: Item.self, configurations: ModelConfiguration(url: url))
        let writer = ModelContext(container)
        for round in 1...5 {
            for offset in 0..<20 { writer.insert(Item(number: round * 100 + offset)) }
            try writer.save()
            let expected = round * 20
            // More threads than the pool keeps idle, each reading through its own context.
            let counts = Locked<[Int]>([])
            let failures = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 12) { _ in
                do {
                    let context = ModelContext(container)
                    for _ in 0..<5 {
                        let count = try context.fetchCount(FetchDescriptor<Item>())
                        let fetched = try context.fetch(FetchDescriptor<Item>(predicate: #Predicate { $0.number >= 100 })).count
                        counts.withLock { $0.append(count); $0.append(fetched) }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            #expect(failures.withLock { $0 }.isEmpty)
            #expect(counts.withLock { $0 }.allSatisfy { $0 == expected })
            #expect(counts.withLock { $0.count } == 12 * 5 * 2)
        }
    }
}
