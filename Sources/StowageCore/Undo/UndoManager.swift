// Foundation's `UndoManager`, for the platforms whose Foundation lacks it (swift-corelibs-foundation on
// Linux, Windows…). On Apple platforms this file compiles to nothing and Apple's class is used, so code
// written against either compiles against both.

#if !canImport(Darwin)
import Foundation
import Logging

private let logger = Logger(label: "Stowage.Undo")

/// A general-purpose recorder of operations that enables undo and redo: Foundation's `UndoManager`,
/// which swift-corelibs-foundation does not have.
///
/// ```swift
/// let undoManager = UndoManager()
/// undoManager.registerUndo(withTarget: budget) { $0.limit = oldLimit }
/// undoManager.setActionName("Change Limit")
/// undoManager.undo()  // runs the closure; what it registers while undoing becomes the redo
/// ```
///
/// The API and semantics are Foundation's. Where Foundation's documentation leaves a choice open:
///
/// - **Isolation.** The class is `@MainActor`, as Apple's SDKs declare it (NSUndoManager is a
///   main-thread type), so the same code type-checks on every platform and no `@unchecked Sendable` is
///   needed: a reference may cross actors, its state is only touched on the main actor.
/// - **Grouping by event.** With ``groupsByEvent`` (the default), a registration made outside any group
///   opens an implicit top-level group; Foundation closes it at the end of the run-loop pass. Without a
///   run loop, the pass is the main actor's current job: the group is closed by a task queued on the
///   main actor when it opened, so everything registered until the main actor is next free (one user
///   command, one SwiftUI-style action) is undone by one ``undo()``. A program that never lets the main
///   actor run queued work (a synchronous loop on the main thread) keeps accumulating into one group,
///   as on Apple platforms without a running run loop: ``undo()`` still closes the group first, and
///   ``beginUndoGrouping()``/``endUndoGrouping()`` or `groupsByEvent = false` give explicit steps.
/// - **Targets** are held weakly (Foundation holds them unowned): an action whose target has been
///   deallocated is skipped instead of crashing.
/// - **Misuse** that Foundation documents as raising `NSInternalInconsistencyException` (ending a group
///   that is not open, undoing with nested groups open, registering with no group and `groupsByEvent`
///   off, unbalanced ``enableUndoRegistration()``; Foundation also logs "… is in invalid state" for
///   several) is logged here as "is in invalid state" (swift-log label `Stowage.Undo`) and ignored.
/// - Empty groups are dropped when they close. Menu titles are English ("Undo", "Redo").
@MainActor
open class UndoManager: NSObject {
    private var undoStack: [UndoGroup] = []
    private var redoStack: [UndoGroup] = []
    /// The open groups, outermost first. During an undo or redo it holds only the group recording the
    /// inverse actions; the groups open before are set aside until the undo or redo finishes.
    private var openGroups: [UndoGroup] = []
    private var disableCount = 0
    private var undoing = false
    private var redoing = false
    private var nextSerial = 0
    /// Serial of the open implicit group (see ``groupsByEvent``), if one is open.
    private var implicitGroupSerial: Int?
    /// Bumped by ``removeAllActions()``, so an undo or redo in progress drops what it set aside.
    private var epoch = 0

    /// Creates an undo manager with empty stacks, grouping by event and no limit on levels of undo.
    public override init() { super.init() }

    // MARK: - Registering

    /// Registers `handler` as the undo operation for `target`; undoing calls it with `target`.
    ///
    /// The action joins the innermost open group; with no group open it opens one if ``groupsByEvent``
    /// is on (see the class documentation) and is dropped otherwise. Ignored while registration is
    /// disabled. Registered while undoing, it goes to the redo stack; while redoing, to the undo stack;
    /// otherwise it clears the redo stack. `target` is held weakly.
    @preconcurrency
    public func registerUndo<TargetType: AnyObject>(
        withTarget target: TargetType, handler: @escaping @MainActor (TargetType) -> Void
    ) {
        guard disableCount == 0 else { return }
        if openGroups.isEmpty {
            guard groupsByEvent else {
                return invalidState("must begin a group before registering undo")
            }
            openImplicitGroup()
        }
        openGroups[openGroups.count - 1].items.append(
            .action(UndoAction(target: target) { handler($0 as! TargetType) }))
        if !undoing && !redoing { redoStack.removeAll() }
    }

