import Foundation
import GRDB
import Stowage
import Testing

@Suite struct InverseMaintenanceTests {
    @Test func domainTotalWithoutContainer() {
        let budget = Budget(name: "Budget 1", limit: 100)
        budget.addTransaction(Transaction(note: "Note 1", amount: 100))
        budget.addTransaction(Transaction(note: "Note 2", amount: 50))
        budget.addTransaction(Transaction(note: "Note 3", amount: 100))
        #expect(budget.total == 250)
    }

    @Test func inversesOfObjectsNotInserted() {
        let budget = Budget(name: "Food", limit: 10)
        let milk = Transaction(note: "Milk", amount: 2)
        milk.budget = budget
        #expect(budget.transactions.map(\.note) == ["Milk"])
        let bread = Transaction(note: "Bread", amount: 1)
        budget.transactions.append(bread)
        #expect(bread.budget === budget)
        budget.transactions.removeAll { $0 === milk }
        #expect(milk.budget == nil)
        let other = Budget(name: "Other", limit: 1)
        bread.budget = other
        #expect(budget.transactions.isEmpty)
        #expect(other.transactions.map(\.note) == ["Bread"])
    }

    @Test func manyToManyInversesNotInserted() {
        let pancakes = Recipe(name: "Pancakes")
        let eggs = Ingredient(name: "eggs")
        pancakes.ingredients.append(eggs)
        #expect(eggs.recipes.map(\.name) == ["Pancakes"])
        eggs.recipes.removeAll()
        #expect(pancakes.ingredients.isEmpty)
    }

    @Test func observationFiresOnTheInverseSide() {
        let budget = Budget(name: "Food", limit: 10)
        let transaction = Transaction(note: "Milk", amount: 2)
        let fired = Flag()
        withObservationTracking { _ = budget.transactions } onChange: { fired.set() }
        transaction.budget = budget
        #expect(fired.value)
    }

    @Test func insertingAnObjectInsertsItsGraph() throws {
        let container = try memoryContainer(Budget.self)
        let context = ModelContext(container)
        let budget = Budget(name: "Food", limit: 10)
        budget.transactions = [Transaction(note: "A", amount: 1), Transaction(note: "B", amount: 2)]
        context.insert(budget)
        #expect(context.insertedModelsArray.count == 3)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Transaction>()) == 2)
    }

    @Test func settingTheToOneOfAnInsertedParentInsertsTheChild() throws {
        let container = try memoryContainer(Budget.self)
        let context = ModelContext(container)
        let budget = Budget(name: "Food", limit: 10)
        context.insert(budget)
        let transaction = Transaction(note: "Milk", amount: 3)
        transaction.budget = budget
        #expect(transaction.modelContext === context)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Transaction>()) == 1)
    }
}

