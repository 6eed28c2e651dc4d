import Foundation

/// Command-line options of `stowage-bench`.
struct Options {
    /// Multiplies every row count (100k, 1M, 10k lookups): `--scale 0.01` for a smoke run.
    var scale = 1.0
    /// Timed runs per workload and contender; the table shows their median.
    var runs = 5
    /// Workloads to run (W1…W9, M1, L1–L3).
    var workloads: Set<String> = ["W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8", "W9", "M1", "L1", "L2", "L3"]
    /// Also run Fluent (only when built with `--traits Fluent`).
    var fluent = false
    /// Where the Markdown report goes, if anywhere.
    var markdown: String?
    /// Where the store files go (a new temporary directory by default, removed at the end).
    var directory: String?
    /// Child mode (M1, W7's memory): `--child CONTENDER MODE PATH ROWS`.
    var child: [String]?
    /// The PostgreSQL server to run the PostgreSQL workloads on instead of SQLite's (`--postgres URL`,
    /// a build with `--traits Postgres`): W1, W2, W3, W5, W9, P1 and P2 by default.
    var postgres: URL?
    /// P1's and P2's child modes: `--postgres-writer URL SECONDS INDEX`, `--postgres-observer URL`.
    var postgresChild: [String]?
    /// Whether `--only` was given.
    var chosen = false

    static let usage = """
        usage: stowage-bench [--scale S] [--runs N] [--only W1,W2,...] [--fluent] [--markdown FILE] [--dir DIR]
               stowage-bench --postgres postgres://user@host:port/database [--scale S] [--runs N] [--only W1,P1,...] [--fluent]
        """

    init(_ arguments: [String]) throws {
        var iterator = arguments.makeIterator()
        func value(_ option: String) throws -> String {
            guard let value = iterator.next() else { throw BenchError(description: "\(option) needs a value\n\(Self.usage)") }
            return value
        }
        while let argument = iterator.next() {
            switch argument {
            case "--scale":
                guard let scale = Double(try value(argument)), scale > 0 else { throw BenchError(description: "--scale takes a positive number") }
                self.scale = scale
            case "--runs":
                guard let runs = Int(try value(argument)), runs > 0 else { throw BenchError(description: "--runs takes a positive integer") }
                self.runs = runs
            case "--only":
                workloads = Set(try value(argument).uppercased().split(separator: ",").map(String.init))
                chosen = true
            case "--postgres":
                let text = try value(argument)
                guard let url = URL(string: text), url.scheme?.hasPrefix("postgres") == true else { throw BenchError(description: "--postgres takes a postgres:// URL") }
                postgres = url
            case "--postgres-writer":
                postgresChild = [argument, try value(argument), try value(argument), try value(argument)]
            case "--postgres-observer":
                postgresChild = [argument, try value(argument)]
            case "--fluent":
                fluent = true
            case "--markdown":
                markdown = try value(argument)
            case "--dir":
                directory = try value(argument)
            case "--child":
                child = [try value(argument), try value(argument), try value(argument), try value(argument)]
            case "--help", "-h":
                print(Self.usage)
                exit(0)
            default:
                throw BenchError(description: "unknown option \(argument)\n\(Self.usage)")
            }
        }
        if postgres != nil && !chosen { workloads = ["W1", "W2", "W3", "W5", "W9", "P1", "P2"] }
    }
}
