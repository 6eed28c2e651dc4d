import Foundation
import Stowage

// SpendSmart's model versions and migration plan, from the "Migrations" section of the SwiftData
// article (seed 002): version 1 lets budget names repeat, version 2 makes them unique, and the custom
// stage's `willMigrate` renames the duplicates first. The article's code is kept as it is written,
// with three changes Swift 6 or the article's own gaps call for:
//
// - `static let versionIdentifier: String?` where the article writes `static var`: Swift 6 refuses a
//   mutable static (shared mutable state). Stowage accepts the article's text identifier beside
//   SwiftData's `Schema.Version` (see `VersionedSchemaTextIdentifier`).
// - Each version nests its own `Transaction` as well as its `Budget`: a version lists every model it
//   stores, and the article's top-level `Transaction` points at `Budget`, which is version 2's class.
// - `generateUniqueRandomNumber()`, which the article calls without showing, is defined below.
//
// Version 0 is SpendSmart before budgets had transactions (the Quick Start's model): stores from then
// are brought to version 1 by a lightweight stage, then to version 2.

/// The models the rest of SpendSmart uses: the newest version's, through type aliases, as the article
/// recommends ("make a typealias to point to the correct Budget model version").
typealias Budget = SpendTrackerSchemaV2.Budget
typealias Transaction = SpendTrackerSchemaV2.Transaction

enum SpendTrackerSchemaV0: VersionedSchema {
    static let versionIdentifier: String? = "Budgets before transactions"

    static var models: [any PersistentModel.Type] {
        [Budget.self]
    }

    @Model
    final class Budget {
        var name: String
        var limit: Double

        init(name: String, limit: Double) {
            self.name = name
            self.limit = limit
        }
    }
}

enum SpendTrackerSchemaV1: VersionedSchema {

    static let versionIdentifier: String? = "Initial version of the model"

    static var models: [any PersistentModel.Type] {
        [Budget.self]
    }

    @Model
    final class Budget {

        var name: String
        var limit: Double

        @Relationship(.cascade)
        var transactions: [Transaction] = []

        init(name: String, limit: Double) {
            self.name = name
            self.limit = limit
        }

    }

    @Model
    final class Transaction {
        var note: String
        var amount: Double
        var date: Date
        var hasReceipt: Bool = false

        @Relationship(inverse: \Budget.transactions)
        var budget: Budget?

        init(note: String, amount: Double, date: Date, hasReceipt: Bool = false) {
            self.note = note
            self.amount = amount
            self.date = date
            self.hasReceipt = hasReceipt
        }
    }
}

enum SpendTrackerSchemaV2: VersionedSchema {

    static let versionIdentifier: String? = "Adding unique constraint to the name property"

    static var models: [any PersistentModel.Type] {
        [Budget.self]
    }

    @Model
    final class Budget {

        @Attribute(.unique) var name: String
        var limit: Double

        @Relationship(.cascade)
        var transactions: [Transaction] = []

        init(name: String, limit: Double) {
            self.name = name
            self.limit = limit
        }

    }

    // The inverse keeps both sides in step: `budget.addTransaction(transaction)` sets
    // `transaction.budget`, and `transaction.budget = budget` appends to `budget.transactions`.
    @Model
    final class Transaction {
        var note: String
        var amount: Double
        var date: Date
        var hasReceipt: Bool = false

        @Relationship(inverse: \Budget.transactions)
        var budget: Budget?

        init(note: String, amount: Double, date: Date, hasReceipt: Bool = false) {
            self.note = note
            self.amount = amount
            self.date = date
            self.hasReceipt = hasReceipt
        }
    }
}

enum SpendTrackerMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] {
        [SpendTrackerSchemaV0.self, SpendTrackerSchemaV1.self, SpendTrackerSchemaV2.self]
    }

    static var stages: [MigrationStage] {
        [migrateV0toV1, migrateV1toV2]
    }

    /// Transactions arrive: a table and a relationship added, which Stowage migrates by itself.
    static let migrateV0toV1 = MigrationStage.lightweight(fromVersion: SpendTrackerSchemaV0.self, toVersion: SpendTrackerSchemaV1.self)

    static let migrateV1toV2 = MigrationStage.custom(fromVersion: SpendTrackerSchemaV1.self, toVersion: SpendTrackerSchemaV2.self, willMigrate: { context in

            guard let budgets = try? context.fetch(FetchDescriptor<Budget>()) else { return }

            var duplicates = Set<Budget>()
            var uniqueSet = Set<String>()

            for budget in budgets {
                if !uniqueSet.insert(budget.name).inserted {
                    duplicates.insert(budget)
                }
            }

            // now change the names for duplicates
            for budget in duplicates {
                let budgetToBeUpdated = budgets.first(where: { $0.id == budget.id } )!
                budgetToBeUpdated.name = budgetToBeUpdated.name + " \(generateUniqueRandomNumber())"
            }

            // calling save is important
            try? context.save()


        }, didMigrate: nil)
}

/// A number between 1000 and 9999 that no earlier call in this process returned: the suffix the
/// migration gives a duplicated budget name.
func generateUniqueRandomNumber() -> Int {
    issuedNumbers.lock.withLock {
        var number = Int.random(in: 1000...9999)
        while !issuedNumbers.issued.insert(number).inserted { number = Int.random(in: 1000...9999) }
        return number
    }
}

private let issuedNumbers = IssuedNumbers()

/// The numbers ``generateUniqueRandomNumber()`` returned, behind a lock.
private final class IssuedNumbers: @unchecked Sendable {
    // @unchecked Sendable: `issued` is only touched with `lock` held.
    let lock = NSLock()
    var issued: Set<Int> = []
}
