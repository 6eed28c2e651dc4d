import Foundation
import Stowage
import Testing
@testable import UsersKit

@Suite struct ConversionTests {
    @Test(arguments: [
        ("Admin", UserRole.admin), ("Owner", .owner), ("User", .user), ("Unknown", .unknown),
        ("Superuser", .unknown), ("admin", .unknown), ("", .unknown), (" User", .unknown),
    ])
    func roleFromString(string: String, role: UserRole) {
        #expect(UserRole.fromString(string) == role)
    }

    @Test func missingRoleIsUnknown() {
        #expect(UserRole.fromString(nil) == .unknown)
        #expect(UserRole.allCases.map(\.rawValue) == ["Unknown", "Admin", "Owner", "User"])
    }

    @Test func userDecodesTheAPIsKeys() throws {
        let users = try JSONDecoder().decode([User].self, from: json("""
            [{"avatar": "https://example.com/a.png", "username": "ada", "role": "Admin"},
             {"username": "linus", "avatar": null},
             {"username": "ken", "role": "Superuser", "extra": 42}]
            """))
        #expect(users == [
            User(avatarUrl: "https://example.com/a.png", username: "ada", role: "Admin"),
            User(username: "linus"),
            User(username: "ken", role: "Superuser"),
        ])
        let encoded = String(decoding: try JSONEncoder().encode(users[0]), as: UTF8.self)
        #expect(encoded.contains("\"avatar\""))
        #expect(!encoded.contains("avatarUrl"))
    }

    @Test func toPersistentModelInsertsAUserModel() throws {
        let context = try makeInMemoryContext()
        let user = User(avatarUrl: "https://example.com/a.png", username: "ada", role: "Admin")
        let model = try #require(user.toPersistentModel(in: context))
        #expect(model.username == "ada")
        #expect(model.avatarUrl == "https://example.com/a.png")
        #expect(model.role == .admin)
        #expect(model.modelContext === context)
        #expect(context.hasChanges)
        // Nothing is written until the caller saves.
        #expect(try storedUsers(in: context).isEmpty)
        try context.save()
        #expect(try storedUsers(in: context) == [user])
    }

    @Test func anUnknownOrMissingRoleIsStoredAsUnknown() throws {
        let context = try makeInMemoryContext()
        let ken = try #require(User(username: "ken", role: "Superuser").toPersistentModel(in: context))
        let linus = try #require(User(username: "linus").toPersistentModel(in: context))
        #expect(ken.role == .unknown)
        #expect(linus.role == .unknown)
        try context.save()
        #expect(try storedUsers(in: context).map(\.role) == ["Unknown", "Unknown"])
    }

    @Test func toModelConvertsBack() throws {
        let context = try makeInMemoryContext()
        let model = UserModel(username: "grace", avatarUrl: "https://example.com/g.png", role: .owner)
        context.insert(model)
        #expect(model.toModel() == User(avatarUrl: "https://example.com/g.png", username: "grace", role: "Owner"))
        #expect(UserModel(username: "linus").toModel() == User(username: "linus", role: "Unknown"))
    }

    @Test func roleIsReadAndWrittenThroughTheStoredString() throws {
        let context = try makeInMemoryContext()
        let model = UserModel(username: "ada", role: .user)
        context.insert(model)
        try context.save()
        model.role = .admin
        try context.save()
        #expect(try ModelContext(context.container).fetch(UserModel.all).map(\.role) == [.admin])
    }

    @Test(arguments: [
        User(avatarUrl: "https://example.com/a.png", username: "ada", role: "Admin"),
        User(username: "linus", role: "User"),
        User(avatarUrl: "https://example.com/k.png", username: "ken", role: "Unknown"),
    ])
    func aKnownRoleRoundTrips(user: User) throws {
        let context = try makeInMemoryContext()
        #expect(user.toPersistentModel(in: context)?.toModel() == user)
    }

    @Test func aContainerWithoutUserModelGetsNothing() throws {
        let container = try ModelContainer(for: Unrelated.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        #expect(User(username: "ada").toPersistentModel(in: context) == nil)
        #expect(!context.hasChanges)
        #expect(throws: UserImportError(.modelNotInSchema, "the store has no UserModel: open its container with ModelContainer(for: UserModel.self)")) {
            try UserImporter(context: context).importUsers([User(username: "ada")])
        }
    }
}
