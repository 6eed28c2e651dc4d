import Foundation

/// A storage-neutral boolean or value expression over one entity's rows: what a `#Predicate` becomes
/// before a store renders it in its own language. Values are always carried as ``StorageValue``s, so a
/// store binds them as parameters and never splices them into its query text.
indirect enum QueryExpression {
    /// A column of the queried entity.
    case attribute(Schema.Attribute)
    /// The primary key of the queried entity.
    case primaryKey
    /// A constant.
    case value(StorageValue)
    /// `lhs op rhs`; text comparisons use `collation` (binary when `nil`).
    case comparison(ComparisonOperator, QueryExpression, QueryExpression, collation: QueryCollation?)
    case and([QueryExpression])
    case or([QueryExpression])
    case not(QueryExpression)
    /// `expression IS NULL`.
    case isNull(QueryExpression)
    /// `lhs op rhs` on numbers.
    case arithmetic(ArithmeticOperator, QueryExpression, QueryExpression)
    /// A text search: whether `text` contains / starts with / ends with `pattern`.
    case textSearch(TextSearch, text: QueryExpression, pattern: QueryExpression, caseInsensitive: Bool)
    /// `expression IN (values…)`.
    case inList(QueryExpression, [QueryExpression])
    /// `condition ? then : else`.
    case conditional(QueryExpression, QueryExpression, QueryExpression)
    /// The first non-null value.
    case coalesce([QueryExpression])

    enum ComparisonOperator: String {
        case equal = "="
        case notEqual = "<>"
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
    }

    enum ArithmeticOperator: String {
        case add = "+"
        case subtract = "-"
        case multiply = "*"
        case divide = "/"
        case remainder = "%"
    }

    enum TextSearch {
        case contains
        case prefix
        case suffix
    }

    static var `true`: QueryExpression { .value(.integer(1)) }
    static var `false`: QueryExpression { .value(.integer(0)) }
}
