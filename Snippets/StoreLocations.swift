// snippet.hide
// Where the data lives: the configurations.
import Stowage

/// A check of what the article says, run by .ci/docs (a `precondition` cannot hold `try` or `await`).
func expect(_ condition: Bool, _ message: @autoclosure () -> String = "", line: Int = #line) {
    if !condition { fatalError("line \(line): \(message())") }
}

@Model
final class Note {
    var text: String
    init(text: String) { self.text = text }
}

// snippet.show
// snippet.configurations
let file = ModelConfiguration(url: URL(fileURLWithPath: "notes/notes.store"))   // created, with its directory
let readOnly = ModelConfiguration(url: URL(fileURLWithPath: "notes/notes.store"), allowsSave: false)
let inMemory = ModelConfiguration(isStoredInMemoryOnly: true)                    // gone with the container

let container = try ModelContainer(for: Note.self, configurations: file)
let defaultContainer = try ModelContainer(for: Note.self)                        // default.store in:
print(ModelConfiguration.defaultDirectory.path)                                  // ~/.local/share/<program> on Linux
// snippet.end
// snippet.hide
let context = ModelContext(container)
context.insert(Note(text: "hello"))
try context.save()
precondition(FileManager.default.fileExists(atPath: ModelConfiguration.defaultDirectory.appendingPathComponent("default.store").path))
_ = defaultContainer
expect(try ModelContext(ModelContainer(for: Note.self, configurations: inMemory)).fetchCount(FetchDescriptor<Note>()) == 0)
// snippet.show
// snippet.readOnly
let reader = ModelContext(try ModelContainer(for: Note.self, configurations: readOnly))
print(try reader.fetchCount(FetchDescriptor<Note>()))                            // reading works
reader.insert(Note(text: "draft"))
do {
    try reader.save()
} catch let error as StowageError where error.code == .readOnlyStore {
    print(error.message)                                                         // nothing was written
}
// snippet.end
// snippet.hide
expect(try ModelContext(container).fetchCount(FetchDescriptor<Note>()) == 1)
do {
    _ = try ModelContainer(for: Note.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: "missing.store"), allowsSave: false))
    preconditionFailure("a read-only configuration does not create its store")
} catch let error as StowageError {
    precondition(error.code == .storeNotFound)
}
