// Stowage's own UndoManager, which exists only where Foundation lacks one (Apple platforms use Apple's).
#if !canImport(Darwin)
import Foundation
import Stowage
@testable import StowageCore
import Testing

/// Undo and redo, grouping, limits, registration switches, names, target removal and notifications of
/// the `UndoManager` Stowage provides on platforms whose Foundation has none.
@MainActor
@Suite struct UndoManagerTests {
    /// A target whose value changes are undoable the usual way: the undo handler sets the value back
    /// through the same method, which registers the inverse (so undo makes redo, and redo makes undo).
    @MainActor
    final class Document {
        var value: Int
        var log: [String] = []
        let undoManager: UndoManager
        init(_ value: Int = 0, undoManager: UndoManager) {
            self.value = value
            self.undoManager = undoManager
        }

        func set(_ newValue: Int) {
            let old = value
            undoManager.registerUndo(withTarget: self) { $0.set(old) }
            value = newValue
            log.append("set \(newValue)")
        }
    }

    /// A manager that groups only explicitly, so each test says where its groups begin and end.
    private func explicitManager() -> UndoManager {
        let manager = UndoManager()
        manager.groupsByEvent = false
        return manager
    }

    /// Records `body` as one top-level group.
    private func group(_ manager: UndoManager, _ body: () -> Void) {
        manager.beginUndoGrouping()
        body()
        manager.endUndoGrouping()
    }

    @Test func undoAndRedoWalkTheGroupsInOrder() {
        let manager = explicitManager()
        let doc = Document(undoManager: manager)
        group(manager) { doc.set(1) }
        group(manager) { doc.set(2); doc.set(3) }
        #expect(manager.undoCount == 2 && manager.canUndo && !manager.canRedo)

        manager.undo()  // the second group, its actions last registered first: 3 -> 2 -> 1
        #expect(doc.value == 1)
        #expect(doc.log.suffix(2) == ["set 2", "set 1"])
        #expect(manager.undoCount == 1 && manager.redoCount == 1)

        manager.undo()
        #expect(doc.value == 0)
        #expect(!manager.canUndo && manager.redoCount == 2)
        manager.undo()  // nothing left: no change
        #expect(doc.value == 0)

        manager.redo()
        #expect(doc.value == 1)
        manager.redo()
        #expect(doc.value == 3)
        #expect(manager.undoCount == 2 && !manager.canRedo)
        manager.redo()  // nothing left
        #expect(doc.value == 3)

        manager.undo()
        manager.undo()
        #expect(doc.value == 0)
    }

    @Test func aNewRegistrationClearsTheRedoStackButUndoingAndRedoingDoNot() {
        let manager = explicitManager()
        let doc = Document(undoManager: manager)
        group(manager) { doc.set(1) }
        group(manager) { doc.set(2) }
        group(manager) { doc.set(3) }
        manager.undo()
        manager.undo()
        #expect(doc.value == 1 && manager.redoCount == 2)
        manager.redo()  // registers onto the undo stack without touching the other redo
        #expect(doc.value == 2 && manager.redoCount == 1 && manager.undoCount == 2)

        group(manager) { doc.set(10) }
        #expect(!manager.canRedo)
        #expect(manager.undoCount == 3)
        manager.undo()
        #expect(doc.value == 2)
    }

    @Test func nestedGroupsUndoAsOneStepAndUndoNestedGroupUndoesTheInnerOne() {
        let manager = explicitManager()
        let doc = Document(undoManager: manager)
        manager.beginUndoGrouping()
        doc.set(1)
        manager.beginUndoGrouping()
        #expect(manager.groupingLevel == 2)
        doc.set(2)
        manager.endUndoGrouping()
        #expect(manager.groupingLevel == 1)

        // With the outer group open, undoNestedGroup undoes the inner group only, onto the redo stack.
        manager.undoNestedGroup()
        #expect(doc.value == 1)
        #expect(manager.groupingLevel == 1 && manager.redoCount == 1)
        manager.undo()  // invalid with two groups open, fine with one: closes it and undoes it
        #expect(doc.value == 0 && manager.groupingLevel == 0)

        // Two levels, closed: one undo reverts both.
        group(manager) {
            doc.set(5)
            group(manager) { doc.set(6); doc.set(7) }
        }
        #expect(manager.undoCount == 1)
        manager.undo()
        #expect(doc.value == 0)
        manager.redo()
        #expect(doc.value == 7)

        // undo() refuses to run with nested groups open (Foundation logs "invalid state").
        manager.beginUndoGrouping()
        manager.beginUndoGrouping()
        doc.set(8)
        manager.undo()
        #expect(doc.value == 8 && manager.groupingLevel == 2)
        manager.endUndoGrouping()
        manager.endUndoGrouping()
        manager.endUndoGrouping()  // unbalanced: ignored
        #expect(manager.groupingLevel == 0)
        manager.undo()
        #expect(doc.value == 7)
    }

    @Test func emptyGroupsAreDropped() {
        let manager = explicitManager()
        group(manager) {}
        group(manager) { group(manager) {} }
        #expect(!manager.canUndo && manager.undoCount == 0)
    }

