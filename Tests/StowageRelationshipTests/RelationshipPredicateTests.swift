import Foundation
import Stowage
import Testing

/// Predicates through relationships run in SQL: each test uses a strict context, where any part that
/// would fall back to Swift makes the fetch throw.
@Suite struct RelationshipPredicateTests {
    struct Fixture {
        let container: ModelContainer
        let context: ModelContext
        let food: Budget
        let fun: Budget
        let empty: Budget

        init() throws {
            container = try memoryContainer(Budget.self, Recipe.self, Folder.self)
            let setup = ModelContext(container)
            let food = Budget(name: "Food", limit: 100)
            let fun = Budget(name: "Fun", limit: 50)
            let empty = Budget(name: "Empty", limit: 10)
            for budget in [food, fun, empty] { setup.insert(budget) }
            food.transactions = [Transaction(note: "Milk", amount: 2, hasReceipt: true), Transaction(note: "Bread", amount: 3, hasReceipt: true)]
            fun.transactions = [Transaction(note: "Cinema", amount: 12), Transaction(note: "Gum", amount: 1, hasReceipt: true)]
            setup.insert(Transaction(note: "Loose", amount: 7))
            let pancakes = Recipe(name: "Pancakes")
            let salad = Recipe(name: "Salad")
            setup.insert(pancakes)
            setup.insert(salad)
            pancakes.ingredients = [Ingredient(name: "flour"), Ingredient(name: "eggs")]
            salad.ingredients = [Ingredient(name: "lettuce")]
            let root = Folder(name: "root")
            setup.insert(root)
            let child = Folder(name: "child")
            root.children.append(child)
            child.children.append(Folder(name: "grandchild"))
            try setup.save()
            context = ModelContext(container)
            context.requiresSQLTranslation = true
            let budgets = try context.fetch(FetchDescriptor<Budget>(sortBy: [SortDescriptor(\.name)]))
            (self.empty, self.food, self.fun) = (budgets[0], budgets[1], budgets[2])
        }

