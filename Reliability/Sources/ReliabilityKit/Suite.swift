/// Every scenario of the reliability suite, in RELIABILITY.md's order, and the child commands they run.
public enum Suite {
    public static let scenarios: [Scenario] = [
    ]

    public static let children: [ChildCommand] = [
    ]

    /// The scenario called `name`.
    public static func scenario(_ name: String) -> Scenario? {
        scenarios.first { $0.name == name }
    }
}
