import ExampleSupport
import Foundation
import Stowage

/// The `demo` command: the seed's import of an API's users, step by step, on the store file.
///
/// The demo writes JSON files in a temporary directory, as an API client would save responses,
/// imports one, imports an updated one (users updated and inserted, an unknown role), shows files with
/// a mistake refused whole, reopens the store in a second container and converts the users back to
/// the domain model, and finally deletes what it created, so the store is left as the demo found it.
struct Demo {
    let storeURL: URL
    let console: Console

    /// The first response: three users.
    static let firstResponse = [
        User(avatarUrl: "https://example.com/avatars/ada.png", username: "ada", role: "Admin"),
        User(avatarUrl: "https://example.com/avatars/grace.png", username: "grace", role: "Owner"),
        User(username: "linus", role: "User"),
    ]
    /// The response a day later: ada as she was, a new avatar for grace, linus made an Admin, and two
    /// new users, one with a role the app does not know.
    static let secondResponse = [
        User(avatarUrl: "https://example.com/avatars/ada.png", username: "ada", role: "Admin"),
        User(avatarUrl: "https://example.com/avatars/grace-2.png", username: "grace", role: "Owner"),
        User(username: "linus", role: "Admin"),
        User(avatarUrl: "https://example.com/avatars/margaret.png", username: "margaret", role: "User"),
        User(username: "ken", role: "Superuser"),
    ]
    /// Files with a mistake in their second record: a number for a role, and a role without quotes.
    static let refusedFiles: [(name: String, lines: [String])] = [
        ("users-3.json", ["[", #"  {"role":"User","username":"barbara"},"#, #"  {"role":7,"username":"dennis"}"#, "]"]),
        ("users-4.json", ["[", #"  {"role":"User","username":"barbara"},"#, #"  {"username":"dennis","role":Admin}"#, "]"]),
    ]
    /// Every username the demo's files have.
    static let usernames: Set<String> = Set((firstResponse + secondResponse).map(\.username)).union(["barbara", "dennis"])

    func run() throws {
        let context = ModelContext(try Users.openContainer(at: storeURL))
        try checkUsernamesAreFree(in: context)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("users-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // The files go with the demo even when a step fails.
        defer { try? FileManager.default.removeItem(at: directory) }
        var files: [String] = []
        func write(_ name: String, _ lines: [String]) throws -> Data {
            let data = Data(lines.joined(separator: "\n").utf8)
            try data.write(to: directory.appendingPathComponent(name))
            files.append(name)
            return data
        }

        say("Users demo. Store: \(storeURL.path)")

        console.writeStep(1, "Save the API's response as users.json: a JSON array of User, the Codable domain model (\"avatar\" is its avatarUrl)")
        let first = try write("users.json", fileLines(Self.firstResponse))
        fileLines(Self.firstResponse).forEach { say("   " + $0) }

        console.writeStep(2, "Import it: decode [User], convert each with toPersistentModel(in:), which inserts a UserModel, and save once")
        Report.imported(try Users.importJSON(first, named: "users.json", into: context), from: "users.json").forEach { say("   " + $0) }

        console.writeStep(3, "List the stored users: UserModel keeps the role as a UserRole")
        Report.users(try demoUsers(in: context), indent: "   ").forEach(say)

        console.writeStep(4, "Import users-2.json, a day later: grace has a new avatar, linus is an Admin, two users are new, one with a role the app does not know")
        let second = try write("users-2.json", fileLines(Self.secondResponse))
        Report.imported(try Users.importJSON(second, named: "users-2.json", into: context), from: "users-2.json").forEach { say("   " + $0) }
        Report.users(try demoUsers(in: context), indent: "   ").forEach(say)

        console.writeStep(5, "Files with a mistake are refused whole: nothing of them is imported, not even their valid first record")
        for (name, lines) in Self.refusedFiles {
            let data = try write(name, lines)
            say("   \(name):")
            lines.forEach { say("     " + $0) }
            do {
                _ = try Users.importJSON(data, named: name, into: context)
                say("   Imported: the demo expected a refusal.")
            } catch let error as UsersError where error.code == .invalidFile {
                say("   Refused: \(error.message)")
            }
        }
        let check = ModelContext(context.container)
        let stored = try check.fetchCount(UserModel.named(Array(Self.usernames)))
        let barbara = try check.fetchCount(UserModel.named(["barbara"]))
        say("   The store has \(Report.count(stored, "demo user")), and \(barbara == 0 ? "no" : "a") \"barbara\".")

        console.writeStep(6, "Open the store file again in a new ModelContainer, and convert each UserModel back with toModel(): the JSON the API would be sent")
        let reopened = ModelContext(try Users.openContainer(at: storeURL))
        let users = try demoUsers(in: reopened)
        fileLines(users.compactMap { $0.toModel() }).forEach { say("   " + $0) }
        say("   \"ken\" goes back as \"\(UserRole.unknown.rawValue)\": the persistence model keeps a UserRole, not the API's string.")

        console.writeStep(7, "Clean up: delete the demo's users and its JSON files, leaving the store as the demo found it")
        let deleted = users.map(\.username)
        for user in users { reopened.delete(user) }
        do {
            try reopened.save()
        } catch {
            throw UsersError.store("save to", error)
        }
        say("   Deleted \(Report.count(deleted.count, "user")): \(deleted.joined(separator: ", ")).")
        for name in files { try FileManager.default.removeItem(at: directory.appendingPathComponent(name)) }
        say("   Deleted \(files.joined(separator: ", ")).")

        say("")
        say("Done. Your turn: users import <file.json>, then users list or users export. Run users help for more.")
    }

    /// A file's lines: the users as `users export` writes them.
    private func fileLines(_ users: [User]) -> [String] {
        UserJSON.encode(users).components(separatedBy: "\n")
    }

    /// The stored users the demo created, by username.
    private func demoUsers(in context: ModelContext) throws -> [UserModel] {
        try Users.fetchUsers(context).filter { Self.usernames.contains($0.username) }
    }

    /// Refuses to run on a store where the demo's usernames are taken, so it never touches the user's
    /// users.
    private func checkUsernamesAreFree(in context: ModelContext) throws {
        let taken = try Users.fetchUsers(context).map(\.username).filter(Self.usernames.contains)
        guard taken.isEmpty else {
            throw UsersError(
                .duplicateUser,
                "the demo imports its own users, but the store at \(storeURL.path) already has \(taken.map { "\"\($0)\"" }.joined(separator: ", ")). Run the demo on another store: users demo --store /tmp/users-demo.store")
        }
    }

    private func say(_ line: String) { console.write(line) }
}
