import Foundation
import StowageQueries
import Testing
@testable import TodoKit

/// The models, last in seed 004's order: they convert to the values the app logic uses.
@Suite struct ModelTests {
    @Test func aModelsIDIsItsWrappedPersistentIdentifier() throws {
        let context = ModelContext(try makeInMemoryContainer())
        let group = GroupModel(title: "Home")
        context.insert(group)
        try context.save()
        // `id` and `Identifiable` resolve to the WrappedID, not the PersistentIdentifier every model has.
        let id: WrappedID = group.id
        #expect(id == .persistentIdentifier(group.persistentModelID))
        let unannotated = group.id
        #expect(type(of: unannotated) == WrappedID.self)
        #expect(GroupModel.ID.self == WrappedID.self)
        #expect(TaskModel.ID.self == WrappedID.self)
        func identifier<Object: Identifiable>(of object: Object) -> Object.ID { object.id }
        #expect(identifier(of: group) == id)
    }

    @Test func modelsConvertToTheirValues() throws {
        let context = ModelContext(try makeInMemoryContainer())
        let group = GroupModel(title: "Home")
        context.insert(group)
        let milk = TaskModel(title: "Buy milk")
        let tap = TaskModel(title: "Fix the tap")
        group.tasks = [milk, tap]
        tap.isCompleted = true
        try context.save()

        #expect(group.convertToValueType() == TodoGroup(id: group.id, title: "Home", taskCount: 2))
        #expect(milk.convertToValueType() == TodoTask(id: milk.id, title: "Buy milk", isCompleted: false, group: group.id))
        #expect(tap.convertToValueType() == TodoTask(id: tap.id, title: "Fix the tap", isCompleted: true, group: group.id))
        #expect(group.eraseToAny().wrappedValue == group.convertToValueType())
        #expect(group.eraseToAny()._object as? GroupModel === group)
    }

    @Test func aFetchedModelConvertsToTheSameValue() throws {
        let container = try makeInMemoryContainer()
        let context = ModelContext(container)
        let group = GroupModel(title: "Home")
        context.insert(group)
        group.tasks.append(TaskModel(title: "Buy milk"))
        try context.save()

        let fetched = try #require(try ModelContext(container).fetch(FetchDescriptor<GroupModel>()).first)
        #expect(fetched !== group)
        #expect(fetched.convertToValueType() == group.convertToValueType())
        #expect(fetched.tasks.map { $0.convertToValueType().group } == [group.id])
    }

    @Test func deletingAGroupDeletesItsTasks() throws {
        let context = ModelContext(try makeInMemoryContainer())
        let group = GroupModel(title: "Home")
        context.insert(group)
        group.tasks = [TaskModel(title: "Buy milk"), TaskModel(title: "Fix the tap")]
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<TaskModel>()) == 2)
        context.delete(group)
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<GroupModel>()) == 0)
        #expect(try context.fetchCount(FetchDescriptor<TaskModel>()) == 0)
    }
}
