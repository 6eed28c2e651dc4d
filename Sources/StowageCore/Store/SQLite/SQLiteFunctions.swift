import Foundation
import GRDB

/// Collations and functions Stowage registers on every connection, so that SQL compares and searches
/// strings exactly as Foundation does in Swift: each one calls the Swift code a predicate's
/// `evaluate` runs (string functions evaluate the very `PredicateExpressions` node).
enum SQLiteFunctions {
    static func register(in db: Database) {
        db.add(collation: DatabaseCollation("swift") { $0 == $1 ? .orderedSame : $0 < $1 ? .orderedAscending : .orderedDescending })
        db.add(collation: DatabaseCollation("localizedStandard") { $0.localizedStandardCompare($1) })
        db.add(collation: DatabaseCollation("caseInsensitive") { $0.localizedCaseInsensitiveCompare($1) })
        db.add(collation: DatabaseCollation("localized") { $0.localizedCompare($1) })
        addTest(db, .contains) { text, other in
            try PredicateExpressions.CollectionContainsCollection(base: PredicateExpressions.Value(text), other: PredicateExpressions.Value(other))
                .evaluate(PredicateBindings())
        }
        addTest(db, .startsWith) { text, prefix in
            try PredicateExpressions.SequenceStartsWith(base: PredicateExpressions.Value(text), prefix: PredicateExpressions.Value(prefix))
                .evaluate(PredicateBindings())
        }
        addTest(db, .localizedStandardContains) { text, other in
            #if canImport(Darwin)
            text.localizedStandardContains(other)
            #else
            try PredicateExpressions.StringLocalizedStandardContains(root: PredicateExpressions.Value(text), other: PredicateExpressions.Value(other))
                .evaluate(PredicateBindings())
            #endif
        }
        addComparison(db, .caseInsensitiveCompare) { $0.caseInsensitiveCompare($1) }
        addComparison(db, .localizedCompare) { $0.localizedCompare($1) }
        db.add(function: DatabaseFunction(SQLiteSQL.functionName(.count), argumentCount: 1, pure: true) { values in
            String.fromDatabaseValue(values[0]).map { $0.count }
        })
        // Swift's `!` on nil: the statement fails (not pure, so SQLite never evaluates it ahead of time).
        db.add(function: DatabaseFunction("stowage_unwrap", argumentCount: 1, pure: false) { values in
            guard !values[0].isNull else {
                throw DatabaseError(message: "Stowage: a predicate force-unwrapped (`!`) a nil value")
            }
            return values[0]
        })
    }

    /// A two-string test; NULL in, NULL out (as SQL operators do).
    private static func addTest(
        _ db: Database, _ function: QueryExpression.StringFunction, _ test: @escaping @Sendable (String, String) throws -> Bool
    ) {
        db.add(function: DatabaseFunction(SQLiteSQL.functionName(function), argumentCount: 2, pure: true) { values in
            guard let text = String.fromDatabaseValue(values[0]), let other = String.fromDatabaseValue(values[1]) else {
                return nil
            }
            return try test(text, other)
        })
    }

    /// A two-string comparison returning `ComparisonResult`'s raw value (-1, 0, 1); NULL in, NULL out.
    private static func addComparison(
        _ db: Database, _ function: QueryExpression.StringFunction, _ compare: @escaping @Sendable (String, String) -> ComparisonResult
    ) {
        db.add(function: DatabaseFunction(SQLiteSQL.functionName(function), argumentCount: 2, pure: true) { values in
            guard let text = String.fromDatabaseValue(values[0]), let other = String.fromDatabaseValue(values[1]) else {
                return nil
            }
            return compare(text, other).rawValue
        })
    }
}
