@testable import ContactsKit
