import PKCore

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
    public init(category: String = MutuallyExclusive.defaultCategory) {
        super.init()
        // No name is stored: the default, the type's name, is "MutuallyExclusive<T>" with `T` spelled out, and it is
        // only worked out (by reflection, which is slow) when someone asks.
        addToAttachedProcedure(mutuallyExclusiveCategory: category)
    }

    /// The category ``init(category:)`` uses by default: `"MutuallyExclusive<T>"` with `T` spelled out. Worked
    /// out once per type (spelling a type out uses reflection, which is slow), then looked up.
    public static var defaultCategory: String {
        let type = ObjectIdentifier(T.self)
        if let known = defaultCategories.withLock({ $0[type] }) { return known }
        let category = "MutuallyExclusive<\(String(describing: T.self))>"
        defaultCategories.withLock { $0[type] = category }
        return category
    }

    /// Completes with `.success(true)` at once, on the calling thread.
    public override func evaluate(procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        completion(.success(true))
    }
}

/// The default category of each `MutuallyExclusive<T>` worked out so far, by `T`.
private let defaultCategories = PKMutex<[ObjectIdentifier: String]>([:])
