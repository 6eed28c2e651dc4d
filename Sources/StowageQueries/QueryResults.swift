/// Query results as ``Queryable`` values (seed 003's `QueryResults`): a random-access collection that
/// loads models in batches and makes each value when you read it, so 5 million matches cost what you
/// read of them, not 5 million values.
///
/// A value is made again at each read (they are cheap, immutable snapshots of their model at that
/// moment); keep the ones you need.
public struct QueryResults<T: Queryable>: RandomAccessCollection {
    private let models: FetchResultsCollection<T.Filter.ResultType>?

    /// Empty results.
    public init() { models = nil }

    /// The values of `models`, made as they are read.
    public init(_ models: FetchResultsCollection<T.Filter.ResultType>) { self.models = models }

    /// The position of the first value: always 0.
    public var startIndex: Int { 0 }
    /// The number of values, one past the last position.
    public var endIndex: Int { models?.count ?? 0 }

    /// The value made from the model at `position`.
    public subscript(position: Int) -> T {
        guard let models else { preconditionFailure("QueryResults index out of range") }
        return T(result: models[position])
    }

    /// Iterates the values batch by batch (a `for` loop); a model deleted since the results were
    /// counted is skipped. Reading by position (the subscript, and `Collection` methods such as `map`
    /// that read by position) stops the program at such a model, as `FetchResultsCollection` does.
    public func makeIterator() -> Iterator { Iterator(models: models?.makeIterator()) }

    /// The iterator of ``QueryResults``: the models' iterator, each model made into a value.
    public struct Iterator: IteratorProtocol {
        var models: FetchResultsCollection<T.Filter.ResultType>.Iterator?

        /// The value of the next model, or `nil` after the last.
        public mutating func next() -> T? {
            models?.next().map(T.init(result:))
        }
    }

    /// The model behind the value at `position`, for the data layer (to change or delete it).
    public func model(at position: Int) -> T.Filter.ResultType {
        guard let models else { preconditionFailure("QueryResults index out of range") }
        return models[position]
    }
}
