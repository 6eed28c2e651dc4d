import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model`: turns a class into a persistent model, like SwiftData's `@Model` (which builds on
/// `@Observable`). It adds the backing data, an observation registrar, schema metadata, an
/// `init(backingData:)`, marks each stored property `@_PersistedProperty`, and conforms the class to
/// `PersistentModel`.
public enum ModelMacro {}

extension ModelMacro: MemberMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            context.diagnose(notAClassDiagnostic(for: declaration, node: node))
            return []
        }
        let typeName = classDecl.name.trimmed.text
        var entries: [String] = []
        for property in StoredProperty.persisted(in: classDecl.memberBlock.members) {
            if let (problem, location) = property.problem() {
                context.diagnose(diagnostic(problem, at: location, property: property))
                continue
            }
            var arguments = [
                "name: \(literal(property.name))",
                "keyPath: \\\(typeName).\(property.name)",
                "storage: \\\(typeName)._\(property.name)",
            ]
            let schemaAttribute = property.schemaAttribute
            if let initializer = property.initializer, initializer.isStaticLiteral, schemaAttribute?.simpleName != "Relationship" {
                arguments.append("defaultValue: \(initializer.trimmedDescription)")
            }
            if let schemaAttribute {
                let kind = schemaAttribute.simpleName
                let args = schemaAttribute.arguments?.as(LabeledExprListSyntax.self)?.trimmedDescription ?? ""
                arguments.append("metadata: Stowage.Schema.\(kind)(\(args))")
            }
            entries.append("Stowage.Schema.PropertyMetadata(\(arguments.joined(separator: ", ")))")
        }
        let isFinal = classDecl.modifiers.contains { $0.name.tokenKind == .keyword(.final) }
        let metadataList = entries.isEmpty ? "[]" : "[\n" + entries.map { "    " + $0 }.joined(separator: ",\n") + "\n]"
        return [
            "@Stowage.Transient private var _$backingData = Stowage.ModelBackingData()",
            """
            public var persistentBackingData: Stowage.ModelBackingData {
                get { _$backingData }
                set { _$backingData = newValue }
            }
            """,
            """
            public static func schemaMetadata() -> [Stowage.Schema.PropertyMetadata] {
                \(raw: metadataList)
            }
            """,
            """
            public \(raw: isFinal ? "" : "required ")init(backingData: Stowage.ModelBackingData) {
                self._$backingData = backingData
            }
            """,
            "@Stowage.Transient private let _$observationRegistrar = Observation.ObservationRegistrar()",
            """
            public nonisolated func _$access<_Member>(keyPath: KeyPath<\(raw: typeName), _Member>) {
                _$observationRegistrar.access(self, keyPath: keyPath)
            }
            """,
            """
            public nonisolated func _$withMutation<_Member, _Result>(
                keyPath: KeyPath<\(raw: typeName), _Member>, _ body: () throws -> _Result
            ) rethrows -> _Result {
                try _$observationRegistrar.withMutation(of: self, keyPath: keyPath, body)
            }
            """,
        ]
    }

    private static func literal(_ text: String) -> String {
        var escaped = "\""
        for character in text {
            if character == "\\" || character == "\"" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped + "\""
    }

    private static func notAClassDiagnostic(for declaration: some DeclGroupSyntax, node: AttributeSyntax) -> Diagnostic {
        let keyword: TokenSyntax? =
            declaration.as(StructDeclSyntax.self)?.structKeyword ?? declaration.as(EnumDeclSyntax.self)?.enumKeyword
            ?? declaration.as(ActorDeclSyntax.self)?.actorKeyword
        guard let keyword else {
            return Diagnostic(node: Syntax(node), message: StowageDiagnostic.modelNotAClass)
        }
        return Diagnostic(
            node: Syntax(keyword), message: StowageDiagnostic.modelNotAClass,
            fixIts: [FixIt(
                message: StowageFixIt(message: "Replace '\(keyword.text)' with 'final class'"),
                changes: [.replace(oldNode: Syntax(keyword), newNode: Syntax(TokenSyntax.identifier("final class").with(\.trailingTrivia, keyword.trailingTrivia)))])])
    }

    private static func diagnostic(_ problem: StowageDiagnostic, at location: Syntax, property: StoredProperty) -> Diagnostic {
        switch problem {
        case .letProperty:
            let keyword = property.declaration.bindingSpecifier
            return Diagnostic(
                node: location, message: problem,
                fixIts: [FixIt(
                    message: StowageFixIt(message: "Replace 'let' with 'var'"),
                    changes: [.replace(oldNode: Syntax(keyword), newNode: Syntax(keyword.with(\.tokenKind, .keyword(.var))))])])
        default:
            return Diagnostic(node: location, message: problem)
        }
    }
}

extension ModelMacro: MemberAttributeMacro {
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard declaration.is(ClassDeclSyntax.self), let variable = member.as(VariableDeclSyntax.self),
              let property = StoredProperty(variable), property.problem() == nil
        else { return [] }
        return ["@Stowage._PersistedProperty"]
    }
}

extension ModelMacro: ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax, providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ClassDeclSyntax.self), !protocols.isEmpty else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): Stowage.PersistentModel {}")]
    }
}

/// `@_PersistedProperty`: what `@Model` puts on each stored property. It moves the value into optional
/// storage `_name` (`nil` until loaded) and routes reads and writes through observation, change
/// tracking and lazy loading.
public enum PersistedPropertyMacro {}

extension PersistedPropertyMacro: AccessorMacro {
    public static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self), let property = StoredProperty(variable),
              property.problem() == nil
        else { return [] }
        let name = property.name
        return [
            """
            @storageRestrictions(initializes: _\(raw: name))
            init(initialValue) {
                _\(raw: name) = initialValue
            }
            """,
            """
            get {
                _$observationRegistrar.access(self, keyPath: \\.\(raw: name))
                if let value = _\(raw: name) {
                    return value
                }
                return _$backingData.load(self, \\._\(raw: name))
            }
            """,
            """
            set {
                _$backingData.willSet(self, \\._\(raw: name), to: newValue)
                _$observationRegistrar.withMutation(of: self, keyPath: \\.\(raw: name)) {
                    _\(raw: name) = newValue
                }
            }
            """,
        ]
    }
}

extension PersistedPropertyMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self), let property = StoredProperty(variable),
              property.problem() == nil, let type = property.type
        else { return [] }
        let initializer = " = " + (property.initializer?.trimmedDescription ?? "nil")
        return ["@Stowage.Transient private var _\(raw: property.name): Optional<\(type)>\(raw: initializer)"]
    }
}
