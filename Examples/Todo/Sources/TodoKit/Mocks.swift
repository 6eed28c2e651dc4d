import Observation
import StowageQueries

// Seed 004's mocks: objects made from a value, that behave like the models they stand for. They read
// and write their value's properties by dynamic member lookup (`group.title = "House"`), and are
// `@Observable`, so that app logic and views watching them through `AnyConvertibleValueObservableObject`
// see their changes as they would a model's.

/// A group made from a ``TodoGroup`` value, standing for a stored group in previews and tests (seed
/// 004's `MockGroup`).
///
/// ```swift
/// let group = MockGroup(TodoGroup(id: .string("home"), title: "Home", taskCount: 5))
/// group.title = "House"
/// let erased = group.eraseToAny()  // what TodoLogic and views take
/// ```
@Observable
public final class MockGroup: TestableConvertibleValueObservableObject {
    /// The mock's state.
    public var _wrappedValue: TodoGroup

    /// A mock with this state.
    public init(_ wrappedValue: TodoGroup) {
        _wrappedValue = wrappedValue
    }
}

/// A task made from a ``TodoTask`` value, standing for a stored task in previews and tests.
@Observable
public final class MockTask: TestableConvertibleValueObservableObject {
    /// The mock's state.
    public var _wrappedValue: TodoTask

    /// A mock with this state.
    public init(_ wrappedValue: TodoTask) {
        _wrappedValue = wrappedValue
    }
}
