import Foundation
import GRDB
import Stowage
@testable import StowageCore
import Testing

// A property test of automatic (lightweight) migrations: random walks through a pool of versions of one
// entity, `Item`, reopening the same store file at each step, with a model of what every row must hold.
//
// Logical properties of `Item`, and how the pool's versions declare them:
//
//   key    Int, in every version: the stable key of the expected-values model (not unique).
//   name   String, stored as `name` (`@Attribute(originalName: "label")`) or as `label`
//          (`@Attribute(originalName: "name")`). Each spelling names the other as its original name, so
//          a rename from ANY version of the pool to any other is along a declared originalName: every
//          transition between two versions of the pool is allowed (no transition table needed).
//   note   String: absent (removed), `String?`, `String = "none"` (a default) or `String` (no default).
//   score  Int: absent (removed), `Int?`, `Int = 7` (a default) or `Int` (no default).
//   code   String, `@Attribute(.unique)` or not; the values drawn include "é" spelled precomposed and
//          decomposed, which Swift (and Stowage's unique index) compare equal.
//   #Index on `key` and/or the name's column, or none.
//
//   version  name   note       score      code    #Index
//   PropV0   name   optional   absent     plain   -
//   PropV1   name   optional   default    plain   key
//   PropV2   label  optional   optional   plain   -
//   PropV3   name   default    default    unique  -
//   PropV4   label  default    absent     plain   label
//   PropV5   name   required   required   plain   -
//   PropV6   label  optional   optional   unique  key
//   PropV7   name   absent     default    plain   name
//   PropV8   label  required   optional   unique  -
//   PropV9   name   optional   required   plain   key, name
//
// A step from version A to version B must be refused (a `.schemaMismatch` StowageError naming the
// property, the store left byte for byte as it was) when
//   - B adds `note` or `score` without a default while the table has rows,
//   - B makes `note` or `score` non-optional without a default while some row holds nil,
//   - B makes `code` unique while two rows hold equal codes;
// otherwise it must succeed with: every row kept with its `persistentModelID`, the name kept through
// the rename, removed properties gone (nil or the default if added back later), a new optional
// property nil, a new property with a default (or an optional one made non-optional) holding its
// default where it had nothing, the columns and indexes of B.
// After a refusal the walk goes on from A (reopened and checked as well).

/// How one version of the pool declares a logical property that may be absent.
enum PropKind: String {
    case absent, optional, defaulted, required
}

/// What one version of the pool declares.
struct PropShape {
    let version: Int
    let nameColumn: String
    let note: PropKind
    let score: PropKind
    let uniqueCode: Bool
    let indexes: [String]

    /// The table's columns, in declaration order.
    var columns: [String] {
        ["_pk", "key", nameColumn] + (note == .absent ? [] : ["note"]) + (score == .absent ? [] : ["score"]) + ["code"]
    }

    /// The names of the table's indexes.
    var indexNames: Set<String> {
        Set(indexes.map { "Item_\($0)_index" } + (uniqueCode ? ["Item_code_unique"] : []))
    }
}

/// The logical view of one version's `Item`: absent properties read nil and ignore writes; a
/// non-optional one is only given values.
protocol PropItem: PersistentModel {
    static var shape: PropShape { get }
    static func make(key: Int, name: String, note: String?, score: Int?, code: String) -> Self
    var key: Int { get }
    var logicalName: String { get set }
    var logicalNote: String? { get set }
    var logicalScore: Int? { get set }
    var code: String { get set }
}

enum PropV0 {
    @Model final class Item {
        var key: Int
        @Attribute(originalName: "label") var name: String
        var note: String?
        var code: String
        init(key: Int, name: String, note: String?, code: String) {
            self.key = key
            self.name = name
            self.note = note
            self.code = code
        }
    }
}

extension PropV0.Item: PropItem {
    static let shape = PropShape(version: 0, nameColumn: "name", note: .optional, score: .absent, uniqueCode: false, indexes: [])
    static func make(key: Int, name: String, note: String?, score: Int?, code: String) -> PropV0.Item {
        PropV0.Item(key: key, name: name, note: note, code: code)
    }
    var logicalName: String { get { name } set { name = newValue } }
    var logicalNote: String? { get { note } set { note = newValue } }
    var logicalScore: Int? { get { nil } set {} }
}

enum PropV1 {
    @Model final class Item {
        #Index<Item>([\.key])
        var key: Int
        @Attribute(originalName: "label") var name: String
        var note: String?
        var score: Int = 7
        var code: String
        init(key: Int, name: String, note: String?, score: Int, code: String) {
            self.key = key
            self.name = name
            self.note = note
            self.score = score
            self.code = code
        }
    }
}

