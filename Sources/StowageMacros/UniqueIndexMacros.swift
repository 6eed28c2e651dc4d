import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `#Unique<Model>([\.a], [\.b, \.c])`: uniqueness constraints over one or several properties, declared
/// in the body of a `@Model` class (SwiftData, iOS 18).
public enum UniqueMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        keyPathGroups(node, member: "_$uniqueConstraints", in: context)
    }
}

/// `#Index<Model>([\.a], [\.b, \.c])`: indexes over one or several properties (SwiftData, iOS 18).
public enum IndexMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        keyPathGroups(node, member: "_$indices", in: context)
    }
}

private func keyPathGroups(
    _ node: some FreestandingMacroExpansionSyntax, member: String, in context: some MacroExpansionContext
) -> [DeclSyntax] {
    guard let model = node.genericArgumentClause?.arguments.first?.argument else {
        context.diagnose(Diagnostic(node: Syntax(node), message: StowageDiagnostic.missingGenericArgument))
        return []
    }
    let groups = node.arguments.map(\.expression.trimmedDescription).joined(separator: ", ")
    return ["public static var \(raw: member): [[PartialKeyPath<\(model.trimmed)>]] { [\(raw: groups)] }"]
}
