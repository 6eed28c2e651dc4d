import Foundation
import StowageCommands

#if canImport(Glibc)
import Glibc
#endif

// A program started by another Swift program inherits the signals its threads blocked (Foundation's
// `Process` on Linux): unblocked, so that SIGTERM and SIGINT stop `history --follow` as they should.
var signals = sigset_t()
sigemptyset(&signals)
sigprocmask(SIG_SETMASK, &signals, nil)

exit(StowageCommand.run(Array(CommandLine.arguments.dropFirst())))
