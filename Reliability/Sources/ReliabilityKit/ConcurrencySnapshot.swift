import Foundation
import Stowage

// "Snapshot isolation": bank transfers. N accounts hold a fixed total; 2 tellers (@ModelActors) each
// make transfers, each moving an amount between two random accounts in ONE save; 3 auditors fetch every
// account (one fetch) again and again and sum the balances, and an auditor on a live `ResultsObserver`
// sums each snapshot it is given. A reader that saw half of a transfer would find another total.
//
// Stowage has no optimistic locking: two contexts that read a balance and both save a new one lose
// one of the changes (last writer wins per property, see "conflicting-edits"). The tellers therefore
// lock the two accounts of a transfer around its fetch, change and save, as an app coordinating its
// writers would; the transfers of different accounts still save concurrently. What is tested is the
// readers' side: every fetch and every snapshot sees whole saves, and the final balances are exactly
// the initial ones plus every transfer made.

@Model final class IsolationAccount {
    @Attribute(.unique) var number: Int
    var balance: Int

    init(number: Int, balance: Int) {
        self.number = number
        self.balance = balance
    }
}

/// One transfer a teller made: `amount` from account `from` to account `to`.
struct IsolationTransfer: Sendable {
    let from: Int
    let to: Int
    let amount: Int
}

/// What one teller did.
struct IsolationTellerResult: Sendable {
    var transfers: [IsolationTransfer] = []
    var busy = 0
    var errors: [String] = []
}

/// A lock per account, taken in account order.
final class IsolationAccountLocks: Sendable {
    private let locks: [NSLock]

    init(count: Int) { locks = (0..<count).map { _ in NSLock() } }

    func withLocks<Result>(_ a: Int, _ b: Int, _ body: () throws -> Result) rethrows -> Result {
        try locks[min(a, b)].withLock { try locks[max(a, b)].withLock { try body() } }
    }
}

