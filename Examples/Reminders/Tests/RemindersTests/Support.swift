@testable import RemindersKit