    // MARK: - Undo and redo

    /// Whether there is anything to undo (an undo group, or actions in the open top-level group).
    open var canUndo: Bool { undoCount > 0 }

    /// Whether there is anything to redo. Like Foundation's, it posts
    /// `NSUndoManagerCheckpoint` first, so observers can register pending changes (which clears the
    /// redo stack).
    open var canRedo: Bool {
        post(.NSUndoManagerCheckpoint)
        return redoCount > 0
    }

    /// How many times ``undo()`` can be called before there is nothing left to undo (counting the open
    /// top-level group, which ``undo()`` closes first).
    open var undoCount: Int { undoStack.count + (pendingGroup(forRedo: false) == nil ? 0 : 1) }

    /// How many times ``redo()`` can be called before there is nothing left to redo.
    open var redoCount: Int { redoStack.count + (pendingGroup(forRedo: true) == nil ? 0 : 1) }

    /// Closes the top-level group if it is the only one open, then undoes the last group with
    /// ``undoNestedGroup()``. With nested groups open, logs and does nothing.
    open func undo() {
        guard !undoing && !redoing else { return invalidState("undo() called while undoing or redoing") }
        if openGroups.count == 1 { endUndoGrouping() }
        guard openGroups.isEmpty else {
            return invalidState("undo was called with too many nested undo groups")
        }
        undoNestedGroup()
    }

    /// Undoes the last undo group, top-level or nested, recording what its actions register as one
    /// group on the redo stack. With no group open it is the last group of the undo stack; with groups
    /// open, the last nested group closed in the innermost one. Posts `NSUndoManagerCheckpoint`,
    /// `NSUndoManagerWillUndoChange`, then `NSUndoManagerDidUndoChange` after the undo.
    open func undoNestedGroup() {
        guard !undoing && !redoing else { return invalidState("undo called while undoing or redoing") }
        post(.NSUndoManagerCheckpoint)
        let group: UndoGroup
        if let innermost = openGroups.last {
            guard case .group(let nested)? = innermost.items.last else {
                return invalidState("undoNestedGroup() found no closed nested group to undo")
            }
            innermost.items.removeLast()
            group = nested
        } else {
            guard let last = undoStack.popLast() else { return }
            group = last
        }
        post(.NSUndoManagerWillUndoChange)
        perform(group, undoing: true)
        post(.NSUndoManagerDidUndoChange)
    }

    /// Performs the last group of the redo stack, recording what its actions register as one group on
    /// the undo stack (without clearing the redo stack). Posts `NSUndoManagerCheckpoint`,
    /// `NSUndoManagerWillRedoChange`, then `NSUndoManagerDidRedoChange` after the redo.
    open func redo() {
        guard !undoing && !redoing else { return invalidState("redo() called while undoing or redoing") }
        post(.NSUndoManagerCheckpoint)
        guard let group = redoStack.popLast() else { return }
        post(.NSUndoManagerWillRedoChange)
        perform(group, undoing: false)
        post(.NSUndoManagerDidRedoChange)
    }

    /// Whether an undo is in progress (true inside the handlers ``undo()`` runs).
    open var isUndoing: Bool { undoing }

    /// Whether a redo is in progress (true inside the handlers ``redo()`` runs).
    open var isRedoing: Bool { redoing }

    // MARK: - Groups