    @Test func levelsOfUndoDropsTheOldestGroups() {
        let manager = explicitManager()
        let doc = Document(undoManager: manager)
        manager.levelsOfUndo = 2
        for value in 1...4 { group(manager) { doc.set(value) } }
        #expect(manager.undoCount == 2)
        manager.levelsOfUndo = 1  // lowering trims at once
        #expect(manager.undoCount == 1)
        manager.undo()
        #expect(doc.value == 3)
        #expect(!manager.canUndo)  // 2 and 1 were dropped

        manager.levelsOfUndo = 0  // unlimited
        for value in 10...15 { group(manager) { doc.set(value) } }
        #expect(manager.undoCount == 6)
    }

    @Test func disablingRegistrationNestsAndRemoveAllActionsReenables() {
        let manager = explicitManager()
        let doc = Document(undoManager: manager)
        manager.disableUndoRegistration()
        manager.disableUndoRegistration()
        #expect(!manager.isUndoRegistrationEnabled)
        group(manager) { doc.set(1) }
        manager.enableUndoRegistration()
        #expect(!manager.isUndoRegistrationEnabled)
        group(manager) { doc.set(2) }
        #expect(!manager.canUndo)
        manager.enableUndoRegistration()
        #expect(manager.isUndoRegistrationEnabled)
        manager.enableUndoRegistration()  // unbalanced: ignored, stays enabled
        #expect(manager.isUndoRegistrationEnabled)
        group(manager) { doc.set(3) }
        #expect(manager.undoCount == 1)
        manager.undo()
        #expect(doc.value == 2)

        manager.disableUndoRegistration()
        manager.removeAllActions()
        #expect(manager.isUndoRegistrationEnabled && !manager.canUndo && !manager.canRedo)
    }

    @Test func registeringWithNoGroupOpenAndGroupsByEventOffIsDropped() {
        let manager = explicitManager()
        let doc = Document(undoManager: manager)
        doc.set(1)
        #expect(!manager.canUndo && manager.groupingLevel == 0)
    }

    @Test func actionNamesFollowTheirGroupsToTheRedoStack() {
        let manager = explicitManager()
        let doc = Document(undoManager: manager)
        #expect(manager.undoActionName == "" && manager.redoActionName == "")
        #expect(manager.undoMenuItemTitle == "Undo" && manager.redoMenuItemTitle == "Redo")

        group(manager) { doc.set(1) }
        manager.setActionName("First")  // no group open: names the last group
        group(manager) {
            manager.setActionName("Second")
            doc.set(2)
        }
        #expect(manager.undoActionName == "Second")
        #expect(manager.undoMenuItemTitle == "Undo Second")

        manager.undo()
        #expect(manager.undoActionName == "First")
        #expect(manager.redoActionName == "Second")
        #expect(manager.redoMenuItemTitle == "Redo Second")
        manager.redo()
        #expect(manager.undoActionName == "Second" && manager.redoActionName == "")

        manager.setActionName("")
        #expect(manager.undoMenuItemTitle == "Undo")
        #expect(manager.undoMenuTitle(forUndoActionName: "Paste") == "Undo Paste")
        #expect(manager.redoMenuTitle(forUndoActionName: "Paste") == "Redo Paste")

        manager.disableUndoRegistration()
        manager.setActionName("Ignored")
        manager.enableUndoRegistration()
        #expect(manager.undoActionName == "")
    }

