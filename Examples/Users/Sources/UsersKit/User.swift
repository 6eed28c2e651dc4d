// The seed's domain model: what the API sends and receives, as a plain `Codable` struct. It knows
// nothing of the store; `UserModel` is its persistence counterpart (see Convertible.swift).

/// A user as the API represents it: the domain model, decoded from and encoded to JSON.
///
/// The JSON keys are the API's: `avatar`, `username` and `role`. The seed declares every property
/// optional; here `username` is required, because it identifies the user: importing a user whose
/// username is stored already updates that user.
///
/// ```json
/// {"avatar": "https://example.com/avatars/ada.png", "role": "Admin", "username": "ada"}
/// ```
public struct User: Codable, Equatable, Sendable {
    /// The JSON keys, as the seed declares them: `avatarUrl` is `avatar` in the API's JSON.
    enum CodingKeys: String, CodingKey {
        case avatarUrl = "avatar"
        case username
        case role
    }

    /// The address of the user's picture, if they have one (`avatar` in JSON).
    public let avatarUrl: String?
    /// The user's unique name, which identifies them.
    public let username: String
    /// The user's role as the API spells it, if it sends one. Any string is accepted here; the
    /// persistence model keeps a ``UserRole``, and turns a role it does not know into
    /// ``UserRole/unknown``.
    public let role: String?

    /// Creates a user, with the seed's argument order.
    public init(avatarUrl: String? = nil, username: String, role: String? = nil) {
        self.avatarUrl = avatarUrl
        self.username = username
        self.role = role
    }
}

/// The roles the app knows, as the seed declares them; the raw values are the API's spellings.
public enum UserRole: String, CaseIterable, Sendable {
    /// A role the API did not send, or one the app does not know.
    case unknown = "Unknown"
    /// An administrator.
    case admin = "Admin"
    /// An owner.
    case owner = "Owner"
    /// A regular user.
    case user = "User"

    /// The role spelled `value`, or ``unknown`` when `value` is `nil` or not one of the raw values
    /// (which are compared exactly: `"admin"` is unknown).
    public static func fromString(_ value: String?) -> UserRole {
        guard let value = value else { return .unknown }
        return UserRole(rawValue: value) ?? .unknown
    }
}
