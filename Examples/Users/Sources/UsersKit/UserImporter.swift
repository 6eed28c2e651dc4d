import Foundation
import Stowage

/// Imports users from the API's JSON into a `ModelContext`, as the seed's `UserController.parse(_:)`
/// does: decode `[User]`, convert each with ``User/toPersistentModel(in:)``, save once.
///
/// The whole file is decoded and checked before anything is inserted, and everything is saved in one
/// `save()`: an import with a mistake anywhere stores nothing. A user whose username is stored already
/// is updated (the inserted `UserModel` upserts on its unique `username`); the others are inserted.
///
/// ```swift
/// let summary = try UserImporter(context: context).importJSON(data)
/// print("\(summary.inserted.count) inserted, \(summary.updated.count) updated")
/// ```
public struct UserImporter {
    /// The context the users are inserted into and saved with.
    public let context: ModelContext

    /// Creates an importer that inserts into `context` and saves it.
    public init(context: ModelContext) {
        self.context = context
    }

    /// What an import did, by username, each list in the order of the file.
    public struct Summary: Equatable, Sendable {
        /// The users that were not stored before.
        public var inserted: [String] = []
        /// The stored users whose avatar or role the import changed.
        public var updated: [String] = []
        /// The stored users the import left as they were (written again with the same values).
        public var unchanged: [String] = []
        /// The roles the app does not know, by username: these users are stored with
        /// ``UserRole/unknown``.
        public var unknownRoles: [String: String] = [:]

        /// Creates a summary.
        public init(inserted: [String] = [], updated: [String] = [], unchanged: [String] = [], unknownRoles: [String: String] = [:]) {
            self.inserted = inserted
            self.updated = updated
            self.unchanged = unchanged
            self.unknownRoles = unknownRoles
        }

        /// The number of users imported.
        public var count: Int { inserted.count + updated.count + unchanged.count }
    }

    /// Decodes a JSON array of users and checks it (usernames not blank, none repeated), storing
    /// nothing.
    ///
    /// - Throws: ``UserImportError`` naming the first record at fault and its field.
    public static func decode(_ data: Data) throws(UserImportError) -> [User] {
        try UserJSON.decode(data)
    }

    /// Decodes a JSON array of users and imports them in one save.
    ///
    /// - Throws: ``UserImportError`` when the JSON has a mistake (nothing is inserted); the store's
    ///   error when reading or saving fails (the context's changes are rolled back, nothing is written).
    @discardableResult
    public func importJSON(_ data: Data) throws -> Summary {
        try store(try Self.decode(data))
    }

    /// Imports users in one save: a user whose username is stored is updated, the others inserted.
    ///
    /// - Throws: ``UserImportError`` `.blankUsername` or `.duplicateUsername` when the users do not
    ///   have distinct usernames, `.modelNotInSchema` when the context's container has no `UserModel`;
    ///   the store's error when reading or saving fails. When it throws, nothing is written; when
    ///   saving fails, the context's unsaved changes (the import's and any made before) are rolled
    ///   back.
    @discardableResult
    public func importUsers(_ users: [User]) throws -> Summary {
        // The checks a file's records get, the users in order being the records.
        try UserJSON.check(users)
        return try store(users)
    }

    /// Inserts checked users and saves.
    private func store(_ users: [User]) throws -> Summary {
        let notInSchema = UserImportError(.modelNotInSchema, "the store has no UserModel: open its container with ModelContainer(for: UserModel.self)")
        // Checked before reading: fetching a type the schema does not have throws the store's error.
        guard context.container.schema.entity(for: UserModel.self) != nil else { throw notInSchema }
        let stored = try storedUsers(users.map(\.username))
        var summary = Summary()
        for user in users {
            guard user.toPersistentModel(in: context) != nil else {
                context.rollback()
                throw notInSchema
            }
            let role = UserRole.fromString(user.role)
            if let sent = user.role, UserRole(rawValue: sent) == nil { summary.unknownRoles[user.username] = sent }
            if let (avatarUrl, storedRole) = stored[user.username] {
                if avatarUrl == user.avatarUrl, storedRole == role {
                    summary.unchanged.append(user.username)
                } else {
                    summary.updated.append(user.username)
                }
            } else {
                summary.inserted.append(user.username)
            }
        }
        do {
            try context.save()
        } catch {
            context.rollback()
            throw error
        }
        return summary
    }

    /// The avatar and role of the stored users among `usernames`, by username, read a few hundred
    /// usernames at a time.
    private func storedUsers(_ usernames: [String]) throws -> [String: (String?, UserRole)] {
        var stored: [String: (String?, UserRole)] = [:]
        var start = 0
        while start < usernames.count {
            let chunk = Array(usernames[start..<min(start + 500, usernames.count)])
            for model in try context.fetch(UserModel.named(chunk)) {
                stored[model.username] = (model.avatarUrl, model.role)
            }
            start += 500
        }
        return stored
    }
}
