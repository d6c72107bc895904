/// A condition satisfied when all of its conditions are: the AND of a list.
///
/// The conditions are evaluated in a nested `ConditionEvaluator` in `ConditionEvaluator/Mode/all` mode, each
/// with its own dependencies, produced dependencies and requirements. The first failure decides (the others are
/// cancelled); otherwise the results combine as the procedure's own conditions do: satisfied and ignored together
/// are satisfied, all ignored is ignored, and an empty list is ignored (the procedure does not execute, with no
/// error). The categories are the union of the conditions' categories. Duplicate instances are kept once, in
/// their first position. The name lists the conditions' names, such as `"And<TrueCondition, BlockCondition>"`.
///
/// ```swift
/// procedure.add(condition: isOnline && hasCredentials)
/// ```
///
/// Threads: the completion runs on whichever thread delivers the deciding result. Cancellation: when the
/// evaluation this condition belongs to ends early, the nested evaluation is cancelled (its produced dependencies
/// still running are cancelled) and the completion is not called. Attach an instance to one procedure at a time.
public final class AndCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: `conditions` is immutable; `nested` is Sendable (it guards its evaluators with a
    // PKMutex); the superclass guards its own state with its PKMutex.

    /// The conditions, in order, without duplicates.
    public let conditions: [Condition]

    private let nested = NestedEvaluations()

    /// Creates the AND of `conditions`; duplicate instances are removed, keeping the first.
    public init(_ conditions: [Condition]) {
        self.conditions = conditions.withoutDuplicateInstances()
        super.init()
        name = "And<\(self.conditions.map(\.conditionName).joined(separator: ", "))>"
    }

    /// The union of the conditions' categories, with any added to this condition directly.
    public override var mutuallyExclusiveCategories: Set<String> {
        get { conditions.reduce(super.mutuallyExclusiveCategories) { $0.union($1.mutuallyExclusiveCategories) } }
        set { super.mutuallyExclusiveCategories = newValue }
    }

    /// Evaluates the conditions in a nested evaluator and completes with the combined result.
    public override func evaluate(procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        nested.run(conditions, mode: .all, for: procedure, completion: completion)
    }

    /// Cancels the nested evaluation.
    public override func evaluationWasCancelled() {
        nested.cancelAll()
    }
}

/// The AND of two conditions. An operand that is itself an ``AndCondition`` contributes its conditions, so
/// `a && b && c` is one `AndCondition` of three.
public func && (lhs: Condition, rhs: Condition) -> AndCondition {
    AndCondition(andOperands(lhs) + andOperands(rhs))
}

private func andOperands(_ condition: Condition) -> [Condition] {
    (condition as? AndCondition)?.conditions ?? [condition]
}
