import Foundation

extension Schema {
    /// The indexes `#Index` declares for a model (SwiftData, iOS 18): each one a list of key paths,
    /// indexed together, and of a kind (``Types``).
    ///
    /// `#Index<Trip>([\.name], [\.startDate, \.endDate])` declares binary indexes;
    /// `#Index<Trip>(.binary([\.name]), .binary([\.startDate, \.endDate]))` says so explicitly. Each binary
    /// index is an SQLite index on the model's table, listed in ``Schema/Entity/indices`` by property
    /// names. R-tree indexes are refused: see ``Types/rtree(_:)``.
    public final class Index<T: PersistentModel>: Hashable, CustomDebugStringConvertible {
        /// The kind of one index and the key paths it covers.
        public enum Types<P: PersistentModel>: Hashable {
            /// An ordinary (B-tree) index over these properties, in this order: what SQLite's
            /// `CREATE INDEX` makes, used by fetches that filter or sort on its leading properties.
            case binary([PartialKeyPath<P>])
            /// An R-tree index (spatial ranges). Not supported: SQLite keeps an R*Tree in a virtual table
            /// of its own that queries on the model's table never use, so `#Index` reports it as an error
            /// at compile time, and a container refuses a model declaring one (``StowageError/Code/invalidSchema``).
            /// Use `.binary` over the same properties.
            case rtree([PartialKeyPath<P>])

            /// The key paths the index covers.
            public var keyPaths: [PartialKeyPath<P>] {
                switch self {
                case .binary(let keyPaths), .rtree(let keyPaths): keyPaths
                }
            }
        }

        /// The indexes, in declaration order.
        public let indices: [Types<T>]

        /// Indexes of the given kinds.
        public init(_ indices: Types<T>...) {
            self.indices = indices
        }

        /// Binary indexes, one per key-path list.
        public init(_ binaryIndices: [PartialKeyPath<T>]...) {
            self.indices = binaryIndices.map { .binary($0) }
        }

        /// Indexes of the given kinds, from an array (what `#Index` expands to).
        public init(_ indices: [Types<T>]) {
            self.indices = indices
        }

        /// The key paths of the binary indexes, as `PersistentModel._$indices` lists them.
        public var _$binaryKeyPaths: [[AnyKeyPath]] {
            indices.compactMap { if case .binary(let keyPaths) = $0 { keyPaths.map { $0 as AnyKeyPath } } else { nil } }
        }

        /// The key paths of the R-tree indexes, which opening a container refuses.
        public var _$rtreeKeyPaths: [[AnyKeyPath]] {
            indices.compactMap { if case .rtree(let keyPaths) = $0 { keyPaths.map { $0 as AnyKeyPath } } else { nil } }
        }

        /// Indexes are equal when they declare the same indexes in the same order.
        public static func == (lhs: Index, rhs: Index) -> Bool { lhs.indices == rhs.indices }
        /// Hashes the declared indexes.
        public func hash(into hasher: inout Hasher) { hasher.combine(indices) }

        /// The indexes, as `Index<Trip>(binary([\Trip.name]), …)`.
        public var debugDescription: String {
            let list = indices.map { index -> String in
                switch index {
                case .binary(let keyPaths): "binary(\(keyPaths.map { "\($0)" }))"
                case .rtree(let keyPaths): "rtree(\(keyPaths.map { "\($0)" }))"
                }
            }
            return "Index<\(T.self)>(\(list.joined(separator: ", ")))"
        }
    }
}