        func notes(_ predicate: Predicate<Transaction>) throws -> [String] {
            try context.fetch(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.note)])).map(\.note)
        }

        func budgets(_ predicate: Predicate<Budget>) throws -> [String] {
            try context.fetch(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.name)])).map(\.name)
        }
    }

    @Test func toOneKeyPath() throws {
        let f = try Fixture()
        #expect(try f.notes(#Predicate { $0.budget?.name == "Food" }) == ["Bread", "Milk"])
        #expect(try f.notes(#Predicate { $0.budget?.limit ?? 0 < 60 }) == ["Cinema", "Gum", "Loose"])
        #expect(try f.notes(#Predicate { $0.budget == nil }) == ["Loose"])
    }

    @Test func toOneKeyPathSQL() throws {
        let log = SQLDebug.StatementLog()
        let observation = SQLDebug.observe { log.append($0) }
        defer { observation.cancel() }
        let f = try Fixture()
        log.removeAll()
        _ = try f.context.fetch(FetchDescriptor<Transaction>(predicate: #Predicate { $0.budget?.name == "Food" }))
        let select = try #require(log.events(of: f.container).first { $0.sql.hasPrefix("SELECT") })
        #expect(select.sql == """
            SELECT "_pk", "note", "amount", "date", "hasReceipt", "budget_pk" FROM "Transaction" WHERE \
            (stowage_nfc((SELECT s1."name" FROM "Budget" AS s1 WHERE s1."_pk" = "Transaction"."budget_pk")) IS ?) ORDER BY "_pk"
            """)
    }

    @Test func persistentModelIDComparisons() throws {
        let f = try Fixture()
        let id = f.food.persistentModelID
        #expect(try f.notes(#Predicate { $0.budget?.persistentModelID == id }) == ["Bread", "Milk"])
        #expect(try f.budgets(#Predicate { $0.persistentModelID == id }) == ["Food"])
        let unsaved = Budget(name: "Unsaved", limit: 1).persistentModelID
        #expect(try f.budgets(#Predicate { $0.persistentModelID == unsaved }).isEmpty)
    }

    @Test func toManyContainsWhereIsEmptyCountAllSatisfy() throws {
        let f = try Fixture()
        #expect(try f.budgets(#Predicate { budget in budget.transactions.contains { $0.amount < 2.5 } }) == ["Food", "Fun"])
        #expect(try f.budgets(#Predicate { $0.transactions.isEmpty }) == ["Empty"])
        #expect(try f.budgets(#Predicate { !$0.transactions.isEmpty }) == ["Food", "Fun"])
        #expect(try f.budgets(#Predicate { $0.transactions.count >= 2 }) == ["Food", "Fun"])
        #expect(try f.budgets(#Predicate { budget in budget.transactions.allSatisfy { $0.hasReceipt } }) == ["Empty", "Food"])
    }

    @Test func manyToMany() throws {
        let f = try Fixture()
        let recipes = try f.context.fetch(FetchDescriptor<Recipe>(
            predicate: #Predicate { recipe in recipe.ingredients.contains { $0.name == "eggs" } }))
        #expect(recipes.map(\.name) == ["Pancakes"])
        let ingredients = try f.context.fetch(FetchDescriptor<Ingredient>(
            predicate: #Predicate { ingredient in ingredient.recipes.contains { $0.name == "Salad" } }))
        #expect(ingredients.map(\.name) == ["lettuce"])
    }

    @Test func severalLevels() throws {
        let f = try Fixture()
        let folders = try f.context.fetch(FetchDescriptor<Folder>(predicate: #Predicate { $0.parent?.parent?.name == "root" }))
        #expect(folders.map(\.name) == ["grandchild"])
        let nested = try f.context.fetch(FetchDescriptor<Folder>(
            predicate: #Predicate { folder in folder.children.contains { child in child.children.contains { $0.name == "grandchild" } } }))
        #expect(nested.map(\.name) == ["root"])
    }

    @Test func sortThroughAToOneRelationshipRunsInSQL() throws {
        let log = SQLDebug.StatementLog()
        let observation = SQLDebug.observe { log.append($0) }
        defer { observation.cancel() }
        let f = try Fixture()
        log.removeAll()
        let descriptor = FetchDescriptor<Transaction>(sortBy: [SortDescriptor(\.budget?.name, order: .reverse), SortDescriptor(\.note)])
        let sorted = try f.context.fetch(descriptor)
        #expect(sorted.map(\.note) == ["Cinema", "Gum", "Bread", "Milk", "Loose"])
        let select = try #require(log.events(of: f.container).first { $0.sql.hasPrefix("SELECT") })
        #expect(select.sql.hasSuffix(
            #"ORDER BY (SELECT s1."name" FROM "Budget" AS s1 WHERE s1."_pk" = "Transaction"."budget_pk") COLLATE localizedStandard DESC, "note" COLLATE localizedStandard, "_pk""#))
        // With unsaved changes the same order is computed in Swift.
        f.context.requiresSQLTranslation = false
        f.empty.transactions.append(Transaction(note: "Stamp", amount: 1))
        #expect(try f.context.fetch(descriptor).map(\.note) == ["Cinema", "Gum", "Bread", "Milk", "Stamp", "Loose"])
    }

    @Test func outerReferenceInsideAClosureFallsBackToSwift() throws {
        let f = try Fixture()
        let predicate = #Predicate<Budget> { budget in budget.transactions.contains { $0.amount * 10 > budget.limit } }
        let error = #expect(throws: StowageError.self) { try f.budgets(predicate) }
        #expect(error?.code == .unsupportedPredicate, "\(String(describing: error))")
        #expect(error?.entityName == "Budget")
        #expect(error?.message.hasPrefix("The predicate node ") == true)
        #expect(error?.message.hasSuffix(
            "cannot run in SQL (a closure over a to-many relationship refers to an outer model); strict mode is on, so the fetch fails.") == true,
            "\(error?.message ?? "no error")")
        f.context.requiresSQLTranslation = false
        #expect(try f.budgets(predicate) == ["Fun"])
    }

    @Test func pendingChangesThroughRelationships() throws {
        let f = try Fixture()
        f.context.requiresSQLTranslation = false
        let candy = Transaction(note: "Candy", amount: 1)
        f.fun.transactions.append(candy)
        #expect(try f.notes(#Predicate { $0.budget?.name == "Fun" }) == ["Candy", "Cinema", "Gum"])
    }
}
