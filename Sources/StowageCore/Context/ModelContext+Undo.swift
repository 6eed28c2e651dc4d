import Foundation

// Undo: with an ``ModelContext/undoManager``, a context registers the inverse of each insert, delete
// and attribute change. Undoing one is itself a change of the context (and registers its redo), so an
// undo after a save is written by the next save, as in SwiftData.

extension ModelContext {
    /// Registers `action` to undo the change being made, in the undo manager's current group.
    ///
    /// `UndoManager` belongs to the main actor (Foundation's and Stowage's on Linux alike): a context
    /// given one must be used on the main actor, as SwiftData's main context is.
    private func registerUndo(_ action: @escaping (ModelContext) -> Void) {
        guard let undoManager else { return }
        let registration = UndoRegistration(action: action)
        let target = undoTarget
        MainActor.assumeIsolated {
            undoManager.registerUndo(withTarget: target) { target in
                guard let context = target.context else { return }
                registration.action(context)
            }
        }
    }

    /// Undo for an insert: the model leaves the context again (or, once saved, is deleted).
    func registerUndoOfInsert<T: PersistentModel>(_ model: T) {
        registerUndo { context in context.delete(model) }
    }

    /// Undo for a delete: an unsaved model is inserted again; a saved one is no longer to be deleted.
    func registerUndoOfDelete<T: PersistentModel>(_ model: T, wasInserted: Bool) {
        registerUndo { context in
            if wasInserted {
                context.insert(model)
            } else {
                context.restoreDeleted(model)
            }
        }
    }

    /// Undo for an attribute change: its value before the change comes back, as a change of its own.
    func registerUndoOfChange(_ model: any PersistentModel, _ data: ModelBackingData, entity: Schema.Entity, index: Int) {
        guard let attribute = entity.properties[index] as? Schema.Attribute else { return }
        let old = attribute.accessor.snapshot(model)
        registerUndo { context in
            guard data.context === context, data.state == .persisted || data.state == .inserted else { return }
            context.propertyWillChange(model, data, entity: entity, index: index)
            attribute.accessor.restore(old, into: model)
        }
    }

    /// Takes back a pending deletion of a saved model.
    private func restoreDeleted<T: PersistentModel>(_ model: T) {
        let data = model.persistentBackingData
        guard data.context === self, data.state == .deleted else { return }
        deleted.remove(model)
        data.state = .persisted
        if !data.changedProperties.isEmpty { changed.insert(model) }
        registerUndo { context in context.delete(model) }
        insertedModelDidChange()
    }
}

/// An undo action, handed to the main actor's undo manager from the context's code (which runs there:
/// see `registerUndo`).
private final class UndoRegistration: @unchecked Sendable {
    // @unchecked Sendable: created and called on the main actor only.
    let action: (ModelContext) -> Void
    init(action: @escaping (ModelContext) -> Void) { self.action = action }
}

/// What a context registers its undo actions with: the context itself cannot be handed to the main
/// actor's undo manager from the context's (nonisolated) code. It lives as long as the context.
final class UndoTarget: @unchecked Sendable {
    // @unchecked Sendable: `context` is set once and read by undo actions on the main actor, where a
    // context with an undo manager is used.
    weak var context: ModelContext?
    init(_ context: ModelContext) { self.context = context }
}
