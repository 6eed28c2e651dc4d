/// What a model keeps of the context that holds it: the context without retaining it, and its container.
///
/// One per context, shared by its models. A model does not keep its context alive (as in SwiftData and
/// Core Data): a context the code lets go of is released with its unsaved changes, and two models
/// related both ways, which hold each other, do not keep their context open. A model keeps the
/// container, so that one still held after its context was released can load its unloaded properties
/// (``ModelBackingData/loadingContext``).
final class ModelContextLink {
    /// The context, until it is released.
    weak var context: ModelContext?
    let container: ModelContainer
    /// The context's identity map (``ModelContext/registered``), here so that a model released leaves
    /// it without reaching the context, which may be gone.
    let registered = IdentityMap()

    init(container: ModelContainer) {
        self.container = container
    }
}
