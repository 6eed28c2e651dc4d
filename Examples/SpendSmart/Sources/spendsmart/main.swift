import Foundation
import SpendSmartKit

exit(await SpendSmart.runAsync(Array(CommandLine.arguments.dropFirst())))
