import Foundation
import Observation
import StowageQueries
import Testing
@testable import TodoKit

/// Observation through `AnyConvertibleValueObservableObject`: reading `wrappedValue` inside
/// `withObservationTracking` tracks the mock or the model behind, whichever it is.
@Suite struct ObservationTests {
    @Test func aChangeToTheMockBehindTheEraserIsObserved() {
        let group = MockGroup(TodoGroup(id: .string("home"), title: "Home", taskCount: 0))
        let erased = group.eraseToAny()
        #expect(observationFires(reading: { erased.wrappedValue }, when: { group.title = "House" }))
        #expect(observationFires(reading: { erased.wrappedValue }, when: { group.taskCount += 1 }))
        #expect(observationFires(reading: { erased.wrappedValue }, when: { group.update(TodoGroup(id: .string("home"), title: "Home", taskCount: 0)) }))
        #expect(erased.wrappedValue == TodoGroup(id: .string("home"), title: "Home", taskCount: 0))
    }

    @Test func anotherMocksChangeIsNotObserved() {
        let home = MockGroup(TodoGroup(id: .string("home"), title: "Home", taskCount: 0))
        let work = MockGroup(TodoGroup(id: .string("work"), title: "Work", taskCount: 0))
        let erased = home.eraseToAny()
        #expect(!observationFires(reading: { erased.wrappedValue }, when: { work.title = "Office" }))
    }

    @Test func aChangeToTheModelBehindTheEraserIsObserved() throws {
        let context = ModelContext(try makeInMemoryContainer())
        let group = GroupModel(title: "Home")
        context.insert(group)
        try context.save()
        let erased = group.eraseToAny()
        #expect(observationFires(reading: { erased.wrappedValue }, when: { group.title = "House" }))
        #expect(observationFires(reading: { erased.wrappedValue }, when: { group.tasks.append(TaskModel(title: "Buy milk")) }))
        #expect(erased.wrappedValue.taskCount == 1)

        let task = try #require(group.tasks.first).eraseToAny()
        #expect(observationFires(reading: { task.wrappedValue }, when: { group.tasks[0].isCompleted = true }))
        #expect(task.wrappedValue.isCompleted)
    }

    @Test func anotherModelsChangeIsNotObserved() throws {
        let context = ModelContext(try makeInMemoryContainer())
        let home = GroupModel(title: "Home")
        let work = GroupModel(title: "Work")
        context.insert(home)
        context.insert(work)
        try context.save()
        let erased = home.eraseToAny()
        #expect(!observationFires(reading: { erased.wrappedValue }, when: { work.title = "Office" }))
    }

    /// The app's view of it: objects from the logic, changed by the logic's actions, on every backend.
    @Test(arguments: Backend.allCases)
    func theLogicsActionsAreObservedThroughItsObjects(backend: Backend) throws {
        let fixture = try backend.makeFixture()
        defer { fixture.remove() }
        let logic = fixture.logic
        let id = try logic.addGroup("Home")
        let home = try logic.group(titled: "Home")
        #expect(try observationFires(reading: { home.wrappedValue }, when: { try logic.addTask("Buy milk", to: id) }))
        #expect(home.wrappedValue.taskCount == 1)
        #expect(try observationFires(reading: { home.wrappedValue }, when: { try logic.renameGroup(id, to: "House") }))
        #expect(home.wrappedValue.title == "House")

        let milk = try #require(try logic.tasks(in: id).first)
        #expect(try observationFires(reading: { milk.wrappedValue }, when: { try logic.complete(taskTitled: "Buy milk", in: id) }))
        #expect(milk.wrappedValue.isCompleted)
        #expect(try observationFires(reading: { home.wrappedValue }, when: { try logic.clearCompleted(in: id) }))
        #expect(home.wrappedValue.taskCount == 0)
    }

    @Test(arguments: Backend.allCases)
    func aRefusedActionChangesNothingObserved(backend: Backend) throws {
        let fixture = try backend.makeFixture()
        defer { fixture.remove() }
        let logic = fixture.logic
        let id = try logic.addGroup("Home")
        try logic.addGroup("Work")
        let home = try logic.group(titled: "Home")
        #expect(!observationFires(reading: { home.wrappedValue }, when: { _ = try? logic.renameGroup(id, to: "work") }))
        #expect(!observationFires(reading: { home.wrappedValue }, when: { _ = try? logic.addTask(" ", to: id) }))
        #expect(home.wrappedValue.title == "Home")
    }
}
