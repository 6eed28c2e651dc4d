import Foundation

/// The JSON the API sends and `users export` writes: an array of ``User``.
///
/// Decoding checks every record before anything is stored, and turns `JSONDecoder`'s errors into
/// ``UserImportError``s that name the record and the field.
enum UserJSON {
    /// Decodes the users in `data`, a JSON array of users, and checks that each username is not
    /// blank and appears once.
    ///
    /// - Throws: ``UserImportError`` naming the first record at fault and its field.
    static func decode(_ data: Data) throws(UserImportError) -> [User] {
        let users: [User]
        do {
            users = try JSONDecoder().decode([User].self, from: data)
        } catch let error as DecodingError {
            throw importError(error, in: data)
        } catch {
            throw UserImportError(.malformedJSON, "not valid JSON: \(error)")
        }
        try check(users)
        return users
    }

    /// Checks that each username is not blank and appears once, the users being the records of a file
    /// in order.
    ///
    /// - Throws: ``UserImportError`` `.blankUsername` or `.duplicateUsername` for the first record at
    ///   fault.
    static func check(_ users: [User]) throws(UserImportError) {
        var records: [String: Int] = [:]
        for (index, user) in users.enumerated() {
            if user.username.allSatisfy(\.isWhitespace) {
                throw UserImportError(.blankUsername, record: index + 1, field: "username", "blank; a username needs a character other than spaces")
            }
            if let first = records[user.username] {
                throw UserImportError(
                    .duplicateUsername, record: index + 1, username: user.username, field: "username",
                    "\"\(user.username)\" is record \(first)'s username too")
            }
            records[user.username] = index + 1
        }
    }

    /// `users` as a JSON array with one user per line, keys sorted: what `users export` prints, and
    /// what ``decode(_:)`` reads back.
    ///
    /// ```json
    /// [
    ///   {"avatar":"https://example.com/avatars/ada.png","role":"Admin","username":"ada"},
    ///   {"role":"User","username":"linus"}
    /// ]
    /// ```
    static func encode(_ users: [User]) -> String {
        guard !users.isEmpty else { return "[]" }
        return (["["] + lines(users).enumerated().map { offset, line in
            "  " + line + (offset < users.count - 1 ? "," : "")
        } + ["]"]).joined(separator: "\n")
    }

    /// Each user as one line of compact JSON, keys sorted, slashes unescaped.
    static func lines(_ users: [User]) -> [String] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding a struct of strings cannot fail.
        return users.map { String(decoding: try! encoder.encode($0), as: UTF8.self) }
    }

    // MARK: - Errors

    /// The ``UserImportError`` for a `DecodingError` thrown while decoding `data`.
    private static func importError(_ error: DecodingError, in data: Data) -> UserImportError {
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return syntaxError(in: data, debugDescription: context.debugDescription)
        case .typeMismatch(_, let context):
            return shapeError(at: context.codingPath, in: data)
        case .valueNotFound(_, let context):
            let path = context.codingPath
            guard path.count == 2, let record = path[0].intValue else { return shapeError(at: path, in: data) }
            return UserImportError(.nullField, record: record + 1, field: path[1].stringValue, "required but null")
        case .keyNotFound(let key, let context):
            let path = context.codingPath
            let record = path.first?.intValue.map { $0 + 1 }
            return UserImportError(.missingField, record: record, field: key.stringValue, "required but missing")
        case .dataCorrupted(let context):
            let (record, username) = recordAndUsername(context.codingPath, in: data)
            return UserImportError(
                .wrongType, record: record, username: username, field: context.codingPath.dropFirst().first?.stringValue,
                context.debugDescription)
        @unknown default:
            return UserImportError(.malformedJSON, "not valid JSON: \(error)")
        }
    }

    /// The error for a document `JSONDecoder` could not parse, located by ``JSONSyntaxProblem``.
    private static func syntaxError(in data: Data, debugDescription: String) -> UserImportError {
        if data.allSatisfy({ [0x20, 0x0A, 0x0D, 0x09].contains($0) }) {
            return UserImportError(.malformedJSON, "the file is empty; it should hold a JSON array of users")
        }
        guard let problem = JSONSyntaxProblem.find(in: data) else {
            // Valid grammar but not readable, like text that is not UTF-8.
            return UserImportError(.malformedJSON, "not valid JSON: \(debugDescription)")
        }
        return UserImportError(
            .malformedJSON, record: problem.record, username: problem.username, field: problem.field,
            "not valid JSON at line \(problem.line), column \(problem.column): \(problem.reason)")
    }

    /// The error for a value of the wrong JSON type at `path`: the document, a record or a field.
    private static func shapeError(at path: [any CodingKey], in data: Data) -> UserImportError {
        let (record, username) = recordAndUsername(path, in: data)
        let found = JSONValue.at(path, in: data)?.kind ?? "an invalid value"
        switch path.count {
        case 0:
            return UserImportError(.notAnArray, "expected an array of users, found \(found)")
        case 1:
            return UserImportError(.notAnObject, record: record, "expected an object with a \"username\", found \(found)")
        default:
            let field = path[1].stringValue
            let expected = field == User.CodingKeys.username.stringValue ? "a string" : "a string or null"
            return UserImportError(.wrongType, record: record, username: username, field: field, "expected \(expected), found \(found)")
        }
    }

    /// The record (from 1) a coding path is in, and its username when it is a string.
    private static func recordAndUsername(_ path: [any CodingKey], in data: Data) -> (Int?, String?) {
        guard let index = path.first?.intValue else { return (nil, nil) }
        guard case .object(let fields)? = JSONValue.at(Array(path.prefix(1)), in: data),
              case .string(let username)? = fields[User.CodingKeys.username.stringValue] else { return (index + 1, nil) }
        return (index + 1, username)
    }
}

/// Any JSON value, to say what a record or field holds when it is not what ``User`` expects.
private enum JSONValue: Decodable {
    case null
    case bool
    case number
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if (try? container.decode(Bool.self)) != nil {
            self = .bool
        } else if (try? container.decode(Double.self)) != nil {
            self = .number
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let array = try? container.decode([JSONValue].self) {
            self = .array(array)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// `a string`, `a number`, `null`…
    var kind: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The value at `path` (array indexes and object keys) in the JSON document `data`.
    static func at(_ path: [any CodingKey], in data: Data) -> JSONValue? {
        guard var value = try? JSONDecoder().decode(JSONValue.self, from: data) else { return nil }
        for key in path {
            switch value {
            case .array(let elements):
                guard let index = key.intValue, elements.indices.contains(index) else { return nil }
                value = elements[index]
            case .object(let fields):
                guard let field = fields[key.stringValue] else { return nil }
                value = field
            default:
                return nil
            }
        }
        return value
    }
}
