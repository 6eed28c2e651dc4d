import Foundation
import StowageTools

/// A request as the studio's pages read it, whatever server carries it.
struct StudioRequest: Sendable {
    enum Method: Sendable { case get, post }

    let method: Method
    /// The path's components after the studio's own path, percent-decoded.
    let path: [String]
    /// The query's parameters, in order.
    let query: [(String, String)]
    /// A posted form's fields (`application/x-www-form-urlencoded`), in order.
    let form: [(String, String)]
    /// A posted JSON body.
    let json: JSONValue?

    func parameter(_ name: String) -> String? { query.first { $0.0 == name }?.1 }
    func parameters(_ name: String) -> [String] { query.filter { $0.0 == name }.map(\.1) }
    func field(_ name: String) -> String? { form.first { $0.0 == name }?.1 }
    func fields(_ name: String) -> [String] { form.filter { $0.0 == name }.map(\.1) }

    /// Reads `a=1&b=two`, with `+` as a space.
    static func pairs(_ text: Substring) -> [(String, String)] {
        text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String {
                String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part)
            }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }
}

/// What a page answers.
enum StudioResponse: Sendable {
    case html(String)
    case json(JSONValue)
    /// A body of another type (`image/svg+xml`, `text/css`…).
    case content(String, type: String)
    /// `303 See Other`: where a form's post leads.
    case redirect(String)
    /// An error with a status and a sentence saying what is wrong; JSON for a `.json` request.
    case failure(status: Int, message: String, asJSON: Bool)
    /// An error shown in a page of the studio, with its navigation.
    case failurePage(status: Int, html: String)
    /// An entity's rows as CSV, written as they are read.
    case csv(RowQuery)
}

/// How a request asked for its answer: the page, its JSON twin, or another form of it.
enum Format: String, Sendable {
    case html, json, csv, svg

    /// Splits `Budget.json` into `Budget` and `.json`.
    static func split(_ component: String) -> (String, Format) {
        for format in [Format.json, .csv, .svg] where component.hasSuffix("." + format.rawValue) {
            return (String(component.dropLast(format.rawValue.count + 1)), format)
        }
        return (component, .html)
    }
}
