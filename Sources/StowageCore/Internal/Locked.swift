import Foundation

/// A value protected by a lock, for the little shared mutable state Stowage has (container
/// registries, caches). Everything else is confined to one context's isolation.
final class Locked<Value>: @unchecked Sendable {  // Sendable: every access goes through `lock`.
    private let lock = NSLock()
    // Every access is under `lock`: no dynamic exclusivity check (a runtime call per access).
    @exclusivity(unchecked) private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
