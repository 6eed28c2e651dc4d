import SwiftDiagnostics
import SwiftSyntax

/// Every diagnostic the Stowage macros emit. Each message says what is wrong and what to do; the fix-its
/// that go with them are built next to the checks that emit them.
struct StowageDiagnostic: DiagnosticMessage {
    let id: String
    let message: String
    let severity: DiagnosticSeverity

    var diagnosticID: MessageID { MessageID(domain: "Stowage", id: id) }

    private init(_ id: String, _ message: String, severity: DiagnosticSeverity = .error) {
        self.id = id
        self.message = message
        self.severity = severity
    }

    // MARK: @ModelActor

    static let modelActorNotAnActor = Self(
        "modelActorNotAnActor",
        "@ModelActor can only be applied to an actor: it gives the actor a context and an executor that runs its code. Declare it 'actor'.")

    // MARK: @Model

    static func modelNotAClass(kind: String, name: String?) -> Self {
        let declare = name.map { "Declare '\($0)' as a 'final class'" } ?? "Attach @Model to a 'final class'"
        return Self(
            "modelNotAClass",
            "@Model can only be applied to a class, not \(kind): models are reference types that a context tracks. \(declare).")
    }

    static func constraintOnSubclass(_ macro: String, superclass: String) -> Self {
        Self(
            "constraintOnSubclass",
            "#\(macro) cannot be declared on a subclass of the model '\(superclass)': the classes of a hierarchy share one table, whose indexes and constraints come from the root class. Declare it there, over the properties the root class has.")
    }

    static func letProperty(_ name: String) -> Self {
        Self(
            "letProperty",
            "@Model cannot persist the constant '\(name)': every persisted property gets accessors, and a 'let' cannot have them. Declare it 'private(set) var' to keep it read-only outside the class, or 'var'.")
    }

    static func missingTypeAnnotation(_ name: String, suggested: String?) -> Self {
        let example = "'\(name): \(suggested ?? "TypeName")'"
        return Self(
            "missingTypeAnnotation",
            "@Model needs the type of '\(name)' to persist it: write a type annotation, as in \(example), or an initial value the type can be inferred from.")
    }

    static func nilWithoutType(_ name: String) -> Self {
        Self(
            "nilWithoutType",
            "'\(name)' starts as 'nil', which does not say what it holds: add a type annotation with an optional type, as in '\(name): TypeName? = nil'.")
    }

    static func unsupportedType(_ name: String, type: String, reason: String) -> Self {
        Self(
            "unsupportedType",
            "@Model cannot store '\(name)' of type '\(type)': \(reason). Use a Codable type (a struct, an enum, an array or dictionary of Codable values) or another @Model class, or mark the property @Transient.")
    }

    static func unsupportedInitialValue(_ name: String, value: String, reason: String) -> Self {
        Self(
            "unsupportedType",
            "@Model cannot store '\(name)', whose initial value is \(value): \(reason). Use a Codable type (a struct, an enum, an array or dictionary of Codable values) or another @Model class, or mark the property @Transient.")
    }

    static func propertyObservers(_ name: String) -> Self {
        Self(
            "propertyObservers",
            "@Model cannot persist '\(name)' because it has willSet/didSet observers, which cannot be combined with the accessors @Model generates. Move that code into a method that sets the property, or mark the property @Transient.")
    }

    static func lazyProperty(_ name: String) -> Self {
        Self(
            "lazyProperty",
            "@Model cannot persist the lazy property '\(name)'. Mark it @Transient to keep it as a cache that is not stored, or remove 'lazy' to store it.")
    }

    static func multipleBindings(_ names: String) -> Self {
        Self(
            "multipleBindings",
            "@Model persists properties declared one per 'var': declare \(names) each with its own 'var' and type annotation.")
    }

    static func transientWithoutDefault(_ name: String) -> Self {
        Self(
            "transientWithoutDefault",
            "The @Transient property '\(name)' needs a default value: models fetched from a store are created without calling your initializers. Add a default value (as in '= 0'), or make its type optional.")
    }

    static func transientAndStored(_ name: String, other: String) -> Self {
        Self(
            "transientAndStored",
            "'\(name)' is marked both @Transient and @\(other), but a transient property is not stored. Remove @\(other), or remove @Transient to store the property.")
    }

    static func relationshipOnValue(_ name: String, type: String) -> Self {
        Self(
            "relationshipOnValue",
            "@Relationship applies to properties holding other models (such as 'Budget?' or '[Transaction]'), but '\(name)' has type '\(type)'. Remove @Relationship; use @Attribute to configure how a value is stored.")
    }

    static func toOneNotOptional(_ name: String, type: String) -> Self {
        Self(
            "toOneNotOptional",
            "The to-one relationship '\(name)' must be optional: a model has no related model until one is set, and loses it when that model is deleted. Declare it '\(type)?'.")
    }

    // MARK: @Attribute, @Relationship, @Transient

    static func markerOutsideModel(_ macro: String) -> Self {
        Self(
            "markerOutsideModel",
            "@\(macro) has no effect here: it configures a stored property of a @Model class. Attach @Model to the class, or remove @\(macro).",
            severity: .warning)
    }

    static func markerOnUnstoredProperty(_ macro: String, kind: String) -> Self {
        Self(
            "markerOnUnstoredProperty",
            "@\(macro) has no effect on a \(kind) property: only stored instance properties are persisted. Remove @\(macro).",
            severity: .warning)
    }

    // MARK: #Unique, #Index

    static func missingGenericArgument(_ macro: String, model: String?) -> Self {
        Self(
            "missingGenericArgument",
            "#\(macro) needs the model type as its generic argument: write '#\(macro)<\(model ?? "Model")>([\\.property])'.")
    }

    static func freestandingOutsideModel(_ macro: String) -> Self {
        Self(
            "freestandingOutsideModel",
            "#\(macro) declares \(macro == "Unique" ? "uniqueness constraints" : "indexes") of a model, so it must be written in the body of a @Model class. Move it into the class.")
    }

    static func genericArgumentMismatch(_ macro: String, written: String, model: String) -> Self {
        Self(
            "genericArgumentMismatch",
            "#\(macro)<\(written)> is written in the body of '\(model)' and applies to it: write '#\(macro)<\(model)>'.")
    }

    static func rtreeIndex(keyPaths: String) -> Self {
        Self(
            "rtreeIndex",
            "Stowage cannot create an R-tree index: SQLite keeps an R*Tree in a virtual table of its own, which fetches on the model's table never use. Declare a binary index over the same properties instead: '.binary(\(keyPaths))'.")
    }

    static func noKeyPaths(_ macro: String, model: String) -> Self {
        Self(
            "noKeyPaths",
            "#\(macro) needs at least one array of key paths, as in '#\(macro)<\(model)>([\\.property])'.")
    }
}

/// The message of a fix-it.
struct StowageFixIt: FixItMessage {
    let message: String
    var fixItID: MessageID { MessageID(domain: "Stowage", id: message) }

    init(_ message: String) { self.message = message }
}

extension FixIt {
    /// A fix-it that replaces one token with source text (which may span several tokens, such as
    /// `final class`), keeping the token's trivia.
    static func replace(_ token: TokenSyntax, with text: String, message: String) -> FixIt {
        let replacement = TokenSyntax.identifier(text).with(\.leadingTrivia, token.leadingTrivia)
            .with(\.trailingTrivia, token.trailingTrivia)
        return FixIt(message: StowageFixIt(message), changes: [.replace(oldNode: Syntax(token), newNode: Syntax(replacement))])
    }
}
