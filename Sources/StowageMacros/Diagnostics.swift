import SwiftDiagnostics
import SwiftSyntax

/// Every diagnostic the Stowage macros emit, with the fix each suggests.
enum StowageDiagnostic: String, DiagnosticMessage {
    case modelNotAClass
    case letProperty
    case missingTypeAnnotation
    case unsupportedType
    case propertyObservers
    case lazyProperty
    case uniqueOutsideModel
    case indexOutsideModel
    case missingGenericArgument

    var message: String {
        switch self {
        case .modelNotAClass:
            return "@Model can only be applied to a class: models are reference types. Declare it as 'final class'."
        case .letProperty:
            return "@Model cannot persist a 'let' constant: stored properties of a model are tracked and must be 'var'. Change 'let' to 'var', or mark the property @Transient."
        case .missingTypeAnnotation:
            return "@Model needs the type of every stored property spelled out. Add a type annotation (for example ': Int'), or mark the property @Transient."
        case .unsupportedType:
            return "@Model cannot store a property of this type. Use a Codable type (a struct, an enum, an array or dictionary of Codable values) or another @Model class, or mark the property @Transient."
        case .propertyObservers:
            return "@Model does not support willSet/didSet on stored properties. Move the logic into a method, or mark the property @Transient."
        case .lazyProperty:
            return "@Model cannot persist a 'lazy' property. Remove 'lazy', or mark the property @Transient."
        case .uniqueOutsideModel:
            return "#Unique must be written inside the body of a @Model class."
        case .indexOutsideModel:
            return "#Index must be written inside the body of a @Model class."
        case .missingGenericArgument:
            return "Name the model type: #Unique<Model>([\\.property]) or #Index<Model>([\\.property])."
        }
    }

    var diagnosticID: MessageID { MessageID(domain: "Stowage", id: rawValue) }
    var severity: DiagnosticSeverity { .error }
}

struct StowageFixIt: FixItMessage {
    let message: String
    var fixItID: MessageID { MessageID(domain: "Stowage", id: message) }
}
