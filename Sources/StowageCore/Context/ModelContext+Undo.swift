import Foundation

// Undo: with an ``ModelContext/undoManager``, a context registers the inverse of each insert, delete,
// attribute change and relationship change. Undoing one is itself a change of the context (and
// registers its redo), so an undo after a save is written by the next save, as in SwiftData. A
// relationship change registers on both sides (the setter changes the inverse too), and each side's undo
// restores its own side, so undoing the group restores both.

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

    /// Undo for a delete: an unsaved model is inserted again; a saved one is no longer to be deleted, or,
    /// once the deletion was saved, is inserted again as a new model (with a new identifier: the old row
    /// is gone). Its attributes are all loaded now, so that the model still has them then.
    func registerUndoOfDelete<T: PersistentModel>(_ model: T, wasInserted: Bool) {
        let data = model.persistentBackingData
        if !wasInserted, let entity = data.entity {
            for attribute in entity.attributeList where !attribute.accessor.isLoaded(model) {
                do {
                    try loadAttribute(attribute, of: model, backingData: data)
                } catch {
                    Self.logger.error("Loading \(entity.name).\(attribute.name) for undoing its deletion failed: \(error)")
                }
            }
        }
        registerUndo { context in
            if wasInserted {
                context.insert(model)
            } else if data.state == .removed {
                context.reinsertRemoved(model)
            } else {
                context.restoreDeleted(model)
            }
        }
    }

    /// Inserts again a model whose deletion was saved: a new model with the same values. Models its
    /// relationships still hold whose deletion was saved too (a cascade) are let go: they are gone.
    private func reinsertRemoved<T: PersistentModel>(_ model: T) {
        let data = model.persistentBackingData
        guard data.context === self || data.context == nil else { return }
        data.state = .detached
        data.link = nil
        data.key = nil
        data.rowDeletedElsewhere = false
        data.foreignKeys = [:]
        for relationship in data.entity?.relationshipList ?? [] {
            guard let accessor = relationship.accessor, accessor.isLoaded(model) else { continue }
            let related = accessor.related(model)
            let kept = related.filter { ($0 as? any PersistentModel)?.persistentBackingData.state != .removed }
            if kept.count != related.count { accessor.setRelated(kept, in: model) }
        }
        insert(model)
    }

    /// Undo for an attribute or relationship change: its value before the change comes back, as a change
    /// of its own.
    func registerUndoOfChange(_ model: any PersistentModel, _ data: ModelBackingData, entity: Schema.Entity, index: Int) {
        let restore: (Any) -> Void
        let old: Any
        switch entity.properties[index] {
        case let attribute as Schema.Attribute:
            old = attribute.accessor.snapshot(model)
            restore = { attribute.accessor.restore($0, into: model) }
        case let relationship as Schema.Relationship:
            guard let accessor = relationship.accessor else { return }
            old = accessor.snapshot(model)
            restore = { accessor.restore($0, into: model) }
        default:
            return
        }
        registerUndo { context in
            guard data.context === context, data.state == .persisted || data.state == .inserted else { return }
            context.propertyWillChange(model, data, entity: entity, index: index)
            restore(old)
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
