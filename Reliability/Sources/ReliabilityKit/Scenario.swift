import Foundation

/// One scenario of the reliability suite: a name for the command line, a sentence for its help, and
/// the code that runs it and returns its report.
public struct Scenario: Sendable {
    /// How a scenario runs: full size (the figures RELIABILITY.md publishes) or quick (the tests and CI).
    public struct Options: Sendable {
        /// Quick runs use the smaller sizes the tests and CI use.
        public var quick: Bool
        /// A directory the scenario may fill; created before, removed after by the caller.
        public var directory: URL
        /// Overrides the scenario's number of rounds, when it has rounds.
        public var rounds: Int?

        public init(quick: Bool, directory: URL, rounds: Int? = nil) {
            self.quick = quick
            self.directory = directory
            self.rounds = rounds
        }

        /// `rounds` if given, else `quick` or `full` by the kind of run.
        public func size(quick quickSize: Int, full: Int) -> Int {
            rounds ?? (quick ? quickSize : full)
        }
    }

    public let name: String
    public let summary: String
    public let run: @Sendable (Options) async throws -> Report

    public init(_ name: String, _ summary: String, run: @escaping @Sendable (Options) async throws -> Report) {
        self.name = name
        self.summary = summary
        self.run = run
    }

    /// Runs the scenario in a fresh temporary directory, removed afterwards.
    public func run(quick: Bool, rounds: Int? = nil) async throws -> Report {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("stowage-reliability-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await run(Options(quick: quick, directory: directory, rounds: rounds))
    }
}

/// A command the scenarios run in a child process (`stowage-reliability child NAME ARGUMENTS…`): work
/// that must be killed, that changes process-wide state (SQLite's default VFS, its heap limit), or that
/// runs as another user or in another mount namespace.
public struct ChildCommand: Sendable {
    public let name: String
    public let run: @Sendable ([String]) async throws -> Void

    public init(_ name: String, run: @escaping @Sendable ([String]) async throws -> Void) {
        self.name = name
        self.run = run
    }
}
