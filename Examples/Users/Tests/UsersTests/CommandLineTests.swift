import Foundation
import Stowage
import Testing
@testable import UsersKit

/// The program as a user runs it: one `Users.run` per command line, each opening the store file in a
/// new container, like separate launches.
@Suite struct CommandLineTests {
    @Test func importListAndExportAcrossRuns() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("users.store")
        let first = try directory.write("first.json", """
            [
              {"avatar": "https://example.com/ada.png", "username": "ada", "role": "Admin"},
              {"username": "linus", "role": "User"}
            ]
            """)
        let second = try directory.write("second.json", """
            [
              {"avatar": "https://example.com/ada.png", "username": "ada", "role": "Admin"},
              {"username": "linus", "role": "Owner"},
              {"avatar": "https://example.com/ken.png", "username": "ken", "role": "Superuser"}
            ]
            """)

        let imported = users("--store", store, "import", first)
        #expect(imported.status == 0)
        #expect(imported.transcript.errors.isEmpty)
        #expect(imported.transcript.output == ["Imported 2 users from \(first): 2 inserted (ada, linus)."])

        let updated = users("--store", store, "import", second)
        #expect(updated.status == 0)
        #expect(updated.transcript.output == [
            "Imported 3 users from \(second): 1 inserted (ken), 1 updated (linus), 1 unchanged (ada).",
            "\"ken\" has the role \"Superuser\", which UserRole does not know: stored as Unknown.",
        ])

        let list = users("--store", store, "list")
        #expect(list.status == 0)
        #expect(list.transcript.output == [
            "3 users:",
            "  ada    Admin    https://example.com/ada.png",
            "  ken    Unknown  https://example.com/ken.png",
            "  linus  Owner    (no avatar)",
        ])

        let export = users("--store", store, "export")
        #expect(export.status == 0)
        #expect(export.transcript.output == ["""
            [
              {"avatar":"https://example.com/ada.png","role":"Admin","username":"ada"},
              {"avatar":"https://example.com/ken.png","role":"Unknown","username":"ken"},
              {"role":"Owner","username":"linus"}
            ]
            """])

        // A container of the test's own reads what the separate runs saved.
        #expect(try storedUsers(at: store).map(\.username) == ["ada", "ken", "linus"])
    }

    @Test func exportThenImportRoundTrips() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("users.store")
        let source = try directory.write("users.json", """
            [{"username": "zoë", "avatar": "https://example.com/z\\u00f6.png?size=2&x=\\"y\\"", "role": "Owner"},
             {"username": "linus"}, {"username": "ken", "role": "Superuser", "avatar": null},
             {"username": "a/b \\\\ c", "role": "User"}]
            """)
        #expect(users("--store", store, "import", source).status == 0)
        let exported = users("--store", store, "export").transcript.output.joined(separator: "\n")

        let backup = try directory.write("backup.json", exported)
        let copy = directory.path("copy.store")
        let imported = users("--store", copy, "import", backup)
        #expect(imported.status == 0)
        #expect(imported.transcript.output == ["Imported 4 users from \(backup): 4 inserted (a/b \\ c, ken, linus, zoë)."])
        #expect(try storedUsers(at: copy) == storedUsers(at: store))
        #expect(users("--store", copy, "export").transcript.output.joined(separator: "\n") == exported)
        // Imported again into the store it came from, it changes nothing.
        #expect(users("--store", store, "import", backup).transcript.output == ["Imported 4 users from \(backup): 4 unchanged (a/b \\ c, ken, linus, zoë)."])
    }

    @Test func emptyStoresSaySo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("users.store")
        #expect(users("--store", store, "list").transcript.output == ["No users yet. Import some with: users import <file.json>"])
        let export = users("--store", store, "export")
        #expect(export.status == 0)
        #expect(export.transcript.output == ["[]"])
        let empty = try directory.write("empty.json", "[]")
        #expect(users("--store", store, "import", empty).transcript.output == ["\(empty) holds no users: nothing to import."])
    }

    @Test func longListsOfNamesAreShortened() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write("many.json", "[" + (1...8).map { "{\"username\": \"u\($0)\"}" }.joined(separator: ",") + "]")
        let imported = users("--store", directory.path("users.store"), "import", file)
        #expect(imported.transcript.output == ["Imported 8 users from \(file): 8 inserted (u1, u2, u3, u4, u5 and 3 more)."])
    }

    @Test func theStoreDefaultsToTheWorkingDirectory() {
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        #expect(Users.storeURL(nil) == cwd.appendingPathComponent("users.store"))
        #expect(Users.storeURL("data/u.store") == cwd.appendingPathComponent("data/u.store"))
    }

    @Test func helpPrintsTheUsageAndOpensNoStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("users.store")
        let help = users("--store", store, "help")
        #expect(help.status == 0)
        #expect(help.transcript.output == [Invocation.usage])
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    // MARK: - Errors

    @Test func aRefusedFileFailsWithStatus1AndImportsNothing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("users.store")
        let good = try directory.write("good.json", #"[{"username": "ada", "role": "Admin"}]"#)
        #expect(users("--store", store, "import", good).status == 0)

        let cases: [(String, String)] = [
            (#"[{"username": "bob"}, {"username": "dennis", "role": 7}]"#,
             #"record 2 ("dennis"), field "role": expected a string or null, found a number"#),
            (#"[{"username": "bob"}, {"role": "User"}]"#, #"record 2, field "username": required but missing"#),
            (#"[{"username": "bob"}, {"username": "ada", "role": User}]"#,
             #"record 2 ("ada"), field "role": not valid JSON at line 1, column 51: expected a value, found User (strings are in double quotes)"#),
            (#"[{"username": "ada", "role": "Owner"}, {"username": "ada"}]"#, #"record 2 ("ada"), field "username": "ada" is record 1's username too"#),
        ]
        for (text, problem) in cases {
            let file = try directory.write("bad.json", text)
            let run = users("--store", store, "import", file)
            #expect(run.status == 1)
            #expect(run.transcript.output.isEmpty)
            #expect(run.transcript.errors == ["error: cannot import \(file): \(problem). Nothing was imported."])
        }
        #expect(try storedUsers(at: store) == [User(username: "ada", role: "Admin")])
    }

    @Test func aMissingFileFailsWithStatus1AndCreatesNoStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("users.store")
        let missing = users("--store", store, "import", directory.path("nope.json"))
        #expect(missing.status == 1)
        #expect(missing.transcript.errors == ["error: no file at \(directory.path("nope.json"))."])
        let folder = users("--store", store, "import", directory.url.path)
        #expect(folder.status == 1)
        #expect(folder.transcript.errors == ["error: \(directory.url.path) is a directory, not a JSON file."])
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    @Test func usageErrorsFailWithStatus64AndTouchNoStore() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("users.store")
        let noFile = users("--store", store, "import")
        #expect(noFile.status == 64)
        #expect(noFile.transcript.errors == ["error: import takes 1 argument, got 0. Usage: users import <file.json>"])
        #expect(users("--store", store, "frobnicate").status == 64)
        #expect(users("--store", store, "list", "--verbose").status == 64)
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    @Test func aFileThatIsNotAStoreFailsWithStatus1AndIsLeftAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path("notes.txt")
        let contents = Data("ada, Admin\n".utf8)
        try contents.write(to: URL(fileURLWithPath: path))
        let good = try directory.write("good.json", #"[{"username": "ada"}]"#)

        for arguments in [["list"], ["export"], ["import", good]] {
            let run = Users.run(["--store", path] + arguments, console: Transcript().console)
            #expect(run == 1)
        }
        let list = users("--store", path, "list")
        #expect(list.transcript.output.isEmpty)
        #expect(list.transcript.errors.first?.hasPrefix("error: could not open the store at \(path): ") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == contents)
    }
}
