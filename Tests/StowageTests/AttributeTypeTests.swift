import Foundation
import GRDB
import Stowage
import Testing

/// Item 3: every attribute type round-trips exactly through a file store and a fresh container.
@Suite struct AttributeTypeTests {
    /// Saves `configure`d models in one container, reopens the file in a fresh container, and returns the
    /// models fetched there, in insertion order.
    private func roundTrip(_ configure: [(Everything) -> Void]) throws -> (url: URL, models: [Everything], directory: TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let url = directory.file()
        do {
            let container = try ModelContainer(for: Everything.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            for body in configure {
                let model = Everything()
                body(model)
                context.insert(model)
            }
            try context.save()
        }
        let container = try ModelContainer(for: Everything.self, configurations: ModelConfiguration(url: url))
        let models = try ModelContext(container).fetch(FetchDescriptor<Everything>())
        let ordered = models.sorted { ($0.persistentModelID.primaryKey ?? 0) < ($1.persistentModelID.primaryKey ?? 0) }
        return (url, ordered, directory)
    }

    @Test func integersAtTheirLimits() throws {
        let (_, models, directory) = try roundTrip([
            {
                $0.int = .max; $0.int8 = .max; $0.int16 = .max; $0.int32 = .max; $0.int64 = .max
                $0.uint = .max; $0.uint8 = .max; $0.uint16 = .max; $0.uint32 = .max; $0.uint64 = .max
            },
            {
                $0.int = .min; $0.int8 = .min; $0.int16 = .min; $0.int32 = .min; $0.int64 = .min
                $0.uint = 0; $0.uint8 = 0; $0.uint16 = 0; $0.uint32 = 0; $0.uint64 = 0
            },
            {
                $0.int64 = -1; $0.uint64 = UInt64(Int64.max) + 1; $0.uint = UInt(Int64.max)
            },
        ])
        defer { directory.remove() }
        try #require(models.count == 3)
        #expect(models[0].int == .max && models[0].int8 == .max && models[0].int16 == .max)
        #expect(models[0].int32 == .max && models[0].int64 == .max)
        #expect(models[0].uint == .max && models[0].uint8 == .max && models[0].uint16 == .max)
        #expect(models[0].uint32 == .max && models[0].uint64 == .max)
        #expect(models[1].int == .min && models[1].int8 == .min && models[1].int16 == .min)
        #expect(models[1].int32 == .min && models[1].int64 == .min)
        #expect(models[1].uint == 0 && models[1].uint64 == 0)
        #expect(models[2].int64 == -1)
        #expect(models[2].uint64 == UInt64(Int64.max) + 1)
        #expect(models[2].uint == UInt(Int64.max))
    }

    @Test func boolsAndFloatingPointToTheLastBit() throws {
        let doubles: [Double] = [0, .infinity, -.infinity, .pi, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 1e-300, 0.1, -42]
        let floats: [Float] = [.infinity, -.infinity, .pi, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1, -3]
        var configure: [(Everything) -> Void] = []
        for (index, double) in doubles.enumerated() {
            let float = floats[index % floats.count]
            configure.append {
                $0.bool = index.isMultiple(of: 2)
                $0.double = double
                $0.float = float
                $0.optionalDouble = double
                $0.optionalFloat = float
                $0.optionalBool = !index.isMultiple(of: 2)
            }
        }
        let (_, models, directory) = try roundTrip(configure)
        defer { directory.remove() }
        try #require(models.count == doubles.count)
        for (index, model) in models.enumerated() {
            let float = floats[index % floats.count]
            #expect(model.bool == index.isMultiple(of: 2))
            #expect(model.optionalBool == !index.isMultiple(of: 2))
            #expect(model.double.bitPattern == doubles[index].bitPattern, "Double \(doubles[index]) came back as \(model.double)")
            #expect(model.optionalDouble?.bitPattern == doubles[index].bitPattern)
            #expect(model.float.bitPattern == float.bitPattern, "Float \(float) came back as \(model.float)")
            #expect(model.optionalFloat?.bitPattern == float.bitPattern)
        }
    }

    /// SQLite writes a REAL equal to an integer as that integer (a space optimisation of REAL-affinity
    /// columns), so -0.0 reads back as +0.0, as it does from Core Data's SQLite stores. Keeping the sign
    /// would take columns without REAL affinity.
    @Test func negativeZero() throws {
        let (_, models, directory) = try roundTrip([{ $0.double = -0.0; $0.float = -0.0; $0.optionalDouble = -0.0 }])
        defer { directory.remove() }
        let model = try #require(models.first)
        #expect(model.double == 0 && model.float == 0 && model.optionalDouble == 0)
        withKnownIssue("SQLite stores -0.0 in a REAL column as the integer 0") {
            #expect(model.double.sign == .minus)
            #expect(model.float.sign == .minus)
            #expect(model.optionalDouble?.sign == .minus)
        }
    }

    @Test func decimalsKeepEveryDigit() throws {
        let decimals = [
            "12345678901234567890.123456789012345678",
            "-0.00000000000000000000000000000000000001",
            "99999999999999999999999999999999999999",
            "0.1", "-3.14159265358979323846264338327950288", "0",
        ].map { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX"))! }
        let (_, models, directory) = try roundTrip(decimals.map { decimal in { $0.decimal = decimal; $0.optionalDecimal = decimal } })
        defer { directory.remove() }
        #expect(models.map(\.decimal) == decimals)
        #expect(models.map(\.optionalDecimal) == decimals)
    }

    /// `Decimal` predicates and sorts run in SQL (strict mode refuses anything else) and give Swift's
    /// answers: `1.50 == 1.5`, negatives below zero, 38 digits told apart, NaN below every number.
    @Test func decimalsCompareAndSortInSQLAsInSwift() throws {
        let texts = ["1.5", "1.50", "-2", "10", "0.1", "-0.10", "0", "99999999999999999999999999999999999999",
                     "99999999999999999999999999999999999998", "-3.14159265358979323846264338327950288", "0.000000000000000000000000000001"]
        let decimals = texts.map { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX"))! } + [.nan]
        let (url, _, directory) = try roundTrip(decimals.enumerated().map { index, decimal in
            { $0.decimal = decimal; $0.optionalDecimal = index % 3 == 0 ? nil : decimal; $0.int = index }
        })
        defer { directory.remove() }
        let context = ModelContext(try ModelContainer(for: Everything.self, configurations: ModelConfiguration(url: url)))
        context.requiresSQLTranslation = true
        let all = try context.fetch(FetchDescriptor<Everything>(sortBy: [SortDescriptor(\.int)]))
        #expect(all.last?.decimal.isNaN == true)
        for probe in decimals {
            let predicates: [Predicate<Everything>] = [
                #Predicate { $0.decimal == probe }, #Predicate { $0.decimal != probe }, #Predicate { $0.decimal < probe },
                #Predicate { $0.decimal >= probe }, #Predicate { $0.optionalDecimal == probe }, #Predicate { $0.optionalDecimal != nil && $0.optionalDecimal! > probe },
                #Predicate { [probe, 1].contains($0.decimal) },
            ]
            for predicate in predicates {
                let fetched = try context.fetch(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.int)])).map(\.int)
                #expect(fetched == (try all.filter { try predicate.evaluate($0) }.map(\.int)), "\(probe)")
            }
        }
        for order in [SortOrder.forward, .reverse] {
            let sorted = try context.fetch(FetchDescriptor(sortBy: [SortDescriptor(\Everything.decimal, order: order), SortDescriptor(\.int)]))
            let expected = all.sorted { a, b in
                if a.decimal != b.decimal { return order == .forward ? a.decimal < b.decimal : b.decimal < a.decimal }
                return a.int < b.int
            }
            #expect(sorted.map(\.int) == expected.map(\.int))
        }
    }

