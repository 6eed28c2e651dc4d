import Foundation

// SwiftData's initializers: each runs the query before it returns (and throws if it fails), in the
// isolation it is called from, where the observer then updates. The `modelContainer:` forms create a
// ModelContext of their own.

extension ResultsObserver where SectionTitle == Never {
    /// Creates an observer without sections for a fetch descriptor.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), modelContext: ModelContext,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(descriptor: fetchDescriptor, sectionBy: nil, context: modelContext, isolation: isolation)
    }

    /// Creates an observer without sections for a predicate and a sort.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, modelContext: ModelContext,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), sectionBy: nil, context: modelContext,
            isolation: isolation)
    }

    /// Creates an observer without sections for a fetch descriptor on a new context of a container.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), modelContainer: ModelContainer,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(descriptor: fetchDescriptor, sectionBy: nil, context: ModelContext(modelContainer), isolation: isolation)
    }

    /// Creates an observer without sections for a predicate and a sort on a new context of a container.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, modelContainer: ModelContainer,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), sectionBy: nil, context: ModelContext(modelContainer),
            isolation: isolation)
    }
}

extension ResultsObserver where SectionTitle == String {
    /// Creates an observer whose results are grouped into sections by a string, for a fetch
    /// descriptor. The section key path is sorted by first.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: KeyPath<Element, String>,
        modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(descriptor: fetchDescriptor, sectionBy: sectionBy, context: modelContext, isolation: isolation)
    }

    /// Creates an observer whose results are grouped into sections by a string, for a predicate and
    /// a sort. The section key path is sorted by first.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, sectionBy: KeyPath<Element, String>,
        modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), sectionBy: sectionBy, context: modelContext,
            isolation: isolation)
    }

    /// Creates an observer whose results are grouped into sections by an optional string (`nil` is the section `""`), for a fetch
    /// descriptor. The section key path is sorted by first.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: KeyPath<Element, String?>,
        modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(descriptor: fetchDescriptor, sectionBy: sectionBy, context: modelContext, isolation: isolation)
    }

    /// Creates an observer whose results are grouped into sections by an optional string (`nil` is the section `""`), for a predicate and
    /// a sort. The section key path is sorted by first.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, sectionBy: KeyPath<Element, String?>,
        modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), sectionBy: sectionBy, context: modelContext,
            isolation: isolation)
    }

    /// Creates an observer whose results are grouped into sections by a string, for a fetch
    /// descriptor on a new context of a container. The section key path is sorted by first.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: KeyPath<Element, String>,
        modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(descriptor: fetchDescriptor, sectionBy: sectionBy, context: ModelContext(modelContainer), isolation: isolation)
    }

    /// Creates an observer whose results are grouped into sections by a string, for a predicate and
    /// a sort on a new context of a container. The section key path is sorted by first.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, sectionBy: KeyPath<Element, String>,
        modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), sectionBy: sectionBy, context: ModelContext(modelContainer),
            isolation: isolation)
    }

    /// Creates an observer whose results are grouped into sections by an optional string (`nil` is the section `""`), for a fetch
    /// descriptor on a new context of a container. The section key path is sorted by first.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: KeyPath<Element, String?>,
        modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(descriptor: fetchDescriptor, sectionBy: sectionBy, context: ModelContext(modelContainer), isolation: isolation)
    }

    /// Creates an observer whose results are grouped into sections by an optional string (`nil` is the section `""`), for a predicate and
    /// a sort on a new context of a container. The section key path is sorted by first.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, sectionBy: KeyPath<Element, String?>,
        modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), sectionBy: sectionBy, context: ModelContext(modelContainer),
            isolation: isolation)
    }
}
