/// A condition made of a list of conditions combined with AND or OR: the base of ``AndCondition`` and
/// ``OrCondition``, and ProcedureKit's `CompoundCondition`.
///
/// The conditions are evaluated in a nested `ConditionEvaluator`, each with its own dependencies, produced
/// dependencies and requirements, so that an AND stops at its first failure and an OR at its first satisfied
/// condition (the others are cancelled). Otherwise the results combine as `ConditionEvaluator/combine(_:)` says:
/// any failure fails (several as one `ProcedureKitError.FailedConditions`), else any ignored result ignores, else
/// the compound is satisfied; an empty list is ignored (the procedure does not execute, with no error). The
/// categories are the union of the conditions' categories. Duplicate instances are kept once, in their first
/// position.
///
/// Threads: the completion runs on whichever thread delivers the deciding result. Cancellation: when the
/// evaluation this condition belongs to ends early, the nested evaluation is cancelled (its produced dependencies
/// still running are cancelled) and the completion is not called. Attach an instance to one procedure at a time.
open class CompoundCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: `conditions` and `mode` are immutable; `nested` is Sendable (it guards its evaluators
    // with a PKMutex); the superclass guards its own state with its PKMutex.

    /// The conditions, in order, without duplicates.
    public let conditions: [Condition]
    private let mode: ConditionEvaluator.Mode
    private let nested = NestedEvaluations()

    /// Creates the AND of `conditions` (satisfied when all are); duplicate instances are removed, keeping the
    /// first. Its name is `"And<names>"`.
    public init<S: Sequence>(andPredicateWith conditions: S) where S.Element == Condition {
        self.conditions = Array(conditions).withoutDuplicateInstances()
        mode = .all
        super.init()
        name = "And<\(self.conditions.map(\.conditionName).joined(separator: ", "))>"
    }

    /// Creates the AND of `conditions`.
    public convenience init(andPredicateWith conditions: Condition...) {
        self.init(andPredicateWith: conditions)
    }

    /// Creates the OR of `conditions` (satisfied when one is); duplicate instances are removed, keeping the
    /// first. Its name is `"Or<names>"`.
    public init<S: Sequence>(orPredicateWith conditions: S) where S.Element == Condition {
        self.conditions = Array(conditions).withoutDuplicateInstances()
        mode = .any
        super.init()
        name = "Or<\(self.conditions.map(\.conditionName).joined(separator: ", "))>"
    }

    /// Creates the OR of `conditions`.
    public convenience init(orPredicateWith conditions: Condition...) {
        self.init(orPredicateWith: conditions)
    }

    /// The union of the conditions' categories, with any added to this condition directly.
    open override var mutuallyExclusiveCategories: Set<String> {
        get { conditions.reduce(super.mutuallyExclusiveCategories) { $0.union($1.mutuallyExclusiveCategories) } }
        set { super.mutuallyExclusiveCategories = newValue }
    }

    /// Evaluates the conditions in a nested evaluator and completes with the combined result.
    open override func evaluate(procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        nested.run(conditions, mode: mode, for: procedure, completion: completion)
    }

    /// Cancels the nested evaluation.
    open override func evaluationWasCancelled() {
        nested.cancelAll()
    }
}