    @Test func stringsWithNULEmojiAndTenMegabytes() throws {
        let large = String(repeating: "0123456789abcdé\u{1F600}", count: 10 * 1024 * 1024 / 20)
        let strings = ["a\0b\0", "\0", "", "👩‍👩‍👧‍👦 families, ☃︎, e\u{301}", "it's \"quoted\"", large]
        let (_, models, directory) = try roundTrip(strings.map { string in { $0.string = string; $0.optionalString = string } })
        defer { directory.remove() }
        try #require(models.count == strings.count)
        for (model, string) in zip(models, strings) {
            #expect(Array(model.string.utf8) == Array(string.utf8))
            #expect(model.optionalString.map { Array($0.utf8) } == Array(string.utf8))
        }
        #expect(models[5].string.utf8.count >= 10 * 1024 * 1024)
    }

    @Test func datesUUIDsURLsAndData() throws {
        let dates = [
            Date(timeIntervalSinceReferenceDate: 123456.789012345),
            Date(timeIntervalSinceReferenceDate: -987654321.000000123),
            Date(timeIntervalSince1970: 0),
            Date.distantFuture,
            Date(timeIntervalSinceReferenceDate: 0.1 + 0.2),
        ]
        let uuids = (0..<dates.count).map { _ in UUID() }
        let urls = [
            URL(string: "https://example.com/a%20b/c?d=e&f=%C3%A9#frag")!,
            URL(fileURLWithPath: "/tmp/some dir/file.txt"),
            URL(string: "mailto:someone@example.com")!,
            URL(string: "relative/path")!,
            URL(string: "https://example.com")!,
        ]
        let large = Data((0..<(3 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let datas = [Data(), Data([0]), Data([0, 1, 2, 0, 255]), large, Data("text".utf8)]
        var configure: [(Everything) -> Void] = []
        for index in dates.indices {
            configure.append {
                $0.date = dates[index]; $0.optionalDate = dates[index]
                $0.uuid = uuids[index]; $0.optionalUUID = uuids[index]
                $0.url = urls[index]; $0.optionalURL = urls[index]
                $0.data = datas[index]; $0.optionalData = datas[index]
            }
        }
        let (url, models, directory) = try roundTrip(configure)
        defer { directory.remove() }
        try #require(models.count == dates.count)
        for (index, model) in models.enumerated() {
            #expect(model.date.timeIntervalSinceReferenceDate.bitPattern == dates[index].timeIntervalSinceReferenceDate.bitPattern)
            #expect(model.optionalDate == dates[index])
            #expect(model.uuid == uuids[index] && model.optionalUUID == uuids[index])
            #expect(model.url == urls[index] && model.optionalURL == urls[index])
            #expect(model.data == datas[index] && model.optionalData == datas[index])
        }
        // Dates are REAL seconds since 2001, UUIDs uppercase TEXT, Data a BLOB (an empty one included).
        let rows = try rawRead(url) { db in
            try GRDB.Row.fetchAll(db, sql: "SELECT typeof(date), date, typeof(uuid), uuid, typeof(data) FROM Everything ORDER BY _pk")
        }
        #expect(rows.map { $0[0] as String } == Array(repeating: "real", count: dates.count))
        #expect(rows[0][1] as Double == 123456.789012345)
        #expect(rows.map { $0[2] as String } == Array(repeating: "text", count: dates.count))
        #expect(rows.map { $0[3] as String } == uuids.map(\.uuidString))
        #expect(rows.map { $0[4] as String } == Array(repeating: "blob", count: dates.count))
    }

    @Test func optionalsStoreNULL() throws {
        let (url, models, directory) = try roundTrip([{ _ in }])
        defer { directory.remove() }
        let model = try #require(models.first)
        #expect(model.optionalBool == nil && model.optionalInt == nil && model.optionalInt8 == nil)
        #expect(model.optionalInt16 == nil && model.optionalInt32 == nil && model.optionalInt64 == nil)
        #expect(model.optionalUInt == nil && model.optionalUInt8 == nil && model.optionalUInt16 == nil)
        #expect(model.optionalUInt32 == nil && model.optionalUInt64 == nil && model.optionalDouble == nil)
        #expect(model.optionalFloat == nil && model.optionalDecimal == nil && model.optionalString == nil)
        #expect(model.optionalDate == nil && model.optionalUUID == nil && model.optionalURL == nil)
        #expect(model.optionalData == nil && model.optionalMood == nil && model.optionalPriority == nil)
        #expect(model.optionalAddress == nil && model.optionalShape == nil && model.optionalStrings == nil)
        #expect(model.optionalCounts == nil)
        let nulls = try rawRead(url) { db in
            try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM Everything WHERE optionalBool IS NULL AND optionalInt IS NULL
                AND optionalUInt64 IS NULL AND optionalString IS NULL AND optionalData IS NULL
                AND optionalMood IS NULL AND optionalAddress IS NULL AND optionalCounts IS NULL
                """)
        }
        #expect(nulls == 1)
    }

    @Test func optionalsOfEachTypeWithValues() throws {
        let uuid = UUID()
        let (_, models, directory) = try roundTrip([{
            $0.optionalInt = .min; $0.optionalInt8 = -8; $0.optionalInt16 = -16; $0.optionalInt32 = -32
            $0.optionalInt64 = .max; $0.optionalUInt = .max; $0.optionalUInt8 = 8; $0.optionalUInt16 = 16
            $0.optionalUInt32 = 32; $0.optionalUInt64 = .max; $0.optionalUUID = uuid
            $0.optionalMood = .sad; $0.optionalPriority = .extreme
            $0.optionalAddress = Address(street: "1 Loop", zip: 95014, unit: nil)
            $0.optionalShape = .circle(radius: 2); $0.optionalStrings = []; $0.optionalCounts = ["a": 1]
        }])
        defer { directory.remove() }
        let model = try #require(models.first)
        #expect(model.optionalInt == .min && model.optionalInt8 == -8 && model.optionalInt16 == -16)
        #expect(model.optionalInt32 == -32 && model.optionalInt64 == .max && model.optionalUInt == .max)
        #expect(model.optionalUInt8 == 8 && model.optionalUInt16 == 16 && model.optionalUInt32 == 32)
        #expect(model.optionalUInt64 == .max && model.optionalUUID == uuid)
        #expect(model.optionalMood == .sad && model.optionalPriority == .extreme)
        #expect(model.optionalAddress == Address(street: "1 Loop", zip: 95014, unit: nil))
        #expect(model.optionalShape == .circle(radius: 2))
        #expect(model.optionalStrings == [] && model.optionalCounts == ["a": 1])
    }

    @Test func rawRepresentableEnumsStoreTheirRawValue() throws {
        let (url, models, directory) = try roundTrip([
            { $0.mood = .sad; $0.priority = .high; $0.optionalMood = .quoted; $0.optionalPriority = .extreme },
            { $0.mood = .quoted; $0.priority = .extreme },
        ])
        defer { directory.remove() }
        try #require(models.count == 2)
        #expect(models[0].mood == .sad && models[0].priority == .high)
        #expect(models[0].optionalMood == .quoted && models[0].optionalPriority == .extreme)
        #expect(models[1].mood == .quoted && models[1].priority == .extreme)
        #expect(models[1].optionalMood == nil && models[1].optionalPriority == nil)
        let rows = try rawRead(url) { db in
            try GRDB.Row.fetchAll(db, sql: "SELECT mood, typeof(mood), priority, typeof(priority), optionalMood, optionalPriority FROM Everything ORDER BY _pk")
        }
        #expect(rows[0][0] as String == "sad")
        #expect(rows[0][1] as String == "text")
        #expect(rows[0][2] as Int == 10)
        #expect(rows[0][3] as String == "integer")
        #expect(rows[0][4] as String == "it's quoted")
        #expect(rows[0][5] as Int == -7)
        #expect(rows[1][0] as String == "it's quoted")
        #expect(rows[1][2] as Int == -7)
        #expect(rows[1][4] as String? == nil)
    }

    @Test func codableCompositesArraysAndDictionaries() throws {
        let address = Address(street: "1 Infinite Loop, \"Cupertino\"", zip: 95014, unit: "B\0")
        let shapes: [Shape] = [
            .circle(radius: 1.5), .rectangle(width: 2, height: 3), .labelled("ℓ", address), .empty,
        ]
        let (url, models, directory) = try roundTrip(shapes.map { shape in {
            $0.address = address
            $0.shape = shape
            $0.strings = ["a", "", "b\0c", "🙂"]
            $0.addresses = [address, Address(street: "x", zip: -1)]
            $0.counts = ["one": 1, "minus": -1, "max": .max]
            $0.shapesByName = ["s": shape]
        } })
        defer { directory.remove() }
        try #require(models.count == shapes.count)
        for (model, shape) in zip(models, shapes) {
            #expect(model.address == address)
            #expect(model.shape == shape)
            #expect(model.strings == ["a", "", "b\0c", "🙂"])
            #expect(model.addresses == [address, Address(street: "x", zip: -1)])
            #expect(model.counts == ["one": 1, "minus": -1, "max": .max])
            #expect(model.shapesByName == ["s": shape])
        }
        // Composite values are JSON text a person can read in the sqlite3 shell.
        let stored = try rawRead(url) { db in
            try String.fetchOne(db, sql: "SELECT json_extract(address, '$.zip') || ',' || typeof(address) FROM Everything LIMIT 1")
        }
        #expect(stored == "95014,text")
    }

    @Test func valuesSurviveAnUpdate() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file()
        do {
            let container = try ModelContainer(for: Everything.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            context.insert(Everything())
            try context.save()
            let model = try #require(try context.fetch(FetchDescriptor<Everything>()).first)
            model.string = "x\0y"
            model.uint64 = .max
            model.optionalDecimal = Decimal(string: "1.000000000000000000000000000000000001")
            model.optionalMood = .quoted
            model.shape = .rectangle(width: -0.5, height: 1)
            try context.save()
        }
        let container = try ModelContainer(for: Everything.self, configurations: ModelConfiguration(url: url))
        let model = try #require(try ModelContext(container).fetch(FetchDescriptor<Everything>()).first)
        #expect(model.string == "x\0y")
        #expect(model.uint64 == .max)
        #expect(model.optionalDecimal == Decimal(string: "1.000000000000000000000000000000000001"))
        #expect(model.optionalMood == .quoted)
        #expect(model.shape == .rectangle(width: -0.5, height: 1))
    }
}
