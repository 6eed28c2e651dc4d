import Foundation
import Observation
import StowageQueries
import Testing

struct Group: BaseValueProtocol {
    var id: WrappedID
    var title: String
    var taskCount: Int
}

@Observable
final class MockGroup: TestableConvertibleValueObservableObject {
    var _wrappedValue: Group
    init(_ wrappedValue: Group) { _wrappedValue = wrappedValue }
}

@Model
final class GroupModel {
    var title: String
    var taskCount: Int
    init(title: String, taskCount: Int) {
        self.title = title
        self.taskCount = taskCount
    }
}

extension GroupModel: ConvertibleValueObservableObject {
    var id: WrappedID { .persistentIdentifier(persistentModelID) }
    func convertToValueType() -> Group { Group(id: id, title: title, taskCount: taskCount) }
}

/// App logic that knows neither mocks nor models.
func titles(_ groups: [AnyConvertibleValueObservableObject<Group>]) -> [String] {
    groups.map { "\($0.wrappedValue.title) (\($0.wrappedValue.taskCount))" }
}

@Suite("Values and mocks")
struct ValueTests {
    @Test func mocksReadAndWriteTheirValueByMemberAndCompareByValue() {
        let mock = MockGroup(Group(id: .string("g1"), title: "Home", taskCount: 1))
        #expect(mock.title == "Home")
        mock.title = "House"
        mock.taskCount += 1
        #expect(mock.convertToValueType() == Group(id: .string("g1"), title: "House", taskCount: 2))
        #expect(mock.id == .string("g1"))
        #expect(mock == MockGroup(Group(id: .string("g1"), title: "House", taskCount: 2)))
        mock.update(Group(id: .uuid(UUID()), title: "Work", taskCount: 0))
        #expect(mock.title == "Work")
    }

    @Test func theSameLogicRunsOnMocksAndOnModels() throws {
        let mocks = [MockGroup(Group(id: .integer(1), title: "Home", taskCount: 2)).eraseToAny()]
        let container = try ModelContainer(for: GroupModel.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let model = GroupModel(title: "Home", taskCount: 2)
        context.insert(model)
        try context.save()
        let models = try context.fetch(FetchDescriptor<GroupModel>()).map { $0.eraseToAny() }
        #expect(titles(mocks) == titles(models))
        #expect(models[0].id == .persistentIdentifier(model.persistentModelID))
        #expect(model.id == models[0].id, "a model's id is its WrappedID")
    }

    @Test func observationSeesChangesThroughTheEraser() throws {
        let mock = MockGroup(Group(id: .integer(1), title: "Home", taskCount: 0))
        let erasedMock = mock.eraseToAny()
        #expect(observesChange({ _ = erasedMock.wrappedValue }, during: { mock.taskCount = 3 }))
        let container = try ModelContainer(for: GroupModel.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let model = GroupModel(title: "Home", taskCount: 0)
        ModelContext(container).insert(model)
        let erasedModel = model.eraseToAny()
        #expect(observesChange({ _ = erasedModel.wrappedValue }, during: { model.title = "House" }))
        #expect(erasedModel.wrappedValue.title == "House")
    }

    @Test func wrappedIDsAreHashableAcrossKinds() {
        let ids: Set<WrappedID> = [.string("1"), .integer(1), .uuid(UUID()), .string("1")]
        #expect(ids.count == 3)
        #expect(WrappedID.integer(7).id == .integer(7))
    }
}
