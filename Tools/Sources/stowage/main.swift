import Foundation
import StowageCommands

exit(StowageCommand.run(Array(CommandLine.arguments.dropFirst())))