extension PropV1.Item: PropItem {
    static let shape = PropShape(version: 1, nameColumn: "name", note: .optional, score: .defaulted, uniqueCode: false, indexes: ["key"])
    static func make(key: Int, name: String, note: String?, score: Int?, code: String) -> PropV1.Item {
        PropV1.Item(key: key, name: name, note: note, score: score!, code: code)
    }
    var logicalName: String { get { name } set { name = newValue } }
    var logicalNote: String? { get { note } set { note = newValue } }
    var logicalScore: Int? { get { score } set { score = newValue! } }
}

enum PropV2 {
    @Model final class Item {
        var key: Int
        @Attribute(originalName: "name") var label: String
        var note: String?
        var score: Int?
        var code: String
        init(key: Int, label: String, note: String?, score: Int?, code: String) {
            self.key = key
            self.label = label
            self.note = note
            self.score = score
            self.code = code
        }
    }
}

extension PropV2.Item: PropItem {
    static let shape = PropShape(version: 2, nameColumn: "label", note: .optional, score: .optional, uniqueCode: false, indexes: [])
    static func make(key: Int, name: String, note: String?, score: Int?, code: String) -> PropV2.Item {
        PropV2.Item(key: key, label: name, note: note, score: score, code: code)
    }
    var logicalName: String { get { label } set { label = newValue } }
    var logicalNote: String? { get { note } set { note = newValue } }
    var logicalScore: Int? { get { score } set { score = newValue } }
}

enum PropV3 {
    @Model final class Item {
        var key: Int
        @Attribute(originalName: "label") var name: String
        var note: String = "none"
        var score: Int = 7
        @Attribute(.unique) var code: String
        init(key: Int, name: String, note: String, score: Int, code: String) {
            self.key = key
            self.name = name
            self.note = note
            self.score = score
            self.code = code
        }
    }
}

extension PropV3.Item: PropItem {
    static let shape = PropShape(version: 3, nameColumn: "name", note: .defaulted, score: .defaulted, uniqueCode: true, indexes: [])
    static func make(key: Int, name: String, note: String?, score: Int?, code: String) -> PropV3.Item {
        PropV3.Item(key: key, name: name, note: note!, score: score!, code: code)
    }
    var logicalName: String { get { name } set { name = newValue } }
    var logicalNote: String? { get { note } set { note = newValue! } }
    var logicalScore: Int? { get { score } set { score = newValue! } }
}

enum PropV4 {
    @Model final class Item {
        #Index<Item>([\.label])
        var key: Int
        @Attribute(originalName: "name") var label: String
        var note: String = "none"
        var code: String
        init(key: Int, label: String, note: String, code: String) {
            self.key = key
            self.label = label
            self.note = note
            self.code = code
        }
    }
}

extension PropV4.Item: PropItem {
    static let shape = PropShape(version: 4, nameColumn: "label", note: .defaulted, score: .absent, uniqueCode: false, indexes: ["label"])
    static func make(key: Int, name: String, note: String?, score: Int?, code: String) -> PropV4.Item {
        PropV4.Item(key: key, label: name, note: note!, code: code)
    }
    var logicalName: String { get { label } set { label = newValue } }
    var logicalNote: String? { get { note } set { note = newValue! } }
    var logicalScore: Int? { get { nil } set {} }
}

enum PropV5 {
    @Model final class Item {
        var key: Int
        @Attribute(originalName: "label") var name: String
        var note: String
        var score: Int
        var code: String
        init(key: Int, name: String, note: String, score: Int, code: String) {
            self.key = key
            self.name = name
            self.note = note
            self.score = score
            self.code = code
        }
    }
}

extension PropV5.Item: PropItem {
    static let shape = PropShape(version: 5, nameColumn: "name", note: .required, score: .required, uniqueCode: false, indexes: [])
    static func make(key: Int, name: String, note: String?, score: Int?, code: String) -> PropV5.Item {
        PropV5.Item(key: key, name: name, note: note!, score: score!, code: code)
    }
    var logicalName: String { get { name } set { name = newValue } }
    var logicalNote: String? { get { note } set { note = newValue! } }
    var logicalScore: Int? { get { score } set { score = newValue! } }
}

