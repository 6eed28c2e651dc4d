/// The sentences and tables Users prints, shared by the commands and the demo.
enum Report {
    /// What an import did, then one line per role the app does not know:
    /// `Imported 5 users from users.json: 2 inserted (ken, margaret), 1 updated (grace), 2 unchanged (ada, linus).`
    static func imported(_ summary: UserImporter.Summary, from name: String) -> [String] {
        guard summary.count > 0 else { return ["\(name) holds no users: nothing to import."] }
        let parts = [("inserted", summary.inserted), ("updated", summary.updated), ("unchanged", summary.unchanged)]
            .filter { !$0.1.isEmpty }
            .map { "\($0.1.count) \($0.0) (\(names($0.1)))" }
        return ["Imported \(count(summary.count, "user")) from \(name): \(parts.joined(separator: ", "))."]
            + summary.unknownRoles.sorted { $0.key < $1.key }.map { username, role in
                "\"\(username)\" has the role \"\(role)\", which UserRole does not know: stored as \(UserRole.unknown.rawValue)."
            }
    }

    /// Up to five names, then how many more: `a, b, c, d, e and 3 more`.
    static func names(_ names: [String]) -> String {
        let shown = names.prefix(5).joined(separator: ", ")
        return names.count > 5 ? "\(shown) and \(names.count - 5) more" : shown
    }

    /// `1 user`, `2 users`.
    static func count(_ count: Int, _ noun: String) -> String {
        count == 1 ? "1 \(noun)" : "\(count) \(noun)s"
    }

    /// One line per user: username, role and avatar, in columns.
    static func users(_ users: [UserModel], indent: String = "  ") -> [String] {
        let nameWidth = users.map(\.username.count).max() ?? 0
        let roleWidth = users.map(\.role.rawValue.count).max() ?? 0
        return users.map { user in
            let name = user.username.padding(to: nameWidth)
            let role = user.role.rawValue.padding(to: roleWidth)
            return indent + name + "  " + role + "  " + (user.avatarUrl ?? "(no avatar)")
        }
    }
}

extension String {
    /// The string followed by spaces up to `width` characters.
    fileprivate func padding(to width: Int) -> String {
        self + String(repeating: " ", count: max(0, width - count))
    }
}
