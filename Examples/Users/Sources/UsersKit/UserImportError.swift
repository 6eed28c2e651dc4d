/// Why an import was refused, naming the record and the field at fault. Nothing of a refused import is
/// stored.
///
/// ```
/// record 2 ("dennis"), field "role": expected a string or null, found a number
/// ```
public struct UserImportError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What kind of mistake the file has.
    public enum Kind: Equatable, Sendable {
        /// The file is not valid JSON (a missing quote or comma, a trailing comma…).
        case malformedJSON
        /// The file is valid JSON, but not an array.
        case notAnArray
        /// A record of the array is not a JSON object.
        case notAnObject
        /// A field has the wrong JSON type, like a number for `role`.
        case wrongType
        /// A required field (`username`) is absent.
        case missingField
        /// A required field (`username`) is `null`.
        case nullField
        /// A username is empty, or only spaces.
        case blankUsername
        /// Two records have the same username.
        case duplicateUsername
        /// The context's container has no `UserModel` in its schema: nothing can be imported into it.
        case modelNotInSchema
    }

    /// What kind of mistake it is.
    public let kind: Kind
    /// The record's position in the array, from 1, or `nil` when the mistake is not in a record.
    public let record: Int?
    /// The record's username, when the file gives it (as a string) before or despite the mistake.
    public let username: String?
    /// The JSON key of the field at fault (`avatar`, not `avatarUrl`), or `nil` when no field is.
    public let field: String?
    /// What is wrong, after the record and field: `expected a string or null, found a number`.
    public let detail: String

    /// Creates an error.
    public init(_ kind: Kind, record: Int? = nil, username: String? = nil, field: String? = nil, _ detail: String) {
        self.kind = kind
        self.record = record
        self.username = username
        self.field = field
        self.detail = detail
    }

    /// Where the mistake is: `record 2 ("dennis"), field "role"`, `record 2`, or empty.
    public var location: String {
        var parts: [String] = []
        if let record {
            parts.append(username.map { "record \(record) (\"\($0)\")" } ?? "record \(record)")
        }
        if let field { parts.append("field \"\(field)\"") }
        return parts.joined(separator: ", ")
    }

    /// The location and the detail: `record 2 ("dennis"), field "role": expected a string or null,
    /// found a number`.
    public var description: String {
        location.isEmpty ? detail : "\(location): \(detail)"
    }
}
