/// The nested `ConditionEvaluator`s a compound condition has running, so that they can be cancelled when the
/// evaluation the compound is part of ends early.
///
/// Each call to ``run(_:mode:for:completion:)`` starts one evaluator and keeps it until it delivers its result
/// or ``cancelAll()`` is called. Thread-safe.
final class NestedEvaluations: Sendable {

    private let running = PKMutex<[ObjectIdentifier: ConditionEvaluator]>([:])

    init() {}

    /// Evaluates `conditions` for `procedure` in a new evaluator combining them with `mode`, and calls
    /// `completion` with the combined result on the thread that delivers it. Not called if cancelled first.
    func run(
        _ conditions: [Condition], mode: ConditionEvaluator.Mode, for procedure: Procedure,
        completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        let evaluator = ConditionEvaluator(conditions: conditions, mode: mode)
        let key = ObjectIdentifier(evaluator)
        running.withLock { $0[key] = evaluator }
        evaluator.evaluate(for: procedure) { [self] result in
            _ = running.withLock { $0.removeValue(forKey: key) }
            completion(result)
        }
    }

    /// Cancels every evaluator still running; their completions will not be called.
    func cancelAll() {
        let evaluators = running.withLock { running -> [ConditionEvaluator] in
            defer { running.removeAll() }
            return Array(running.values)
        }
        for evaluator in evaluators { evaluator.cancel() }
    }
}
