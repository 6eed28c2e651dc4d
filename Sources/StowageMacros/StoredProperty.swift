import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// How `@Model` treats one `var` or `let` member of the class.
enum ModelMember {
    /// Static, computed or generated: left alone.
    case ignored
    /// Marked `@Transient`: kept in memory, neither stored nor tracked.
    case transient(VariableDeclSyntax)
    /// A stored instance property: persisted (or diagnosed, if it cannot be).
    case persisted(StoredProperty)

    init(_ declaration: VariableDeclSyntax) {
        let identifiers = declaration.bindings.compactMap { $0.pattern.as(IdentifierPatternSyntax.self)?.identifier.text }
        if declaration.isStatic || identifiers.contains(where: { $0.hasPrefix("_$") })
            || declaration.bindings.contains(where: \.isComputed) {
            self = .ignored
        } else if declaration.hasAttribute("Transient") {
            self = .transient(declaration)
        } else {
            self = .persisted(StoredProperty(declaration))
        }
    }
}

/// A stored property of a `@Model` class, as the macros see it.
struct StoredProperty {
    let declaration: VariableDeclSyntax
    /// The property's single binding, or `nil` when the declaration declares several (`var a, b: Int`).
    let binding: PatternBindingSyntax?
    let name: String
    let type: TypeSyntax?
    let initializer: ExprSyntax?

    /// The stored property declared by `declaration`, if `@Model` persists it.
    init?(persisted declaration: VariableDeclSyntax) {
        guard case .persisted(let property) = ModelMember(declaration) else { return nil }
        self = property
    }

    fileprivate init(_ declaration: VariableDeclSyntax) {
        self.declaration = declaration
        if declaration.bindings.count == 1, let binding = declaration.bindings.first,
           let identifier = binding.pattern.as(IdentifierPatternSyntax.self) {
            self.binding = binding
            self.name = identifier.identifier.text
            self.type = binding.typeAnnotation?.type.trimmed
            self.initializer = binding.initializer?.value.trimmed
        } else {
            self.binding = nil
            self.name = declaration.bindings.map(\.pattern.trimmedDescription).joined(separator: ", ")
            self.type = nil
            self.initializer = nil
        }
    }

    /// The stored properties a `@Model` class declares, in order.
    static func persisted(in members: MemberBlockItemListSyntax) -> [StoredProperty] {
        members.compactMap { $0.decl.as(VariableDeclSyntax.self) }.compactMap { StoredProperty(persisted: $0) }
    }

    /// The `@Attribute(...)` or `@Relationship(...)` written on the property.
    var schemaAttribute: AttributeSyntax? {
        declaration.attributes.lazy.compactMap { $0.as(AttributeSyntax.self) }.first {
            ["Attribute", "Relationship"].contains($0.simpleName)
        }
    }

    /// Why the property cannot be persisted, as a diagnostic with fix-its; `nil` when it can.
    func problem() -> Diagnostic? {
        guard let binding else {
            let names = declaration.bindings.map { "'\($0.pattern.trimmedDescription)'" }.joined(separator: ", ")
            return Diagnostic(node: Syntax(declaration.bindings), message: StowageDiagnostic.multipleBindings(names))
        }
        let specifier = declaration.bindingSpecifier
        if specifier.tokenKind == .keyword(.let) {
            var fixIts: [FixIt] = []
            let isPrivate = declaration.modifiers.contains {
                [.keyword(.private), .keyword(.fileprivate)].contains($0.name.tokenKind) && $0.detail == nil
            }
            if !isPrivate {
                fixIts.append(.replace(specifier, with: "private(set) var", message: "Replace 'let' with 'private(set) var'"))
            }
            fixIts.append(.replace(specifier, with: "var", message: "Replace 'let' with 'var'"))
            return Diagnostic(node: Syntax(specifier), message: StowageDiagnostic.letProperty(name), fixIts: fixIts)
        }
        if let lazy = declaration.modifiers.first(where: { $0.name.tokenKind == .keyword(.lazy) }) {
            let removeLazy = FixIt(
                message: StowageFixIt("Remove 'lazy'"),
                changes: [.replaceText(
                    range: lazy.positionAfterSkippingLeadingTrivia..<lazy.endPosition, with: "", in: Syntax(lazy))])
            return Diagnostic(
                node: Syntax(lazy.name), message: StowageDiagnostic.lazyProperty(name),
                fixIts: [markTransient(), removeLazy])
        }
        if binding.accessorBlock != nil {
            return Diagnostic(
                node: Syntax(binding.pattern), message: StowageDiagnostic.propertyObservers(name),
                fixIts: canBeTransient ? [markTransient()] : [])
        }
        guard let type, let written = binding.typeAnnotation?.type else {
            return untypedProblem(binding)
        }
        if let (node, reason) = Self.unsupported(written) {
            return Diagnostic(
                node: Syntax(node),
                message: StowageDiagnostic.unsupportedType(name, type: type.trimmedDescription, reason: reason),
                fixIts: canBeTransient ? [markTransient()] : [])
        }
        if let attribute = schemaAttribute, attribute.simpleName == "Relationship" {
            return relationshipProblem(attribute, type: written)
        }
        return nil
    }