enum PropV6 {
    @Model final class Item {
        #Index<Item>([\.key])
        var key: Int
        @Attribute(originalName: "name") var label: String
        var note: String?
        var score: Int?
        @Attribute(.unique) var code: String
        init(key: Int, label: String, note: String?, score: Int?, code: String) {
            self.key = key
            self.label = label
            self.note = note
            self.score = score
            self.code = code
        }
    }
}

extension PropV6.Item: PropItem {
    static let shape = PropShape(version: 6, nameColumn: "label", note: .optional, score: .optional, uniqueCode: true, indexes: ["key"])
    static func make(key: Int, name: String, note: String?, score: Int?, code: String) -> PropV6.Item {
        PropV6.Item(key: key, label: name, note: note, score: score, code: code)
    }
    var logicalName: String { get { label } set { label = newValue } }
    var logicalNote: String? { get { note } set { note = newValue } }
    var logicalScore: Int? { get { score } set { score = newValue } }
}

enum PropV7 {
    @Model final class Item {
        #Index<Item>([\.name])
        var key: Int
        @Attribute(originalName: "label") var name: String
        var score: Int = 7
        var code: String
        init(key: Int, name: String, score: Int, code: String) {
            self.key = key
            self.name = name
            self.score = score
            self.code = code
        }
    }
}

extension PropV7.Item: PropItem {
    static let shape = PropShape(version: 7, nameColumn: "name", note: .absent, score: .defaulted, uniqueCode: false, indexes: ["name"])
    static func make(key: Int, name: String, note: String?, score: Int?, code: String) -> PropV7.Item {
        PropV7.Item(key: key, name: name, score: score!, code: code)
    }
    var logicalName: String { get { name } set { name = newValue } }
    var logicalNote: String? { get { nil } set {} }
    var logicalScore: Int? { get { score } set { score = newValue! } }
}

enum PropV8 {
    @Model final class Item {
        var key: Int
        @Attribute(originalName: "name") var label: String
        var note: String
        var score: Int?
        @Attribute(.unique) var code: String
        init(key: Int, label: String, note: String, score: Int?, code: String) {
            self.key = key
            self.label = label
            self.note = note
            self.score = score
            self.code = code
        }
    }
}

extension PropV8.Item: PropItem {
    static let shape = PropShape(version: 8, nameColumn: "label", note: .required, score: .optional, uniqueCode: true, indexes: [])
    static func make(key: Int, name: String, note: String?, score: Int?, code: String) -> PropV8.Item {
        PropV8.Item(key: key, label: name, note: note!, score: score, code: code)
    }
    var logicalName: String { get { label } set { label = newValue } }
    var logicalNote: String? { get { note } set { note = newValue! } }
    var logicalScore: Int? { get { score } set { score = newValue } }
}

enum PropV9 {
    @Model final class Item {
        #Index<Item>([\.key], [\.name])
        var key: Int
        @Attribute(originalName: "label") var name: String
        var note: String?
        var score: Int
        var code: String
        init(key: Int, name: String, note: String?, score: Int, code: String) {
            self.key = key
            self.name = name
            self.note = note
            self.score = score
            self.code = code
        }
    }
}

extension PropV9.Item: PropItem {
    static let shape = PropShape(version: 9, nameColumn: "name", note: .optional, score: .required, uniqueCode: false, indexes: ["key", "name"])
    static func make(key: Int, name: String, note: String?, score: Int?, code: String) -> PropV9.Item {
        PropV9.Item(key: key, name: name, note: note, score: score!, code: code)
    }
    var logicalName: String { get { name } set { name = newValue } }
    var logicalNote: String? { get { note } set { note = newValue } }
    var logicalScore: Int? { get { score } set { score = newValue! } }
}

@Suite("Migration property test")
struct MigrationPropertyTests {
    /// The versions, by index (`PropV<i>`).
    static var pool: [any PropItem.Type] {
        [
            PropV0.Item.self, PropV1.Item.self, PropV2.Item.self, PropV3.Item.self, PropV4.Item.self,
            PropV5.Item.self, PropV6.Item.self, PropV7.Item.self, PropV8.Item.self, PropV9.Item.self,
        ]
    }

    static let names = ["alpha", "Beta", "", "café", "cafe\u{301}", "日本", "O'Brien", "a\"b", "🦊", "  spaced  "]
    /// Codes that often collide: "é" twice (precomposed, decomposed).
    static let codes = ["x", "y", "\u{E9}", "e\u{301}", "Z"]

    /// What one row must hold. `note` and `score` are nil while the version lacks them.
    struct Expected: Equatable, CustomStringConvertible {
        var key: Int
        var name: String
        var note: String?
        var score: Int?
        var code: String
        var id: PersistentIdentifier?

