import ArgumentParser
import Foundation
import StowageCommands

#if canImport(Glibc)
import Glibc
#endif

// A program started by another Swift program inherits the signals its threads blocked (Foundation's
// `Process` on Linux): unblocked, so that SIGTERM and SIGINT stop `history --follow` and `studio` as
// they should.
var signals = sigset_t()
sigemptyset(&signals)
sigprocmask(SIG_SETMASK, &signals, nil)

/// `stowage`: the commands of ``StowageCommand``, and Stowage Studio where it is built.
struct Stowage: AsyncParsableCommand {
    static let configuration: CommandConfiguration = {
        var configuration = StowageCommand.configuration
        #if canImport(StowageStudio)
        configuration.subcommands.append(StudioCommand.self)
        #endif
        return configuration
    }()
}

exit(await StowageCommand.run(Array(CommandLine.arguments.dropFirst()), as: Stowage.self))