    /// Opens an undo group, nested in the open one if any. Posts `NSUndoManagerCheckpoint` (unless
    /// the group is the one an undo or redo records into) and `NSUndoManagerDidOpenUndoGroup`.
    open func beginUndoGrouping() {
        if !(openGroups.isEmpty && (undoing || redoing)) { post(.NSUndoManagerCheckpoint) }
        nextSerial += 1
        openGroups.append(UndoGroup(serial: nextSerial))
        post(.NSUndoManagerDidOpenUndoGroup)
    }

    /// Closes the innermost open group: a nested group becomes one step of its parent, a top-level group
    /// goes on the undo stack (on the redo stack if it recorded an undo), dropping the oldest groups
    /// beyond ``levelsOfUndo``. Empty groups are dropped. Posts `NSUndoManagerCheckpoint`,
    /// `NSUndoManagerWillCloseUndoGroup` (with `NSUndoManagerGroupIsDiscardableKey` in its `userInfo`
    /// if the group is discardable) and `NSUndoManagerDidCloseUndoGroup`.
    open func endUndoGrouping() {
        guard let group = openGroups.last else {
            return invalidState("endUndoGrouping called with no matching begin")
        }
        post(.NSUndoManagerCheckpoint)
        post(.NSUndoManagerWillCloseUndoGroup,
             userInfo: group.isDiscardable ? [NSUndoManagerGroupIsDiscardableKey: true] : nil)
        openGroups.removeLast()
        if group.serial == implicitGroupSerial { implicitGroupSerial = nil }
        if !group.items.isEmpty {
            if let parent = openGroups.last {
                parent.items.append(.group(group))
            } else if undoing {
                redoStack.append(group)
                trim(&redoStack)
            } else {
                undoStack.append(group)
                trim(&undoStack)
            }
        }
        post(.NSUndoManagerDidCloseUndoGroup)
    }

    /// The number of open groups (0 when none is open). During an undo or redo, 1: the group
    /// recording the inverse actions.
    open var groupingLevel: Int { openGroups.count }

    /// Whether a registration outside any group opens a group that closes on its own at the end of the
    /// event: here, when the main actor has finished its current work (see the class documentation).
    /// Default `true`. When `false`, open and close groups yourself before registering and undoing.
    open var groupsByEvent = true

    /// The maximum number of top-level groups kept on the undo stack (and on the redo stack); `0`, the
    /// default, keeps all. Beyond it the oldest groups are dropped, at once when it is lowered.
    open var levelsOfUndo = 0 {
        didSet {
            trim(&undoStack)
            trim(&redoStack)
        }
    }

    // MARK: - Enabling and clearing

    /// Whether registrations are recorded (no ``disableUndoRegistration()`` in effect).
    open var isUndoRegistrationEnabled: Bool { disableCount == 0 }

    /// Stops recording registrations until a balancing ``enableUndoRegistration()``. Calls nest.
    open func disableUndoRegistration() { disableCount += 1 }

    /// Balances one ``disableUndoRegistration()``; recording resumes when all are balanced.
    open func enableUndoRegistration() {
        guard disableCount > 0 else {
            return invalidState("enableUndoRegistration called with no matching disableUndoRegistration")
        }
        disableCount -= 1
    }

    /// Clears the undo and redo stacks and the open groups, and re-enables registration.
    open func removeAllActions() {
        undoStack.removeAll()
        redoStack.removeAll()
        openGroups.removeAll()
        implicitGroupSerial = nil
        disableCount = 0
        epoch += 1
    }

    /// Removes every action registered with `target` (compared by identity) from the stacks and the open
    /// groups, dropping closed groups left empty. Does not re-enable registration.
    open func removeAllActions(withTarget target: Any) {
        let object = target as AnyObject
        for group in undoStack + redoStack + openGroups { group.removeActions(withTarget: object) }
        undoStack.removeAll { $0.items.isEmpty }
        redoStack.removeAll { $0.items.isEmpty }
    }

    // MARK: - Action names

