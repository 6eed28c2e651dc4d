import Foundation
import Stowage

// L1–L3: live results (ResultsObserver). Stowage only: the baselines are Stowage's own plain fetches.

/// L2's entities: one save touches one of them, observed alongside the others.
@Model final class LiveA {
    var value: Int
    init(value: Int) { self.value = value }
}

@Model final class LiveB {
    var value: Int
    init(value: Int) { self.value = value }
}

@Model final class LiveC {
    var value: Int
    init(value: Int) { self.value = value }
}

@Model final class LiveD {
    var value: Int
    init(value: Int) { self.value = value }
}

/// Counts the statements containers run, by whether their text names an entity's table.
final class StatementCounter: @unchecked Sendable {
    // @unchecked Sendable: `texts` is behind `lock`; SQLDebug calls from the threads that run statements.
    private let lock = NSLock()
    private var texts: [String] = []
    private var observation: SQLObservation?

    init() {
        observation = SQLDebug.observe { [weak self] event in
            guard let self else { return }
            self.lock.withLock { self.texts.append(event.sql) }
        }
    }

    func reset() { lock.withLock { texts = [] } }

    /// The reads (SELECTs) of `table` since the last reset.
    func reads(of table: String) -> Int {
        lock.withLock { texts.filter { $0.hasPrefix("SELECT") && $0.contains("FROM \"\(table)\"") }.count }
    }
}

