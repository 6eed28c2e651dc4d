import Foundation
import GRDB
import GRDBSQLite
import Stowage

// W8: importing users from one JSON document, as the Users example does (seed 001): `JSONDecoder`
// decodes the API's array of users, then every user is inserted in one transaction. Every contender
// decodes the same `Data`, made before the timed runs; decoding is timed with the inserts, since it is
// part of an import. The benchmark has its own copies of the example's types (it does not depend on
// the example).
//
// - Stowage: `[User]`, then one `UserModel` per user (a unique `username`), inserted, one `save()`.
//   Its INSERT is an upsert (`ON CONFLICT(username) DO UPDATE … RETURNING "_pk"`), as for any model
//   with a unique attribute; the store is empty, so every row is new.
// - GRDB: decoded straight into `UserRecord`, GRDB's idiom (one `Codable` type for the JSON and the
//   row), inserted with `insert(db)` in one `write`.
// - raw SQLite: `[User]`, then one prepared `INSERT` bound by index per user, in one transaction.
//
// The GRDB and raw tables have a UNIQUE `username` (Stowage's is an index on its NFC form).

/// The domain model of the Users example: the API's JSON keys, every field a string.
struct User: Codable {
    enum CodingKeys: String, CodingKey {
        case avatarUrl = "avatar"
        case username
        case role
    }

    let avatarUrl: String?
    let username: String
    let role: String?
}

/// The roles the Users example knows; any other (or none) is `unknown`.
enum UserRole: String, Codable {
    case unknown = "Unknown"
    case admin = "Admin"
    case owner = "Owner"
    case user = "User"

    static func fromString(_ value: String?) -> UserRole {
        guard let value = value else { return .unknown }
        return UserRole(rawValue: value) ?? .unknown
    }
}

/// The Users example's persistence model.
@Model
final class UserModel {
    @Attribute(.unique) var username: String
    var avatarUrl: String?
    private var roleValue: String

    var role: UserRole {
        get { UserRole.fromString(roleValue) }
        set { roleValue = newValue.rawValue }
    }

    init(_ user: User) {
        username = user.username
        avatarUrl = user.avatarUrl
        roleValue = UserRole.fromString(user.role).rawValue
    }
}

/// GRDB's record for W8, decoded from the API's JSON and encoded into the `user` table's columns by
/// the same `Codable` conformance. The role is a `UserRole`, read as the example reads it.
struct UserRecord: Codable, PersistableRecord {
    static let databaseTableName = "user"

    enum CodingKeys: String, CodingKey {
        case avatarUrl = "avatar"
        case username
        case role
    }

    var avatarUrl: String?
    var username: String
    var role: UserRole

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        avatarUrl = try container.decodeIfPresent(String.self, forKey: .avatarUrl)
        username = try container.decode(String.self, forKey: .username)
        role = UserRole.fromString(try container.decodeIfPresent(String.self, forKey: .role))
    }
}

/// W8's document, its tables and the check of an imported store.
enum W8Users {
    /// The GRDB and raw SQLite table; its columns are `UserRecord`'s coding keys.
    static let create = """
        CREATE TABLE user (id INTEGER PRIMARY KEY, username TEXT NOT NULL UNIQUE, avatar TEXT, role TEXT NOT NULL);
        """

    /// The deterministic user number `k` (0-based): one in four has no avatar; one in three has no
    /// role or one the example does not know (stored as Unknown).
    static func user(_ k: Int) -> User {
        let roles: [String?] = ["User", "Admin", nil, "Owner", "User", "Superuser"]
        return User(
            avatarUrl: k % 4 == 3 ? nil : "https://example.com/avatars/\(k).png",
            username: "user\(k)",
            role: roles[k % roles.count])
    }

    /// The JSON array of `count` users every contender decodes.
    static func document(count: Int) throws -> Data {
        try JSONEncoder().encode((0..<count).map(user))
    }

    /// Checks the imported store at `path` with SQL: `count` rows, as many Unknown roles and avatars as
    /// the document has.
    static func verify(path: String, table: String, avatar: String, role: String, count: Int, contender: String) throws {
        let db = try RawConnection(path: path)
        let statement = try db.prepare("SELECT COUNT(*), SUM(\"\(role)\" = 'Unknown'), COUNT(\"\(avatar)\") FROM \"\(table)\"")
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw db.error() }
        let found = (0..<3).map { Int(sqlite3_column_int64(statement, $0)) }
        let users = (0..<count).map(user)
        let expected = [count, users.filter { UserRole.fromString($0.role) == .unknown }.count, users.filter { $0.avatarUrl != nil }.count]
        guard found == expected else {
            throw BenchError(description: "W8 \(contender): the store has \(found) rows, Unknown roles, avatars (expected \(expected))")
        }
    }
}

/// A contender that runs W8.
protocol UsersImportContender: Contender {
    /// Imports the users of `json` (a JSON array of `count` users) into a new store at `path`, timing
    /// the decoding and the inserts in one transaction.
    func importUsers(_ json: Data, count: Int, path: String) throws -> Sample
}

extension RawContender: UsersImportContender {
    func importUsers(_ json: Data, count: Int, path: String) throws -> Sample {
        let db = try RawConnection(path: path)
        try db.execute(W8Users.create)
        var imported = 0
        let ms = try time {
            let users = try JSONDecoder().decode([User].self, from: json)
            let statement = try db.prepare("INSERT INTO user (username, avatar, role) VALUES (?, ?, ?)")
            defer { sqlite3_finalize(statement) }
            try db.execute("BEGIN")
            for user in users {
                RawConnection.bindText(user.username, at: 1, in: statement)
                if let avatar = user.avatarUrl {
                    RawConnection.bindText(avatar, at: 2, in: statement)
                } else {
                    sqlite3_bind_null(statement, 2)
                }
                RawConnection.bindText(UserRole.fromString(user.role).rawValue, at: 3, in: statement)
                guard sqlite3_step(statement) == SQLITE_DONE else { throw db.error() }
                sqlite3_reset(statement)
                imported += 1
            }
            try db.execute("COMMIT")
        }
        try W8Users.verify(path: path, table: "user", avatar: "avatar", role: "role", count: count, contender: name)
        return Sample(name, ms, imported)
    }
}

/// GRDB's Codable variant only: W8 is about `Codable`.
extension GRDBContender: UsersImportContender where Record == CodableRecord {
    func importUsers(_ json: Data, count: Int, path: String) throws -> Sample {
        let pool = try Self.open(path)
        try pool.write { try $0.execute(sql: W8Users.create) }
        var imported = 0
        let ms = try time {
            let records = try JSONDecoder().decode([UserRecord].self, from: json)
            try pool.write { db in
                for record in records { try record.insert(db) }
            }
            imported = records.count
        }
        try pool.close()
        try W8Users.verify(path: path, table: "user", avatar: "avatar", role: "role", count: count, contender: name)
        return Sample(name, ms, imported)
    }
}

extension StowageContender: UsersImportContender {
    func importUsers(_ json: Data, count: Int, path: String) throws -> Sample {
        let container = try ModelContainer(for: UserModel.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: path)))
        let context = ModelContext(container)
        var imported = 0
        let ms = try time {
            let users = try JSONDecoder().decode([User].self, from: json)
            for user in users { context.insert(UserModel(user)) }
            try context.save()
            imported = users.count
        }
        try W8Users.verify(path: path, table: "UserModel", avatar: "avatarUrl", role: "roleValue", count: count, contender: name)
        withExtendedLifetime(container) {}
        return Sample(name, ms, imported)
    }
}