    private func relationshipProblem(_ attribute: AttributeSyntax, type written: TypeSyntax) -> Diagnostic? {
        let type = written.trimmed
        let wrapped = written.unwrappingOptional
        let element = wrapped.arrayElement ?? wrapped
        if element.isKnownValueType {
            return Diagnostic(
                node: Syntax(attribute), message: StowageDiagnostic.relationshipOnValue(name, type: type.trimmedDescription),
                fixIts: [FixIt.remove(attribute, message: "Remove '@Relationship'")])
        }
        if wrapped == written, written.arrayElement == nil,
           written.is(IdentifierTypeSyntax.self) || written.is(MemberTypeSyntax.self) {
            let end = written.endPositionBeforeTrailingTrivia
            return Diagnostic(
                node: Syntax(written), message: StowageDiagnostic.toOneNotOptional(name, type: type.trimmedDescription),
                fixIts: [FixIt(
                    message: StowageFixIt("Make the type '\(type.trimmedDescription)?'"),
                    changes: [.replaceText(range: end..<end, with: "?", in: Syntax(written))])])
        }
        return nil
    }

    /// Whether marking the property `@Transient` leaves valid code: it has a default value or an
    /// optional type.
    private var canBeTransient: Bool {
        initializer != nil || type?.isOptional == true
    }

    private func markTransient() -> FixIt {
        let start = declaration.positionAfterSkippingLeadingTrivia
        return FixIt(
            message: StowageFixIt("Mark '\(name)' @Transient"),
            changes: [.replaceText(range: start..<start, with: "@Transient ", in: Syntax(declaration))])
    }

    /// Why a property declared without a type annotation cannot be persisted, or `nil` when it can.
    ///
    /// A property with an initial value needs no annotation: its storage is declared with the type the
    /// compiler infers from that value (see `PersistedPropertyMacro`), so nothing here guesses the type.
    /// What the initial value shows syntactically only serves to refuse what cannot be stored (a closure,
    /// a tuple) and a `@Relationship` on a plain value, as an annotated property's type would.
    private func untypedProblem(_ binding: PatternBindingSyntax) -> Diagnostic? {
        // The initial value in the declaration (not `self.initializer`, detached from it), for positions.
        guard let initializer = binding.initializer?.value else {
            return Diagnostic(
                node: Syntax(binding.pattern), message: StowageDiagnostic.missingTypeAnnotation(name, suggested: nil))
        }
        if initializer.is(NilLiteralExprSyntax.self) {
            return Diagnostic(
                node: Syntax(initializer), message: StowageDiagnostic.nilWithoutType(name),
                fixIts: [insertType("TypeName?", after: binding.pattern, message: "Add a type annotation ': TypeName?'")])
        }
        if initializer.is(ClosureExprSyntax.self) {
            return Diagnostic(
                node: Syntax(initializer),
                message: StowageDiagnostic.unsupportedInitialValue(name, value: "a closure", reason: "a closure cannot be stored"),
                fixIts: [markTransient()])
        }
        if let tuple = initializer.as(TupleExprSyntax.self), tuple.elements.count > 1 {
            return Diagnostic(
                node: Syntax(initializer),
                message: StowageDiagnostic.unsupportedInitialValue(
                    name, value: "a tuple", reason: "a tuple is not Codable; declare a Codable struct instead"),
                fixIts: [markTransient()])
        }
        if let attribute = schemaAttribute, attribute.simpleName == "Relationship",
           let shown = Self.typeShown(by: initializer) {
            let element = shown.unwrappingOptional.arrayElement ?? shown.unwrappingOptional
            if element.isKnownValueType {
                return Diagnostic(
                    node: Syntax(attribute), message: StowageDiagnostic.relationshipOnValue(name, type: shown.trimmedDescription),
                    fixIts: [FixIt.remove(attribute, message: "Remove '@Relationship'")])
            }
        }
        return nil
    }

    private func insertType(_ type: String, after pattern: PatternSyntax, message: String) -> FixIt {
        let end = pattern.endPositionBeforeTrailingTrivia
        return FixIt(
            message: StowageFixIt(message),
            changes: [.replaceText(range: end..<end, with: ": \(type)", in: Syntax(pattern))])
    }