        var description: String {
            "#\(key) \(name.debugDescription) note=\(note.map(\.debugDescription) ?? "nil") score=\(score.map(String.init) ?? "nil") code=\(code.debugDescription) pk=\(id?.primaryKey.map(String.init) ?? "?")"
        }
    }

    /// The state of one walk: the version the store is at, what its rows hold, the generator.
    struct Walk {
        let seed: UInt64
        var rng: SplitMix
        var version = 0
        var rows: [Int: Expected] = [:]
        var nextKey = 1
        var nonce = 0
        var migrated = 0
        var refused: [String: Int] = [:]
        /// The kinds of change accepted steps made (see ``changes(from:to:)``).
        var exercised: Set<String> = []
        var trail: [String] = []

        init(seed: UInt64) {
            self.seed = seed
            rng = SplitMix(seed: seed)
        }

        mutating func chance(_ numerator: UInt64, in denominator: UInt64) -> Bool { rng.next() % denominator < numerator }
        mutating func pick<C: Collection>(_ elements: C) -> C.Element where C.Index == Int {
            elements[elements.startIndex + Int(rng.next() % UInt64(elements.count))]
        }
        mutating func freshCode() -> String {
            nonce += 1
            return "u\(nonce)"
        }
        var sortedRows: [Expected] { rows.values.sorted { $0.key < $1.key } }
    }

    @Test func randomSequencesOfVersionsKeepEverySurvivingValue() throws {
        let started = Date()
        let base = ProcessInfo.processInfo.environment["STOWAGE_MIGRATION_SEED"].flatMap { UInt64($0) } ?? 20_250_612
        let walks = 8, steps = 16
        print("migration property test: seed \(base) (set STOWAGE_MIGRATION_SEED to replay another), \(walks) walks of \(steps) steps")
        var migrated = 0
        var refused: [String: Int] = [:]
        var exercised: Set<String> = []
        for index in 0..<walks {
            let walk = try run(seed: base &+ UInt64(index), steps: steps)
            migrated += walk.migrated
            refused.merge(walk.refused, uniquingKeysWith: +)
            exercised.formUnion(walk.exercised)
            print("migration property test: seed \(walk.seed): \(walk.trail.joined(separator: " "))")
        }
        print("migration property test: \(migrated) migrations (\(exercised.sorted().joined(separator: ", "))), refusals \(refused.sorted { $0.key < $1.key }), \(String(format: "%.3fs", Date().timeIntervalSince(started)))")
        // The walks must have exercised both outcomes, or they test little.
        #expect(migrated >= walks * steps / 3)
        #expect(refused.values.reduce(0, +) >= 10)
        #expect(Set(refused.keys) == ["note", "score", "code"], "every kind of refusal happened")
        let everyChange: Set<String> = [
            "rename", "remove", "add optional", "add default", "optional to default",
            "optional to required", "required to optional", "unique on", "unique off", "index on", "index off",
        ]
        #expect(exercised.isSuperset(of: everyChange), "changes never made: \(everyChange.subtracting(exercised).sorted())")
    }

