import StowageQueries

/// How Contacts prints things.
enum Report {
    /// The most matches printed in full; the count says how many there are.
    static let shownMatches = 10

    /// "3 contacts", "1 contact".
    static func count(_ count: Int) -> String {
        count == 1 ? "1 contact" : "\(count) contacts"
    }

    /// The header and the first ``shownMatches`` names of `contacts`, matching `search`.
    static func matches(_ contacts: QueryResults<Contact>, search: String, indent: String = "") -> [String] {
        let what = search.isEmpty ? "\(count(contacts.count))" : "\(count(contacts.count)) matching \"\(search)\""
        var lines = [indent + what + (contacts.isEmpty ? "." : ":")]
        for contact in contacts.prefix(shownMatches) { lines.append(indent + "  " + contact.fullName) }
        if contacts.count > shownMatches { lines.append(indent + "  … and \(contacts.count - shownMatches) more") }
        return lines
    }
}