    /// Names the action being recorded: the open top-level group, or with none open the last group of
    /// the undo stack. While undoing it names the redo action being recorded. An empty name removes the
    /// name. Ignored while registration is disabled.
    open func setActionName(_ actionName: String) {
        guard disableCount == 0, let group = openGroups.first ?? undoStack.last else { return }
        group.actionName = actionName
    }

    /// The name of the action ``undo()`` would undo; empty if it has none or there is nothing to undo.
    open var undoActionName: String { (pendingGroup(forRedo: false) ?? undoStack.last)?.actionName ?? "" }

    /// The name of the action ``redo()`` would redo; empty if it has none or there is nothing to redo.
    open var redoActionName: String { (pendingGroup(forRedo: true) ?? redoStack.last)?.actionName ?? "" }

    /// The Undo menu item's title, such as "Undo Paste": ``undoMenuTitle(forUndoActionName:)`` of
    /// ``undoActionName``.
    open var undoMenuItemTitle: String { undoMenuTitle(forUndoActionName: undoActionName) }

    /// The Redo menu item's title, such as "Redo Paste": ``redoMenuTitle(forUndoActionName:)`` of
    /// ``redoActionName``.
    open var redoMenuItemTitle: String { redoMenuTitle(forUndoActionName: redoActionName) }

    /// "Undo" followed by `actionName` if it is not empty. Override to localize.
    open func undoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Undo" : "Undo \(actionName)"
    }

    /// "Redo" followed by `actionName` if it is not empty. Override to localize.
    open func redoMenuTitle(forUndoActionName actionName: String) -> String {
        actionName.isEmpty ? "Redo" : "Redo \(actionName)"
    }

    // MARK: - Discardable actions

    /// Marks the action being recorded (the group ``setActionName(_:)`` would name) as discardable:
    /// one that can be dropped when a document cannot be saved, such as a change of the visible area.
    open func setActionIsDiscardable(_ discardable: Bool) {
        (openGroups.first ?? undoStack.last)?.isDiscardable = discardable
    }

    /// Whether the action ``undo()`` would undo is discardable.
    open var undoActionIsDiscardable: Bool { (pendingGroup(forRedo: false) ?? undoStack.last)?.isDiscardable ?? false }

    /// Whether the action ``redo()`` would redo is discardable.
    open var redoActionIsDiscardable: Bool { (pendingGroup(forRedo: true) ?? redoStack.last)?.isDiscardable ?? false }

    // MARK: - Implementation

    /// The open top-level group if it has actions and will go to the redo stack (`forRedo`, while
    /// undoing) or the undo stack (otherwise) when it closes.
    private func pendingGroup(forRedo: Bool) -> UndoGroup? {
        guard undoing == forRedo, let group = openGroups.first, !group.items.isEmpty else { return nil }
        return group
    }

    private func openImplicitGroup() {
        beginUndoGrouping()
        let serial = nextSerial
        implicitGroupSerial = serial
        // The end of this "event": the task runs once the main actor is done with the work queued before
        // it. An implicit group already closed (by undo(), endUndoGrouping() or removeAllActions()) or
        // with explicit groups still open inside it is left alone.
        Task { @MainActor [weak self] in
            guard let self, self.implicitGroupSerial == serial, self.openGroups.count == 1 else { return }
            self.endUndoGrouping()
        }
    }

    /// Runs `group`'s actions, last registered first, recording what they register into a new top-level
    /// group that goes on the redo stack (undoing) or the undo stack (redoing).
    private func perform(_ group: UndoGroup, undoing isUndo: Bool) {
        let setAside = openGroups, setAsideImplicit = implicitGroupSerial, startEpoch = epoch
        openGroups = []
        if isUndo { undoing = true } else { redoing = true }
        defer { if isUndo { undoing = false } else { redoing = false } }
        beginUndoGrouping()
        openGroups[0].actionName = group.actionName
        openGroups[0].isDiscardable = group.isDiscardable
        group.perform()
        // removeAllActions() in a handler cleared everything, the recording group included.
        guard epoch == startEpoch else { return }
        while !openGroups.isEmpty { endUndoGrouping() }
        openGroups = setAside
        implicitGroupSerial = setAsideImplicit
    }

    private func trim(_ stack: inout [UndoGroup]) {
        if levelsOfUndo > 0, stack.count > levelsOfUndo { stack.removeFirst(stack.count - levelsOfUndo) }
    }

    private func post(_ name: Notification.Name, userInfo: [AnyHashable: Any]? = nil) {
        NotificationCenter.default.post(name: name, object: self, userInfo: userInfo)
    }

    private func invalidState(_ message: String) {
        logger.warning("UndoManager \(Unmanaged.passUnretained(self).toOpaque()) is in invalid state, \(message)")
    }
}

