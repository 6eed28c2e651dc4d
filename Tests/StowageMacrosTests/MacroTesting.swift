import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

@testable import StowageMacros

/// Every Stowage macro, by the name it is written with in test sources.
let stowageMacros: [String: MacroSpec] = [
    "Model": MacroSpec(type: ModelMacro.self, conformances: ["PersistentModel"]),
    "_PersistedProperty": MacroSpec(type: PersistedPropertyMacro.self),
    "_ModelDeinit": MacroSpec(type: ModelDeinitMacro.self),
    "Attribute": MacroSpec(type: AttributeMacro.self),
    "Relationship": MacroSpec(type: RelationshipMacro.self),
    "Transient": MacroSpec(type: TransientMacro.self),
    "Unique": MacroSpec(type: UniqueMacro.self),
    "Index": MacroSpec(type: IndexMacro.self),
]

/// Expands the Stowage macros in `source` and compares the whole expanded source with `expandedSource`,
/// and the diagnostics (with their fix-its) with `diagnostics`; with `fixedSource`, also the source after
/// applying the first fix-it of each diagnostic (or those named in `applyFixIts`). Failures are recorded
/// as Swift Testing issues at the caller's location. Macros named in `unexpanded` are left as written.
/// `modelConformances` are the conformances the compiler reports the class lacks (none for a subclass of
/// a model).
func assertExpansion(
    _ source: String,
    unexpanded: Set<String> = [],
    modelConformances: [TypeSyntax] = ["PersistentModel"],
    expandedSource: String,
    diagnostics: [DiagnosticSpec] = [],
    applyFixIts: [String]? = nil,
    fixedSource: String? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) {
    SwiftSyntaxMacrosGenericTestSupport.assertMacroExpansion(
        source,
        expandedSource: expandedSource,
        diagnostics: diagnostics,
        macroSpecs: stowageMacros
            .merging(["Model": MacroSpec(type: ModelMacro.self, conformances: modelConformances)]) { _, new in new }
            .filter { !unexpanded.contains($0.key) },
        applyFixIts: applyFixIts,
        fixedSource: fixedSource,
        indentationWidth: .spaces(4),
        failureHandler: { failure in
            Issue.record(
                Comment(rawValue: failure.message),
                sourceLocation: SourceLocation(
                    fileID: failure.location.fileID, filePath: failure.location.filePath,
                    line: failure.location.line, column: failure.location.column))
        },
        fileID: fileID, filePath: filePath, line: line, column: column)
}
