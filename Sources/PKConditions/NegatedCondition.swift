/// A condition satisfied exactly when the wrapped condition is not: it inverts the result.
///
/// - Inner satisfied → fails with `ProcedureKitError.conditionFailed()`, so the procedure finishes cancelled
///   with that error.
/// - Inner ignored or failed → satisfied, so the procedure may execute.
///
/// ```swift
/// procedure.add(condition: !BlockCondition { cache.isWarm })
/// ```
///
/// Threads and cancellation are as for ``ComposedCondition``.
public final class NegatedCondition: ComposedCondition, @unchecked Sendable {
    // @unchecked Sendable: no stored properties of its own; ComposedCondition documents its locking.

    /// Wraps `condition`; the name is `"Not<name of condition>"`.
    public override init(_ condition: Condition) {
        super.init(condition)
        name = "Not<\(condition.conditionName)>"
    }

    /// Inverts the inner result.
    public override func result(from innerResult: ConditionResult) -> ConditionResult {
        switch innerResult {
        case .success(true): .failure(ProcedureKitError.conditionFailed())
        case .success(false), .failure: .success(true)
        }
    }
}

/// Negates a condition: the same as ``NegatedCondition/init(_:)``.
public prefix func ! (condition: Condition) -> NegatedCondition {
    NegatedCondition(condition)
}
