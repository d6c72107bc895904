import Dispatch
import PKConditions

/// A condition that completes with a fixed result, counting its evaluations and running an optional probe first.
final class RecordingCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: `count` is guarded by its PKMutex; everything else is immutable and Sendable.

    /// Signalled at each evaluation, before completing.
    let evaluated = DispatchSemaphore(value: 0)
    private let result: ConditionResult
    private let probe: (@Sendable (Procedure) -> Void)?
    private let count = PKMutex(0)

    init(
        name: String = "RecordingCondition", result: ConditionResult = .success(true),
        probe: (@Sendable (Procedure) -> Void)? = nil
    ) {
        self.result = result
        self.probe = probe
        super.init()
        self.name = name
    }

    var evaluateCount: Int { count.withLock { $0 } }

    override func evaluate(procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        count.withLock { $0 += 1 }
        probe?(procedure)
        evaluated.signal()
        completion(result)
    }
}

/// A condition whose evaluation never completes; it records being told that the evaluation was cancelled.
final class StuckCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: the semaphores are thread-safe; the superclass guards its state with its PKMutex.

    /// Signalled when `evaluate` is called.
    let evaluating = DispatchSemaphore(value: 0)
    /// Signalled when `evaluationWasCancelled()` is called.
    let cancelled = DispatchSemaphore(value: 0)

    init(name: String = "StuckCondition") {
        super.init()
        self.name = name
    }

    override func evaluate(procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        evaluating.signal()
    }

    override func evaluationWasCancelled() {
        cancelled.signal()
    }
}
