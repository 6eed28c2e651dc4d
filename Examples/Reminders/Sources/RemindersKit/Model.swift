import Foundation
import Stowage

/// The seed's Active Record protocol: a model saves and deletes itself.
///
/// ```swift
/// let myList = MyList(name: "Groceries")
/// context.insert(myList)
/// try myList.save()
/// ```
///
/// For a `PersistentModel` the extension below gives every requirement a default implementation that
/// works on the model's own context (``PersistentModel/modelContext``), where the seed used a shared
/// Core Data view context: a model inserted into a context knows where to save. A concrete model
/// conforms with an empty extension (`extension MyList: Model {}`) or implements a requirement itself
/// to add its own rules, as ``Reminder/save()`` does. Because `save()` and `delete()` are requirements,
/// a model's own implementation runs also when it is called through a generic `some Model` or an
/// `any Model`.
///
/// The name is the seed's. It does not collide with Stowage's `@Model` macro: a macro and a protocol
/// live in different namespaces, so `@Model` on a class still names the macro and `Model` in a type
/// position names this protocol.
protocol Model {
    /// Saves the changes of the model's context, this model's included.
    ///
    /// - Throws: ``RemindersError`` `.notInserted` for a model in no context, `.store` when the store
    ///   cannot be written, or the model's own validation errors. The context keeps its changes when
    ///   saving fails: fix the model and save again, or roll the context back.
    func save() throws

    /// Deletes the model from its context, then saves that context.
    ///
    /// - Throws: ``RemindersError`` `.notInserted` for a model in no context, `.store` when the store
    ///   cannot be written.
    func delete() throws
}

extension Model where Self: PersistentModel {
    /// Saves the model's context: the seed's default `save()`.
    func save() throws {
        try saveContext()
    }

    /// Deletes the model from its context and saves the context: the seed's default `delete()`.
    ///
    /// The deletion is saved as ``saveContext()`` saves, not with ``save()``: a model's validation in its
    /// own `save()` checks a model that is kept, so it does not stand in the way of deleting one (a
    /// reminder whose title was blanked can still be deleted).
    func delete() throws {
        let context = try insertedContext("delete()")
        context.delete(self)
        // Deleting a model that was never saved takes it out of its context: save the context it was in.
        try Self.saveChanges(of: context)
    }

    /// Every model of this type, unsorted (the seed's `sortDescriptors = []`): Stowage
    /// returns rows without a sort in primary-key order, which is the order they were first saved.
    static var all: FetchDescriptor<Self> {
        FetchDescriptor<Self>(sortBy: [])
    }

    /// What the default ``save()`` does: saves the model's context. A model that implements `save()`
    /// itself calls this once its own checks pass, where a subclass would call `super.save()`.
    ///
    /// - Throws: ``RemindersError`` `.notInserted` for a model in no context, `.store` when the store
    ///   cannot be written.
    func saveContext() throws {
        try Self.saveChanges(of: try insertedContext("save()"))
    }

    /// Saves `context`, as a ``RemindersError`` `.store` when it fails.
    private static func saveChanges(of context: ModelContext) throws {
        do {
            try context.save()
        } catch {
            throw RemindersError.store("save to", error)
        }
    }

    /// The model's context.
    ///
    /// - Throws: ``RemindersError`` `.notInserted` when the model is in no context: never inserted, or
    ///   inserted and then deleted before it was saved.
    private func insertedContext(_ method: String) throws -> ModelContext {
        guard let context = modelContext else {
            throw RemindersError(
                .notInserted, "this \(Self.self) is in no model context: insert it with context.insert(_:) before calling \(method).")
        }
        return context
    }
}

extension MyList: Model {}

extension Reminder: Model {
    /// The reminders of `myList`, in the order they were created: the seed's `Reminder.byList(myList:)`.
    ///
    /// The predicate compares the reminder's list by identifier, as the seed's `list = %@` did, so the
    /// fetch runs as one SQL query on the reminders' foreign key. Like the seed, the descriptor has no
    /// sort: Stowage returns rows without a sort in primary-key order, which is the order the reminders
    /// were first saved (unsaved ones come last, in the order they were inserted), like the Reminders
    /// app, which lists a list's reminders in the order they were added.
    static func byList(myList: MyList) -> FetchDescriptor<Reminder> {
        let id = myList.persistentModelID
        return FetchDescriptor(predicate: #Predicate { $0.list?.persistentModelID == id }, sortBy: [])
    }

    /// Validates the reminder, then saves its context: the seed's "override any function exposed by
    /// the Model protocol".
    ///
    /// This is the protocol's `save()` requirement implemented by `Reminder`, so it runs whether the
    /// caller holds a `Reminder`, a `some Model` or an `any Model`.
    ///
    /// - Throws: ``RemindersError`` `.invalidName` when the title is blank, and then nothing is saved
    ///   (the context keeps its changes, so the title can be fixed and saved again); otherwise what
    ///   ``Model/saveContext()`` throws.
    func save() throws {
        guard !title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw RemindersError(.invalidName, "a reminder needs a title that is not blank.")
        }
        try saveContext()
    }
}
