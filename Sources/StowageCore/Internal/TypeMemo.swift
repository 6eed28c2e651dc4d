import Foundation

/// Answers about types, computed once per type: what the translator asks of a type (its conformances,
/// its optional-free form, whether SQL can compare it) does not change, and asking the runtime again
/// costs thousands of instructions per predicate node.
final class TypeMemo<Answer>: @unchecked Sendable {  // Sendable: the answers are behind the lock.
    private let answers = Locked<[ObjectIdentifier: Answer]>([:])

    func answer(for type: Any.Type, _ compute: (Any.Type) -> Answer) -> Answer {
        let key = ObjectIdentifier(type)
        if let known = answers.withLock({ $0[key] }) { return known }
        let answer = compute(type)
        answers.withLock { $0[key] = answer }
        return answer
    }
}
