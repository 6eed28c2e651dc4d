// snippet.hide
// Architectures: domain values and persistence models.
import Stowage

// snippet.show
// snippet.types
struct User: Codable, Equatable {
    enum CodingKeys: String, CodingKey { case avatarUrl = "avatar", username, role }
    let avatarUrl: String?
    let username: String
    let role: String?
}

@Model
final class UserModel {
    @Attribute(.unique) var username: String
    var avatarUrl: String?
    var role: String

    init(username: String, avatarUrl: String?, role: String) {
        self.username = username
        self.avatarUrl = avatarUrl
        self.role = role
    }
}

protocol PersistentModelConvertible {
    associatedtype PersistentModelType: PersistentModel
    func toPersistentModel(in context: ModelContext) -> PersistentModelType?
}

protocol ModelConvertible {
    associatedtype Model
    func toModel() -> Model?
}

extension User: PersistentModelConvertible {
    func toPersistentModel(in context: ModelContext) -> UserModel? {
        let model = UserModel(username: username, avatarUrl: avatarUrl, role: role ?? "Unknown")
        context.insert(model)
        return model
    }
}

extension UserModel: ModelConvertible {
    func toModel() -> User? { User(avatarUrl: avatarUrl, username: username, role: role) }
}
// snippet.end
// snippet.hide
let container = try ModelContainer(for: UserModel.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
let context = ModelContext(container)
// snippet.show
// snippet.import
let json = Data(#"[{"avatar": null, "username": "ada", "role": "Admin"}, {"avatar": null, "username": "ada", "role": "Editor"}]"#.utf8)
for user in try JSONDecoder().decode([User].self, from: json) {
    _ = user.toPersistentModel(in: context)
}
try context.save()                                   // one save; "ada" is stored once, as an Editor
let users = try context.fetch(FetchDescriptor<UserModel>(sortBy: [SortDescriptor(\.username)])).compactMap { $0.toModel() }
// snippet.end
// snippet.hide
precondition(users == [User(avatarUrl: nil, username: "ada", role: "Editor")], "\(users)")
