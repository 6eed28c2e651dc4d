import Foundation
import GRDB
import Stowage
import Testing

// Review findings: each test demonstrates a correctness problem a SwiftData user would hit (it fails
// until the engine is fixed), or guards a behaviour the other suites do not cover.

@Model
final class ReviewNote {
    var title: String
    var body: String?
    init(title: String, body: String? = nil) {
        self.title = title
        self.body = body
    }
}

@Model
final class ReviewCitizen {
    var name: String
    @Relationship(inverse: \ReviewPassport.holder) var passport: ReviewPassport?
    init(name: String) { self.name = name }
}

@Model
final class ReviewPassport {
    var number: String
    var holder: ReviewCitizen?
    init(number: String) { self.number = number }
}

@Model
final class ReviewBlob {
    @Attribute(.unique) var code: String
    var label: String
    @Attribute(.externalStorage) var payload: Data
    init(code: String, label: String, payload: Data = Data()) {
        self.code = code
        self.label = label
        self.payload = payload
    }
}

@Model
final class ReviewUser {
    var name: String
    @Relationship(inverse: \ReviewUser.followers) var following: [ReviewUser] = []
    var followers: [ReviewUser] = []
    init(name: String) { self.name = name }
}

@Suite struct ReviewFindingsTests {
    // MARK: - Save atomicity

    /// A save that fails after delete rules ran must leave the context as it was: the cascade it
    /// computed must not stay applied.
    @Test func failedSaveDoesNotLeaveCascadedDeletionsBehind() throws {
        let container = try memoryContainer(Budget.self, Team.self)
        let context = ModelContext(container)
        let budget = Budget(name: "Food", limit: 100)
        context.insert(budget)
        budget.transactions = [Transaction(note: "milk", amount: 2), Transaction(note: "bread", amount: 1)]
        try context.save()

        context.delete(budget)
        context.insert(Team(name: "empty"))  // violates minimumModelCount: 1 → the save fails
        let error = #expect(throws: StowageError.self) { try context.save() }
        expectMembersCountError(error, count: 0)

        #expect(context.deletedModelsArray.count == 1, "only the budget was deleted by the user")
        #expect(budget.transactions.allSatisfy { !$0.isDeleted }, "the cascade of a failed save must be undone")
        #expect(context.insertedModelsArray.count == 1 && context.hasChanges, "the failed save dropped the context's changes")
        // Nothing was written: the budget and its transactions are still stored, no team is.
        let reader = ModelContext(container)
        #expect(try reader.fetch(FetchDescriptor<Budget>()).map(\.name) == ["Food"])
        #expect(try reader.fetch(FetchDescriptor<Transaction>(sortBy: [SortDescriptor(\.note)])).map(\.note) == ["bread", "milk"])
        #expect(try reader.fetchCount(FetchDescriptor<Team>()) == 0)
    }

