import Foundation
import Observation

/// An identifier that works with and without a store (seed 004's `WrappedID`): a model's
/// `PersistentIdentifier` in the app, a string, number or UUID for mock data in previews and tests.
public enum WrappedID: Equatable, Identifiable, Sendable, Hashable {
    /// A mock's identifier made from a string.
    case string(String)
    /// A mock's identifier made from a number.
    case integer(Int)
    /// A mock's identifier made from a UUID.
    case uuid(UUID)
    /// A stored model's identifier (the seed's `objectID(NSManagedObjectID)`).
    case persistentIdentifier(PersistentIdentifier)

    /// The identifier itself, so that identifiers are `Identifiable` too.
    public var id: Self { self }
}

/// A plain value describing one thing the app shows or acts on (seed 004's `BaseValueProtocol`):
/// `Equatable` for reducers and actions, `Sendable` to cross isolation boundaries, identified by a
/// ``WrappedID`` that links it to its model or mock.
public protocol BaseValueProtocol: Equatable, Identifiable, Sendable where ID == WrappedID {
    /// The identifier linking the value to its model or mock.
    var id: WrappedID { get }
}

/// An observable object that can give its state as a value (seed 004's
/// `ConvertibleValueObservableObject`): a `@Model` in the app, a mock in tests. Observation replaces
/// the seed's `ObservableObject`: reading ``convertToValueType()`` inside `withObservationTracking`
/// tracks the properties it reads.
///
/// ```swift
/// extension GroupModel: ConvertibleValueObservableObject {
///     var id: WrappedID { .persistentIdentifier(persistentModelID) }
///     func convertToValueType() -> TodoGroup { TodoGroup(id: id, title: title, taskCount: tasks.count) }
/// }
/// ```
public protocol ConvertibleValueObservableObject<Value>: AnyObject, Observable, Identifiable where ID == WrappedID {
    /// The type of the value the object gives.
    associatedtype Value: BaseValueProtocol
    /// The object's state as a value.
    func convertToValueType() -> Value
}

/// A mock object made from a value, that behaves like the model it stands for (seed 004's
/// `TestableConvertibleValueObservableObject`): reads and writes its value's properties by dynamic
/// member lookup. Make the class `@Observable` so that changes are observed, as a model's are:
///
/// ```swift
/// @Observable final class MockGroup: TestableConvertibleValueObservableObject {
///     var _wrappedValue: TodoGroup
///     init(_ wrappedValue: TodoGroup) { _wrappedValue = wrappedValue }
/// }
/// let group = MockGroup(TodoGroup(id: .string("g1"), title: "Home", taskCount: 0))
/// group.title = "House"
/// ```
@dynamicMemberLookup
public protocol TestableConvertibleValueObservableObject<WrappedValue>: ConvertibleValueObservableObject where Value == WrappedValue {
    /// The type of the mock's state.
    associatedtype WrappedValue: BaseValueProtocol
    /// The mock's state.
    var _wrappedValue: WrappedValue { get set }
    /// A mock with this state.
    init(_ wrappedValue: WrappedValue)
    /// A property of the state.
    subscript<Member>(dynamicMember keyPath: WritableKeyPath<WrappedValue, Member>) -> Member { get set }
}

extension TestableConvertibleValueObservableObject {
    /// Reads and writes a property of the mock's state.
    public subscript<Member>(dynamicMember keyPath: WritableKeyPath<WrappedValue, Member>) -> Member {
        get { _wrappedValue[keyPath: keyPath] }
        set { _wrappedValue[keyPath: keyPath] = newValue }
    }

    /// Replaces the whole state.
    public func update(_ wrappedValue: WrappedValue) { _wrappedValue = wrappedValue }

    /// Mocks are equal when their states are.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs._wrappedValue == rhs._wrappedValue }

    /// The mock's state.
    public func convertToValueType() -> WrappedValue { _wrappedValue }

    /// The identifier of the mock's state.
    public var id: WrappedID { _wrappedValue.id }
}

/// Any ``ConvertibleValueObservableObject`` of a value type (seed 004's
/// `AnyConvertibleValueObservableObject`): the one type app logic and views take, whether a model or a
/// mock is behind it.
public final class AnyConvertibleValueObservableObject<Value: BaseValueProtocol>: Observable, Identifiable {
    /// The object behind.
    public let _object: any ConvertibleValueObservableObject<Value>

    /// Wraps `object`.
    public init(object: some ConvertibleValueObservableObject<Value>) { _object = object }

    /// The object's identifier.
    public var id: WrappedID { _object.id }

    /// The object's state now (observed through the object: reading it in `withObservationTracking`
    /// tracks what the object reads).
    public var wrappedValue: Value { _object.convertToValueType() }
}

extension ConvertibleValueObservableObject {
    /// The object behind the type-erased wrapper that app logic takes.
    public func eraseToAny() -> AnyConvertibleValueObservableObject<Value> {
        AnyConvertibleValueObservableObject(object: self)
    }
}
