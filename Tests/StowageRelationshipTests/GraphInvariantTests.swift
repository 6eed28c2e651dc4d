import Foundation
import GRDB
import Stowage
import Testing

/// Random sequences of insert, link, unlink, reassign, delete, save and rollback on a small graph
/// (Budget 1–n Transaction with cascade, Recipe n–n Ingredient); after each save the store and the
/// object graph must agree.
@Suite struct GraphInvariantTests {
    struct SplitMix64: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test(arguments: 0..<60)
    func randomOperationsKeepTheGraphConsistent(seed: UInt64) throws {
        var random = SplitMix64(state: seed &* 7919)
        let url = temporaryStoreURL("graph-\(seed)")
        let container = try ModelContainer(for: Budget.self, Recipe.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        var counter = 0
        func name() -> String { counter += 1; return "n\(counter)" }
        func live<T: PersistentModel>(_ type: T.Type) throws -> [T] { try context.fetch(FetchDescriptor<T>()) }

        for step in 0..<60 {
            let budgets = try live(Budget.self)
            let transactions = try live(Transaction.self)
            let recipes = try live(Recipe.self)
            let ingredients = try live(Ingredient.self)
            let operation = Int.random(in: 0..<12, using: &random)
            let trace = ProcessInfo.processInfo.environment["GRAPH_TRACE"] != nil
            func log(_ text: @autoclosure () -> String) { if trace { print("step \(step): \(text())") } }
            log("op \(operation)")
            switch operation {
            case 0: let budget = Budget(name: name(), limit: 1); context.insert(budget); log("insert budget \(budget.name)")
            case 1:
                let transaction = Transaction(note: name(), amount: 1)
                if let budget = budgets.randomElement(using: &random) { budget.transactions.append(transaction); log("\(budget.name).transactions.append(new \(transaction.note))") } else { context.insert(transaction); log("insert \(transaction.note)") }
            case 2: // reassign or link through the to-one side
                if let transaction = transactions.randomElement(using: &random) {
                    let budget = budgets.randomElement(using: &random)
                    log("\(transaction.note).budget = \(budget?.name ?? "nil") (was \(transaction.budget?.name ?? "nil"))")
                    transaction.budget = budget
                }
            case 3: // unlink through the to-many side
                if let budget = budgets.randomElement(using: &random), !budget.transactions.isEmpty {
                    let removed = budget.transactions.remove(at: Int.random(in: 0..<budget.transactions.count, using: &random))
                    log("\(budget.name).transactions.remove(\(removed.note))")
                }
            case 4: // reorder
                if let budget = budgets.randomElement(using: &random) { budget.transactions.shuffle(using: &random) }
            case 5: context.insert(Recipe(name: name()))
            case 6:
                if let recipe = recipes.randomElement(using: &random) {
                    let ingredient = ingredients.randomElement(using: &random) ?? Ingredient(name: name())
                    if !recipe.ingredients.contains(where: { $0 === ingredient }) { recipe.ingredients.append(ingredient) }
                }
            case 7:
                if let ingredient = ingredients.randomElement(using: &random), let recipe = recipes.randomElement(using: &random),
                   !ingredient.recipes.contains(where: { $0 === recipe }) {
                    ingredient.recipes.append(recipe)
                }
            case 8:
                if let recipe = recipes.randomElement(using: &random), !recipe.ingredients.isEmpty {
                    recipe.ingredients.remove(at: Int.random(in: 0..<recipe.ingredients.count, using: &random))
                }
            case 9:
                let all: [any PersistentModel] = budgets + transactions + recipes + ingredients
                if let victim = all.randomElement(using: &random) { log("delete \(victim.persistentModelID)"); context.delete(victim) }
            case 10: log("rollback"); context.rollback()
            default:
                log("save")
                try context.save()
                try checkInvariants(context: context, url: url, container: container, step: step, seed: seed)
            }
        }
        try context.save()
        try checkInvariants(context: context, url: url, container: container, step: -1, seed: seed)
    }

    private func checkInvariants(context: ModelContext, url: URL, container: ModelContainer, step: Int, seed: UInt64) throws {
        let where_ = "seed \(seed), step \(step)"
        // In memory: every link mirrored on both sides.
        for budget in try context.fetch(FetchDescriptor<Budget>()) {
            for transaction in budget.transactions {
                #expect(transaction.budget === budget, "\(where_): \(transaction.note) in \(budget.name) points elsewhere")
            }
        }
        for transaction in try context.fetch(FetchDescriptor<Transaction>()) {
            if let budget = transaction.budget {
                if !budget.transactions.contains(where: { $0 === transaction }) { print("BROKEN \(where_): \(transaction.note) -> \(budget.name) [\(budget.transactions.map(\.note))] budget state deleted=\(budget.isDeleted)") }
                #expect(budget.transactions.filter { $0 === transaction }.count == 1, "\(where_): \(transaction.note) not once in \(budget.name)")
            }
        }
        for recipe in try context.fetch(FetchDescriptor<Recipe>()) {
            #expect(Set(recipe.ingredients.map(ObjectIdentifier.init)).count == recipe.ingredients.count, "\(where_): duplicate link")
            for ingredient in recipe.ingredients {
                #expect(ingredient.recipes.contains { $0 === recipe }, "\(where_): \(ingredient.name) lacks \(recipe.name)")
            }
        }
        // In the store: no dangling references, no orphan links.
        let queue = try DatabaseQueue(path: url.path)
        try queue.read { db in
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty, "\(where_): foreign_key_check")
            let orphans = try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM "Ingredient_recipes" j
                WHERE NOT EXISTS (SELECT 1 FROM "Recipe" r WHERE r."_pk" = j."Recipe_pk")
                   OR NOT EXISTS (SELECT 1 FROM "Ingredient" i WHERE i."_pk" = j."Ingredient_pk")
                """)
            #expect(orphans == 0, "\(where_): orphan join rows")
        }
        try queue.close()
        // After a reload the graph is the same, in the same order.
        let fresh = ModelContext(container)
        func shape(_ context: ModelContext) throws -> [String: [String]] {
            var shape: [String: [String]] = [:]
            for budget in try context.fetch(FetchDescriptor<Budget>()) { shape[budget.name] = budget.transactions.map(\.note) }
            for transaction in try context.fetch(FetchDescriptor<Transaction>()) { shape["t:" + transaction.note] = [transaction.budget?.name ?? "-"] }
            for recipe in try context.fetch(FetchDescriptor<Recipe>()) { shape[recipe.name] = recipe.ingredients.map(\.name) }
            for ingredient in try context.fetch(FetchDescriptor<Ingredient>()) { shape[ingredient.name] = ingredient.recipes.map(\.name) }
            return shape
        }
        #expect(try shape(context) == shape(fresh), "\(where_): reloaded graph differs")
    }
}
