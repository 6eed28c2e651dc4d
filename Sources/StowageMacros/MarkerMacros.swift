import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@Attribute(...)`: options for a stored property. It generates nothing itself: `@Model` reads its
/// arguments into the schema metadata. Written where it has no effect, it warns.
public enum AttributeMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        warnIfIneffective(node, on: declaration, in: context)
        return []
    }
}

/// `@Relationship(...)`: options for a relationship. Read by `@Model`.
public enum RelationshipMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        warnIfIneffective(node, on: declaration, in: context)
        return []
    }
}

/// `@Transient`: a property `@Model` neither persists nor tracks.
public enum TransientMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        warnIfIneffective(node, on: declaration, in: context)
        return []
    }
}

/// Warns when a property marker is written where `@Model` never reads it: outside a `@Model` class, or on
/// a static or computed property.
private func warnIfIneffective(
    _ node: AttributeSyntax, on declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
) {
    let macro = node.simpleName
    // The attribute as it appears in the declaration: its position is the one to report.
    let written = declaration.as(VariableDeclSyntax.self)?.attribute(macro) ?? node
    let removal = FixIt.remove(written, message: "Remove '@\(macro)'")
    guard context.lexicalContext.first?.isModelClass == true else {
        context.diagnose(Diagnostic(node: Syntax(written), message: StowageDiagnostic.markerOutsideModel(macro), fixIts: [removal]))
        return
    }
    guard let variable = declaration.as(VariableDeclSyntax.self) else { return }
    let kind: String? =
        variable.isStatic ? "static" : variable.bindings.contains(where: \.isComputed) ? "computed" : nil
    if let kind {
        context.diagnose(Diagnostic(
            node: Syntax(written), message: StowageDiagnostic.markerOnUnstoredProperty(macro, kind: kind), fixIts: [removal]))
    }
}
