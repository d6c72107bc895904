/// A condition that is always satisfied.
///
/// Useful in tests, and as a carrier for a mutually exclusive category: `TrueCondition(mutuallyExclusiveCategory:
/// "database")` lets the procedure run but never at the same time as another procedure in the `"database"`
/// category.
///
/// ``evaluate(procedure:completion:)`` completes synchronously on the calling evaluation thread; there is nothing
/// to cancel.
public final class TrueCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: no stored properties of its own; the superclass guards its state with its PKMutex.

    /// Creates a condition that is always satisfied.
    ///
    /// - Parameters:
    ///   - name: The condition's name.
    ///   - mutuallyExclusiveCategory: A category in which the attached procedure is mutually exclusive, or `nil`.
    public init(name: String = "TrueCondition", mutuallyExclusiveCategory: String? = nil) {
        super.init()
        self.name = name
        if let mutuallyExclusiveCategory {
            addToAttachedProcedure(mutuallyExclusiveCategory: mutuallyExclusiveCategory)
        }
    }

    /// Completes with `.success(true)` at once, on the calling thread.
    public override func evaluate(procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        completion(.success(true))
    }
}
