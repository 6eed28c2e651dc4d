@testable import TodoKit
