/// The sentences and tables SpendSmart prints, shared by the commands and the demo.
enum Report {
    static func added(_ budget: Budget) -> String {
        "Added \"\(budget.name)\" with a limit of \(Amount.format(budget.limit))."
    }

    static func renamed(_ name: String, to newName: String) -> String {
        "Renamed \"\(name)\" to \"\(newName)\"."
    }

    static func deleted(_ name: String) -> String {
        "Deleted \"\(name)\"."
    }

    static func count(_ count: Int) -> String {
        count == 1 ? "1 budget" : "\(count) budgets"
    }

    /// One line per budget: the names left-aligned, the limits right-aligned.
    static func table(_ budgets: [Budget], indent: String = "  ") -> [String] {
        let rows = budgets.map { (name: $0.name, limit: Amount.format($0.limit)) }
        let nameWidth = rows.map(\.name.count).max() ?? 0
        let limitWidth = rows.map(\.limit.count).max() ?? 0
        return rows.map { row in
            indent + row.name.padding(to: nameWidth) + "  " + String(repeating: " ", count: limitWidth - row.limit.count) + row.limit
        }
    }
}

extension String {
    fileprivate func padding(to width: Int) -> String {
        self + String(repeating: " ", count: Swift.max(0, width - count))
    }
}
