import Stowage

// The seed's two conversion protocols. `ModelConvertible` keeps its name and shape. The seed's
// `ManagedObjectConvertible` is renamed `PersistentModelConvertible`: there is no managed object or
// managed object context in SwiftData (nor in Stowage), but a `PersistentModel` inserted into a
// `ModelContext`, and the names follow.

/// A persistence model that converts to its domain model: the seed's `ModelConvertible`, unchanged.
///
/// The store's users are sent back to the API this way: `UserModel` → ``User``.
public protocol ModelConvertible {
    /// The domain model this converts to.
    associatedtype Model

    /// Converts a conforming instance to a data model instance.
    ///
    /// - Returns: The converted data model instance.
    func toModel() -> Model?
}

/// A domain model that converts to its persistence model: the seed's `ManagedObjectConvertible`,
/// renamed for SwiftData's terms.
///
/// | Seed (Core Data)                          | Here (SwiftData, Stowage)                            |
/// |-------------------------------------------|------------------------------------------------------|
/// | `ManagedObjectConvertible`                | `PersistentModelConvertible`                         |
/// | `associatedtype ManagedObject`            | `associatedtype PersistentModelType: PersistentModel` |
/// | `toManagedObject(in: NSManagedObjectContext)` | `toPersistentModel(in: ModelContext)`            |
///
/// As in the seed, the conversion creates the persistence model in the context: the model returned is
/// inserted, and the context's next save writes it.
public protocol PersistentModelConvertible {
    /// The persistence model this converts to.
    associatedtype PersistentModelType: PersistentModel

    /// Converts a conforming instance to a persistent model inserted into `context`.
    ///
    /// - Parameter context: The model context to insert into; the caller saves it.
    /// - Returns: The inserted persistent model, or `nil` when `context` cannot hold one (its
    ///   container's schema does not have the model type).
    func toPersistentModel(in context: ModelContext) -> PersistentModelType?
}

extension User: PersistentModelConvertible {
    /// Creates a ``UserModel`` with this user's values and inserts it into `context`.
    ///
    /// The role is converted with ``UserRole/fromString(_:)``: a missing or unknown role becomes
    /// ``UserRole/unknown``. When `context` saves, a stored user with the same username is updated
    /// rather than duplicated (an upsert on `UserModel`'s unique `username`).
    ///
    /// - Returns: The inserted model, or `nil` (nothing inserted) when `context`'s container was not
    ///   created with `UserModel` in its schema: the seed's "Can't create entity" case.
    public func toPersistentModel(in context: ModelContext) -> UserModel? {
        guard context.container.schema.entity(for: UserModel.self) != nil else { return nil }
        let model = UserModel(username: username, avatarUrl: avatarUrl, role: UserRole.fromString(role))
        context.insert(model)
        return model
    }
}

extension UserModel: ModelConvertible {
    // MARK: - ModelConvertible
    /// Converts a UserModel instance to a User instance.
    ///
    /// - Returns: The converted User instance; its role is the ``UserRole``'s raw value, so a role the
    ///   app did not know is sent back as `"Unknown"`.
    public func toModel() -> User? {
        return User(avatarUrl: avatarUrl,
                    username: username,
                    role: role.rawValue)
    }
}
