// snippet.hide
// Architectures: Active Record, models that save and delete themselves.
import Stowage

/// A check of what the article says, run by .ci/docs (a `precondition` cannot hold `try` or `await`).
func expect(_ condition: Bool, _ message: @autoclosure () -> String = "", line: Int = #line) {
    if !condition { fatalError("line \(line): \(message())") }
}

@Model
final class MyList {
    var name: String
    @Relationship(deleteRule: .cascade, inverse: \Reminder.list)
    var reminders: [Reminder] = []
    init(name: String) { self.name = name }
}

@Model
final class Reminder {
    var title: String
    var isCompleted: Bool = false
    var list: MyList?
    init(title: String) { self.title = title }
}

struct BlankTitle: Error {}
struct NotInserted: Error {}

// snippet.show
// snippet.protocol
protocol Model {
    func save() throws
    func delete() throws
}

extension Model where Self: PersistentModel {
    func save() throws { try saveContext() }                       // the model's own context
    func delete() throws {
        guard let context = modelContext else { throw NotInserted() }
        context.delete(self)
        try context.save()
    }
    func saveContext() throws {
        guard let context = modelContext else { throw NotInserted() }
        try context.save()
    }
    static var all: FetchDescriptor<Self> { FetchDescriptor<Self>(sortBy: []) }
}

extension MyList: Model {}

extension Reminder: Model {
    static func byList(myList: MyList) -> FetchDescriptor<Reminder> {
        let id = myList.persistentModelID
        return FetchDescriptor(predicate: #Predicate { $0.list?.persistentModelID == id }, sortBy: [])
    }

    func save() throws {                                           // runs through `any Model` too
        guard !title.trimmingCharacters(in: .whitespaces).isEmpty else { throw BlankTitle() }
        try saveContext()
    }
}
// snippet.end
// snippet.hide

let container = try ModelContainer(for: MyList.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
let context = ModelContext(container)
// snippet.show
// snippet.usage
let groceries = MyList(name: "Groceries")
context.insert(groceries)
try groceries.save()

let milk = Reminder(title: "Milk")
milk.list = groceries
try milk.save()

let blank: any Model = Reminder(title: " ")
(blank as! Reminder).list = groceries
do { try blank.save() } catch { print("refused: a reminder needs a title") }   // Reminder's own save()
// snippet.end
// snippet.hide
context.rollback()
expect(try context.fetch(Reminder.byList(myList: groceries)).map(\.title) == ["Milk"])
try groceries.delete()
expect(try context.fetchCount(Reminder.all) == 0)
