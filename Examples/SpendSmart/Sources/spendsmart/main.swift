import Foundation
import SpendSmartKit

exit(SpendSmart.run(Array(CommandLine.arguments.dropFirst())))
