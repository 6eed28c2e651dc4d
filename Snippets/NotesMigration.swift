// snippet.hide
// Changing your models: a migration plan with a custom stage.
import Stowage

// snippet.show
// snippet.plan
enum NotesV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Note.self] }

    @Model final class Note {
        var title: String
        init(title: String) { self.title = title }
    }
}

enum NotesV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Note.self] }

    @Model final class Note {
        @Attribute(.unique) var title: String
        init(title: String) { self.title = title }
    }
}

enum NotesPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [NotesV1.self, NotesV2.self] }
    static var stages: [MigrationStage] {
        [.custom(fromVersion: NotesV1.self, toVersion: NotesV2.self, willMigrate: { context in
            var seen = Set<String>()
            for note in try context.fetch(FetchDescriptor<NotesV1.Note>()) where !seen.insert(note.title).inserted {
                note.title += " (copy)"
            }
            try context.save()
        }, didMigrate: nil)]
    }
}
// snippet.end
// snippet.hide
let storeURL = URL(fileURLWithPath: "notes.store")
do {
    // A store of version 1, with a title written twice.
    let old = try ModelContainer(for: Schema(versionedSchema: NotesV1.self), configurations: ModelConfiguration(url: storeURL))
    let context = ModelContext(old)
    for title in ["Groceries", "Ideas", "Groceries"] { context.insert(NotesV1.Note(title: title)) }
    try context.save()
}
// snippet.show
// snippet.status
let status = try ModelContainer.migrationStatus(
    for: Schema(versionedSchema: NotesV2.self), migrationPlan: NotesPlan.self,
    configuration: ModelConfiguration(url: storeURL))
print(status)   // the store's version, the stages that would run, what differs
// snippet.end
// snippet.open
let container = try ModelContainer(for: Schema(versionedSchema: NotesV2.self), migrationPlan: NotesPlan.self,
                                   configurations: ModelConfiguration(url: storeURL))
// snippet.end
// snippet.hide
let titles = try ModelContext(container).fetch(FetchDescriptor<NotesV2.Note>(sortBy: [SortDescriptor(\.title)])).map(\.title)
precondition(titles == ["Groceries", "Groceries (copy)", "Ideas"], "\(titles)")
// snippet.show
// snippet.errors
do {
    _ = try ModelContainer(for: Schema(versionedSchema: NotesV1.self), migrationPlan: NotesPlan.self,
                           configurations: ModelConfiguration(url: storeURL))
} catch SwiftDataError.backwardMigration {
    print("this store was written by a newer version of the app")
} catch let error as SwiftDataError {
    print(error.code, error.message)
}
// snippet.end
// snippet.hide

// A version named by a text, as SwiftData's first beta wrote it.
// snippet.show
// snippet.textVersion
enum NotesV0: VersionedSchema {
    static let versionIdentifier: String? = "Initial version of the model"
    static var models: [any PersistentModel.Type] { [NotesV1.Note.self] }
}
// snippet.end
// snippet.hide
func version<V: VersionedSchema>(of _: V.Type) -> Schema.Version { V.versionIdentifier }
precondition(version(of: NotesV0.self) == Schema.Version(0, 0, 0))
