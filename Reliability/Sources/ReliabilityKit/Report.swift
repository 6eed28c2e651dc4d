import Foundation

/// What a scenario of the reliability suite measured and which of its invariants failed.
///
/// A scenario records its figures (the numbers RELIABILITY.md publishes) and checks its invariants as it
/// runs; it passes when no check failed. The command (`stowage-reliability`) prints a report, the tests
/// expect it to pass and look at its figures.
public struct Report: Sendable, CustomStringConvertible {
    /// A named measurement, such as `"p99 save"` → `"3.1 ms"`.
    public struct Figure: Sendable {
        public let name: String
        public let value: String
    }

    /// The scenario's name.
    public let scenario: String
    /// The measurements, in the order they were taken.
    public private(set) var figures: [Figure] = []
    /// The invariants that did not hold, each a sentence saying what was expected and what was found.
    public private(set) var failures: [String] = []

    public init(_ scenario: String) { self.scenario = scenario }

    /// Whether every invariant held.
    public var passed: Bool { failures.isEmpty }

    /// Records a measurement.
    public mutating func figure(_ name: String, _ value: String) {
        figures.append(Figure(name: name, value: value))
    }

    /// Records a measurement given as a number.
    public mutating func figure(_ name: String, _ value: some BinaryInteger) {
        figure(name, "\(value)")
    }

    /// Checks an invariant; a failed one is recorded with `message`.
    public mutating func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { failures.append(message()) }
    }

    /// Records a failure.
    public mutating func fail(_ message: String) {
        failures.append(message)
    }

    /// The value of the figure called `name`, if it was recorded.
    public subscript(figure name: String) -> String? {
        figures.last { $0.name == name }?.value
    }

    /// The value of the figure called `name` as an integer, if it was recorded as one.
    public func integer(_ name: String) -> Int? {
        self[figure: name].flatMap { Int($0) }
    }

    public var description: String {
        var lines = ["\(scenario): \(passed ? "PASS" : "FAIL")"]
        lines += figures.map { "  \($0.name): \($0.value)" }
        lines += failures.map { "  FAILED: \($0)" }
        return lines.joined(separator: "\n")
    }
}

/// Formats seconds as milliseconds with two decimals.
public func milliseconds(_ seconds: Double) -> String {
    String(format: "%.2f ms", seconds * 1000)
}

/// The `fraction` quantile (0...1) of `values`, nearest rank; 0 when empty.
public func quantile(_ values: [Double], _ fraction: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}

/// A monotonic clock in seconds.
public func now() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}
