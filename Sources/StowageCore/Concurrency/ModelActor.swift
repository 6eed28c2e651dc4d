import Dispatch
import Foundation

/// What runs the jobs of a ``ModelActor``: an executor that owns a ``ModelContext``.
///
/// Don't use the executor to reach the context: use the actor's ``ModelActor/modelContext``.
public protocol ModelExecutor: Executor {
    /// The context the executor's jobs use.
    var modelContext: ModelContext { get }
}

/// A ``ModelExecutor`` that runs one job at a time.
public protocol SerialModelExecutor: ModelExecutor, SerialExecutor {}

/// The executor the `@ModelActor` macro gives an actor: runs its jobs one at a time on a serial queue of
/// its own, so the context it owns is only ever used by one job at a time, off the main thread.
public final class DefaultSerialModelExecutor: SerialModelExecutor, @unchecked Sendable {
    // @unchecked Sendable: `modelContext` is not Sendable; it is only used by the jobs this executor
    // runs, one at a time, and by the code that created it before the actor existed.

    /// The context the actor's code uses.
    public let modelContext: ModelContext
    private let queue: DispatchQueue

    /// An executor for the jobs of an actor that uses `modelContext`.
    public init(modelContext: ModelContext) {
        self.modelContext = modelContext
        self.queue = DispatchQueue(label: "Stowage.DefaultSerialModelExecutor")
        modelContext.autosaveQueue = queue
    }

    /// Runs `job` on the executor's serial queue, after the jobs enqueued before it.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// This executor, as the unowned reference the runtime uses to schedule the actor's jobs.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}

/// An actor that owns a ``ModelContext``: its code reads and writes models off the main actor, one
/// call at a time. Declare one with the `@ModelActor` macro:
///
/// ```swift
/// @ModelActor
/// actor Importer {
///     func importBudgets(_ names: [String]) throws -> [PersistentIdentifier] {
///         let budgets = names.map { Budget(name: $0, limit: 100) }
///         for budget in budgets { modelContext.insert(budget) }
///         try modelContext.save()
///         return budgets.map(\.persistentModelID)
///     }
/// }
///
/// let importer = Importer(modelContainer: container)
/// let ids = try await importer.importBudgets(["Food", "Rent"])
/// let food = container.mainContext.model(for: ids[0]) as? Budget   // identifiers cross actors
/// ```
///
/// Models are not `Sendable`: pass their ``PersistentModel/persistentModelID`` between actors and get
/// the model back with ``subscript(_:as:)`` or ``ModelContext/model(for:)``.
public protocol ModelActor: Actor {
    /// The container of the actor's context.
    nonisolated var modelContainer: ModelContainer { get }
    /// The executor that runs the actor's code. Don't use it to reach the context: use
    /// ``modelContext``.
    nonisolated var modelExecutor: any ModelExecutor { get }
}

extension ModelActor {
    /// The actor's executor: its ``modelExecutor``.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        guard let executor = modelExecutor as? any SerialExecutor else {
            preconditionFailure("A ModelActor's modelExecutor must be a SerialModelExecutor, such as DefaultSerialModelExecutor.")
        }
        return executor.asUnownedSerialExecutor()
    }

    /// The context of the actor: use it only from the actor's code.
    public var modelContext: ModelContext {
        modelExecutor.modelContext
    }

    /// The model with an identifier, in the actor's context, if it exists and is a `T`.
    public subscript<T: PersistentModel>(_ id: PersistentIdentifier, as type: T.Type) -> T? {
        if let registered: T = modelContext.registeredModel(for: id) { return registered }
        guard let model = modelContext.model(for: id) as? T, !model.isDeleted else { return nil }
        return model
    }
}
