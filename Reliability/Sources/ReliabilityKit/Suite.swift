/// Every scenario of the reliability suite, in RELIABILITY.md's order, and the child commands they run.
public enum Suite {
    public static let scenarios: [Scenario] = [
        ConcurrentSaves.scenario,
        SnapshotIsolation.scenario,
        ConflictRounds.scenario,
        UniqueRace.scenario,
        CrashMidSave.scenario,
        IOFaults.scenario,
        DiskFull.scenario,
        OutOfMemory.scenario,
        CorruptFiles.scenario,
        Permissions.scenario,
        TwoProcesses.scenario,
        ManyWriters.scenario,
        Soak.scenario,
    ]

    public static let children: [ChildCommand] = [
        CrashMidSave.saver,
        IOFaults.child,
        OutOfMemory.child,
        DiskFull.child,
        Permissions.child,
        TwoProcesses.writer,
        ManyWriters.writer,
    ]

    /// The scenario called `name`.
    public static func scenario(_ name: String) -> Scenario? {
        scenarios.first { $0.name == name }
    }
}
