@testable import UsersKit
