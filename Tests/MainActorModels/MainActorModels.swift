import Foundation
import Stowage

// This target's default isolation is the main actor (`swiftSettings: [.defaultIsolation(MainActor.self)]`,
// as in a new Xcode 26 app target): every declaration below, the models included, is `@MainActor`
// without saying so.

@Model
public final class Notebook {
    @Attribute(.unique) public var title: String
    public var createdAt: Date
    @Relationship(deleteRule: .cascade, inverse: \Page.notebook)
    public var pages: [Page] = []

    public init(title: String, createdAt: Date = .now) {
        self.title = title
        self.createdAt = createdAt
    }
}

/// A default value computed by main-actor code.
public func defaultPageText() -> String { "blank" }

@Model
public final class Page {
    public var number: Int
    public var text: String
    public var margin: String = defaultPageText()
    public var notebook: Notebook?

    public init(number: Int, text: String) {
        self.number = number
        self.text = text
    }
}

/// App code of a main-actor target: saves a notebook of `pageCount` pages through the main context.
public func writeNotebook(_ title: String, pageCount: Int, in container: ModelContainer) throws -> Notebook {
    let notebook = Notebook(title: title)
    container.mainContext.insert(notebook)
    for number in 1...pageCount {
        notebook.pages.append(Page(number: number, text: "page \(number) of \(title)"))
    }
    try container.mainContext.save()
    return notebook
}

/// A model this target declares `nonisolated` (SE-0449): Foundation's `#Predicate` and `SortDescriptor`
/// need `Sendable` key paths, which key paths to main-actor properties are not, so a model queried with
/// them is declared `nonisolated`, and the app code using it stays on the main actor.
@Model
nonisolated public final class Sticker {
    public var label: String
    public var size: Int

    public init(label: String, size: Int) {
        self.label = label
        self.size = size
    }
}

/// App code (main actor) querying with a predicate and a sort.
public func stickerLabels(largerThan size: Int, in context: ModelContext) throws -> [String] {
    try context.fetch(FetchDescriptor<Sticker>(predicate: #Predicate { $0.size > size }, sortBy: [SortDescriptor(\.label)])).map(\.label)
}

/// Properties without type annotations in a main-actor target: each initial value, the
/// main-actor `defaultPageText()` included, types the property's storage.
@Model
public final class Scrapbook {
    public var title = defaultPageText()
    public var count = 0
    public var tags = Set<String>()
    public var opened = Date.now

    public init() {}
}