@Suite struct RelationshipPersistenceTests {
    @Test func oneToManyRoundTripKeepsOrder() throws {
        let url = temporaryStoreURL()
        do {
            let container = try ModelContainer(for: Budget.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let budget = Budget(name: "Food", limit: 300)
            context.insert(budget)
            for note in ["c", "a", "b", "e", "d"] { budget.transactions.append(Transaction(note: note, amount: 1)) }
            try context.save()
            budget.transactions.swapAt(0, 4)
            try context.save()
        }
        let container = try ModelContainer(for: Budget.self, configurations: ModelConfiguration(url: url))
        let context = ModelContext(container)
        let budget = try #require(try context.fetch(FetchDescriptor<Budget>()).first)
        #expect(budget.transactions.map(\.note) == ["d", "a", "b", "e", "c"])
        #expect(budget.transactions.allSatisfy { $0.budget === budget })
    }

    @Test func manyToManyRoundTripKeepsOrderOnBothSides() throws {
        let url = temporaryStoreURL()
        do {
            let container = try ModelContainer(for: Recipe.self, configurations: ModelConfiguration(url: url))
            let context = ModelContext(container)
            let pancakes = Recipe(name: "Pancakes")
            let omelette = Recipe(name: "Omelette")
            context.insert(pancakes)
            context.insert(omelette)
            let (flour, milk, eggs) = (Ingredient(name: "flour"), Ingredient(name: "milk"), Ingredient(name: "eggs"))
            pancakes.ingredients = [milk, eggs, flour]
            omelette.ingredients = [eggs]
            eggs.recipes.swapAt(0, 1)
            try context.save()
        }
        let context = ModelContext(try ModelContainer(for: Recipe.self, configurations: ModelConfiguration(url: url)))
        let recipes = try context.fetch(FetchDescriptor<Recipe>(sortBy: [SortDescriptor(\.name)]))
        #expect(recipes.map(\.name) == ["Omelette", "Pancakes"])
        #expect(recipes[1].ingredients.map(\.name) == ["milk", "eggs", "flour"])
        let eggs = try #require(recipes[0].ingredients.first)
        #expect(eggs.recipes.map(\.name) == ["Omelette", "Pancakes"])
        #expect(try context.fetchCount(FetchDescriptor<Ingredient>()) == 3)
    }

    @Test func reassigningMovesTheObjectAcrossSaves() throws {
        let container = try memoryContainer(Budget.self)
        let context = ModelContext(container)
        let food = Budget(name: "Food", limit: 1)
        let fun = Budget(name: "Fun", limit: 1)
        context.insert(food)
        context.insert(fun)
        let ticket = Transaction(note: "Ticket", amount: 5)
        food.transactions.append(ticket)
        try context.save()
        ticket.budget = fun
        try context.save()
        let fresh = ModelContext(container)
        let budgets = try fresh.fetch(FetchDescriptor<Budget>(sortBy: [SortDescriptor(\.name)]))
        #expect(budgets[0].transactions.isEmpty)
        #expect(budgets[1].transactions.map(\.note) == ["Ticket"])
    }

    @Test func storageUsesForeignKeysAndJoinTables() throws {
        let url = temporaryStoreURL()
        _ = try ModelContainer(for: Budget.self, Recipe.self, configurations: ModelConfiguration(url: url))
        let queue = try DatabaseQueue(path: url.path)
        try queue.read { db in
            let transactionColumns = try Row.fetchAll(db, sql: "PRAGMA table_info(\"Transaction\")").map { $0["name"] as String }
            #expect(transactionColumns.contains("budget_pk"))
            #expect(transactionColumns.contains("budget_position"))
            let foreignKeys = try Row.fetchAll(db, sql: "PRAGMA foreign_key_list(\"Transaction\")")
            #expect(foreignKeys.map { $0["table"] as String } == ["Budget"])
            #expect(foreignKeys.map { $0["on_delete"] as String } == ["CASCADE"])
            let indexes = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Transaction'")
            #expect(indexes.contains("Transaction_budget_pk_index"))
            let joinColumns = try Row.fetchAll(db, sql: "PRAGMA table_info(\"Ingredient_recipes\")").map { $0["name"] as String }
            #expect(joinColumns == ["Ingredient_pk", "Recipe_pk", "recipes_position", "ingredients_position"])
        }
    }

    @Test func ambiguousInverseIsAnErrorNamingTheProperties() {
        #expect {
            _ = try memoryContainer(Match.self)
        } throws: { error in
            let error = error as? StowageError
            return error?.code == .invalidSchema && error!.message.contains("Match.home") && error!.message.contains("Player.")
        }
    }
}

@Model final class Match {
    var home: Player?
    var away: Player?
    init() {}
}

@Model final class Player {
    var name: String
    var homeMatches: [Match] = []
    var awayMatches: [Match] = []
    init(name: String) { self.name = name }
}

@Suite struct DeleteRuleTests {
    @Test func cascadeThroughSeveralLevelsAndCycles() throws {
        let container = try memoryContainer(Folder.self)
        let context = ModelContext(container)
        let root = Folder(name: "root")
        context.insert(root)
        let child = Folder(name: "child")
        root.children.append(child)
        let grandchild = Folder(name: "grandchild")
        child.children.append(grandchild)
        grandchild.documents.append(Document(title: "deep"))
        root.documents.append(Document(title: "top"))
        try context.save()
        context.delete(root)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Folder>()) == 0)
        #expect(try context.fetchCount(FetchDescriptor<Document>()) == 0)
    }

    @Test func denyFailsWithTypedErrorAndWritesNothing() throws {
        let container = try memoryContainer(Owner.self)
        let context = ModelContext(container)
        let owner = Owner(name: "Ann")
        context.insert(owner)
        owner.pets.append(Pet(name: "Rex"))
        try context.save()
        context.delete(owner)
        #expect {
            try context.save()
        } throws: { error in
            let error = error as? StowageError
            return error?.code == .deleteDenied && error!.message.contains("Pet/")
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Owner>()) == 1)
        context.rollback()
        #expect(!owner.isDeleted)
        #expect(try context.fetchCount(FetchDescriptor<Owner>()) == 1)
        #expect(owner.pets.map(\.name) == ["Rex"])
    }

    @Test func nullifyClearsTheReferenceInMemoryAndInStore() throws {
        let container = try memoryContainer(Recipe.self)
        let context = ModelContext(container)
        let pancakes = Recipe(name: "Pancakes")
        let omelette = Recipe(name: "Omelette")
        context.insert(pancakes)
        context.insert(omelette)
        let eggs = Ingredient(name: "eggs")
        pancakes.ingredients.append(eggs)
        omelette.ingredients.append(eggs)
        try context.save()
        context.delete(omelette)
        try context.save()
        #expect(eggs.recipes.map(\.name) == ["Pancakes"])
        #expect(try context.fetchCount(FetchDescriptor<Ingredient>()) == 1)
        let reloaded = try ModelContext(container).fetch(FetchDescriptor<Ingredient>())
        #expect(reloaded.first?.recipes.map(\.name) == ["Pancakes"])
    }

    @Test func noActionLeavesMemoryAloneButNothingDanglesInTheStore() throws {
        let container = try memoryContainer(Shelf.self)
        let context = ModelContext(container)
        let shelf = Shelf(label: "A")
        context.insert(shelf)
        let dune = Book(title: "Dune")
        shelf.books.append(dune)
        try context.save()
        context.delete(shelf)
        try context.save()
        #expect(dune.shelf === shelf)
        let reloaded = try ModelContext(container).fetch(FetchDescriptor<Book>())
        #expect(reloaded.map(\.title) == ["Dune"])
        #expect(reloaded.first?.shelf == nil)
    }

    @Test func relationshipCountsAreValidatedOnSave() throws {
        let container = try memoryContainer(Team.self)
        let context = ModelContext(container)
        let team = Team(name: "Empty")
        context.insert(team)
        #expect { try context.save() } throws: { ($0 as? StowageError)?.code == .relationshipCount }
        team.members = [Member(name: "A"), Member(name: "B"), Member(name: "C")]
        #expect { try context.save() } throws: { ($0 as? StowageError)?.code == .relationshipCount }
        team.members.removeLast()
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Member>()) == 3)
    }

    @Test func rollbackRestoresBothSides() throws {
        let container = try memoryContainer(Budget.self)
        let context = ModelContext(container)
        let food = Budget(name: "Food", limit: 1)
        let fun = Budget(name: "Fun", limit: 1)
        context.insert(food)
        context.insert(fun)
        let ticket = Transaction(note: "Ticket", amount: 5)
        food.transactions.append(ticket)
        try context.save()
        ticket.budget = fun
        #expect(fun.transactions.count == 1)
        context.rollback()
        #expect(ticket.budget === food)
        #expect(food.transactions.map(\.note) == ["Ticket"])
        #expect(fun.transactions.isEmpty)
    }
}

