/// A condition that is always satisfied and makes the attached procedure mutually exclusive in one category.
///
/// Two procedures carrying the same category never run at the same time, whichever queues they are on: each
/// takes the category's process-wide lock after its conditions pass and before it becomes ready, and gives it
/// back when it finishes. The type parameter only names the default category, so
/// `MutuallyExclusive<DatabaseWrite>()` and another `MutuallyExclusive<DatabaseWrite>()` exclude each other.
///
/// ```swift
/// procedure.add(condition: MutuallyExclusive<DatabaseWrite>())
/// ```
///
/// ``evaluate(procedure:completion:)`` completes synchronously on the calling evaluation thread; there is nothing
/// to cancel. A procedure cancelled while it waits for the lock gives up its place without running.
public final class MutuallyExclusive<T>: Condition, @unchecked Sendable {
    // @unchecked Sendable: `T` is only a phantom naming the category; the superclass guards its state with its
    // PKMutex.

    /// Creates the condition.
    ///
    /// - Parameter category: The category; defaults to `"MutuallyExclusive<T>"` with `T` spelled out.
    public init(category: String = "MutuallyExclusive<\(String(describing: T.self))>") {
        super.init()
        name = "MutuallyExclusive<\(String(describing: T.self))>"
        addToAttachedProcedure(mutuallyExclusiveCategory: category)
    }

    /// Completes with `.success(true)` at once, on the calling thread.
    public override func evaluate(procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        completion(.success(true))
    }
}
