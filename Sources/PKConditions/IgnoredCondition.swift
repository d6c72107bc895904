/// A condition that turns the wrapped condition's failure into "ignored".
///
/// Satisfied and ignored results pass through; a failure becomes `.success(false)`. So the result is never a
/// failure: on its own, a failing inner condition stops the procedure without an error, and next to a satisfied
/// condition it does not stop it at all (ignored plus satisfied is satisfied). The name is `"Ignored<inner>"`.
///
/// Threads and cancellation are as for ``ComposedCondition``.
public final class IgnoredCondition: ComposedCondition, @unchecked Sendable {
    // @unchecked Sendable: no stored properties of its own; ComposedCondition documents its locking.

    /// Wraps `condition`; the name is `"Ignored<name of condition>"`.
    public override init(_ condition: Condition) {
        super.init(condition)
        name = "Ignored<\(condition.conditionName)>"
    }

    /// A failure becomes `.success(false)`; anything else passes through.
    public override func result(from innerResult: ConditionResult) -> ConditionResult {
        if case .failure = innerResult { return .success(false) }
        return innerResult
    }
}
