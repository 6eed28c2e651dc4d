import Foundation

/// The sentences and tables Reminders prints, shared by the commands and the demo.
enum Report {
    /// `Added the list "Groceries".`
    static func addedList(_ list: MyList) -> String {
        "Added the list \"\(list.name)\"."
    }

    /// `Added "Milk" to "Groceries".`
    static func added(_ reminder: Reminder, to list: String) -> String {
        "Added \"\(reminder.title)\" to \"\(list)\"."
    }

    /// `Completed "Milk" in "Groceries".`, or that it was completed already.
    static func completed(_ reminder: Reminder, in list: String, wasCompleted: Bool) -> String {
        wasCompleted
            ? "\"\(reminder.title)\" in \"\(list)\" was completed already."
            : "Completed \"\(reminder.title)\" in \"\(list)\"."
    }

    /// `Renamed "Bread" to "Sourdough bread" in "Groceries".`
    static func renamed(_ title: String, to reminder: Reminder, in list: String) -> String {
        "Renamed \"\(title)\" to \"\(reminder.title)\" in \"\(list)\"."
    }

    /// `Deleted "Eggs" from "Groceries".`
    static func deleted(_ title: String, from list: String) -> String {
        "Deleted \"\(title)\" from \"\(list)\"."
    }

    /// A deleted list and the number of reminders deleted with it.
    static func deletedList(_ name: String, reminders: Int) -> String {
        reminders == 0
            ? "Deleted the list \"\(name)\"; it had no reminders."
            : "Deleted the list \"\(name)\" and its \(count(reminders, "reminder"))."
    }

    /// `2 open, 1 completed`.
    static func counts(_ reminders: [Reminder]) -> String {
        let completed = reminders.count(where: \.isCompleted)
        return "\(reminders.count - completed) open, \(completed) completed"
    }

    /// `1 list`, `2 lists`.
    static func count(_ count: Int, _ noun: String) -> String {
        count == 1 ? "1 \(noun)" : "\(count) \(noun)s"
    }

    /// One line per list: its name, then how many of its reminders are open and completed.
    static func lists(_ lists: [MyList], indent: String = "  ") -> [String] {
        let width = lists.map(\.name.count).max() ?? 0
        return lists.map { list in
            indent + list.name + String(repeating: " ", count: width - list.name.count) + "  " + counts(list.reminders)
        }
    }

    /// One line per reminder: `[x] Milk` when completed, `[ ] Bread` when open.
    static func reminders(_ reminders: [Reminder], indent: String = "  ") -> [String] {
        reminders.map { indent + ($0.isCompleted ? "[x] " : "[ ] ") + $0.title }
    }

    /// A name as a shell argument inside a suggested command line: as it is when it is one plain word,
    /// in single quotes otherwise (`'Weekend chores'`).
    static func quoted(_ name: String) -> String {
        let plain = !name.isEmpty && name.unicodeScalars.allSatisfy { scalar in
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "._-+/:@".unicodeScalars.contains(scalar)
        }
        return plain ? name : "'" + name.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
