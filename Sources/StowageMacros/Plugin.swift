import SwiftCompilerPlugin
import SwiftSyntaxMacros

@main
struct StowageMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        ModelMacro.self,
        ModelActorMacro.self,
        PersistedPropertyMacro.self,
        ModelDeinitMacro.self,
        AttributeMacro.self,
        RelationshipMacro.self,
        TransientMacro.self,
        UniqueMacro.self,
        IndexMacro.self,
    ]
}

// The expansions made for every model and every property are written already formatted, and are not
// formatted again: swift-syntax's formatter, built without optimization as it is in a user's debug
// build, took about a third of the compiler's time on a file of models (Benchmarks/macro-cost.sh).
extension ModelMacro { public static var formatMode: FormatMode { .disabled } }
extension PersistedPropertyMacro { public static var formatMode: FormatMode { .disabled } }
