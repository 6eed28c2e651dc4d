import Foundation

/// The results of a sectioned ``ResultsObserver``: a random-access collection of ``ResultsSection``s,
/// in the order of their first model in the sorted results.
///
/// ```swift
/// for section in observer.sections ?? SectionedResults() {
///     print(section.title, section.count)
/// }
/// let groceries = observer.sections?[sectionTitle: "Groceries"]
/// ```
public struct SectionedResults<Element: PersistentModel, SectionTitle: Hashable>: RandomAccessCollection {
    private let sections: [ResultsSection<Element, SectionTitle>]
    private let indexByTitle: [SectionTitle: Int]

    /// No sections.
    public init() {
        sections = []
        indexByTitle = [:]
    }

    init(_ sections: [ResultsSection<Element, SectionTitle>]) {
        self.sections = sections
        var indexByTitle: [SectionTitle: Int] = [:]
        indexByTitle.reserveCapacity(sections.count)
        for (index, section) in sections.enumerated() { indexByTitle[section.title] = index }
        self.indexByTitle = indexByTitle
    }

    /// The position of the first section: always 0.
    public var startIndex: Int { 0 }
    /// The number of sections, one past the last position.
    public var endIndex: Int { sections.count }

    /// The section at `position`.
    public subscript(position: Int) -> ResultsSection<Element, SectionTitle> { sections[position] }

    /// The section titles, in order.
    public var sectionTitles: [SectionTitle] { sections.map(\.title) }

    /// The section with a title, or `nil` if there is none. O(1).
    public subscript(sectionTitle title: SectionTitle) -> ResultsSection<Element, SectionTitle>? {
        indexByTitle[title].map { sections[$0] }
    }

    /// Whether a section has this title. O(1).
    public func contains(sectionTitle title: SectionTitle) -> Bool { indexByTitle[title] != nil }

    /// The position of the section with this title, or `nil` if there is none. O(1).
    public func index(ofSectionTitled title: SectionTitle) -> Int? { indexByTitle[title] }
}

/// The models of one section of a ``SectionedResults``: those whose section key path gives ``title``,
/// in the results' order. Indices run from 0; models load lazily, in batches, as you read them.
public struct ResultsSection<Element: PersistentModel, SectionTitle: Hashable>: RandomAccessCollection, Identifiable {
    /// The value of the section key path that every model of the section shares.
    public let title: SectionTitle
    /// The section's identity: its ``title``.
    public var id: SectionTitle { title }
    let results: FetchResultsCollection<Element>
    /// The section's positions in the observer's results.
    let range: Range<Int>

    init(title: SectionTitle, results: FetchResultsCollection<Element>, range: Range<Int>) {
        self.title = title
        self.results = results
        self.range = range
    }

    /// The position of the section's first model: always 0.
    public var startIndex: Int { 0 }
    /// The number of models in the section, one past the last position.
    public var endIndex: Int { range.count }

    /// The model at `position` in the section, loaded if needed.
    public subscript(position: Int) -> Element {
        precondition(position >= 0 && position < range.count, "ResultsSection index out of range")
        return results[range.lowerBound + position]
    }
}