    /// The type an initial value states in its spelling, when it does: a literal (`0`, `1.5`, `""`,
    /// `false`), a call of a type (`Date()`, `Set<String>()`, `[Sight]()`, `[String: Int]()`), or a member
    /// of a type (`Date.now`, `Kind.basic`). Only used for diagnostics: the storage's type is the one the
    /// compiler infers, so a wrong reading here (a static factory returning another type) misleads no
    /// generated code.
    static func typeShown(by initializer: ExprSyntax) -> TypeSyntax? {
        if initializer.is(IntegerLiteralExprSyntax.self) { return "Int" }
        if initializer.is(FloatLiteralExprSyntax.self) { return "Double" }
        if initializer.is(BooleanLiteralExprSyntax.self) { return "Bool" }
        if initializer.is(StringLiteralExprSyntax.self) { return "String" }
        if let prefix = initializer.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            return typeShown(by: prefix.expression)
        }
        if let call = initializer.as(FunctionCallExprSyntax.self) {
            return typeNamed(by: call.calledExpression)
        }
        if let member = initializer.as(MemberAccessExprSyntax.self), let base = member.base,
           let type = typeNamed(by: base), member.declName.baseName.text != "self" {
            return type
        }
        return nil
    }

    /// The type an expression names: `Date`, `Set<String>`, `[Sight]`, `[String: Int]`, `Array<T>`; `nil`
    /// for anything that does not start with an uppercase letter (a function, a variable).
    private static func typeNamed(by expression: ExprSyntax) -> TypeSyntax? {
        if let reference = expression.as(DeclReferenceExprSyntax.self) {
            return reference.baseName.text.first?.isUppercase == true ? TypeSyntax(stringLiteral: reference.baseName.text) : nil
        }
        if let specialized = expression.as(GenericSpecializationExprSyntax.self), typeNamed(by: specialized.expression) != nil {
            return TypeSyntax(stringLiteral: specialized.trimmedDescription)
        }
        if let array = expression.as(ArrayExprSyntax.self), array.elements.count == 1,
           let element = array.elements.first.flatMap({ typeNamed(by: $0.expression) }) {
            return TypeSyntax(ArrayTypeSyntax(element: element))
        }
        if let dictionary = expression.as(DictionaryExprSyntax.self),
           case .elements(let elements) = dictionary.content, elements.count == 1, let only = elements.first,
           let key = typeNamed(by: only.key), let value = typeNamed(by: only.value) {
            return TypeSyntax(stringLiteral: "[\(key.trimmedDescription): \(value.trimmedDescription)]")
        }
        return nil
    }

    /// The part of `type` that cannot be stored and why, or `nil` when the type may be storable.
    static func unsupported(_ type: TypeSyntax) -> (TypeSyntax, String)? {
        if let optional = type.as(OptionalTypeSyntax.self) { return unsupported(optional.wrappedType) }
        if let iuo = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return unsupported(iuo.wrappedType) }
        if let array = type.as(ArrayTypeSyntax.self) { return unsupported(array.element) }
        if let dictionary = type.as(DictionaryTypeSyntax.self) {
            return unsupported(dictionary.key) ?? unsupported(dictionary.value)
        }
        if let attributed = type.as(AttributedTypeSyntax.self) { return unsupported(attributed.baseType) }
        if type.is(FunctionTypeSyntax.self) { return (type, "a closure cannot be stored") }
        if let tuple = type.as(TupleTypeSyntax.self) {
            if tuple.elements.count == 1, let only = tuple.elements.first, only.firstName == nil {
                return unsupported(only.type)
            }
            return (type, "a tuple is not Codable; declare a Codable struct instead")
        }
        if let someOrAny = type.as(SomeOrAnyTypeSyntax.self) {
            if someOrAny.someOrAnySpecifier.tokenKind == .keyword(.some) {
                return (type, "an opaque type cannot be stored")
            }
            return (type, "the concrete type of an existential is unknown when the value is read back")
        }
        if type.is(CompositionTypeSyntax.self) {
            return (type, "the concrete type of an existential is unknown when the value is read back")
        }
        if type.is(MetatypeTypeSyntax.self) { return (type, "a metatype cannot be stored") }
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            if let arguments = identifier.genericArgumentClause?.arguments {
                for argument in arguments {
                    if case .type(let argumentType) = argument.argument, let found = unsupported(argumentType) {
                        return found
                    }
                }
                return nil
            }
            switch identifier.name.text {
            case "Any", "AnyObject", "AnyHashable":
                return (type, "the concrete type of an existential is unknown when the value is read back")
            case "Void", "Never":
                return (type, "it has no value to store")
            default:
                return nil
            }
        }
        return nil
    }
}