    /// A failed save must not discard an unsaved child that the (undone) cascade reached.
    @Test func failedSaveKeepsUnsavedChildrenOfACascade() throws {
        let container = try memoryContainer(Budget.self, Team.self)
        let context = ModelContext(container)
        let budget = Budget(name: "Food", limit: 100)
        context.insert(budget)
        try context.save()

        let milk = Transaction(note: "milk", amount: 2)
        budget.transactions.append(milk)  // inserted through inverse maintenance
        context.delete(budget)
        let team = Team(name: "empty")
        context.insert(team)
        let error = #expect(throws: StowageError.self) { try context.save() }
        expectMembersCountError(error, count: 0)
        // Nothing was written: the budget is still stored, neither the transaction nor the team is.
        let reader = ModelContext(container)
        #expect(try reader.fetch(FetchDescriptor<Budget>()).map(\.name) == ["Food"])
        #expect(try reader.fetchCount(FetchDescriptor<Transaction>()) == 0)
        #expect(try reader.fetchCount(FetchDescriptor<Team>()) == 0)

        #expect(milk.modelContext === context, "the failed save detached an inserted model")
        #expect(context.insertedModelsArray.count == 2)
        // Undo the deletion and fix the team: the next save should write the transaction.
        context.insert(budget)
        context.delete(team)
        try context.save()
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Transaction>()) == 1)
    }

    // MARK: - Delete rules

    /// Deleting an unsaved parent with a cascade rule must not save its unsaved children as orphans.
    @Test func deletingAnUnsavedParentCascadesToUnsavedChildren() throws {
        let container = try memoryContainer(Budget.self)
        let context = ModelContext(container)
        let budget = Budget(name: "Food", limit: 100)
        context.insert(budget)
        budget.transactions = [Transaction(note: "milk", amount: 2), Transaction(note: "bread", amount: 1)]
        context.delete(budget)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Transaction>()) == 0, "cascade ignored for unsaved models")
    }

    /// Nullify must clear the in-memory reference even when only the to-one side was loaded.
    @Test func nullifyClearsToOneWhenTheDeletedSideWasNotLoaded() throws {
        let container = try memoryContainer(Team.self)
        let setup = ModelContext(container)
        let team = Team(name: "A")
        setup.insert(team)
        team.members = [Member(name: "ann")]
        try setup.save()

        let context = ModelContext(container)
        let member = try #require(try context.fetch(FetchDescriptor<Member>()).first)
        let loadedTeam = try #require(member.team)  // team.members is not loaded
        context.delete(loadedTeam)
        try context.save()
        #expect(member.team == nil, "member.team still points to the deleted team")
    }

    /// Same for many-to-many: the deleted recipe's ingredients were never loaded.
    @Test func nullifyClearsManyToManyWhenTheDeletedSideWasNotLoaded() throws {
        let container = try memoryContainer(Recipe.self)
        let setup = ModelContext(container)
        let pancakes = Recipe(name: "Pancakes")
        let omelette = Recipe(name: "Omelette")
        setup.insert(pancakes)
        setup.insert(omelette)
        let eggs = Ingredient(name: "eggs")
        pancakes.ingredients.append(eggs)
        omelette.ingredients.append(eggs)
        try setup.save()

        let context = ModelContext(container)
        let loadedEggs = try #require(try context.fetch(FetchDescriptor<Ingredient>()).first)
        #expect(loadedEggs.recipes.count == 2)
        let loadedOmelette = try #require(loadedEggs.recipes.first { $0.name == "Omelette" })
        context.delete(loadedOmelette)
        try context.save()
        #expect(loadedEggs.recipes.map(\.name) == ["Pancakes"], "the deleted recipe is still listed")
    }

    /// Deleting the only member of a team with minimumModelCount: 1 leaves the team invalid; the save
    /// must refuse it (Core Data validates objects touched by delete propagation).
    @Test func deletingAMemberValidatesTheTeamsMinimumCount() throws {
        let container = try memoryContainer(Team.self)
        let context = ModelContext(container)
        let team = Team(name: "A")
        context.insert(team)
        let ann = Member(name: "ann")
        team.members = [ann]
        try context.save()

        context.delete(ann)
        let error = #expect(throws: StowageError.self) { try context.save() }
        expectMembersCountError(error, count: 0)
        #expect(ann.isDeleted && context.deletedModelsArray.count == 1, "the failed save dropped the pending deletion")

        // Nothing was written: ann is still stored and still the team's member.
        let reader = ModelContext(container)
        #expect(try reader.fetch(FetchDescriptor<Member>()).map(\.name) == ["ann"])
        let storedTeam = try #require(try reader.fetch(FetchDescriptor<Team>()).first)
        #expect(storedTeam.members.map(\.name) == ["ann"])
    }

    /// The error of a save refused because a team ends up with `count` members (minimumModelCount: 1).
    private func expectMembersCountError(_ error: StowageError?, count: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(error?.code == .relationshipCount, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error?.entityName == "Team", sourceLocation: sourceLocation)
        #expect(error?.propertyName == "members", sourceLocation: sourceLocation)
        #expect(error?.message.hasSuffix(".members has \(count) models; it needs at least 1 and at most 2. Nothing was written.") == true,
                "\(error?.message ?? "no error")", sourceLocation: sourceLocation)
    }

    // MARK: - Rollback

    /// Rolling back a change to a property that was not loaded (partial fetch) must bring back the
    /// stored value, not nil.
    @Test func rollbackOfAnUnloadedOptionalAttributeRestoresTheStoredValue() throws {
        let container = try memoryContainer(ReviewNote.self)
        let setup = ModelContext(container)
        setup.insert(ReviewNote(title: "a", body: "stored"))
        try setup.save()

        let context = ModelContext(container)
        var descriptor = FetchDescriptor<ReviewNote>()
        descriptor.propertiesToFetch = [\.title]
        let note = try #require(try context.fetch(descriptor).first)
        note.body = "edited"
        context.rollback()
        #expect(note.body == "stored", "rollback replaced the unloaded value with nil")
    }

    // MARK: - Change propagation between contexts

    /// After another context adds a child, a context that holds the parent (with its to-many loaded)
    /// must see the child once it processes the changes.
    @Test func otherContextsSeeNewChildrenInLoadedToMany() throws {
        let container = try memoryContainer(Budget.self)
        let setup = ModelContext(container)
        setup.insert(Budget(name: "Food", limit: 100))
        try setup.save()

        let reader = ModelContext(container)
        let budget = try #require(try reader.fetch(FetchDescriptor<Budget>()).first)
        #expect(budget.transactions.isEmpty)

        let writer = ModelContext(container)
        let writerBudget = try #require(try writer.fetch(FetchDescriptor<Budget>()).first)
        let milk = Transaction(note: "milk", amount: 2)
        milk.budget = writerBudget
        try writer.save()

        _ = try reader.fetch(FetchDescriptor<Budget>())
        #expect(budget.transactions.map(\.note) == ["milk"], "the reader's to-many is stale")
    }

    /// A move saved elsewhere must update both sides of the reader's loaded graph.
    @Test func otherContextsSeeAMoveOnBothSides() throws {
        let container = try memoryContainer(Budget.self)
        let setup = ModelContext(container)
        let food = Budget(name: "Food", limit: 100)
        let fun = Budget(name: "Fun", limit: 100)
        setup.insert(food)
        setup.insert(fun)
        food.transactions = [Transaction(note: "milk", amount: 2)]
        try setup.save()

        let reader = ModelContext(container)
        let budgets = try reader.fetch(FetchDescriptor<Budget>(sortBy: [SortDescriptor(\.name)]))
        let (readerFood, readerFun) = (budgets[0], budgets[1])
        let milk = try #require(readerFood.transactions.first)
        #expect(readerFun.transactions.isEmpty)

        let writer = ModelContext(container)
        let writerMilk = try #require(try writer.fetch(FetchDescriptor<Transaction>()).first)
        let writerFun = try #require(try writer.fetch(FetchDescriptor<Budget>(predicate: #Predicate { $0.name == "Fun" })).first)
        writerMilk.budget = writerFun
        try writer.save()

        reader.processPendingChanges()
        #expect(milk.budget === readerFun)
        #expect(readerFood.transactions.isEmpty, "the old parent still lists the moved child")
        #expect(readerFun.transactions.map(\.note) == ["milk"], "the new parent does not list the moved child")
    }

    // MARK: - Inverse maintenance

    /// Appending an object that is already in a to-many must not duplicate it: the in-memory graph
    /// must equal the stored one after the save.
    @Test func appendingAnExistingMemberDoesNotDuplicateIt() throws {
        let container = try memoryContainer(Budget.self)
        let context = ModelContext(container)
        let budget = Budget(name: "Food", limit: 100)
        context.insert(budget)
        let milk = Transaction(note: "milk", amount: 2)
        budget.transactions.append(milk)
        budget.transactions.append(milk)
        try context.save()
        let stored = try ModelContext(container).fetch(FetchDescriptor<Budget>()).first?.transactions.count
        #expect(stored == 1)
        #expect(budget.transactions.count == stored, "in memory \(budget.transactions.count), stored \(stored ?? -1)")
        #expect(budget.total == 2)
    }

    /// One-to-one: moving a passport to another citizen clears the previous holder on both sides, in
    /// memory and in the store.
    @Test func oneToOneMoveKeepsBothSidesInStep() throws {
        let container = try memoryContainer(ReviewCitizen.self)
        let context = ModelContext(container)
        let ann = ReviewCitizen(name: "ann")
        let bob = ReviewCitizen(name: "bob")
        context.insert(ann)
        context.insert(bob)
        let first = ReviewPassport(number: "1")
        let second = ReviewPassport(number: "2")
        ann.passport = first
        bob.passport = second
        try context.save()

        ann.passport = second
        #expect(bob.passport == nil)
        #expect(first.holder == nil)
        #expect(second.holder === ann)
        try context.save()

        let reader = ModelContext(container)
        let citizens = try reader.fetch(FetchDescriptor<ReviewCitizen>(sortBy: [SortDescriptor(\.name)]))
        #expect(citizens.map { $0.passport?.number ?? "-" } == ["2", "-"])
        let passports = try reader.fetch(FetchDescriptor<ReviewPassport>(sortBy: [SortDescriptor(\.number)]))
        #expect(passports.map { $0.holder?.name ?? "-" } == ["-", "ann"])
    }

    // MARK: - More propagation

    /// An external-storage attribute changed by another context must be refreshed like the others.
    @Test func otherContextsSeeChangedExternalStorage() throws {
        let container = try memoryContainer(ReviewBlob.self)
        let setup = ModelContext(container)
        setup.insert(ReviewBlob(code: "a", label: "x", payload: Data([1])))
        try setup.save()

        let reader = ModelContext(container)
        let blob = try #require(try reader.fetch(FetchDescriptor<ReviewBlob>()).first)
        #expect(blob.payload == Data([1]))

        let writer = ModelContext(container)
        let writerBlob = try #require(try writer.fetch(FetchDescriptor<ReviewBlob>()).first)
        writerBlob.payload = Data([2])
        writerBlob.label = "y"
        try writer.save()

        reader.processPendingChanges()
        #expect(blob.label == "y")
        #expect(blob.payload == Data([2]), "the external attribute is stale")
    }

    /// A child deleted by another context must leave the reader's loaded to-many.
    @Test func otherContextsForgetChildrenDeletedElsewhere() throws {
        let container = try memoryContainer(Budget.self)
        let setup = ModelContext(container)
        let food = Budget(name: "Food", limit: 100)
        setup.insert(food)
        food.transactions = [Transaction(note: "milk", amount: 2)]
        try setup.save()

        let reader = ModelContext(container)
        let budget = try #require(try reader.fetch(FetchDescriptor<Budget>()).first)
        #expect(budget.total == 2)

        let writer = ModelContext(container)
        for transaction in try writer.fetch(FetchDescriptor<Transaction>()) { writer.delete(transaction) }
        try writer.save()

        _ = try reader.fetch(FetchDescriptor<Budget>())
        #expect(budget.transactions.isEmpty, "the reader still lists a deleted transaction")
    }

    // MARK: - Upsert and the identity map

    /// Two new models with the same unique value become one row; the context must not keep two live,
    /// non-deleted objects for that row.
    @Test func upsertOfTwoNewModelsKeepsOneObjectPerRow() throws {
        let container = try memoryContainer(ReviewBlob.self)
        let context = ModelContext(container)
        let one = ReviewBlob(code: "dup", label: "one")
        let two = ReviewBlob(code: "dup", label: "two")
        context.insert(one)
        context.insert(two)
        try context.save()
        #expect(one.persistentModelID == two.persistentModelID)
        // The first object to claim the row stays its one object, refreshed with the values the upsert
        // wrote last; the duplicate instance is retired (it reports isDeleted).
        let registered = try #require(context.model(for: two.persistentModelID) as? ReviewBlob)
        #expect(registered === one, "model(for:) must return the row's surviving object")
        #expect(context.registeredModel(for: one.persistentModelID) as ReviewBlob? === one)
        #expect(!one.isDeleted)
        #expect(two.isDeleted, "two live objects for one row in one context")
        #expect(one.label == "two", "the surviving object must show the values the upsert wrote")
        #expect(!context.hasChanges)

        // The store holds one row, with the values written last, under the same identifier.
        let stored = try ModelContext(container).fetch(FetchDescriptor<ReviewBlob>())
        #expect(stored.map(\.label) == ["two"])
        #expect(stored.map(\.persistentModelID) == [one.persistentModelID])

        // A later change to the retired duplicate cannot be saved: the next save says so, writes
        // nothing, and the one after goes on.
        two.label = "three"
        #expect(!context.hasChanges)
        #expect(throws: StowageError.self) { try context.save() }
        try context.save()
        #expect(try ModelContext(container).fetch(FetchDescriptor<ReviewBlob>()).map(\.label) == ["two"])
        #expect(one.label == "two")
    }

    // MARK: - Guards (pass today)

    /// Pending inserts, changes and deletions merge with SQL results under predicate, sort, offset, limit.
    @Test func pendingChangesMergeWithPredicateSortOffsetAndLimit() throws {
        let container = try memoryContainer(Budget.self)
        let context = ModelContext(container)
        for (name, limit) in [("a", 1.0), ("b", 2), ("c", 3), ("d", 4), ("e", 5)] { context.insert(Budget(name: name, limit: limit)) }
        try context.save()
        let all = try context.fetch(FetchDescriptor<Budget>(sortBy: [SortDescriptor(\.name)]))
        all[1].limit = 10      // b moves to the end
        context.delete(all[2]) // c goes
        context.insert(Budget(name: "aa", limit: 1.5))
        all[3].limit = 0       // d no longer matches
        var descriptor = FetchDescriptor<Budget>(predicate: #Predicate { $0.limit >= 1 }, sortBy: [SortDescriptor(\.limit)])
        descriptor.fetchOffset = 1
        descriptor.fetchLimit = 2
        #expect(try context.fetch(descriptor).map(\.name) == ["aa", "e"])
        #expect(try context.fetchCount(descriptor) == 2)
        #expect(try context.fetchIdentifiers(descriptor).count == 2)
    }

    /// Self-referential many-to-many with a declared inverse round-trips both sides in order.
    @Test func selfReferentialManyToManyRoundTrip() throws {
        let container = try memoryContainer(ReviewUser.self)
        let context = ModelContext(container)
        let ann = ReviewUser(name: "ann"), bob = ReviewUser(name: "bob"), cat = ReviewUser(name: "cat")
        context.insert(ann)
        ann.following = [cat, bob]
        cat.following = [ann]
        #expect(bob.followers.map(\.name) == ["ann"])
        try context.save()
        ann.following.removeAll { $0 === cat }
        try context.save()
        let reader = ModelContext(container)
        let users = try reader.fetch(FetchDescriptor<ReviewUser>(sortBy: [SortDescriptor(\.name)]))
        #expect(users.map { $0.following.map(\.name) } == [["bob"], [], ["ann"]])
        #expect(users.map { $0.followers.map(\.name) } == [["cat"], ["ann"], []])
    }
}

/// A model discarded by rollback outlives its container: it used to read the container's freed entity
/// (a crash). Detached models now drop the container's entity.
@Suite struct ReviewFindingsCrashTests {
    private func rolledBackTransaction() throws -> Transaction {
        let container = try memoryContainer(Budget.self)
        let context = ModelContext(container)
        let budget = Budget(name: "Food", limit: 1)
        context.insert(budget)
        try context.save()
        let milk = Transaction(note: "milk", amount: 2)
        context.insert(milk)
        context.rollback()
        return milk
    }

    /// A model discarded by rollback keeps the container's `Schema.Entity`, whose relationships point
    /// to their inverse and destination `unowned(unsafe)`: once the container is gone, changing a
    /// relationship of the plain object reads freed memory (crash, or silently no inverse maintenance).
    @Test func modelDiscardedByRollbackOutlivesItsContainer() throws {
        let milk = try rolledBackTransaction()
        let other = Budget(name: "Other", limit: 1)
        milk.budget = other
        #expect(other.transactions.map(\.note) == ["milk"])
    }
}
