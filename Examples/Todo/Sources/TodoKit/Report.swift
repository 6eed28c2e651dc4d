import StowageQueries

/// The sentences and tables Todo prints, shared by the commands and the demo. They are made from values
/// (``TodoGroup``, ``TodoTask``, ``GroupSummary``), so they read the same on mocks and on a store.
enum Report {
    /// `2 open, 1 done`, `no tasks`.
    static func counts(_ summary: GroupSummary) -> String {
        summary.total == 0 ? "no tasks" : "\(summary.open) open, \(summary.completed) done"
    }

    /// `Added the group "Home".`
    static func addedGroup(_ title: String) -> String {
        "Added the group \"\(title)\"."
    }

    /// `Renamed "Work" to "Office".`
    static func renamed(_ old: String, to new: String) -> String {
        "Renamed \"\(old)\" to \"\(new)\"."
    }

    /// `Deleted the group "Home" and its 3 tasks.`
    static func deletedGroup(_ title: String, tasks: Int) -> String {
        tasks == 0 ? "Deleted the group \"\(title)\"." : "Deleted the group \"\(title)\" and its \(count(tasks, "task"))."
    }

    /// `Added "Buy milk" to "Home" (2 open, 0 done).`
    static func addedTask(_ task: String, to group: GroupSummary) -> String {
        "Added \"\(task)\" to \"\(group.title)\" (\(counts(group)))."
    }

    /// `Done: "Buy milk" in "Home" (1 open, 1 done).`
    static func completed(_ task: TodoTask, in group: GroupSummary) -> String {
        "Done: \"\(task.title)\" in \"\(group.title)\" (\(counts(group)))."
    }

    /// `Cleared 1 done task from "Home" (2 open, 0 done).`
    static func cleared(_ cleared: Int, from group: GroupSummary) -> String {
        cleared == 0
            ? "\"\(group.title)\" has no done task to clear."
            : "Cleared \(count(cleared, "done task")) from \"\(group.title)\" (\(counts(group)))."
    }

    /// `Refused: <the error's message>`, for the demo's refused actions.
    static func refused(_ error: TodoError) -> String {
        "Refused: \(error.message)"
    }

    /// `1 task`, `2 tasks`.
    static func count(_ count: Int, _ noun: String) -> String {
        count == 1 ? "1 \(noun)" : "\(count) \(noun)s"
    }

    /// One line per group: its title, then its counts.
    static func groups(_ summaries: [GroupSummary], indent: String = "  ") -> [String] {
        let width = summaries.map(\.title.count).max() ?? 0
        return summaries.map { summary in
            indent + summary.title + String(repeating: " ", count: width - summary.title.count) + "  " + counts(summary)
        }
    }

    /// One line per task: `[ ] Fix the tap`, `[x] Buy milk`.
    static func tasks(_ tasks: [TodoTask], indent: String = "  ") -> [String] {
        tasks.map { indent + ($0.isCompleted ? "[x] " : "[ ] ") + $0.title }
    }
}