extension PatternBindingSyntax {
    /// Whether the binding is a computed property (a getter, or `get`/`set` accessors).
    var isComputed: Bool {
        guard let accessors = accessorBlock?.accessors else { return false }
        switch accessors {
        case .getter: return true
        case .accessors(let list):
            return list.contains {
                ["get", "set", "_read", "_modify", "read", "modify", "unsafeAddress", "unsafeMutableAddress"]
                    .contains($0.accessorSpecifier.text)
            }
        }
    }
}

extension VariableDeclSyntax {
    var isStatic: Bool {
        modifiers.contains { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }
    }
}

extension WithAttributesSyntax {
    func hasAttribute(_ name: String) -> Bool {
        attributes.contains { $0.as(AttributeSyntax.self)?.simpleName == name }
    }

    func attribute(_ name: String) -> AttributeSyntax? {
        attributes.lazy.compactMap { $0.as(AttributeSyntax.self) }.first { $0.simpleName == name }
    }
}

extension TypeSyntax {
    /// `T` for `T?` or `Optional<T>`, otherwise the type itself.
    var unwrappingOptional: TypeSyntax {
        if let optional = self.as(OptionalTypeSyntax.self) { return optional.wrappedType }
        if let identifier = self.as(IdentifierTypeSyntax.self), identifier.name.text == "Optional",
           let argument = identifier.genericArgumentClause?.arguments.first, case .type(let wrapped) = argument.argument {
            return wrapped
        }
        return self
    }

    var isOptional: Bool {
        self.is(OptionalTypeSyntax.self) || self.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) || unwrappingOptional != self
    }

    /// `T` for `[T]` or `Array<T>`.
    var arrayElement: TypeSyntax? {
        if let array = self.as(ArrayTypeSyntax.self) { return array.element }
        if let identifier = self.as(IdentifierTypeSyntax.self), identifier.name.text == "Array",
           let argument = identifier.genericArgumentClause?.arguments.first, case .type(let element) = argument.argument {
            return element
        }
        return nil
    }

    /// Whether the type is one of the standard value types Stowage stores as an attribute (so certainly
    /// not a model), or a dictionary.
    var isKnownValueType: Bool {
        if self.is(DictionaryTypeSyntax.self) { return true }
        guard let identifier = self.as(IdentifierTypeSyntax.self) else { return false }
        return Self.valueTypeNames.contains(identifier.name.text)
    }

    private static let valueTypeNames: Set<String> = [
        "Bool", "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64",
        "Double", "Float", "Decimal", "String", "Date", "UUID", "URL", "Data", "Dictionary", "Set",
    ]
}

extension AttributeSyntax {
    /// The attribute's name without module qualification: `Stowage.Transient` → `Transient`.
    var simpleName: String {
        if let member = attributeName.as(MemberTypeSyntax.self) { return member.name.text }
        return attributeName.as(IdentifierTypeSyntax.self)?.name.text ?? attributeName.trimmedDescription
    }
}

extension FixIt {
    /// A fix-it that deletes an attribute together with the whitespace that follows it.
    static func remove(_ attribute: AttributeSyntax, message: String) -> FixIt {
        let end = attribute.nextToken(viewMode: .sourceAccurate)?.positionAfterSkippingLeadingTrivia ?? attribute.endPosition
        return FixIt(
            message: StowageFixIt(message),
            changes: [.replaceText(range: attribute.positionAfterSkippingLeadingTrivia..<end, with: "", in: Syntax(attribute))])
    }
}

extension ExprSyntax {
    /// Whether the expression is a literal that can be evaluated in a static context (used as a schema
    /// default value).
    var isStaticLiteral: Bool {
        if self.is(IntegerLiteralExprSyntax.self) || self.is(FloatLiteralExprSyntax.self) || self.is(BooleanLiteralExprSyntax.self)
            || self.is(NilLiteralExprSyntax.self) {
            return true
        }
        if let string = self.as(StringLiteralExprSyntax.self) {
            return string.segments.allSatisfy { $0.is(StringSegmentSyntax.self) }
        }
        if let prefix = self.as(PrefixOperatorExprSyntax.self) { return prefix.expression.isStaticLiteral }
        if let member = self.as(MemberAccessExprSyntax.self) { return member.base == nil && member.declName.argumentNames == nil }
        if let array = self.as(ArrayExprSyntax.self) { return array.elements.allSatisfy { $0.expression.isStaticLiteral } }
        return false
    }
}

extension Syntax {
    /// Whether this node, from a macro's lexical context, is a class with `@Model` attached.
    var isModelClass: Bool {
        guard let classDecl = self.as(ClassDeclSyntax.self) else { return false }
        return classDecl.attributes.contains { $0.as(AttributeSyntax.self)?.simpleName == "Model" }
    }
}
