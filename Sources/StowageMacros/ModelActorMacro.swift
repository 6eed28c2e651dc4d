import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@ModelActor`: makes an actor a `ModelActor`, as SwiftData's macro does. It adds
///
/// ```swift
/// nonisolated let modelExecutor: any Stowage.ModelExecutor
/// nonisolated let modelContainer: Stowage.ModelContainer
/// init(modelContainer: Stowage.ModelContainer) {
///     let modelContext = Stowage.ModelContext(modelContainer)
///     self.modelExecutor = Stowage.DefaultSerialModelExecutor(modelContext: modelContext)
///     self.modelContainer = modelContainer
/// }
/// ```
///
/// and the conformance. The members take the actor's access level (`public actor` → `public init`).
public enum ModelActorMacro {}

extension ModelActorMacro: MemberMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: StowageDiagnostic.modelActorNotAnActor))
            return []
        }
        let access = declaration.modifiers.first {
            ["public", "package", "internal", "fileprivate", "private"].contains($0.name.text)
        }.map { $0.name.text == "private" ? "fileprivate " : "\($0.name.text) " } ?? ""
        return [
            "\(raw: access)nonisolated let modelExecutor: any Stowage.ModelExecutor",
            "\(raw: access)nonisolated let modelContainer: Stowage.ModelContainer",
            """
            \(raw: access)init(modelContainer: Stowage.ModelContainer) {
                let modelContext = Stowage.ModelContext(modelContainer)
                self.modelExecutor = Stowage.DefaultSerialModelExecutor(modelContext: modelContext)
                self.modelContainer = modelContainer
            }
            """,
        ]
    }
}

extension ModelActorMacro: ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax, providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self), !protocols.isEmpty else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): Stowage.ModelActor {}")]
    }
}