@ModelActor
actor IsolationTeller {
    func run(transfers: Int, accounts: Int, seed: UInt64, locks: IsolationAccountLocks) -> IsolationTellerResult {
        var random = SeededGenerator(seed: seed)
        var result = IsolationTellerResult()
        for index in 0..<transfers {
            let from = Int.random(in: 0..<accounts, using: &random)
            var to = Int.random(in: 0..<(accounts - 1), using: &random)
            if to >= from { to += 1 }
            let amount = Int.random(in: 1...250, using: &random)
            locks.withLocks(from, to) {
                do {
                    let pair = try modelContext.fetch(FetchDescriptor<IsolationAccount>(predicate: #Predicate { $0.number == from || $0.number == to }))
                    guard pair.count == 2, let source = pair.first(where: { $0.number == from }), let target = pair.first(where: { $0.number == to }) else {
                        result.errors.append("transfer \(index): fetched \(pair.count) accounts for \(from) and \(to)")
                        return
                    }
                    source.balance -= amount
                    target.balance += amount
                    var attempts = 0
                    while true {
                        do {
                            try modelContext.save()
                            result.transfers.append(IsolationTransfer(from: from, to: to, amount: amount))
                            return
                        } catch {
                            attempts += 1
                            if concurrencyIsBusy(error) { result.busy += 1 } else { result.errors.append("transfer \(index): \(error)") }
                            if attempts == 5 {
                                modelContext.rollback()
                                return
                            }
                        }
                    }
                } catch {
                    result.errors.append("transfer \(index): the fetch failed: \(error)")
                }
            }
        }
        return result
    }
}

/// What one auditor saw.
struct IsolationAuditResult: Sendable {
    var reads = 0
    var readsWhileWriting = 0
    var violations = 0
    var problems: [String] = []
}

@ModelActor
actor IsolationAuditor {
    /// Sums every balance, one fetch at a time, until told to stop (then once more).
    func run(accounts: Int, total: Int, stop: ConcurrencyShared<Bool>) -> IsolationAuditResult {
        var result = IsolationAuditResult()
        var last = false
        while true {
            if stop.current { last = true }
            do {
                let all = try modelContext.fetch(FetchDescriptor<IsolationAccount>())
                let sum = all.reduce(0) { $0 + $1.balance }
                result.reads += 1
                if !last { result.readsWhileWriting += 1 }
                if sum != total || all.count != accounts {
                    result.violations += 1
                    if result.problems.count < 5 { result.problems.append("a fetch of \(all.count) accounts summed to \(sum), not \(total)") }
                }
            } catch {
                if result.problems.count < 5 { result.problems.append("a fetch failed: \(error)") }
            }
            if last { return result }
        }
    }

    /// The balances, by account number.
    func balances() throws -> [Int] {
        try modelContext.fetch(FetchDescriptor<IsolationAccount>(sortBy: [SortDescriptor(\.number)])).map(\.balance)
    }

    func open(accounts: Int, balance: Int) throws {
        for number in 0..<accounts { modelContext.insert(IsolationAccount(number: number, balance: balance)) }
        try modelContext.save()
    }
}

/// What the observer auditor saw.
struct IsolationObserverState: Sendable {
    var snapshots = 0
    var violations = 0
    var lastSum = 0
    var lastBalances: [Int] = []
    var problems: [String] = []
}

/// Sums the balances of each snapshot a live `ResultsObserver` of every account publishes.
@ModelActor
actor IsolationObserverAuditor {
    private var observer: ResultsObserver<IsolationAccount, Never>?

    func follow(accounts: Int, total: Int, _ state: ConcurrencyShared<IsolationObserverState>) async throws {
        let observer = try ResultsObserver<IsolationAccount, Never>(sortBy: [SortDescriptor(\.number)], modelContext: modelContext)
        self.observer = observer
        defer { self.observer = nil }
        for await snapshot in observer.updates() {
            let balances = snapshot.results.map(\.balance)
            let sum = balances.reduce(0, +)
            state.update { state in
                state.snapshots += 1
                state.lastSum = sum
                state.lastBalances = balances
                if sum != total || balances.count != accounts {
                    state.violations += 1
                    if state.problems.count < 5 { state.problems.append("a snapshot of \(balances.count) accounts summed to \(sum), not \(total)") }
                }
            }
        }
    }
}

enum SnapshotIsolation {
    static let scenario = Scenario(
        "snapshot-isolation",
        "bank transfers, 2 writers × 400 (one save each) while 3 readers and a live observer sum the balances: 0 invariant violations, final balances exact"
    ) { options in
        var report = Report("snapshot-isolation")
        let accounts = 20
        let opening = 1_000
        let total = accounts * opening
        let tellers = 2
        let transfers = options.size(quick: 150, full: 400)
        let auditors = 3
        let seed = SeededGenerator.seed()
        report.figure("seed", "\(seed)")
        let store = options.directory.appendingPathComponent("bank.store")
        let container = try ModelContainer(for: IsolationAccount.self, configurations: ModelConfiguration(url: store))
        try await IsolationAuditor(modelContainer: container).open(accounts: accounts, balance: opening)

        let stop = ConcurrencyShared(false)
        let observerState = ConcurrencyShared(IsolationObserverState())
        let observerAuditor = IsolationObserverAuditor(modelContainer: container)
        let locks = IsolationAccountLocks(count: accounts)
        var tellerResults: [IsolationTellerResult] = []
        var auditResults: [IsolationAuditResult] = []
        var observerSettled = false

        await withThrowingTaskGroup(of: Void.self) { observing in
            observing.addTask { try await observerAuditor.follow(accounts: accounts, total: total, observerState) }
            report.check(await concurrencyEventually(timeout: 120) { observerState.current.snapshots > 0 }, "the observer published its first snapshot")
            (tellerResults, auditResults) = await withTaskGroup(of: Either.self) { group in
                for _ in 0..<auditors {
                    let auditor = IsolationAuditor(modelContainer: container)
                    group.addTask { .audit(await auditor.run(accounts: accounts, total: total, stop: stop)) }
                }
                for teller in 0..<tellers {
                    let tellerSeed = seed &+ UInt64(teller) &* 0x9E37_79B9
                    group.addTask {
                        .teller(await IsolationTeller(modelContainer: container).run(transfers: transfers, accounts: accounts, seed: tellerSeed, locks: locks))
                    }
                }
                var tellerResults: [IsolationTellerResult] = []
                var auditResults: [IsolationAuditResult] = []
                for await result in group {
                    switch result {
                    case .teller(let result):
                        tellerResults.append(result)
                        if tellerResults.count == tellers { stop.update { $0 = true } }
                    case .audit(let result):
                        auditResults.append(result)
                    }
                }
                return (tellerResults, auditResults)
            }
            // The observer ends with the final balances, without anyone reading its results.
            let expected = SnapshotIsolation.expectedBalances(opening: opening, accounts: accounts, tellerResults.flatMap(\.transfers))
            observerSettled = await concurrencyEventually(timeout: 120) { observerState.current.lastBalances == expected }
            observing.cancelAll()
        }

        let expected = SnapshotIsolation.expectedBalances(opening: opening, accounts: accounts, tellerResults.flatMap(\.transfers))
        let balances = try await IsolationAuditor(modelContainer: container).balances()
        let reopened = try ModelContainer(for: IsolationAccount.self, configurations: ModelConfiguration(url: store))
        let balancesReopened = try await IsolationAuditor(modelContainer: reopened).balances()
        let made = tellerResults.reduce(0) { $0 + $1.transfers.count }
        let busy = tellerResults.reduce(0) { $0 + $1.busy }
        let errors = tellerResults.flatMap(\.errors)
        let violations = auditResults.reduce(0) { $0 + $1.violations }
        let observed = observerState.current

        report.figure("accounts", "\(accounts), total \(total)")
        report.figure("transfers", "\(made) of \(tellers) × \(transfers)")
        report.figure("reads", auditResults.reduce(0) { $0 + $1.reads })
        report.figure("reads while transferring", auditResults.reduce(0) { $0 + $1.readsWhileWriting })
        report.figure("violations", violations)
        report.figure("observer snapshots", observed.snapshots)
        report.figure("observer violations", observed.violations)
        report.figure("final sum", balances.reduce(0, +))
        report.figure("accounts off their expected balance", zip(balances, expected).count { $0 != $1 })
        report.figure("busy errors", busy)

        report.check(made == tellers * transfers, "\(tellers * transfers - made) transfers failed: \(errors.prefix(3))")
        report.check(busy == 0, "\(busy) saves reported SQLITE_BUSY to the caller")
        report.check(auditResults.count == auditors, "\(auditResults.count) auditors of \(auditors) ended")
        for (index, result) in auditResults.enumerated() {
            report.check(result.violations == 0 && result.problems.isEmpty, "auditor \(index): \(result.problems.joined(separator: "; "))")
        }
        report.check(observerSettled, "the observer's last snapshot has balances \(observed.lastBalances), not the final \(expected)")
        report.check(observed.violations == 0 && observed.problems.isEmpty, "observer: \(observed.problems.joined(separator: "; "))")
        report.check(observed.lastSum == total, "the observer's last snapshot sums to \(observed.lastSum), not \(total)")
        report.check(balances == expected, "final balances \(balances) differ from the transfers' \(expected)")
        report.check(balancesReopened == expected, "final balances after reopening \(balancesReopened) differ from the transfers' \(expected)")
        return report
    }

    /// The balances after `transfers`, by account number.
    static func expectedBalances(opening: Int, accounts: Int, _ transfers: [IsolationTransfer]) -> [Int] {
        var balances = Array(repeating: opening, count: accounts)
        for transfer in transfers {
            balances[transfer.from] -= transfer.amount
            balances[transfer.to] += transfer.amount
        }
        return balances
    }

    enum Either: Sendable {
        case teller(IsolationTellerResult)
        case audit(IsolationAuditResult)
    }
}
