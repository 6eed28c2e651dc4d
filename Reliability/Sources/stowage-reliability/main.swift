import Foundation
import ReliabilityKit

// The reliability suite's command (RELIABILITY.md):
//
//     stowage-reliability list                          the scenarios, one per line
//     stowage-reliability SCENARIO… [--quick] [--rounds N]
//                                                       runs them at full size (or quick), prints each
//                                                       report; exits 1 when one fails
//     stowage-reliability all [--quick]                 every scenario
//     stowage-reliability child NAME ARGUMENTS…         a scenario's child process (not for people)
//
// Exits 64 on a usage error.

func usage() -> Never {
    let names = Suite.scenarios.map { "  \($0.name.padding(toLength: 20, withPad: " ", startingAt: 0)) \($0.summary)" }
    FileHandle.standardError.write(Data((["usage: stowage-reliability SCENARIO…|all|list [--quick] [--rounds N]", "scenarios:"] + names + [""]).joined(separator: "\n").utf8))
    exit(64)
}

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "child" {
    guard arguments.count >= 2, let child = Suite.children.first(where: { $0.name == arguments[1] }) else { usage() }
    do {
        try await child.run(Array(arguments.dropFirst(2)))
        exit(0)
    } catch {
        say("error \(error)")
        exit(1)
    }
}
if arguments == ["list"] {
    for scenario in Suite.scenarios { print(scenario.name) }
    exit(0)
}
var quick = false
var rounds: Int?
var names: [String] = []
while !arguments.isEmpty {
    let argument = arguments.removeFirst()
    switch argument {
    case "--quick": quick = true
    case "--rounds":
        guard let value = arguments.first.flatMap({ Int($0) }), value > 0 else { usage() }
        rounds = value
        arguments.removeFirst()
    case "all": names += Suite.scenarios.map(\.name)
    default:
        guard Suite.scenario(argument) != nil else { usage() }
        names.append(argument)
    }
}
guard !names.isEmpty else { usage() }
var failed = false
for name in names {
    let scenario = Suite.scenario(name)!
    let start = now()
    do {
        var report = try await scenario.run(quick: quick, rounds: rounds)
        report.figure("time", String(format: "%.1f s", now() - start))
        print(report)
        failed = failed || !report.passed
    } catch {
        print("\(name): FAIL\n  FAILED: threw \(error)")
        failed = true
    }
}
exit(failed ? 1 : 0)
