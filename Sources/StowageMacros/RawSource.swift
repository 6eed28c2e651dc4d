import SwiftSyntax

// The code `@Model` generates for every model and every property is handed to the compiler as text that
// the plugin does not parse: the compiler parses the expansion's text anyway, and swift-syntax's parser,
// built without optimization as it is in a user's debug build, took most of the plugin's time on a file
// of models (Benchmarks/macro-cost.sh). The expansions are written formatted and are not formatted again
// (`formatMode`), so the text reaches the compiler exactly as written here.

/// A declaration whose source is `text`, not parsed by the plugin.
func unparsedDecl(_ text: String) -> DeclSyntax {
    DeclSyntax(MissingDeclSyntax(placeholder: .identifier(text)))
}

/// Accessors whose source is `text` (one or several, each with its body), not parsed by the plugin.
func unparsedAccessors(_ text: String) -> AccessorDeclSyntax {
    AccessorDeclSyntax(accessorSpecifier: .identifier(text))
}

extension DefaultStringInterpolation {
    /// `\(raw: value)` in a template of generated source: the text of `value`, as in swift-syntax's
    /// interpolation of source.
    mutating func appendInterpolation(raw value: some CustomStringConvertible) {
        appendLiteral(value.description)
    }
}
