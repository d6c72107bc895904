/// A condition that always fails, with `ProcedureKitError.FalseCondition()`.
///
/// The procedure it is attached to never executes: it finishes cancelled with that error.
///
/// ``evaluate(procedure:completion:)`` completes synchronously on the calling evaluation thread; there is nothing
/// to cancel.
public final class FalseCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: no stored properties of its own; the superclass guards its state with its PKMutex.

    /// Creates a condition that always fails.
    ///
    /// - Parameters:
    ///   - name: The condition's name.
    ///   - mutuallyExclusiveCategory: A category in which the attached procedure is mutually exclusive, or `nil`.
    public init(name: String = "FalseCondition", mutuallyExclusiveCategory: String? = nil) {
        super.init()
        self.name = name
        if let mutuallyExclusiveCategory {
            addToAttachedProcedure(mutuallyExclusiveCategory: mutuallyExclusiveCategory)
        }
    }

    /// Completes with `.failure(ProcedureKitError.FalseCondition())` at once, on the calling thread.
    public override func evaluate(procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        completion(.failure(ProcedureKitError.FalseCondition()))
    }
}
