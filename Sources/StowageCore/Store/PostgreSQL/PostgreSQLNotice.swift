import Foundation

/// What a save tells the other processes listening on ``PostgreSQLSchema/notificationChannel``: its
/// history transaction's number and its store's origin, then, when it fits, what the history holds of
/// it (the header and the keys of its changes), so that listeners need not read the history for it.
///
/// The payload is text, its fields separated by spaces:
/// `number origin [timestamp author bundle process runs]`. The timestamp is the bits of its
/// `Double` in hexadecimal; strings are percent-encoded (only letters, digits and `_` stay), `-`
/// standing for no author; runs are `kind:entity:properties:keys`, separated by `;`, with properties
/// and keys separated by `,`. PostgreSQL takes payloads under 8,000 bytes: a larger save's notice has
/// no body, and listeners read the history.
struct PostgreSQLNotice {
    let number: Int64
    let origin: Int64
    /// The transaction's header and changes, when the payload carries them.
    let transaction: (header: HistoryHeader, runs: [SQLiteHistory.Run])?

    /// The longest body sent.
    static let maximumBody = 7_000

    /// The body of a save's notice (everything after its number and origin), or `nil` when it does not
    /// fit. The changes' preserved values are not sent: listeners do not use them.
    static func body(timestamp: Double, author: String?, records: [SQLiteHistory.Record]) -> String? {
        var body = String(timestamp.bitPattern, radix: 16)
        body += " " + (author.map(escape) ?? "-")
        body += " " + escape(SQLiteHistory.bundleIdentifier) + " " + escape(SQLiteHistory.processIdentifier) + " "
        for (index, record) in records.enumerated() {
            // Each key takes two characters at least: a large save is turned down before its keys are written out.
            if body.utf8.count + 2 * record.keys.count > maximumBody { return nil }
            if index > 0 { body += ";" }
            body += "\(record.kind.rawValue):\(escape(record.entity)):"
            body += (record.properties ?? []).map(escape).joined(separator: ",")
            body += ":" + record.keys.map(String.init).joined(separator: ",")
            if body.utf8.count > maximumBody { return nil }
        }
        return body
    }

    /// Parses a payload; `nil` for one this version does not read.
    init?(_ payload: String) {
        let fields = payload.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count >= 2, let number = Int64(fields[0]), let origin = Int64(fields[1]) else { return nil }
        self.number = number
        self.origin = origin
        guard fields.count == 7 else {
            transaction = nil
            return
        }
        guard let bits = UInt64(fields[2], radix: 16), let bundle = Self.unescape(fields[4]), let process = Self.unescape(fields[5]) else { return nil }
        let author: String?
        if fields[3] == "-" {
            author = nil
        } else {
            guard let text = Self.unescape(fields[3]) else { return nil }
            author = text
        }
        var runs: [SQLiteHistory.Run] = []
        var position = 0
        for text in fields[6].split(separator: ";") {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 4, let raw = Int64(parts[0]), let kind = SQLiteHistory.Kind(rawValue: raw), let entity = Self.unescape(parts[1]) else { return nil }
            var properties: [String] = []
            for part in parts[2].split(separator: ",") {
                guard let property = Self.unescape(part) else { return nil }
                properties.append(property)
            }
            var keys: [Int64] = []
            for part in parts[3].split(separator: ",") {
                guard let key = Int64(part) else { return nil }
                keys.append(key)
            }
            runs.append(SQLiteHistory.Run(transaction: number, position: position, entity: entity, kind: kind, properties: properties, keys: keys, values: []))
            position += keys.count
        }
        let header = HistoryHeader(
            id: number, timestamp: Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits)), author: author,
            bundleIdentifier: bundle, processIdentifier: process, origin: origin, detailed: true)
        transaction = (header, runs)
    }

    private static let kept = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")

    private static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: kept) ?? ""
    }

    private static func unescape(_ text: Substring) -> String? {
        String(text).removingPercentEncoding
    }
}