    /// One walk: a store created at a random version, then `steps` random versions.
    private func run(seed: UInt64, steps: Int) throws -> Walk {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        var walk = Walk(seed: seed)
        walk.version = walk.pick(Array(Self.pool.indices))
        walk.trail.append("V\(walk.version)")
        try Self.pool[walk.version].visit(url: url, walk: &walk, label: "seed \(seed) creation at V\(walk.version)", initialRows: 8)
        for step in 1...steps {
            var target = Int(walk.rng.next() % UInt64(Self.pool.count - 1))
            if target >= walk.version { target += 1 }
            let from = Self.pool[walk.version].shape, to = Self.pool[target].shape
            let label = "seed \(seed) step \(step): V\(walk.version) → V\(target)"
            let refusals = Self.refusals(from: from, to: to, rows: walk.sortedRows)
            if let reason = refusals.first {
                let before = try logicalDump(url)
                let error = try #require(throws: StowageError.self, "\(label) should be refused (\(refusals))") {
                    _ = try ModelContainer(for: Self.pool[target], configurations: ModelConfiguration(url: url))
                }
                #expect(error.code == .schemaMismatch && error.entityName == "Item" && error.propertyName == reason, "\(label): \(error)")
                let after = try logicalDump(url)
                let identical = after == before
                #expect(identical, "\(label): a refused migration changed the store: \(firstDifference(before, after))")
                walk.refused[reason, default: 0] += 1
                walk.trail.append("✗\(target)(\(reason))")
            } else {
                Self.migrate(&walk.rows, from: from, to: to)
                walk.exercised.formUnion(Self.changes(from: from, to: to))
                walk.version = target
                walk.migrated += 1
                walk.trail.append("→\(target)")
            }
            // Open the store at the version it is now at (migrating it, or reopening it after a refusal),
            // check every row, change a few.
            do {
                try Self.pool[walk.version].visit(url: url, walk: &walk, label: label)
            } catch {
                Issue.record("\(label): \(error)")
                return walk
            }
        }
        return walk
    }

    /// The properties whose change a step must refuse, in the order Stowage checks them (declaration
    /// order, uniqueness after the rows are copied).
    static func refusals(from: PropShape, to: PropShape, rows: [Expected]) -> [String] {
        var reasons: [String] = []
        if !rows.isEmpty {
            for (property, old, new, hasNil) in [
                ("note", from.note, to.note, rows.contains { $0.note == nil }),
                ("score", from.score, to.score, rows.contains { $0.score == nil }),
            ] where new == .required && (old == .absent || (old == .optional && hasNil)) {
                reasons.append(property)
            }
        }
        // Swift's `==` on strings is canonical equivalence, as Stowage's unique index on a `String`.
        let codes = rows.map(\.code)
        if to.uniqueCode && codes.indices.contains(where: { i in codes[..<i].contains(codes[i]) }) {
            reasons.append("code")
        }
        return reasons
    }

    /// The kinds of change between two versions.
    static func changes(from: PropShape, to: PropShape) -> Set<String> {
        var changes: Set<String> = []
        if from.nameColumn != to.nameColumn { changes.insert("rename") }
        for (old, new) in [(from.note, to.note), (from.score, to.score)] {
            switch (old, new) {
            case (.absent, .absent): break
            case (_, .absent): changes.insert("remove")
            case (.absent, .optional): changes.insert("add optional")
            case (.absent, .defaulted): changes.insert("add default")
            case (.absent, .required): changes.insert("add required (to an empty table)")
            case (.optional, .defaulted): changes.insert("optional to default")
            case (.optional, .required): changes.insert("optional to required")
            case (.defaulted, .optional), (.required, .optional): changes.insert("required to optional")
            default: break
            }
        }
        if !from.uniqueCode && to.uniqueCode { changes.insert("unique on") }
        if from.uniqueCode && !to.uniqueCode { changes.insert("unique off") }
        if !Set(to.indexes).subtracting(from.indexes).isEmpty { changes.insert("index on") }
        if !Set(from.indexes).subtracting(to.indexes).isEmpty { changes.insert("index off") }
        return changes
    }

    /// What an accepted step does to the rows.
    static func migrate(_ rows: inout [Int: Expected], from: PropShape, to: PropShape) {
        func carry<Value>(_ value: Value?, _ old: PropKind, _ new: PropKind, default fallback: Value) -> Value? {
            let kept = old == .absent ? nil : value
            switch new {
            case .absent: return nil
            case .optional, .required: return kept
            case .defaulted: return kept ?? fallback
            }
        }
        for key in rows.keys {
            rows[key]!.note = carry(rows[key]!.note, from.note, to.note, default: "none")
            rows[key]!.score = carry(rows[key]!.score, from.score, to.score, default: 7)
        }
    }

    /// Opens the store with version `T` (a migration when the store is at another), checks its layout
    /// and every row against the model, then inserts, changes and deletes a few rows and saves.
    static func visit<T: PropItem>(_ type: T.Type, url: URL, walk: inout Walk, label: String, initialRows: Int = 0) throws {
        let shape = T.shape
        let container = try ModelContainer(for: T.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)

        // The layout: columns (renamed, added, removed) and indexes of this version.
        let (columns, indexes, version) = try storeRead(url) { db in
            (try GRDB.Row.fetchAll(db, sql: "PRAGMA table_info(Item)").map { $0["name"] as String },
             Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Item' AND sql IS NOT NULL")),
             try String.fetchOne(db, sql: "SELECT value FROM _stowage_metadata WHERE key = 'schema_layout'"))
        }
        // In any order: a column added in place (ALTER TABLE ADD COLUMN) comes last.
        #expect(columns.sorted() == shape.columns.sorted(), "\(label): columns \(columns)")
        #expect(indexes == shape.indexNames, "\(label): indexes \(indexes.sorted())")
        #expect(version == container.schema.layout.json, "\(label): recorded layout")
        #expect(try integrityCheck(url) == "ok", "\(label)")

        // Every row, with its identifier.
        var models = try context.fetch(FetchDescriptor<T>()).sorted { $0.key < $1.key }
        let actual = models.map {
            Expected(key: $0.key, name: $0.logicalName, note: $0.logicalNote, score: $0.logicalScore, code: $0.code, id: $0.persistentModelID)
        }
        let expected = walk.sortedRows
        if actual != expected {
            let wrong = zip(actual, expected).filter { $0 != $1 }.prefix(3).map { "got \($0), expected \($1)" }
            Issue.record("\(label): \(actual.count) rows, expected \(expected.count); \(wrong)")
        }
        for row in expected where row.key % 3 == 0 {
            let found = context.model(for: row.id!) as? T
            // (`isDeleted` first: reading a property of a model whose row is gone stops the program.)
            #expect(found.map { !$0.isDeleted && $0.key == row.key } == true, "\(label): model(for:) of #\(row.key)")
        }

        // Changes: a few updates, deletes and inserts, sometimes a repair that lets stricter versions in.
        func randomNote(_ walk: inout Walk) -> String? {
            shape.note == .absent ? nil : shape.note == .optional && walk.chance(1, in: 3) ? nil : walk.pick(Self.names) + "!"
        }
        func randomScore(_ walk: inout Walk) -> Int? {
            shape.score == .absent ? nil : shape.score == .optional && walk.chance(1, in: 3) ? nil
                : walk.chance(1, in: 10) ? walk.pick([Int.min, Int.max, 0]) : Int(walk.rng.next() % 2001) - 1000
        }
        func randomCode(_ walk: inout Walk) -> String {
            shape.uniqueCode || walk.chance(1, in: 3) ? walk.freshCode() : walk.pick(Self.codes)
        }
        if initialRows == 0 {
            for _ in 0..<Int(walk.rng.next() % 4) where !models.isEmpty {
                let model = walk.pick(models)
                model.logicalName = walk.pick(Self.names)
                if shape.note != .absent, walk.chance(1, in: 2) { model.logicalNote = randomNote(&walk) }
                if shape.score != .absent, walk.chance(1, in: 2) { model.logicalScore = randomScore(&walk) }
                if walk.chance(1, in: 2) { model.code = randomCode(&walk) }
                walk.rows[model.key] = Expected(
                    key: model.key, name: model.logicalName, note: model.logicalNote, score: model.logicalScore, code: model.code,
                    id: model.persistentModelID)
            }
            for _ in 0..<Int(walk.rng.next() % 3) where models.count > 3 {
                let model = models.remove(at: Int(walk.rng.next() % UInt64(models.count)))
                walk.rows[model.key] = nil
                context.delete(model)
            }
            if walk.chance(1, in: 2) {
                for model in models {
                    if shape.note == .optional, model.logicalNote == nil { model.logicalNote = "filled" }
                    if shape.score == .optional, model.logicalScore == nil { model.logicalScore = -1 }
                    walk.rows[model.key]?.note = model.logicalNote
                    walk.rows[model.key]?.score = model.logicalScore
                }
            }
            if !shape.uniqueCode, walk.chance(1, in: 2) {
                var seen: [String] = []
                for model in models {
                    if seen.contains(model.code) { model.code = walk.freshCode() }
                    seen.append(model.code)
                    walk.rows[model.key]?.code = model.code
                }
            }
        }
        var inserted: [T] = []
        for _ in 0..<(initialRows > 0 ? initialRows : 1 + Int(walk.rng.next() % 3)) {
            let key = walk.nextKey
            walk.nextKey += 1
            let model = T.make(key: key, name: walk.pick(Self.names), note: randomNote(&walk), score: randomScore(&walk), code: randomCode(&walk))
            context.insert(model)
            inserted.append(model)
        }
        try context.save()
        for model in inserted {
            walk.rows[model.key] = Expected(
                key: model.key, name: model.logicalName, note: model.logicalNote, score: model.logicalScore, code: model.code,
                id: model.persistentModelID)
        }
    }
}

extension PropItem {
    /// ``MigrationPropertyTests/visit(_:url:walk:label:initialRows:)`` with this version.
    static func visit(url: URL, walk: inout MigrationPropertyTests.Walk, label: String, initialRows: Int = 0) throws {
        try MigrationPropertyTests.visit(Self.self, url: url, walk: &walk, label: label, initialRows: initialRows)
    }
}
