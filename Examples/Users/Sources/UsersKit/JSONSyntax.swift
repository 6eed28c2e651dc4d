import Foundation

/// Where a JSON document stops being valid JSON: what `JSONDecoder` does not say (its error is only
/// "The given data was not valid JSON."), found by reading the document again.
struct JSONSyntaxProblem: Equatable {
    /// The line of the mistake, from 1.
    var line: Int
    /// The column of the mistake in its line, in characters, from 1.
    var column: Int
    /// The position, from 1, of the element of the top-level array the mistake is in (or follows).
    var record: Int?
    /// The last key read in that element, when the mistake is inside it.
    var field: String?
    /// The element's `username`, when it was read before the mistake.
    var username: String?
    /// What was expected and what was found: `expected a value, found Admin (strings are in double
    /// quotes)`.
    var reason: String

    /// The first mistake in `data`, or `nil` when `data` is valid JSON as this scanner reads it (it
    /// checks the grammar, not the encoding).
    static func find(in data: Data) -> JSONSyntaxProblem? {
        var scanner = JSONSyntaxScanner(bytes: [UInt8](data))
        do {
            try scanner.document()
            return nil
        } catch {
            return scanner.problem(error.reason)
        }
    }
}

/// A recursive-descent reader of JSON's grammar that remembers where it is in the top-level array.
///
/// It accepts what `JSONDecoder` accepts, so that the first mistake it finds is the one the decoder
/// stopped at: a comma before a closing bracket or brace, and any run of number characters (the
/// decoder checks numbers only when it decodes one, and a `User` has none).
private struct JSONSyntaxScanner {
    struct Failure: Error {
        let reason: String
    }

    let bytes: [UInt8]
    var offset = 0
    var record: Int?
    var field: String?
    var username: String?

    init(bytes: [UInt8]) {
        self.bytes = bytes
        // A UTF-8 byte order mark is not part of the document.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { offset = 3 }
    }

    mutating func document() throws(Failure) {
        try value(depth: 0)
        skipWhitespace()
        if offset < bytes.count { throw unexpected("the end of the file") }
    }

    func problem(_ reason: String) -> JSONSyntaxProblem {
        let end = min(offset, bytes.count)
        let lineStart = bytes[..<end].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        let line = bytes[..<end].reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
        // Characters, not bytes: UTF-8 continuation bytes do not start one.
        let column = bytes[lineStart..<end].reduce(1) { $1 & 0xC0 == 0x80 ? $0 : $0 + 1 }
        return JSONSyntaxProblem(line: line, column: column, record: record, field: field, username: username, reason: reason)
    }

