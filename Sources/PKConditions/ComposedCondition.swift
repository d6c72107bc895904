/// A condition that wraps another one and reshapes its result: the base of ``NegatedCondition``,
/// ``SilentCondition`` and ``IgnoredCondition``.
///
/// The inner condition is evaluated in a nested `ConditionEvaluator`, so its own dependencies, produced
/// dependencies and `Condition/dependencyRequirements` are honoured, and its `Condition/output` is set to its
/// own result. The composed condition reports the inner condition's mutually exclusive categories (with any of
/// its own), so wrapping never loses a lock. Its own `Condition/output` is the reshaped result.
///
/// Subclass it and override ``result(from:)`` to map the inner result; inner failures reach it as the inner
/// condition reported them.
///
/// Threads: ``evaluate(procedure:completion:)`` returns at once; the completion runs on whichever thread delivers
/// the inner result. Cancellation: when the evaluation this condition belongs to ends early (another condition
/// decided, or the procedure was cancelled), the nested evaluation is cancelled, which cancels the inner
/// condition's produced dependencies still running; the completion is then not called.
///
/// A composed condition belongs to one procedure at a time: if one instance were evaluated for several
/// procedures at once, cancelling one evaluation would cancel the others too.
open class ComposedCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: `condition` is immutable; `nested` is Sendable (it guards its evaluators with a
    // PKMutex); the superclass guards its own state with its PKMutex.

    /// The wrapped condition.
    public let condition: Condition

    private let nested = NestedEvaluations()

    /// Wraps `condition`. The name defaults to the type name; subclasses set a name built from the inner one.
    public init(_ condition: Condition) {
        self.condition = condition
        super.init()
    }

    /// The wrapped condition's categories together with any added to this condition directly.
    open override var mutuallyExclusiveCategories: Set<String> {
        get { super.mutuallyExclusiveCategories.union(condition.mutuallyExclusiveCategories) }
        set { super.mutuallyExclusiveCategories = newValue }
    }

    /// Evaluates the wrapped condition in a nested evaluator and completes with ``result(from:)`` of its result,
    /// on the thread that delivered it.
    open override func evaluate(procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        nested.run([condition], mode: .all, for: procedure) { [self] result in
            completion(self.result(from: result))
        }
    }

    /// Maps the wrapped condition's result to this condition's result. The default passes it through.
    ///
    /// Called once per evaluation, on the thread that delivered the inner result; keep it quick and do not block.
    open func result(from innerResult: ConditionResult) -> ConditionResult {
        innerResult
    }

    /// Cancels the nested evaluation of the wrapped condition.
    open override func evaluationWasCancelled() {
        nested.cancelAll()
    }
}
