import Foundation
import GRDB

/// Collations and functions Stowage registers on every connection, so that SQL compares and searches
/// strings exactly as Foundation does in Swift.
enum SQLiteFunctions {
    static func register(in db: Database) {
        db.add(collation: DatabaseCollation("localizedStandard") { $0.localizedStandardCompare($1) })
        db.add(collation: DatabaseCollation("caseInsensitive") { $0.localizedCaseInsensitiveCompare($1) })
        db.add(collation: DatabaseCollation("localized") { $0.localizedCompare($1) })
        add(db, "stowage_contains") { $0.contains($1) }
        add(db, "stowage_has_prefix") { $0.hasPrefix($1) }
        add(db, "stowage_has_suffix") { $0.hasSuffix($1) }
        add(db, "stowage_localized_contains") { $0.localizedStandardContains($1) }
        add(db, "stowage_localized_has_prefix") {
            $0.range(of: $1, options: [.anchored, .caseInsensitive, .diacriticInsensitive]) != nil || $1.isEmpty
        }
        add(db, "stowage_localized_has_suffix") {
            $0.range(of: $1, options: [.anchored, .backwards, .caseInsensitive, .diacriticInsensitive]) != nil || $1.isEmpty
        }
    }

    /// A two-argument text predicate; NULL in, NULL out (as SQL comparisons do).
    private static func add(_ db: Database, _ name: String, _ test: @escaping @Sendable (String, String) -> Bool) {
        db.add(function: DatabaseFunction(name, argumentCount: 2, pure: true) { values in
            guard let text = String.fromDatabaseValue(values[0]), let pattern = String.fromDatabaseValue(values[1]) else {
                return nil
            }
            return test(text, pattern)
        })
    }
}