    private var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { offset += 1 }
    }

    private mutating func value(depth: Int, isRecord: Bool = false) throws(Failure) {
        skipWhitespace()
        guard let byte = current else { throw unexpected("a value") }
        switch byte {
        case UInt8(ascii: "{"): try object(depth: depth, isRecord: isRecord)
        case UInt8(ascii: "["): try array(depth: depth)
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): number()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: throw unexpected("a value")
        }
    }

    private mutating func array(depth: Int) throws(Failure) {
        offset += 1
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            offset += 1
            return
        }
        var index = 0
        while true {
            if depth == 0 {
                index += 1
                (record, field, username) = (index, nil, nil)
            }
            try value(depth: depth + 1, isRecord: depth == 0)
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                offset += 1
                skipWhitespace()
                // A comma before the bracket is allowed.
                if current != UInt8(ascii: "]") { continue }
            }
            guard current == UInt8(ascii: "]") else { throw unexpected("',' or ']'") }
            offset += 1
            // A mistake after the array is in no record.
            if depth == 0 { (record, field, username) = (nil, nil, nil) }
            return
        }
    }

    private mutating func object(depth: Int, isRecord: Bool) throws(Failure) {
        offset += 1
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            offset += 1
            return
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw unexpected("a field name in double quotes") }
            let key = try string()
            if isRecord { field = key }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw unexpected("':'") }
            offset += 1
            skipWhitespace()
            if isRecord, key == "username", current == UInt8(ascii: "\"") {
                username = try string()
            } else {
                try value(depth: depth + 1)
            }
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                offset += 1
                skipWhitespace()
                // A comma before the brace is allowed.
                if current != UInt8(ascii: "}") { continue }
            }
            guard current == UInt8(ascii: "}") else { throw unexpected("',' or '}'") }
            offset += 1
            // A mistake after this record is not in one of its fields.
            if isRecord { field = nil }
            return
        }
    }

    /// Reads a string, its escapes decoded, and returns it.
    private mutating func string() throws(Failure) -> String {
        offset += 1
        var scalars = String.UnicodeScalarView()
        var start = offset
        func flush(_ end: Int) {
            scalars.append(contentsOf: String(decoding: bytes[start..<end], as: UTF8.self).unicodeScalars)
        }
        while true {
            guard let byte = current else { throw Failure(reason: "the file ends inside a string") }
            switch byte {
            case UInt8(ascii: "\""):
                flush(offset)
                offset += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                flush(offset)
                offset += 1
                guard let escape = current else { throw Failure(reason: "the file ends inside a string") }
                let simple: [UInt8: Unicode.Scalar] = [
                    UInt8(ascii: "\""): "\"", UInt8(ascii: "\\"): "\\", UInt8(ascii: "/"): "/", UInt8(ascii: "b"): "\u{8}",
                    UInt8(ascii: "f"): "\u{C}", UInt8(ascii: "n"): "\n", UInt8(ascii: "r"): "\r", UInt8(ascii: "t"): "\t",
                ]
                if let scalar = simple[escape] {
                    scalars.append(scalar)
                    offset += 1
                } else if escape == UInt8(ascii: "u") {
                    let digits = bytes[(offset + 1)..<min(offset + 5, bytes.count)]
                    guard digits.count == 4, let code = UInt32(String(decoding: digits, as: UTF8.self), radix: 16) else {
                        offset -= 1
                        throw Failure(reason: "invalid escape in a string: \\u needs 4 hexadecimal digits")
                    }
                    // A surrogate half is kept out of the name; the grammar allows it.
                    if let scalar = Unicode.Scalar(code) { scalars.append(scalar) }
                    offset += 5
                } else {
                    offset -= 1
                    throw Failure(reason: "invalid escape \(quoted(bytes[offset..<(offset + 2)])) in a string")
                }
                start = offset
            case 0..<0x20:
                throw Failure(reason: byte == 0x0A ? "a line break inside a string (write it \\n)" : "a control character inside a string")
            default:
                offset += 1
            }
        }
    }

    /// Skips a number: a run of digits, signs, points and exponents, as `JSONDecoder` reads one.
    private mutating func number() {
        let characters = Set("0123456789+-.eE".utf8)
        while let byte = current, characters.contains(byte) { offset += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    private mutating func literal(_ word: String) throws(Failure) {
        let utf8 = Array(word.utf8)
        guard bytes[offset...].starts(with: utf8), !isWordByte(offset + utf8.count) else { throw unexpected("a value") }
        offset += utf8.count
    }

    private func isWordByte(_ index: Int) -> Bool {
        guard index < bytes.count else { return false }
        let byte = bytes[index]
        return byte >= 0x80 || byte == UInt8(ascii: "_") || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z")) || isDigit(byte)
    }

    /// `expected X, found Y`, where Y is what is at the current offset: a bare word whole (with a
    /// reminder that strings are quoted where a value should be), a character, or the end of the file.
    private func unexpected(_ expected: String) -> Failure {
        guard offset < bytes.count else { return Failure(reason: "expected \(expected), found the end of the file") }
        var end = offset
        while isWordByte(end) { end += 1 }
        if end > offset {
            let word = String(decoding: bytes[offset..<end], as: UTF8.self)
            let reminder = expected == "a value" && !isDigit(bytes[offset]) ? " (strings are in double quotes)" : ""
            return Failure(reason: "expected \(expected), found \(word)\(reminder)")
        }
        // One character, whole: its UTF-8 continuation bytes with it.
        end = offset + 1
        while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
        return Failure(reason: "expected \(expected), found \(quoted(bytes[offset..<end]))")
    }

    private func quoted(_ bytes: ArraySlice<UInt8>) -> String {
        "'\(String(decoding: bytes, as: UTF8.self))'"
    }
}
