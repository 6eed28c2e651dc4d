import Foundation

/// The sentences and tables SpendSmart prints, shared by the commands and the demo.
enum Report {
    static func added(_ budget: Budget) -> String {
        "Added \"\(budget.name)\" with a limit of \(Amount.format(budget.limit))."
    }

    static func renamed(_ name: String, to newName: String) -> String {
        "Renamed \"\(name)\" to \"\(newName)\"."
    }

    /// A deleted budget, with the transactions that went with it.
    static func deleted(_ name: String, transactions: Int = 0) -> String {
        transactions == 0
            ? "Deleted \"\(name)\"."
            : "Deleted \"\(name)\" and its \(transactionCount(transactions))."
    }

    /// A transaction just recorded, and where its budget stands.
    static func spent(_ transaction: Transaction, from budget: Budget) -> String {
        "Added \"\(transaction.note)\" (\(Amount.format(transaction.amount))) to \"\(budget.name)\". " + balance(budget)
    }

    /// How much of a budget is spent and what is left: `Spent $40.25 of $500.00: $459.75 left.`
    static func balance(_ budget: Budget) -> String {
        let spent = "Spent \(Amount.format(budget.total)) of \(Amount.format(budget.limit)): "
        let remaining = budget.remaining
        return remaining < 0
            ? spent + "\(Amount.format(-remaining)) over the limit."
            : spent + "\(Amount.format(remaining)) left."
    }

    static func count(_ count: Int) -> String {
        count == 1 ? "1 budget" : "\(count) budgets"
    }

    static func transactionCount(_ count: Int) -> String {
        count == 1 ? "1 transaction" : "\(count) transactions"
    }

    /// What `list` and `watch` print: how many budgets there are, then ``table(_:indent:)``; a hint
    /// to add one when there are none.
    static func totals(_ budgets: [Budget]) -> [String] {
        budgets.isEmpty
            ? ["No budgets yet. Add one with: spendsmart add <name> <limit>"]
            : ["\(count(budgets.count)), spent of limit:"] + table(budgets)
    }

    /// One line per budget: the names left-aligned, then what is spent and the limit, right-aligned.
    static func table(_ budgets: [Budget], indent: String = "  ") -> [String] {
        let rows = budgets.map { (name: $0.name, spent: Amount.format($0.total), limit: Amount.format($0.limit)) }
        let nameWidth = rows.map(\.name.count).max() ?? 0
        let spentWidth = rows.map(\.spent.count).max() ?? 0
        let limitWidth = rows.map(\.limit.count).max() ?? 0
        return rows.map { row in
            indent + row.name.padding(to: nameWidth) + "  " + row.spent.leftPadding(to: spentWidth)
                + " of " + row.limit.leftPadding(to: limitWidth)
        }
    }

    /// A budget's transactions in the order they were added, then its balance.
    static func statement(_ budget: Budget, indent: String = "  ") -> [String] {
        let transactions = budget.transactions
        guard !transactions.isEmpty else {
            return [
                "\"\(budget.name)\" has no transactions yet. Add one with: spendsmart spend \"\(budget.name)\" <amount> <note>",
                balance(budget),
            ]
        }
        let rows = transactions.map { (date: day($0.date), note: $0.note, amount: Amount.format($0.amount)) }
        let noteWidth = rows.map(\.note.count).max() ?? 0
        let amountWidth = rows.map(\.amount.count).max() ?? 0
        return ["\"\(budget.name)\", \(transactionCount(transactions.count)):"]
            + rows.map { indent + $0.date + "  " + $0.note.padding(to: noteWidth) + "  " + $0.amount.leftPadding(to: amountWidth) }
            + [balance(budget)]
    }

    /// A transaction's day in the machine's time zone, `2025-03-14`.
    static func day(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: .current).year().month().day())
    }
}

extension String {
    fileprivate func padding(to width: Int) -> String {
        self + String(repeating: " ", count: Swift.max(0, width - count))
    }

    fileprivate func leftPadding(to width: Int) -> String {
        String(repeating: " ", count: Swift.max(0, width - count)) + self
    }
}
