// snippet.hide
// Architectures: value types and mocks (StowageQueries).
// snippet.show
import StowageQueries

struct TodoGroup: BaseValueProtocol {
    var id: WrappedID
    var title: String
    var taskCount: Int
}

@Model
final class GroupModel {
    var title: String
    var tasks: [String] = []
    init(title: String) { self.title = title }
}

extension GroupModel: ConvertibleValueObservableObject {
    var id: WrappedID { .persistentIdentifier(persistentModelID) }
    func convertToValueType() -> TodoGroup { TodoGroup(id: id, title: title, taskCount: tasks.count) }
}

@Observable final class MockGroup: TestableConvertibleValueObservableObject {
    var _wrappedValue: TodoGroup
    init(_ wrappedValue: TodoGroup) { _wrappedValue = wrappedValue }
}

// Logic and views take the erased type: a model in the app, a mock in tests.
func headline(_ group: AnyConvertibleValueObservableObject<TodoGroup>) -> String {
    let value = group.wrappedValue
    return "\(value.title) (\(value.taskCount))"
}

let mock = MockGroup(TodoGroup(id: .string("g1"), title: "Home", taskCount: 2))
print(headline(mock.eraseToAny()))                  // Home (2), with no database at all

let context = ModelContext(try ModelContainer(for: GroupModel.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
let model = GroupModel(title: "Home")
model.tasks = ["Water the plants", "Take out the trash"]
context.insert(model)
print(headline(model.eraseToAny()))                 // Home (2), from the model
// snippet.hide
precondition(headline(mock.eraseToAny()) == headline(model.eraseToAny()))
mock.title = "House"
precondition(headline(mock.eraseToAny()) == "House (2)")
