// snippet.hide
// The SQL debug log, set in code, and an observer of the statements.
import Stowage

@Model
final class Budget {
    var name: String
    var limit: Double
    init(name: String, limit: Double) {
        self.name = name
        self.limit = limit
    }
}

// snippet.show
// snippet.level
SQLDebug.level = 2                 // before the container opens: statements with their values
// snippet.end
// snippet.hide
SQLDebug.level = 0
// snippet.show
// snippet.observe
let statements = SQLDebug.StatementLog()
let observation = SQLDebug.observe { statements.append($0) }   // before the container opens
let container = try ModelContainer(for: Budget.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
_ = try ModelContext(container).fetch(FetchDescriptor<Budget>(predicate: #Predicate { $0.limit > 100 }))
for event in statements.events(of: container) {
    print(event.expandedSQL, event.duration)
}
observation.cancel()
// snippet.end
// snippet.hide
precondition(statements.events(of: container).contains { $0.sql.hasPrefix("SELECT") && $0.sql.contains("\"limit\" > ?") },
             "\(statements.events(of: container).map(\.sql))")
