import Foundation

#if !canImport(Darwin)
/// The localized string orders of a `SortDescriptor`: `.localizedStandard` and `.localized`, as
/// SwiftData code spells them, `SortDescriptor(\.name, comparator: .localizedStandard)`.
///
/// On Apple platforms these are members of Foundation's `String.StandardComparator`. Foundation on
/// Linux has only `.lexical`, and cannot make any other `String.StandardComparator`: Stowage supplies
/// this type and the `SortDescriptor` initializers that take it, so the same source compiles.
///
/// Such a descriptor is the descriptor `SortDescriptor(\.name)` makes, which SwiftData and Stowage sort
/// as `.localizedStandard` does (the order of the Finder: case-insensitive, numbers by value, "Seed Mix 9"
/// before "seed mix 10"). A fetch sorts it so in SQL (the `localizedStandard` collation), and in Swift
/// when it merges unsaved models into the results. Foundation's own comparison of the descriptor, as in
/// `array.sorted(using: descriptor)`, compares the strings with `<` (see "Sorting strings" in the
/// "Differences from SwiftData" article).
public struct LocalizedSortComparator: Hashable, Sendable {
    private enum Kind: Hashable, Sendable {
        case localizedStandard, localized
    }

    private let kind: Kind

    private init(_ kind: Kind) {
        self.kind = kind
    }

    /// Strings in the order of the Finder: localized, case-insensitive, numbers by value. SwiftData's
    /// default order for strings.
    public static let localizedStandard = LocalizedSortComparator(.localizedStandard)

    /// Strings in a localized order. On Linux Stowage sorts it as ``localizedStandard``: a
    /// `SortDescriptor` there can record no other localized order.
    public static let localized = LocalizedSortComparator(.localized)
}

extension SortDescriptor {
    /// Sorts by a string property in a localized order: `SortDescriptor(\.name, comparator: .localizedStandard)`.
    ///
    /// The descriptor is `SortDescriptor(keyPath, order: order)`, which fetches sort as SwiftData does
    /// (see ``LocalizedSortComparator``).
    @_disfavoredOverload
    public init(_ keyPath: any KeyPath<Compared, String> & Sendable, comparator: LocalizedSortComparator, order: SortOrder = .forward) {
        self.init(keyPath, order: order)
    }

    /// Sorts by an optional string property in a localized order (`nil` first in forward order).
    ///
    /// The descriptor is `SortDescriptor(keyPath, order: order)`, which fetches sort as SwiftData does
    /// (see ``LocalizedSortComparator``).
    @_disfavoredOverload
    public init(_ keyPath: any KeyPath<Compared, String?> & Sendable, comparator: LocalizedSortComparator, order: SortOrder = .forward) {
        self.init(keyPath, order: order)
    }
}
#endif
