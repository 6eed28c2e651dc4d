import Stowage

// The seed's persistence model, `UserManagedObject`, as a Stowage (SwiftData) model. Two changes from
// the seed: `username` is not optional and is unique (the key the imports upsert on), and `@Model`
// stands in for `NSManagedObject` with `@NSManaged`.

/// A user as the store keeps it: the persistence model of ``User``.
///
/// The role is stored as its raw value in `roleValue`, which is private, and read and written as a
/// ``UserRole`` through ``role``, as in the seed. Inserting a `UserModel` whose `username` is stored
/// already updates the stored user when the context saves (Stowage upserts on a unique attribute, as
/// SwiftData does).
@Model
public final class UserModel {
    /// The user's unique name.
    @Attribute(.unique) public var username: String
    /// The address of the user's picture, if they have one.
    public var avatarUrl: String?
    /// The role's raw value, as stored; read and written through ``role``.
    private var roleValue: String

    /// The user's role. A stored value that is not a ``UserRole`` reads as ``UserRole/unknown``.
    public var role: UserRole {
        get {
            return UserRole.fromString(roleValue)
        }
        set {
            roleValue = newValue.rawValue
        }
    }

    /// Creates a user that is not in any context yet.
    public init(username: String, avatarUrl: String? = nil, role: UserRole = .unknown) {
        self.username = username
        self.avatarUrl = avatarUrl
        self.roleValue = role.rawValue
    }
}

extension UserModel {
    /// Every user, by username.
    static var all: FetchDescriptor<UserModel> {
        FetchDescriptor(sortBy: [SortDescriptor(\UserModel.username)])
    }

    /// The users whose username is one of `usernames` (at most a few hundred: the list is bound to
    /// the SQL statement).
    static func named(_ usernames: [String]) -> FetchDescriptor<UserModel> {
        FetchDescriptor(predicate: #Predicate { usernames.contains($0.username) })
    }
}