/// One registered action: the handler and its (weakly held) target.
@MainActor
private struct UndoAction {
    weak var target: AnyObject?
    let handler: @MainActor (AnyObject) -> Void

    init(target: AnyObject, handler: @escaping @MainActor (AnyObject) -> Void) {
        self.target = target
        self.handler = handler
    }
}

/// An undo group: actions and closed nested groups in registration order, with the action's name.
@MainActor
private final class UndoGroup {
    enum Item {
        case action(UndoAction)
        case group(UndoGroup)
    }

    let serial: Int
    var items: [Item] = []
    var actionName = ""
    var isDiscardable = false

    init(serial: Int) { self.serial = serial }

    /// Runs the actions, the last registered first; actions whose target is gone are skipped.
    func perform() {
        for item in items.reversed() {
            switch item {
            case .action(let action): if let target = action.target { action.handler(target) }
            case .group(let group): group.perform()
            }
        }
    }

    func removeActions(withTarget target: AnyObject) {
        items.removeAll { item in
            switch item {
            case .action(let action): return action.target === target
            case .group(let group):
                group.removeActions(withTarget: target)
                return group.items.isEmpty
            }
        }
    }
}

extension NSNotification.Name {
    /// Posted when an undo manager opens or closes a group (except the group an undo or redo records
    /// into), before an undo or redo, and when ``UndoManager/canRedo`` is read. Object: the manager.
    public static let NSUndoManagerCheckpoint = Self("NSUndoManagerCheckpointNotification")
    /// Posted before an undo manager performs an undo. Object: the manager.
    public static let NSUndoManagerWillUndoChange = Self("NSUndoManagerWillUndoChangeNotification")
    /// Posted after an undo manager performs an undo. Object: the manager.
    public static let NSUndoManagerDidUndoChange = Self("NSUndoManagerDidUndoChangeNotification")
    /// Posted before an undo manager performs a redo. Object: the manager.
    public static let NSUndoManagerWillRedoChange = Self("NSUndoManagerWillRedoChangeNotification")
    /// Posted after an undo manager performs a redo. Object: the manager.
    public static let NSUndoManagerDidRedoChange = Self("NSUndoManagerDidRedoChangeNotification")
    /// Posted after an undo manager opens a group. Object: the manager.
    public static let NSUndoManagerDidOpenUndoGroup = Self("NSUndoManagerDidOpenUndoGroupNotification")
    /// Posted before an undo manager closes a group. Object: the manager; `userInfo` holds
    /// `NSUndoManagerGroupIsDiscardableKey: true` if the group is discardable.
    public static let NSUndoManagerWillCloseUndoGroup = Self("NSUndoManagerWillCloseUndoGroupNotification")
    /// Posted after an undo manager closes a group. Object: the manager.
    public static let NSUndoManagerDidCloseUndoGroup = Self("NSUndoManagerDidCloseUndoGroupNotification")
}

/// The `userInfo` key of `NSUndoManagerWillCloseUndoGroup` whose value, `true`, says the closing group
/// is discardable (see ``UndoManager/setActionIsDiscardable(_:)``).
public let NSUndoManagerGroupIsDiscardableKey = "NSUndoManagerGroupIsDiscardableKey"
#endif
