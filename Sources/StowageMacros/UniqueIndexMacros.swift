import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `#Unique<Model>([\.a], [\.b, \.c])`: uniqueness constraints over one or several properties, declared
/// in the body of a `@Model` class (SwiftData, iOS 18). Expands to `_$uniqueConstraints`.
public enum UniqueMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        keyPathGroups(node, macro: "Unique", member: "_$uniqueConstraints", in: context)
    }
}

/// `#Index<Model>([\.a], [\.b, \.c])` or `#Index<Model>(.binary([\.a]), .binary([\.b, \.c]))`: indexes
/// over one or several properties (SwiftData, iOS 18). Expands to `_$indices` (and, for the second
/// form, `_$rtreeIndices`); `.rtree` is refused with a fix-it to `.binary`.
public enum IndexMacro: DeclarationMacro {
    public static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        keyPathGroups(node, macro: "Index", member: "_$indices", in: context)
    }
}

private func keyPathGroups(
    _ node: some FreestandingMacroExpansionSyntax, macro: String, member: String, in context: some MacroExpansionContext
) -> [DeclSyntax] {
    let enclosing = context.lexicalContext.first?.as(ClassDeclSyntax.self)
    guard let enclosing, Syntax(enclosing).isModelClass else {
        context.diagnose(Diagnostic(node: Syntax(node), message: StowageDiagnostic.freestandingOutsideModel(macro)))
        return []
    }
    let modelName = enclosing.name.text
    guard let model = node.genericArgumentClause?.arguments.first?.argument else {
        let end = node.macroName.endPositionBeforeTrailingTrivia
        context.diagnose(Diagnostic(
            node: Syntax(node), message: StowageDiagnostic.missingGenericArgument(macro, model: modelName),
            fixIts: [FixIt(
                message: StowageFixIt("Insert '<\(modelName)>'"),
                changes: [.replaceText(range: end..<end, with: "<\(modelName)>", in: Syntax(node.macroName))])]))
        return []
    }
    let writtenName = model.trimmedDescription
    let lastComponent = writtenName.split(separator: ".").last.map(String.init) ?? writtenName
    if lastComponent != modelName, writtenName != "Self" {
        context.diagnose(Diagnostic(
            node: Syntax(model),
            message: StowageDiagnostic.genericArgumentMismatch(macro, written: writtenName, model: modelName),
            fixIts: [FixIt(
                message: StowageFixIt("Replace '\(writtenName)' with '\(modelName)'"),
                changes: [.replace(oldNode: Syntax(model), newNode: Syntax(TokenSyntax.identifier(modelName)))])]))
        return []
    }
    guard !node.arguments.isEmpty else {
        context.diagnose(Diagnostic(node: Syntax(node), message: StowageDiagnostic.noKeyPaths(macro, model: modelName)))
        return []
    }
    let groups = node.arguments.map(\.expression.trimmedDescription).joined(separator: ", ")
    if macro == "Index", !node.arguments.allSatisfy({ $0.expression.is(ArrayExprSyntax.self) }) {
        return typedIndexes(node, model: model, in: context)
    }
    return ["""
        public static var \(raw: member): [[Swift.AnyKeyPath]] {
            let groups: [[Swift.PartialKeyPath<\(model.trimmed)>]] = [\(raw: groups)]
            return groups
        }
        """]
}

/// `#Index<Model>(.binary([...]), ...)`: the index kinds form. Each `.rtree(...)` written out is an error
/// (Stowage cannot make SQLite use one); the expansion still lists the R-tree indexes an argument names
/// in another way (a static constant), which opening a container refuses.
private func typedIndexes(
    _ node: some FreestandingMacroExpansionSyntax, model: GenericArgumentSyntax.Argument, in context: some MacroExpansionContext
) -> [DeclSyntax] {
    var refused = false
    for argument in node.arguments {
        guard let call = argument.expression.as(FunctionCallExprSyntax.self),
              let member = call.calledExpression.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "rtree"
        else { continue }
        refused = true
        let keyPaths = call.arguments.first?.expression.trimmedDescription ?? "[...]"
        context.diagnose(Diagnostic(
            node: Syntax(member.declName), message: StowageDiagnostic.rtreeIndex(keyPaths: keyPaths),
            fixIts: [FixIt(
                message: StowageFixIt("Replace '.rtree' with '.binary'"),
                changes: [.replace(
                    oldNode: Syntax(member.declName.baseName),
                    newNode: Syntax(TokenSyntax.identifier("binary").with(\.leadingTrivia, member.declName.baseName.leadingTrivia)
                        .with(\.trailingTrivia, member.declName.baseName.trailingTrivia)))])]))
    }
    if refused { return [] }
    let list = node.arguments.map(\.expression.trimmedDescription).joined(separator: ", ")
    let index = "Stowage.Schema.Index<\(model.trimmedDescription)>([\(list)])"
    return [
        """
        public static var _$indices: [[Swift.AnyKeyPath]] {
            \(raw: index)._$binaryKeyPaths
        }
        """,
        """
        public static var _$rtreeIndices: [[Swift.AnyKeyPath]] {
            \(raw: index)._$rtreeKeyPaths
        }
        """,
    ]
}