@Suite struct LoadingTests {
    @Test func prefetchingRunsOneQueryPerKeyPath() throws {
        let log = SQLDebug.StatementLog()
        let observation = SQLDebug.observe { log.append($0) }
        defer { observation.cancel() }
        let container = try memoryContainer(Budget.self)
        let context = ModelContext(container)
        for index in 0..<20 {
            let budget = Budget(name: "B\(index)", limit: Double(index))
            context.insert(budget)
            budget.transactions = (0..<3).map { Transaction(note: "T\(index)-\($0)", amount: 1) }
        }
        try context.save()

        let fresh = ModelContext(container)
        log.removeAll()
        var descriptor = FetchDescriptor<Budget>(sortBy: [SortDescriptor(\.name)])
        descriptor.relationshipKeyPathsForPrefetching = [\.transactions]
        let budgets = try fresh.fetch(descriptor)
        let total = budgets.reduce(0) { $0 + $1.transactions.count }
        #expect(total == 60)
        let selects = log.events(of: container).filter { $0.sql.hasPrefix("SELECT") }
        #expect(selects.count == 2)

        let lazy = ModelContext(container)
        log.removeAll()
        let unprefetched = try lazy.fetch(FetchDescriptor<Budget>())
        _ = unprefetched.first?.transactions.count
        #expect(log.events(of: container).filter { $0.sql.hasPrefix("SELECT") }.count == 2)
    }

    @Test func toOneLoadsLazilyThroughTheIdentityMap() throws {
        let container = try memoryContainer(Budget.self)
        let context = ModelContext(container)
        let budget = Budget(name: "Food", limit: 1)
        context.insert(budget)
        budget.transactions = [Transaction(note: "A", amount: 1), Transaction(note: "B", amount: 1)]
        try context.save()
        let fresh = ModelContext(container)
        let transactions = try fresh.fetch(FetchDescriptor<Transaction>())
        #expect(transactions.count == 2)
        #expect(transactions[0].budget === transactions[1].budget)
        #expect(transactions[0].budget?.name == "Food")
    }
}

final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false
    func set() { lock.withLock { raised = true } }
    var value: Bool { lock.withLock { raised } }
}

@Suite struct BatchedCollectionTests {
    @Test func randomAndBackwardAccessMatchAPlainFetch() throws {
        let container = try memoryContainer(Budget.self)
        let context = ModelContext(container)
        for index in 0..<25 { context.insert(Budget(name: "B\(index)", limit: Double(index % 7))) }
        try context.save()
        let descriptor = FetchDescriptor<Budget>(predicate: #Predicate { $0.limit > 1 })
        let expected = try ModelContext(container).fetch(descriptor).map(\.name)
        let batched = try ModelContext(container).fetch(descriptor, batchSize: 4)
        #expect(batched.count == expected.count)
        #expect(batched.map(\.name) == expected)
        #expect(batched.reversed().map(\.name) == expected.reversed())
        for index in [13, 2, expected.count - 1, 0, 7, 8, 9] {
            #expect(batched[index].name == expected[index])
        }
    }
}
