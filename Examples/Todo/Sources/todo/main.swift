import TodoKit
