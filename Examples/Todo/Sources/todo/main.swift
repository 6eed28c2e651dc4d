import Foundation
import TodoKit

exit(Todo.run(Array(CommandLine.arguments.dropFirst())))
