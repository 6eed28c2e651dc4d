import ContactsKit
import Foundation

exit(await Contacts.runAsync(Array(CommandLine.arguments.dropFirst())))