@MainActor
enum LiveWorkloads {
    /// L1: a 10k-row observer sorted by `i2`; another context changes one row's `i2` and saves. Returns,
    /// per change, the time from `save()` returning to the observer's update (its snapshot delivered),
    /// the time to fetch that row by identifier in a context that does not hold it, (another series of
    /// changes) the time `results` takes to apply one when read on the observer's actor at once, and the
    /// same two task hops with no Stowage work between them: a task started on the main actor yields to
    /// a stream that this task awaits.
    static func latency(path: String, rows: Int, changes: Int) async throws -> (update: [Double], save: [Double], refetch: [Double], readAtOnce: [Double], hops: [Double]) {
        let container = try StowageContender.open(path)
        try bulkFill(path: path, table: "BenchRow", primaryKey: "_pk", count: rows)
        let identifiers = try ModelContext(container).fetchIdentifiers(FetchDescriptor<BenchRow>())
        let observer = try ResultsObserver<BenchRow, Never>(sortBy: [SortDescriptor(\.i2)], modelContainer: container)
        var updates = observer.updates().makeAsyncIterator()
        _ = await updates.next(isolation: #isolation)
        let writer = ModelContext(container)
        let reader = ModelContext(container)
        var generator = SystemRandomNumberGenerator()
        var update: [Double] = [], save: [Double] = [], refetch: [Double] = [], inPlace: [Double] = []
        for _ in 0..<changes {
            let id = identifiers[Int.random(in: 0..<identifiers.count, using: &generator)]
            (writer.model(for: id) as! BenchRow).i2 = Int.random(in: 0..<1_000_000, using: &generator)
            let start = DispatchTime.now().uptimeNanoseconds
            try writer.save()
            let saved = DispatchTime.now().uptimeNanoseconds
            guard let snapshot = await updates.next(isolation: #isolation), snapshot.difference?.isEmpty == false else {
                throw BenchError(description: "L1: the observer did not report the change")
            }
            let end = DispatchTime.now().uptimeNanoseconds
            save.append(Double(saved - start) / 1e6)
            update.append(Double(end - saved) / 1e6)
            refetch.append(try time {
                blackHole(try reader.fetch(FetchDescriptor<BenchRow>(predicate: #Predicate { $0.persistentModelID == id })))
            })
        }
        // The same change, read at once on the observer's actor: the update without the task hops.
        for _ in 0..<changes {
            let id = identifiers[Int.random(in: 0..<identifiers.count, using: &generator)]
            (writer.model(for: id) as! BenchRow).i2 = Int.random(in: 0..<1_000_000, using: &generator)
            try writer.save()
            let start = DispatchTime.now().uptimeNanoseconds
            blackHole(observer.results)
            inPlace.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            _ = await updates.next(isolation: #isolation)
        }
        // The task hops alone: what the runtime costs between a save and a snapshot in another task.
        // Each follows a save of the same size to another store that no one observes (the threads are
        // as idle as after the changes above).
        let unobserved = try StowageContender.open(path + "-hops")
        let other = ModelContext(unobserved)
        let row = BenchRow(RowValues.make(0))
        other.insert(row)
        try other.save()
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        var deliveries = stream.makeAsyncIterator()
        var hops: [Double] = []
        for _ in 0..<changes {
            row.i2 = Int.random(in: 0..<1_000_000, using: &generator)
            try other.save()
            let start = DispatchTime.now().uptimeNanoseconds
            Task { @MainActor in continuation.yield(()) }
            _ = await deliveries.next(isolation: #isolation)
            hops.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        return (update, save, refetch, inPlace, hops)
    }

    /// L2: 100 observers on one container, 25 on each of four entities of 1,000 rows; one save
    /// changes one `LiveA` row. Returns, per save, the time from `save()` returning until the 25
    /// `LiveA` observers have updated, and the reads of each entity's table in that time.
    static func fanOut(path: String, saves: Int) async throws -> (ms: [Double], readsA: [Int], readsOthers: [Int]) {
        let counter = StatementCounter()  // before the container: SQLDebug reports the containers opened after
        let container = try ModelContainer(
            for: LiveA.self, LiveB.self, LiveC.self, LiveD.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
        let context = ModelContext(container)
        var rowsA: [LiveA] = []
        for value in 0..<1_000 {
            let a = LiveA(value: value)
            rowsA.append(a)
            context.insert(a)
            context.insert(LiveB(value: value))
            context.insert(LiveC(value: value))
            context.insert(LiveD(value: value))
        }
        try context.save()
        var observersA: [ResultsObserver<LiveA, Never>] = []
        var others: [AnyObject] = []
        for k in 0..<25 {
            // Distinct predicates that every row matches, alternating sort orders.
            let floor = -k - 1
            let order: SortOrder = k % 2 == 0 ? .forward : .reverse
            observersA.append(try ResultsObserver(filterBy: #Predicate { $0.value > floor }, sortBy: [SortDescriptor(\.value, order: order)], modelContainer: container))
            others.append(try ResultsObserver<LiveB, Never>(filterBy: #Predicate { $0.value > floor }, sortBy: [SortDescriptor(\.value, order: order)], modelContainer: container))
            others.append(try ResultsObserver<LiveC, Never>(filterBy: #Predicate { $0.value > floor }, sortBy: [SortDescriptor(\.value, order: order)], modelContainer: container))
            others.append(try ResultsObserver<LiveD, Never>(filterBy: #Predicate { $0.value > floor }, sortBy: [SortDescriptor(\.value, order: order)], modelContainer: container))
        }
        var iterators = observersA.map { $0.updates().makeAsyncIterator() }
        for index in iterators.indices { _ = await iterators[index].next(isolation: #isolation) }
        var ms: [Double] = [], readsA: [Int] = [], readsOthers: [Int] = []
        for round in 0..<saves {
            rowsA[(round * 37) % rowsA.count].value = 2_000 + round
            try context.save()
            counter.reset()
            let start = DispatchTime.now().uptimeNanoseconds
            for index in iterators.indices {
                guard await iterators[index].next(isolation: #isolation) != nil else { throw BenchError(description: "L2: an observer ended") }
            }
            ms.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            // Let any update that should not happen happen before counting.
            for _ in 0..<10 { await Task.yield() }
            readsA.append(counter.reads(of: "LiveA"))
            readsOthers.append(counter.reads(of: "LiveB") + counter.reads(of: "LiveC") + counter.reads(of: "LiveD"))
        }
        blackHole(others)
        return (ms, readsA, readsOthers)
    }

    /// L3: an observer over `rows` rows sorted by the indexed `i1`: the time from creating it to its
    /// first element, the resident memory it added, and reading every row through `results` (time and
    /// the largest resident memory seen, sampled every 100k rows).
    static func open(path: String, rows: Int) throws -> (firstMs: Double, firstRSS: Double, iterateMs: Double, peakRSS: Double, seen: Int) {
        let container = try StowageContender.open(path)
        try bulkFill(path: path, table: "BenchRow", primaryKey: "_pk", count: rows)
        let before = residentMB()
        var observer: ResultsObserver<BenchRow, Never>!
        var first: BenchRow?
        let firstMs = try time {
            observer = try ResultsObserver<BenchRow, Never>(sortBy: [SortDescriptor(\.i1)], modelContainer: container)
            first = observer.results.first
        }
        blackHole(first)
        let firstRSS = residentMB() - before
        var peak = firstRSS
        var seen = 0
        let iterateMs = time {
            for row in observer.results {
                blackHole(row)
                seen += 1
                if seen % 100_000 == 0 { peak = max(peak, residentMB() - before) }
            }
        }
        return (firstMs, firstRSS, iterateMs, peak, seen)
    }

    /// The process's resident memory, in MB.
    static func residentMB() -> Double {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
              let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Double($0) }) else { return .nan }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
    }
}
