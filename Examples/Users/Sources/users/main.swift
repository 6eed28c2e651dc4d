import Foundation
import UsersKit

exit(Users.run(Array(CommandLine.arguments.dropFirst())))
