import Foundation
import Stowage
import Testing
@testable import UsersKit

@Suite(.serialized) struct DemoTests {
    static func expectedTranscript(store: String) -> [String] {
        [
            "Users demo. Store: \(store)",
            "",
            "1. Save the API's response as users.json: a JSON array of User, the Codable domain model (\"avatar\" is its avatarUrl)",
            "   [",
            #"     {"avatar":"https://example.com/avatars/ada.png","role":"Admin","username":"ada"},"#,
            #"     {"avatar":"https://example.com/avatars/grace.png","role":"Owner","username":"grace"},"#,
            #"     {"role":"User","username":"linus"}"#,
            "   ]",
            "",
            "2. Import it: decode [User], convert each with toPersistentModel(in:), which inserts a UserModel, and save once",
            "   Imported 3 users from users.json: 3 inserted (ada, grace, linus).",
            "",
            "3. List the stored users: UserModel keeps the role as a UserRole",
            "   ada    Admin  https://example.com/avatars/ada.png",
            "   grace  Owner  https://example.com/avatars/grace.png",
            "   linus  User   (no avatar)",
            "",
            "4. Import users-2.json, a day later: grace has a new avatar, linus is an Admin, two users are new, one with a role the app does not know",
            "   Imported 5 users from users-2.json: 2 inserted (margaret, ken), 2 updated (grace, linus), 1 unchanged (ada).",
            "   \"ken\" has the role \"Superuser\", which UserRole does not know: stored as Unknown.",
            "   ada       Admin    https://example.com/avatars/ada.png",
            "   grace     Owner    https://example.com/avatars/grace-2.png",
            "   ken       Unknown  (no avatar)",
            "   linus     Admin    (no avatar)",
            "   margaret  User     https://example.com/avatars/margaret.png",
            "",
            "5. Files with a mistake are refused whole: nothing of them is imported, not even their valid first record",
            "   users-3.json:",
            "     [",
            #"       {"role":"User","username":"barbara"},"#,
            #"       {"role":7,"username":"dennis"}"#,
            "     ]",
            #"   Refused: cannot import users-3.json: record 2 ("dennis"), field "role": expected a string or null, found a number. Nothing was imported."#,
            "   users-4.json:",
            "     [",
            #"       {"role":"User","username":"barbara"},"#,
            #"       {"username":"dennis","role":Admin}"#,
            "     ]",
            #"   Refused: cannot import users-4.json: record 2 ("dennis"), field "role": not valid JSON at line 3, column 31: expected a value, found Admin (strings are in double quotes). Nothing was imported."#,
            "   The store has 5 demo users, and no \"barbara\".",
            "",
            "6. Open the store file again in a new ModelContainer, and convert each UserModel back with toModel(): the JSON the API would be sent",
            "   [",
            #"     {"avatar":"https://example.com/avatars/ada.png","role":"Admin","username":"ada"},"#,
            #"     {"avatar":"https://example.com/avatars/grace-2.png","role":"Owner","username":"grace"},"#,
            #"     {"role":"Unknown","username":"ken"},"#,
            #"     {"role":"Admin","username":"linus"},"#,
            #"     {"avatar":"https://example.com/avatars/margaret.png","role":"User","username":"margaret"}"#,
            "   ]",
            "   \"ken\" goes back as \"Unknown\": the persistence model keeps a UserRole, not the API's string.",
            "",
            "7. Clean up: delete the demo's users and its JSON files, leaving the store as the demo found it",
            "   Deleted 5 users: ada, grace, ken, linus, margaret.",
            "   Deleted users.json, users-2.json, users-3.json, users-4.json.",
            "",
            "Done. Your turn: users import <file.json>, then users list or users export. Run users help for more.",
        ]
    }

    @Test func showsTheWholeFlowAndCanRunAgain() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("demo.store")

        let first = users("demo", "--store", store)
        #expect(first.status == 0)
        #expect(first.transcript.errors.isEmpty)
        #expect(first.transcript.output == Self.expectedTranscript(store: store))

        let second = users("demo", "--store", store)
        #expect(second.status == 0)
        #expect(second.transcript.output == Self.expectedTranscript(store: store))

        #expect(try storedUsers(at: store).isEmpty)
    }

    @Test func keepsTheUsersOwnUsers() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("users.store")
        let file = try directory.write("mine.json", #"[{"username": "zoe", "role": "Owner"}]"#)
        #expect(users("--store", store, "import", file).status == 0)

        let demo = users("--store", store, "demo")
        #expect(demo.status == 0)
        // The demo shows and deletes only its own users.
        #expect(demo.transcript.output == Self.expectedTranscript(store: store))
        #expect(try storedUsers(at: store) == [User(username: "zoe", role: "Owner")])
    }

    @Test func refusesAStoreWhereItsUsernamesAreTaken() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("users.store")
        let file = try directory.write("mine.json", #"[{"username": "grace", "role": "User"}, {"username": "barbara"}]"#)
        #expect(users("--store", store, "import", file).status == 0)

        let demo = users("--store", store, "demo")
        #expect(demo.status == 1)
        #expect(demo.transcript.output.isEmpty)
        #expect(demo.transcript.errors == [
            "error: the demo imports its own users, but the store at \(store) already has \"barbara\", \"grace\". Run the demo on another store: users demo --store /tmp/users-demo.store",
        ])
        #expect(try storedUsers(at: store).map(\.username) == ["barbara", "grace"])
    }

    @Test func leavesNoFileBehind() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let temporary = FileManager.default.temporaryDirectory.path
        func demoDirectories() throws -> Set<String> {
            Set(try FileManager.default.contentsOfDirectory(atPath: temporary).filter { $0.hasPrefix("users-demo-") })
        }
        let before = try demoDirectories()
        #expect(users("--store", directory.path("demo.store"), "demo").status == 0)
        #expect(try demoDirectories() == before)
    }
}
