import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model`: turns a class into a persistent model, like SwiftData's `@Model` (which builds on
/// `@Observable`). It adds the backing data, an observation registrar, schema metadata, an
/// `init(backingData:)` and the `_$load(_:into:)` that fills a fetched model from its row, marks each
/// stored property `@_PersistedProperty`, and conforms the class to `PersistentModel`.
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
        var properties: [StoredProperty] = []
        var storages: [String] = []
        for member in classDecl.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            switch ModelMember(variable) {
            case .ignored:
                continue
            case .transient(let variable):
                transientDiagnostics(variable).forEach(context.diagnose)
            case .persisted(let property):
                if let problem = property.problem() {
                    context.diagnose(problem)
                } else {
                    properties.append(property)
                    storages.append("_\(property.name)")
                }
            }
        }
        let isFinal = classDecl.modifiers.contains { $0.name.tokenKind == .keyword(.final) }
        func entries(rootedAt root: String) -> [String] {
            properties.map { metadataEntry(for: $0, in: root) }
        }
        // A subclass of another model (SwiftData's class inheritance): the compiler lists
        // `PersistentModel` among the conformances to add only when the class does not have it yet, so
        // its absence means a superclass is already a model.
        let superclass = protocols.contains { $0.trimmedDescription.hasSuffix("PersistentModel") }
            ? nil : classDecl.inheritanceClause?.inheritedTypes.first?.type.trimmed
        if let superclass {
            for member in classDecl.memberBlock.members {
                guard let expansion = member.decl.as(MacroExpansionDeclSyntax.self),
                      ["Index", "Unique"].contains(expansion.macroName.text) else { continue }
                context.diagnose(Diagnostic(
                    node: Syntax(expansion),
                    message: StowageDiagnostic.constraintOnSubclass(expansion.macroName.text, superclass: superclass.trimmedDescription)))
            }
            return (properties.compactMap(storageDeclaration) + subclassMembers(
                typeName: typeName, superclass: superclass.description, entries: entries(rootedAt: "Root"), storages: storages))
                .map(unparsedDecl)
        }
        // The model's state first, in place in its storage; then each property.
        let loadBody = "\n    let model = unsafeDowncast(object, to: Self.self)\n    reader.loadState(into: &model._$backingDataStorage)"
            + storages.map { "\n    try reader.load(&model.\($0))" }.joined()
        let storeBody = storages.isEmpty ? "" : "\n    let model = unsafeDowncast(object, to: Self.self)" + storages.map { "\n    try writer.store(model.\($0))" }.joined()
        // A class that is not final may have model subclasses: they override these members, and reuse its
        // metadata with their own key paths (`_$properties`).
        let classOrStatic = isFinal ? "static" : "class"
        let metadata: [String] = isFinal
            ? ["""
                nonisolated public static func schemaMetadata() -> [Stowage.Schema.PropertyMetadata] {
                    Stowage._$nonisolatedMetadata { @MainActor in
                        \(list(entries(rootedAt: typeName)))
                    }
                }
                """]
            : ["""
                nonisolated public class func schemaMetadata() -> [Stowage.Schema.PropertyMetadata] {
                    _$properties(\(typeName).self)
                }
                """,
               """
                nonisolated public static func _$properties<Root: \(typeName)>(_ root: Root.Type) -> [Stowage.Schema.PropertyMetadata] {
                    Stowage._$nonisolatedMetadata { @MainActor in
                        \(list(entries(rootedAt: "Root")))
                    }
                }
                """]
        // The backing data lives in the model: a fetched row is one object. A class that may have model
        // subclasses shares it with them (`final`, internal). The registrar is created on first use: a
        // model nobody observes never uses one.
        let storageAccess = isFinal ? "private" : "final"
        // The identity map does not retain models: a released one leaves it from its deinitializer, this
        // one or, when the class declares its own, that one (see `ModelDeinitMacro`).
        let declaresDeinit = classDecl.memberBlock.members.contains { $0.decl.is(DeinitializerDeclSyntax.self) }
        let deinitializer: [String] = declaresDeinit ? [] : [
            """
            deinit {
                _$backingDataStorage._$modelWillDeinit(ObjectIdentifier(self))
            }
            """,
        ]
        return (properties.compactMap(storageDeclaration) + [
            "@exclusivity(unchecked) nonisolated(unsafe) \(raw: storageAccess) var _$backingDataStorage = Stowage.ModelBackingData.Storage()",
            """
            nonisolated public\(raw: isFinal ? "" : " final") var persistentBackingData: Stowage.ModelBackingData {
                get { Stowage.ModelBackingData(self, &_$backingDataStorage) }
                set { _$backingDataStorage = newValue.storageValue }
            }
            """,
        ] + metadata + [
            """
            nonisolated public \(raw: isFinal ? "" : "required ")init(backingData: Stowage.ModelBackingData.Storage) {
                self._$backingDataStorage = backingData\(raw: storages.map { "\n    self.\($0) = nil" }.joined())
            }
            """,
            // How a fetch fills a new model: straight from the row into each property's storage, the
            // property and value types known here (see `ModelRowReader`).
            """
            nonisolated public \(classOrStatic) func _$load(_ reader: inout Stowage.ModelRowReader, into object: AnyObject) throws {\(loadBody)
            }
            """,
            // How a save binds a model's row: straight from each property's storage, typed (see
            // `ModelRowWriter`).
            """
            nonisolated public \(classOrStatic) func _$store(_ writer: inout Stowage.ModelRowWriter, from object: AnyObject) throws {\(storeBody)
            }
            """,
            "@exclusivity(unchecked) nonisolated(unsafe) private var _$observationRegistrarStorage: Observation.ObservationRegistrar? = nil",
            """
            nonisolated public var _$observationRegistrar: Observation.ObservationRegistrar {
                if let registrar = _$observationRegistrarStorage {
                    return registrar
                }
                let registrar = Observation.ObservationRegistrar()
                _$observationRegistrarStorage = registrar
                return registrar
            }
            """,
        ] + deinitializer).map(unparsedDecl)
    }

    /// The storage of a persisted property, `_name`, declared here rather than by `@_PersistedProperty`
    /// (a peer macro would cost the compiler one more plugin request per property).
    ///
    /// The storage is only touched by the generated accessors and the schema's getter and setter, each a
    /// single read or write that cannot overlap another access: dynamic exclusivity checks (a runtime
    /// call on every read and write of a class property) would find nothing, so they are turned off.
    /// It starts `nil`: the property's declared initial value reaches it through the property's init
    /// accessor, evaluated in the model's isolation (a main-actor model's default value may call
    /// main-actor code, which the nonisolated storage's own initializer could not).
    static func storageDeclaration(for property: StoredProperty) -> String? {
        let declaration = "@exclusivity(unchecked) nonisolated(unsafe) private var _\(property.name)"
        if let type = property.type {
            return "\(raw: declaration): Swift.Optional<\(type)> = nil"
        }
        // Declared without a type (`var count = 0`, `var sights = [Sight]()`): the storage takes the type
        // the compiler infers from the initial value, which is handed, unevaluated, to a function that
        // only reads its type. The closure is main-actor isolated so that a value a main-actor model may
        // use (a default isolation of `MainActor` makes its types' members main-actor) type-checks.
        guard let initializer = property.initializer else { return nil }
        return "\(raw: declaration) = Stowage._$emptyStorage(typedAs: { @MainActor in \(initializer) })"
    }

    /// The metadata list expression for `entries`.
    private static func list(_ entries: [String]) -> String {
        entries.isEmpty ? "[]" : "[\n" + entries.map { "            " + $0 }.joined(separator: ",\n") + "\n        ]"
    }

    /// The members of a model that inherits from another model: its superclass has the backing data and
    /// the registrar; it adds its own properties to the superclass's metadata, loading and storing.
    private static func subclassMembers(
        typeName: String, superclass: String, entries: [String], storages: [String]
    ) -> [String] {
        let loadBody = "try super._$load(&reader, into: object)" + (storages.isEmpty ? "" : "\n    let model = unsafeDowncast(object, to: Self.self)" + storages.map { "\n    try reader.load(&model.\($0))" }.joined())
        let storeBody = "try super._$store(&writer, from: object)" + (storages.isEmpty ? "" : "\n    let model = unsafeDowncast(object, to: Self.self)" + storages.map { "\n    try writer.store(model.\($0))" }.joined())
        return [
            """
                nonisolated public override class func schemaMetadata() -> [Stowage.Schema.PropertyMetadata] {
                    _$properties(\(typeName).self)
                }
                """,
            """
                nonisolated public static func _$properties<Root: \(typeName)>(_ root: Root.Type) -> [Stowage.Schema.PropertyMetadata] {
                    \(superclass)._$properties(root) + Stowage._$nonisolatedMetadata { @MainActor in
                        \(list(entries))
                    }
                }
                """,
            """
                nonisolated public required init(backingData: Stowage.ModelBackingData.Storage) {
                    \(storages.map { "self.\($0) = nil\n    " }.joined())super.init(backingData: backingData)
                }
                """,
            """
                nonisolated public override class func _$load(_ reader: inout Stowage.ModelRowReader, into object: AnyObject) throws {
                    \(loadBody)
                }
                """,
            """
                nonisolated public override class func _$store(_ writer: inout Stowage.ModelRowWriter, from object: AnyObject) throws {
                    \(storeBody)
                }
                """,
        ]
    }

    /// The `Schema.PropertyMetadata(...)` expression describing one persisted property.
    private static func metadataEntry(for property: StoredProperty, in typeName: String) -> String {
        let schemaAttribute = property.schemaAttribute
        // `.transformable(by:)`: the property's type need not be Codable, and the transformer stores it.
        let isTransformable = schemaAttribute?.simpleName == "Attribute"
            && schemaAttribute?.arguments?.as(LabeledExprListSyntax.self)?.contains {
                $0.label == nil && $0.expression.as(FunctionCallExprSyntax.self)?.calledExpression.trimmedDescription.hasSuffix("transformable") == true
            } == true
        var arguments = [
            "\(isTransformable ? "transformable" : "name"): \(literal(property.name))",
            "keyPath: \\\(typeName).\(property.name)",
            "storage: \\\(typeName)._\(property.name)",
            "get: { $0._\(property.name) }",
            "set: { $0._\(property.name) = $1 }",
        ]
        // An ephemeral attribute is not stored: a model made from a row reads its declared initial value,
        // whatever the expression (evaluated once, when the schema is built).
        let isEphemeral = schemaAttribute?.simpleName == "Attribute"
            && schemaAttribute?.arguments?.as(LabeledExprListSyntax.self)?.contains { $0.label == nil && $0.expression.trimmedDescription.hasSuffix(".ephemeral") } == true
        if let initializer = property.initializer, initializer.isStaticLiteral || isEphemeral, schemaAttribute?.simpleName != "Relationship" {
            arguments.append("defaultValue: \(initializer.trimmedDescription)")
        }
        if let schemaAttribute {
            let kind = schemaAttribute.simpleName
            let args = schemaAttribute.arguments?.as(LabeledExprListSyntax.self)?.trimmedDescription ?? ""
            arguments.append("metadata: Stowage.Schema.\(kind)(\(args))")
        }
        return "Stowage.Schema.PropertyMetadata(\(arguments.joined(separator: ", ")))"
    }

    /// Problems of a `@Transient` property: it needs a default value (instances created from rows run
    /// no user initializer), and it cannot be configured as stored at the same time.
    private static func transientDiagnostics(_ variable: VariableDeclSyntax) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        let name = variable.bindings.map(\.pattern.trimmedDescription).joined(separator: ", ")
        for other in ["Attribute", "Relationship"] {
            if let attribute = variable.attribute(other) {
                diagnostics.append(Diagnostic(
                    node: Syntax(attribute), message: StowageDiagnostic.transientAndStored(name, other: other),
                    fixIts: [FixIt.remove(attribute, message: "Remove '@\(other)'")]))
            }
        }
        let isLazy = variable.modifiers.contains { $0.name.tokenKind == .keyword(.lazy) }
        for binding in variable.bindings where binding.initializer == nil && !isLazy {
            let isOptional = binding.typeAnnotation?.type.isOptional == true
            if variable.bindingSpecifier.tokenKind == .keyword(.let) || !isOptional {
                diagnostics.append(Diagnostic(
                    node: Syntax(binding.pattern),
                    message: StowageDiagnostic.transientWithoutDefault(binding.pattern.trimmedDescription)))
            }
        }
        return diagnostics
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
        let keyword: TokenSyntax?
        let name: TokenSyntax?
        if let decl = declaration.as(StructDeclSyntax.self) {
            (keyword, name) = (decl.structKeyword, decl.name)
        } else if let decl = declaration.as(EnumDeclSyntax.self) {
            (keyword, name) = (decl.enumKeyword, decl.name)
        } else if let decl = declaration.as(ActorDeclSyntax.self) {
            (keyword, name) = (decl.actorKeyword, decl.name)
        } else if let decl = declaration.as(ProtocolDeclSyntax.self) {
            (keyword, name) = (nil, decl.name)
        } else {
            (keyword, name) = (nil, nil)
        }
        let kind: String
        switch declaration.kind {
        case .structDecl: kind = "a struct"
        case .enumDecl: kind = "an enum"
        case .actorDecl: kind = "an actor"
        case .protocolDecl: kind = "a protocol"
        case .extensionDecl: kind = "an extension"
        default: kind = "this declaration"
        }
        let message = StowageDiagnostic.modelNotAClass(kind: kind, name: name?.text)
        guard let keyword else { return Diagnostic(node: Syntax(node), message: message) }
        return Diagnostic(
            node: Syntax(keyword), message: message,
            fixIts: [.replace(keyword, with: "final class", message: "Replace '\(keyword.text)' with 'final class'")])
    }
}

extension ModelMacro: MemberAttributeMacro {
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        if declaration.is(ClassDeclSyntax.self), let deinitializer = member.as(DeinitializerDeclSyntax.self),
           !deinitializer.hasAttribute("_ModelDeinit") {
            return ["@Stowage._ModelDeinit"]
        }
        guard declaration.is(ClassDeclSyntax.self), let variable = member.as(VariableDeclSyntax.self),
              !variable.hasAttribute("_PersistedProperty"),
              let property = StoredProperty(persisted: variable), property.problem() == nil
        else { return [] }
        return ["@Stowage._PersistedProperty"]
    }
}

/// `@_ModelDeinit`: what `@Model` puts on a deinitializer the class declares. The identity map does not
/// retain models, so a released model must leave it: `@Model` generates a deinitializer doing that, and a
/// class that has its own gets the same call put first in it.
public enum ModelDeinitMacro: BodyMacro {
    public static func expansion(
        of node: AttributeSyntax, providingBodyFor declaration: some DeclSyntaxProtocol & WithOptionalCodeBlockSyntax,
        in context: some MacroExpansionContext
    ) throws -> [CodeBlockItemSyntax] {
        let statements = declaration.body?.statements.map { $0 } ?? []
        return ["_$backingDataStorage._$leaveIdentityMap(ObjectIdentifier(self))"] + statements
    }
}

extension ModelMacro: ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax, providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ClassDeclSyntax.self), !protocols.isEmpty else { return [] }
        // `nonisolated`: in a target whose default isolation is the main actor, the conformance would
        // otherwise be isolated to it (SE-0470), and the engine uses models from any thread.
        return [try ExtensionDeclSyntax("extension \(type.trimmed): nonisolated Stowage.PersistentModel {}")]
    }
}

/// `@_PersistedProperty`: what `@Model` puts on each stored property. It keeps the value in the optional
/// storage `_name` that `@Model` declares (`nil` until loaded) and routes reads and writes through
/// observation, change tracking and lazy loading: `PersistentModel._$get` and `_$set`, one call per
/// accessor, so that each model adds little code to compile (an optimized build inlines them).
///
/// Setting a property of a new model that nothing observes stores the value directly: no call, no key
/// path (an initializer's assignments take this path).
public enum PersistedPropertyMacro {}

extension PersistedPropertyMacro: AccessorMacro {
    public static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self), let property = StoredProperty(persisted: variable),
              property.problem() == nil
        else { return [] }
        let name = property.name
        return [unparsedAccessors(
            """
            @storageRestrictions(initializes: _\(raw: name))
            init(initialValue) {
                _\(raw: name) = initialValue
            }
            get {
                _$backingDataStorage._$noteRead()
                return _$get(\\.\(raw: name), _\(raw: name))
            }
            set {
                if _$backingDataStorage._$storesDirectly(newValue) {
                    _\(raw: name) = newValue
                } else {
                    _$set(\\.\(raw: name), \\._\(raw: name), newValue)
                }
            }
            """)]
    }
}
