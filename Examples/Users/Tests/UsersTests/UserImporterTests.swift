import Foundation
import Stowage
import Testing
@testable import UsersKit

@Suite struct UserImporterTests {
    static let first = """
        [
          {"avatar": "https://example.com/ada.png", "username": "ada", "role": "Admin"},
          {"avatar": "https://example.com/grace.png", "username": "grace", "role": "Owner"},
          {"username": "linus", "role": "User"}
        ]
        """

    @Test func importInsertsEveryUserInOneSave() throws {
        let context = try makeInMemoryContext()
        let summary = try UserImporter(context: context).importJSON(json(Self.first))
        #expect(summary == UserImporter.Summary(inserted: ["ada", "grace", "linus"]))
        #expect(summary.count == 3)
        #expect(!context.hasChanges)
        #expect(try storedUsers(in: context) == [
            User(avatarUrl: "https://example.com/ada.png", username: "ada", role: "Admin"),
            User(avatarUrl: "https://example.com/grace.png", username: "grace", role: "Owner"),
            User(username: "linus", role: "User"),
        ])
    }

    @Test func oneSaveWritesThemAll() throws {
        let log = SQLDebug.StatementLog()
        let observation = SQLDebug.observe { log.append($0) }
        defer { observation.cancel() }
        let context = try makeInMemoryContext()
        log.removeAll()
        try UserImporter(context: context).importJSON(json(Self.first))
        let statements = log.events(of: context.container).map(\.sql)
        #expect(statements.filter { $0.hasPrefix("INSERT INTO \"UserModel\"") }.count == 3)
        #expect(statements.filter { $0.hasPrefix("COMMIT") }.count == 1)
    }

    @Test func aStoredUsernameIsUpdatedNotDuplicated() throws {
        let context = try makeInMemoryContext()
        let importer = UserImporter(context: context)
        try importer.importJSON(json(Self.first))
        let summary = try importer.importJSON(json("""
            [
              {"avatar": "https://example.com/ada.png", "username": "ada", "role": "Admin"},
              {"avatar": "https://example.com/grace-2.png", "username": "grace", "role": "Owner"},
              {"username": "linus", "role": "Admin"},
              {"username": "margaret", "role": "User"},
              {"username": "ken", "role": "Superuser"}
            ]
            """))
        #expect(summary.inserted == ["margaret", "ken"])
        #expect(summary.updated == ["grace", "linus"])
        #expect(summary.unchanged == ["ada"])
        #expect(summary.unknownRoles == ["ken": "Superuser"])
        #expect(try storedUsers(in: context) == [
            User(avatarUrl: "https://example.com/ada.png", username: "ada", role: "Admin"),
            User(avatarUrl: "https://example.com/grace-2.png", username: "grace", role: "Owner"),
            User(username: "ken", role: "Unknown"),
            User(username: "linus", role: "Admin"),
            User(username: "margaret", role: "User"),
        ])
        // The objects the context held for the updated rows show the new values.
        let grace = try #require(try context.fetch(UserModel.named(["grace"])).first)
        #expect(grace.avatarUrl == "https://example.com/grace-2.png")
        #expect(try context.fetchCount(FetchDescriptor<UserModel>()) == 5)
    }

    @Test func anUpdateCanRemoveTheAvatar() throws {
        let context = try makeInMemoryContext()
        let importer = UserImporter(context: context)
        try importer.importJSON(json(Self.first))
        let summary = try importer.importJSON(json(#"[{"username": "ada", "role": "Admin"}]"#))
        #expect(summary.updated == ["ada"])
        #expect(try storedUsers(in: context).first == User(username: "ada", role: "Admin"))
    }

    @Test func aMissingRoleIsUnknownAndNotReported() throws {
        let context = try makeInMemoryContext()
        let summary = try UserImporter(context: context).importJSON(json(#"[{"username": "linus"}, {"username": "ken", "role": null}]"#))
        #expect(summary.unknownRoles.isEmpty)
        #expect(try storedUsers(in: context).map(\.role) == ["Unknown", "Unknown"])
        // Importing the same file again changes nothing: nil and "Unknown" are both stored as Unknown.
        #expect(try UserImporter(context: context).importJSON(json(#"[{"username": "linus"}]"#)).unchanged == ["linus"])
    }

    @Test func anEmptyArrayImportsNothing() throws {
        let context = try makeInMemoryContext()
        #expect(try UserImporter(context: context).importJSON(json("[]")) == UserImporter.Summary())
        #expect(try storedUsers(in: context).isEmpty)
    }

    @Test func importUsersTakesDomainValues() throws {
        let context = try makeInMemoryContext()
        let summary = try UserImporter(context: context).importUsers([User(username: "ada", role: "Admin"), User(username: "bob")])
        #expect(summary.inserted == ["ada", "bob"])
        #expect(throws: UserImportError(.duplicateUsername, record: 3, username: "ada", field: "username", "\"ada\" is record 1's username too")) {
            try UserImporter(context: context).importUsers([User(username: "ada"), User(username: "carol"), User(username: "ada")])
        }
        #expect(try storedUsers(in: context).map(\.username) == ["ada", "bob"])
    }

    @Test func moreUsersThanOneLookupHolds() throws {
        let context = try makeInMemoryContext()
        let all = (0..<1_200).map { User(username: String(format: "user%04d", $0), role: "User") }
        #expect(try UserImporter(context: context).importUsers(Array(all.prefix(700))).inserted.count == 700)
        let summary = try UserImporter(context: context).importUsers(all.reversed())
        #expect(summary.inserted.count == 500)
        #expect(summary.unchanged.count == 700)
        #expect(try ModelContext(context.container).fetchCount(FetchDescriptor<UserModel>()) == 1_200)
    }

    // MARK: - Refused files

    /// Each kind of mistake, with the error naming the record and field, for a file whose other
    /// records are valid (and new): nothing of it may be stored.
    static let mistakes: [(text: String, error: UserImportError)] = [
        (#"[{"username": "zoe"}, {"username": "dennis", "role": 7}]"#,
         UserImportError(.wrongType, record: 2, username: "dennis", field: "role", "expected a string or null, found a number")),
        (#"[{"username": "zoe"}, {"username": "dennis", "avatar": ["a.png"]}]"#,
         UserImportError(.wrongType, record: 2, username: "dennis", field: "avatar", "expected a string or null, found an array")),
        (#"[{"username": "zoe"}, {"username": 42}]"#,
         UserImportError(.wrongType, record: 2, field: "username", "expected a string, found a number")),
        (#"[{"username": "zoe"}, {"username": "dennis", "role": true}]"#,
         UserImportError(.wrongType, record: 2, username: "dennis", field: "role", "expected a string or null, found a boolean")),
        (#"[{"username": "zoe"}, {"role": "Admin"}]"#,
         UserImportError(.missingField, record: 2, field: "username", "required but missing")),
        (#"[{"username": "zoe"}, {"username": null}]"#,
         UserImportError(.nullField, record: 2, field: "username", "required but null")),
        (#"[{"username": "zoe"}, "dennis"]"#,
         UserImportError(.notAnObject, record: 2, #"expected an object with a "username", found a string"#)),
        (#"{"username": "zoe"}"#,
         UserImportError(.notAnArray, "expected an array of users, found an object")),
        (#"[{"username": "zoe"}, {"username": "  "}]"#,
         UserImportError(.blankUsername, record: 2, field: "username", "blank; a username needs a character other than spaces")),
        (#"[{"username": "zoe"}, {"username": "dennis"}, {"username": "zoe"}]"#,
         UserImportError(.duplicateUsername, record: 3, username: "zoe", field: "username", #""zoe" is record 1's username too"#)),
        ("[\n  {\"username\": \"zoe\"},\n  {\"username\": \"dennis\", \"role\": Admin}\n]",
         UserImportError(.malformedJSON, record: 2, username: "dennis", field: "role",
                         "not valid JSON at line 3, column 34: expected a value, found Admin (strings are in double quotes)")),
        ("[\n  {\"username\": \"zoe\"},\n  {\"username\": \"dennis\" \"role\": \"User\"}\n]",
         UserImportError(.malformedJSON, record: 2, username: "dennis", field: "username",
                         "not valid JSON at line 3, column 25: expected ',' or '}', found '\"'")),
        (#"[{"username": "zoe"}, {"username": "dennis", "role": "User"}"#,
         UserImportError(.malformedJSON, record: 2, username: "dennis", "not valid JSON at line 1, column 61: expected ',' or ']', found the end of the file")),
        (#"[{"username": "zoe"}, {"username": "dennis", "role": "Us"#,
         UserImportError(.malformedJSON, record: 2, username: "dennis", field: "role", "not valid JSON at line 1, column 57: the file ends inside a string")),
        (#"[{"username": "zoe"}] trailing"#,
         UserImportError(.malformedJSON, "not valid JSON at line 1, column 23: expected the end of the file, found trailing")),
        ("  \n", UserImportError(.malformedJSON, "the file is empty; it should hold a JSON array of users")),
    ]

    @Test(arguments: mistakes)
    func aFileWithAMistakeIsRefusedWhole(text: String, error: UserImportError) throws {
        let context = try makeInMemoryContext()
        try UserImporter(context: context).importJSON(json(#"[{"username": "ada", "role": "Admin"}]"#))
        #expect(throws: error) { try UserImporter(context: context).importJSON(json(text)) }
        #expect(!context.hasChanges)
        #expect(try storedUsers(in: context) == [User(username: "ada", role: "Admin")])
    }

    @Test func errorsDescribeTheirRecordAndField() {
        #expect(Self.mistakes[0].error.description == #"record 2 ("dennis"), field "role": expected a string or null, found a number"#)
        #expect(Self.mistakes[4].error.description == #"record 2, field "username": required but missing"#)
        #expect(Self.mistakes[7].error.description == "expected an array of users, found an object")
    }

    @Test(arguments: [
        // Column counts characters, not bytes.
        ("[{\"username\": \"zoë\", \"role\": Admin}]", 1, 30, 1, "expected a value, found Admin (strings are in double quotes)"),
        ("[{\"username\": \"a\\qb\"}]", 1, 17, 1, "invalid escape '\\q' in a string"),
        ("[{\"username\": \"a\\u12\"}]", 1, 17, 1, "invalid escape in a string: \\u needs 4 hexadecimal digits"),
        ("[{\"username\": \"a\nb\"}]", 1, 17, 1, "a line break inside a string (write it \\n)"),
        ("[{\"username\": \"a\"},,]", 1, 20, 2, "expected a value, found ','"),
        ("[{username: \"a\"}]", 1, 3, 1, "expected a field name in double quotes, found username"),
        ("[{\"username\" \"a\"}]", 1, 14, 1, "expected ':', found '\"'"),
        ("[{\"username\": \"a\", \"role\": nul}]", 1, 28, 1, "expected a value, found nul (strings are in double quotes)"),
    ])
    func malformedJSONIsLocated(text: String, line: Int, column: Int, record: Int, reason: String) throws {
        let problem = try #require(JSONSyntaxProblem.find(in: json(text)))
        #expect(problem.line == line)
        #expect(problem.column == column)
        #expect(problem.reason == reason)
        #expect(problem.record == record)
        #expect(throws: UserImportError.self) { try UserImporter.decode(json(text)) }
    }

    @Test(arguments: ["[]", "[{\"username\": \"a\",}, {\"username\": \"b\"},]", "\u{FEFF}[{\"username\": \"a\\u00e9\\n\", \"x\": [1, -2.5e3, true, null, {}]}]"])
    func whatJSONDecoderAcceptsTheLocatorAccepts(text: String) throws {
        #expect(JSONSyntaxProblem.find(in: json(text)) == nil)
        _ = try UserImporter.decode(json(text))
    }

    // MARK: - Nothing written

    @Test func aRefusedFileLeavesTheStoreFileAsItWas() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = directory.path("users.store")
        let context = ModelContext(try Users.openContainer(at: URL(fileURLWithPath: store)))
        try UserImporter(context: context).importJSON(json(Self.first))
        let before = try storedUsers(at: store)

        for (text, _) in Self.mistakes {
            #expect(throws: UserImportError.self) { try UserImporter(context: context).importJSON(json(text)) }
        }
        // A new container on the file reads what the first import wrote, and nothing else.
        #expect(try storedUsers(at: store) == before)
        #expect(before.count == 3)
    }

    @Test func aFailedSaveWritesNothingAndRollsBack() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = URL(fileURLWithPath: directory.path("users.store"))
        try UserImporter(context: ModelContext(try Users.openContainer(at: url))).importJSON(json(Self.first))

        let readOnly = try ModelContainer(for: UserModel.self, configurations: ModelConfiguration(url: url, allowsSave: false))
        let context = ModelContext(readOnly)
        #expect(throws: StowageError.self) {
            try UserImporter(context: context).importJSON(json(#"[{"username": "ada", "role": "User"}, {"username": "zoe"}]"#))
        }
        #expect(!context.hasChanges)
        #expect(try storedUsers(at: url.path).map(\.username) == ["ada", "grace", "linus"])
        #expect(try storedUsers(at: url.path).first?.role == "Admin")
    }
}
