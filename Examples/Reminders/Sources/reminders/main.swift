import Foundation
import RemindersKit

exit(Reminders.run(Array(CommandLine.arguments.dropFirst())))
