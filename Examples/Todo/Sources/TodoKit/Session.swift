import StowageQueries

/// The demo's scripted session: the same actions through ``TodoLogic`` whatever the data source, and
/// what each did, as lines. Refused actions are part of the script: the refusals must match too.
enum Session {
    /// The titles of the groups the session creates or renames to: the demo needs them free in the
    /// store, and deletes its groups at the end.
    static let titles = ["Home", "Work", "Office"]

    /// Runs the session and returns a line per action.
    ///
    /// - Throws: A ``TodoError`` `.store` when the store fails; the logic's refusals are lines.
    static func run(on logic: TodoLogic) throws -> [String] {
        var lines: [String] = []
        /// Runs an action and records its line, or its refusal.
        func attempt(_ action: () throws -> String) throws {
            do {
                lines.append(try action())
            } catch let error as TodoError where error.code != .store {
                lines.append(Report.refused(error))
            }
        }

        let home = try logic.addGroup("Home")
        lines.append(Report.addedGroup("Home"))
        let work = try logic.addGroup("  Work ")
        lines.append(Report.addedGroup("Work"))
        for (task, group) in [("Buy milk", home), ("Fix the tap", home), ("Call the plumber", home), ("Send the report", work), ("Book a room", work)] {
            try attempt {
                try logic.addTask(task, to: group)
                return Report.addedTask(task, to: try logic.summary(of: group))
            }
        }
        for (task, group) in [("buy milk", home), ("Send the report", work)] {
            try attempt { Report.completed(try logic.complete(taskTitled: task, in: group), in: try logic.summary(of: group)) }
        }
        // Three refusals: a group title taken (case does not count), an open task twice, a task done twice.
        try attempt {
            try logic.addGroup("home")
            return Report.addedGroup("home")
        }
        try attempt {
            try logic.addTask("fix the tap", to: home)
            return Report.addedTask("fix the tap", to: try logic.summary(of: home))
        }
        try attempt { Report.completed(try logic.complete(taskTitled: "Buy milk", in: home), in: try logic.summary(of: home)) }
        try attempt { Report.cleared(try logic.clearCompleted(in: home), from: try logic.summary(of: home)) }
        try attempt {
            try logic.renameGroup(work, to: "Office")
            return Report.renamed("Work", to: "Office")
        }
        return lines
    }
}
