import Foundation
import Stowage
import Testing

@Suite("Undo in a context")
@MainActor
struct ContextUndoTests {
    /// A context with an undo manager whose groups the test opens and closes.
    private func makeContext() throws -> (ModelContext, UndoManager) {
        let context = ModelContext(try inMemoryContainer(Item.self))
        let undoManager = UndoManager()
        undoManager.groupsByEvent = false
        context.undoManager = undoManager
        return (context, undoManager)
    }

    private func group(_ undoManager: UndoManager, _ body: () throws -> Void) rethrows {
        undoManager.beginUndoGrouping()
        defer { undoManager.endUndoGrouping() }
        try body()
    }

    private func names(_ context: ModelContext) throws -> [String] {
        try context.fetch(FetchDescriptor<Item>(sortBy: [SortDescriptor(\.name)])).map(\.name)
    }

    @Test func attributeChangesUndoAndRedo() throws {
        let (context, undoManager) = try makeContext()
        let lamp = Item(name: "lamp", value: 1)
        group(undoManager) { context.insert(lamp) }
        try context.save()
        group(undoManager) { lamp.value = 2 }
        group(undoManager) { lamp.value = 3; lamp.name = "desk lamp" }
        #expect(undoManager.canUndo)

        undoManager.undo()
        #expect(lamp.value == 2 && lamp.name == "lamp")
        undoManager.undo()
        #expect(lamp.value == 1)
        undoManager.redo()
        #expect(lamp.value == 2)
        undoManager.redo()
        #expect(lamp.value == 3 && lamp.name == "desk lamp")
        undoManager.undo()
        #expect(lamp.value == 2 && lamp.name == "lamp")
        #expect(context.hasChanges, "an undo after a save is a change")
        try context.save()
        let reread = ModelContext(context.container)
        #expect(try reread.fetch(FetchDescriptor<Item>()).map(\.value) == [2], "the next save writes the undone value")
    }

    @Test func insertsAndDeletesUndoAndRedo() throws {
        let (context, undoManager) = try makeContext()
        let lamp = Item(name: "lamp", value: 1), desk = Item(name: "desk", value: 2)
        group(undoManager) {
            context.insert(lamp)
            context.insert(desk)
        }
        undoManager.undo()
        #expect(context.insertedModelsArray.isEmpty && !context.hasChanges)
        undoManager.redo()
        #expect(context.insertedModelsArray.count == 2)
        try context.save()

        group(undoManager) { context.delete(desk) }
        #expect(desk.isDeleted)
        undoManager.undo()
        #expect(!desk.isDeleted && context.deletedModelsArray.isEmpty)
        try context.save()
        #expect(try names(context) == ["desk", "lamp"])

        // Undoing the insert after its save deletes the model at the next save.
        undoManager.undo()  // the deletion's group was undone; next is the insert group
        #expect(lamp.isDeleted && desk.isDeleted)
        try context.save()
        #expect(try names(context).isEmpty)
    }

    @Test func relationshipChangesUndoAndRedoOnBothSides() throws {
        let context = ModelContext(try inMemoryContainer(Budget.self, Expense.self))
        let undoManager = UndoManager()
        undoManager.groupsByEvent = false
        context.undoManager = undoManager
        let (food, travel) = (Budget(name: "food", limit: 100), Budget(name: "travel", limit: 500))
        let bread = Expense(title: "bread", amount: 3)
        group(undoManager) {
            context.insert(food)
            context.insert(travel)
            context.insert(bread)
        }
        try context.save()

        group(undoManager) { bread.budget = food }
        #expect(food.expenses.map(\.title) == ["bread"])
        group(undoManager) { travel.expenses.append(bread) }
        #expect(bread.budget === travel && food.expenses.isEmpty)

        undoManager.undo()
        #expect(bread.budget === food && food.expenses.map(\.title) == ["bread"] && travel.expenses.isEmpty)
        undoManager.undo()
        #expect(bread.budget == nil && food.expenses.isEmpty)
        undoManager.redo()
        #expect(bread.budget === food && food.expenses.map(\.title) == ["bread"])
        try context.save()

        // What the undo and redo left is what was saved.
        let fresh = ModelContext(context.container)
        let stored = try fresh.fetch(FetchDescriptor<Expense>()).first
        #expect(stored?.budget?.name == "food")
    }

    @Test func aSavedDeletionUndoesIntoANewModelWithItsValues() throws {
        let (context, undoManager) = try makeContext()
        let lamp = Item(name: "lamp", value: 7)
        lamp.tags = ["desk", "warm"]
        group(undoManager) { context.insert(lamp) }
        try context.save()
        let oldID = lamp.persistentModelID
        group(undoManager) { context.delete(lamp) }
        try context.save()
        #expect(try names(context).isEmpty)

        undoManager.undo()
        #expect(!lamp.isDeleted && context.insertedModelsArray.count == 1)
        try context.save()
        let restored = try ModelContext(context.container).fetch(FetchDescriptor<Item>())
        #expect(restored.map(\.name) == ["lamp"] && restored.first?.value == 7 && restored.first?.tags == ["desk", "warm"])
        #expect(lamp.persistentModelID != oldID, "the old row is gone: the model is stored anew")
        #expect(try ModelContext(context.container).fetchCount(FetchDescriptor<Item>(predicate: #Predicate { $0.persistentModelID == oldID })) == 0)

        undoManager.redo()
        try context.save()
        #expect(try names(context).isEmpty)
    }

    @Test func undoingASavedCascadeDeletionLeavesNoDeadChildren() throws {
        let context = ModelContext(try inMemoryContainer(Budget.self, Expense.self))
        let undoManager = UndoManager()
        undoManager.groupsByEvent = false
        context.undoManager = undoManager
        let food = Budget(name: "food", limit: 100)
        group(undoManager) {
            context.insert(food)
            food.expenses.append(Expense(title: "bread", amount: 3))
        }
        try context.save()
        group(undoManager) { context.delete(food) }
        try context.save()
        undoManager.undo()
        #expect(food.expenses.allSatisfy { !$0.isDeleted }, "no expense whose deletion was saved is still held")
        try context.save()
        let fresh = ModelContext(context.container)
        #expect(try fresh.fetch(FetchDescriptor<Budget>()).map(\.name) == ["food"])
        #expect(try fresh.fetchCount(FetchDescriptor<Expense>()) == food.expenses.count)
    }

    @Test func aContextWithoutAnUndoManagerRecordsNothing() throws {
        let context = ModelContext(try inMemoryContainer(Item.self))
        let undoManager = UndoManager()
        context.insert(Item(name: "lamp", value: 1))
        #expect(!undoManager.canUndo)
        #expect(context.undoManager == nil)
    }
}