    @Test func discardableGroupsAreReportedAndMarkedOnClose() throws {
        let manager = explicitManager()
        let doc = Document(undoManager: manager)
        let discardable = Locked<[Bool]>([])
        let observer = NotificationCenter.default.addObserver(
            forName: .NSUndoManagerWillCloseUndoGroup, object: manager, queue: nil
        ) { note in
            discardable.withLock { $0.append(note.userInfo?[NSUndoManagerGroupIsDiscardableKey] as? Bool ?? false) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        group(manager) { doc.set(1) }
        group(manager) {
            doc.set(2)
            manager.setActionIsDiscardable(true)
        }
        #expect(manager.undoActionIsDiscardable)
        manager.undo()
        #expect(!manager.undoActionIsDiscardable && manager.redoActionIsDiscardable)
        // Closing: group 1, group 2 (discardable), then the redo group recorded by the undo (inherits).
        #expect(discardable.withLock { $0 } == [false, true, true])
    }

    @Test func removeAllActionsWithTargetRemovesOnlyThatTargetsActions() {
        let manager = explicitManager()
        let a = Document(undoManager: manager), b = Document(undoManager: manager)
        group(manager) { a.set(1) }
        group(manager) { a.set(2); b.set(20) }
        group(manager) { b.set(30) }
        manager.undo()  // b's group, now on the redo stack
        #expect(b.value == 20 && manager.undoCount == 2 && manager.redoCount == 1)

        manager.removeAllActions(withTarget: b)
        #expect(manager.undoCount == 2 && !manager.canRedo)  // the redo group held only b
        manager.undo()  // the mixed group: only a's action is left
        #expect(a.value == 1 && b.value == 20)
        manager.removeAllActions(withTarget: a)
        #expect(!manager.canUndo && !manager.canRedo)
    }

    @Test func handlersSeeIsUndoingAndIsRedoing() {
        let manager = explicitManager()
        final class Probe {}
        let probe = Probe()
        var seen: [String] = []
        func register() {
            manager.registerUndo(withTarget: probe) { _ in
                seen.append("undoing \(manager.isUndoing) redoing \(manager.isRedoing) level \(manager.groupingLevel)")
                register()
            }
        }
        group(manager) { register() }
        #expect(!manager.isUndoing && !manager.isRedoing)
        manager.undo()
        manager.redo()
        #expect(seen == ["undoing true redoing false level 1", "undoing false redoing true level 1"])
        #expect(!manager.isUndoing && !manager.isRedoing && manager.canUndo)
    }

    @Test func actionsOfDeallocatedTargetsAreSkipped() {
        let manager = explicitManager()
        let kept = Document(undoManager: manager)
        var gone: Document? = Document(undoManager: manager)
        weak let weakGone = gone
        group(manager) {
            kept.set(1)
            gone?.set(1)
        }
        gone = nil
        #expect(weakGone == nil, "the manager must not keep targets alive")
        manager.undo()
        #expect(kept.value == 0)
    }

    @Test func notificationsArePostedInFoundationsOrder() {
        let manager = explicitManager()
        let doc = Document(undoManager: manager)
        let names: [Notification.Name] = [
            .NSUndoManagerCheckpoint, .NSUndoManagerWillUndoChange, .NSUndoManagerDidUndoChange,
            .NSUndoManagerWillRedoChange, .NSUndoManagerDidRedoChange, .NSUndoManagerDidOpenUndoGroup,
            .NSUndoManagerWillCloseUndoGroup, .NSUndoManagerDidCloseUndoGroup,
        ]
        let posted = Locked<[String]>([])
        let observers = names.map { name in
            NotificationCenter.default.addObserver(forName: name, object: manager, queue: nil) { note in
                let short = note.name.rawValue.replacingOccurrences(of: "NSUndoManager", with: "")
                    .replacingOccurrences(of: "Notification", with: "")
                posted.withLock { $0.append(short) }
            }
        }
        defer { observers.forEach { NotificationCenter.default.removeObserver($0) } }
        func take() -> [String] { posted.withLock { names in defer { names.removeAll() }; return names } }

        manager.beginUndoGrouping()
        #expect(take() == ["Checkpoint", "DidOpenUndoGroup"])
        doc.set(1)
        #expect(take() == [])
        manager.endUndoGrouping()
        #expect(take() == ["Checkpoint", "WillCloseUndoGroup", "DidCloseUndoGroup"])

        manager.undo()
        #expect(take() == [
            "Checkpoint", "WillUndoChange",
            "DidOpenUndoGroup", "Checkpoint", "WillCloseUndoGroup", "DidCloseUndoGroup",  // the redo group
            "DidUndoChange",
        ])
        #expect(manager.canRedo)
        #expect(take() == ["Checkpoint"])
        manager.redo()
        #expect(take() == [
            "Checkpoint", "WillRedoChange",
            "DidOpenUndoGroup", "Checkpoint", "WillCloseUndoGroup", "DidCloseUndoGroup",
            "DidRedoChange",
        ])

        // Other managers' notifications are theirs.
        let other = explicitManager()
        group(other) {}
        #expect(take() == [])
    }

    @Test func groupsByEventGroupsOneMainActorTurnIntoOneStep() async {
        let manager = UndoManager()
        #expect(manager.groupsByEvent)
        let doc = Document(undoManager: manager)
        doc.set(1)
        doc.set(2)
        #expect(manager.groupingLevel == 1 && manager.undoCount == 1)
        await nextMainActorTurn()
        #expect(manager.groupingLevel == 0, "the implicit group closes once the main actor is free")
        #expect(manager.undoCount == 1)

        doc.set(3)
        await nextMainActorTurn()
        doc.set(4)
        manager.setActionName("Four")
        #expect(manager.undoCount == 3 && manager.groupingLevel == 1)
        manager.undo()  // closes the open implicit group first
        #expect(doc.value == 3 && manager.redoActionName == "Four")
        manager.undo()
        #expect(doc.value == 2)
        manager.undo()
        #expect(doc.value == 0 && !manager.canUndo)
        await nextMainActorTurn()  // the stale closing task of the group undo() closed does nothing
        #expect(manager.groupingLevel == 0 && manager.redoCount == 3)

        // An explicit group opened inside the implicit one keeps it open past the turn.
        doc.set(5)
        manager.beginUndoGrouping()
        doc.set(6)
        await nextMainActorTurn()
        #expect(manager.groupingLevel == 2)
        manager.endUndoGrouping()
        manager.undo()
        #expect(doc.value == 0 && manager.groupingLevel == 0)
    }

    /// Lets every task already queued on the main actor run.
    private func nextMainActorTurn() async {
        for _ in 0..<3 {
            await Task { @MainActor in }.value
            await Task.yield()
        }
    }
}
#endif
