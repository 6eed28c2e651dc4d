import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// A stored property of a `@Model` class, as the macros see it.
struct StoredProperty {
    let declaration: VariableDeclSyntax
    let name: String
    let type: TypeSyntax?
    let initializer: ExprSyntax?

    /// The `@Attribute(...)` or `@Relationship(...)` written on the property.
    var schemaAttribute: AttributeSyntax? {
        declaration.attributes.lazy.compactMap { $0.as(AttributeSyntax.self) }.first {
            ["Attribute", "Relationship"].contains($0.simpleName)
        }
    }

    /// The stored properties a `@Model` persists: instance `var`s with one simple binding, no accessors
    /// (or only observers), not `@Transient`, not generated (`_$…`).
    static func persisted(in members: MemberBlockItemListSyntax) -> [StoredProperty] {
        members.compactMap { $0.decl.as(VariableDeclSyntax.self) }.compactMap(StoredProperty.init)
    }

    init?(_ declaration: VariableDeclSyntax) {
        guard !declaration.isStatic, !declaration.hasAttribute("Transient"), !declaration.hasAttribute("_PersistedProperty"),
              declaration.bindings.count == 1, let binding = declaration.bindings.first,
              let identifier = binding.pattern.as(IdentifierPatternSyntax.self)
        else { return nil }
        let name = identifier.identifier.trimmedDescription
        guard !name.hasPrefix("_$") else { return nil }
        if let accessors = binding.accessorBlock {
            switch accessors.accessors {
            case .getter: return nil
            case .accessors(let list):
                if list.contains(where: { ["get", "set", "_read", "_modify", "unsafeAddress"].contains($0.accessorSpecifier.text) }) {
                    return nil
                }
            }
        }
        self.declaration = declaration
        self.name = name
        self.type = binding.typeAnnotation?.type.trimmed
        self.initializer = binding.initializer?.value.trimmed
    }

    /// Why the property cannot be persisted, if it cannot.
    func problem() -> (StowageDiagnostic, Syntax)? {
        if declaration.bindingSpecifier.tokenKind == .keyword(.let) { return (.letProperty, Syntax(declaration.bindingSpecifier)) }
        if declaration.modifiers.contains(where: { $0.name.tokenKind == .keyword(.lazy) }) {
            return (.lazyProperty, Syntax(declaration))
        }
        if declaration.bindings.first?.accessorBlock != nil { return (.propertyObservers, Syntax(declaration)) }
        guard let type else { return (.missingTypeAnnotation, Syntax(declaration.bindings)) }
        if Self.isUnsupported(type) { return (.unsupportedType, Syntax(type)) }
        return nil
    }

    private static func isUnsupported(_ type: TypeSyntax) -> Bool {
        if let optional = type.as(OptionalTypeSyntax.self) { return isUnsupported(optional.wrappedType) }
        if let array = type.as(ArrayTypeSyntax.self) { return isUnsupported(array.element) }
        if type.is(FunctionTypeSyntax.self) || type.is(TupleTypeSyntax.self) || type.is(SomeOrAnyTypeSyntax.self)
            || type.is(MetatypeTypeSyntax.self) || type.is(CompositionTypeSyntax.self) {
            return true
        }
        if let attributed = type.as(AttributedTypeSyntax.self) { return isUnsupported(attributed.baseType) }
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            return ["Any", "AnyObject", "AnyHashable", "Void", "Never", "Optional"].contains(identifier.name.text)
                && identifier.genericArgumentClause == nil
        }
        return false
    }
}

extension VariableDeclSyntax {
    var isStatic: Bool {
        modifiers.contains { $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class) }
    }

    func hasAttribute(_ name: String) -> Bool {
        attributes.contains { $0.as(AttributeSyntax.self)?.simpleName == name }
    }
}

extension AttributeSyntax {
    /// The attribute's name without module qualification: `Stowage.Transient` → `Transient`.
    var simpleName: String {
        if let member = attributeName.as(MemberTypeSyntax.self) { return member.name.text }
        return attributeName.as(IdentifierTypeSyntax.self)?.name.text ?? attributeName.trimmedDescription
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
        if let member = self.as(MemberAccessExprSyntax.self) { return member.base == nil }
        if let array = self.as(ArrayExprSyntax.self) { return array.elements.allSatisfy { $0.expression.isStaticLiteral } }
        return false
    }
}
