import Foundation

/// Evaluates a list of conditions for a procedure, with their dependencies, combining the results.
///
/// With ``Mode/all`` (how a procedure's own conditions are combined) the first failure ends the evaluation;
/// with ``Mode/any`` the first satisfied condition does. Otherwise the results gathered are combined (see
/// ``combine(_:)``): any failure fails (two or more become one ``ProcedureKitError/FailedConditions``), else any
/// ignored result ignores, else the conditions are satisfied; no conditions at all are ignored. So a procedure
/// never executes after a failed or ignored condition, whatever other conditions it has. A condition's error
/// reaches the procedure as the condition reported it; its name is logged. Each condition's
/// ``Condition/output`` is set to its own result.
///
/// For each condition the evaluator waits for its dependencies, runs its produced dependencies on a private
/// queue, checks its ``Condition/dependencyRequirements``, then calls ``Condition/evaluate(procedure:completion:)``.
/// Ending early (or ``cancel()``) cancels produced dependencies that are still running and tells outstanding
/// conditions through ``Condition/evaluationWasCancelled()``. Compound conditions use an evaluator for their
/// nested conditions. Thread-safe; the completion runs once, on the thread that delivers the deciding result.
public final class ConditionEvaluator: @unchecked Sendable {
    // @unchecked Sendable: every mutable field lives in `state`, guarded by its PKMutex; `conditions` and `mode`
    // are immutable.

    /// How results are combined.
    public enum Mode: Sendable {
        /// All must hold (AND): the first failure decides.
        case all
        /// One must hold (OR): the first satisfied condition decides.
        case any
    }

    /// Who hears the decision: a closure (the public API), or a procedure evaluating its own conditions (no
    /// closure to allocate).
    private enum Decision {
        case closure(@Sendable (ConditionResult) -> Void)
        case procedure(Procedure)
    }

    /// The conditions' results by index; the first is kept inline (most procedures have one condition).
    // PERF(W7): no array allocated for a procedure's single condition.
    private struct Results {
        private var first: ConditionResult?
        private var rest: [ConditionResult?]
        let count: Int

        init(count: Int) {
            self.count = count
            rest = count > 1 ? Array(repeating: nil, count: count - 1) : []
        }

        subscript(index: Int) -> ConditionResult? {
            get { index == 0 ? first : rest[index - 1] }
            set {
                if index == 0 {
                    first = newValue
                } else {
                    rest[index - 1] = newValue
                }
            }
        }

        /// The results gathered so far, in order.
        var gathered: [ConditionResult] { ([first] + rest).compactMap { $0 } }
    }

    private struct State {
        var results: Results
        var remaining: Int
        var decision: Decision?
        var barriers: [DependencyBarrier] = []
        var produced: [Operation] = []
        var isDone = false
    }

    private let conditions: [Condition]
    private let mode: Mode
    private let state: PKMutex<State>

    /// The queue produced dependencies run on; it is not the procedure's queue, so its delegate never sees them.
    static let producedDependencyQueue = ProcedureQueue(name: "PKCore.ConditionDependencies")

    /// Creates an evaluator for `conditions`, in order, duplicates removed.
    public convenience init(conditions: [Condition], mode: Mode = .all) {
        guard conditions.count > 1 else {
            self.init(uniqueConditions: conditions, mode: mode)
            return
        }
        var seen = Set<ObjectIdentifier>()
        self.init(uniqueConditions: conditions.filter { seen.insert(ObjectIdentifier($0)).inserted }, mode: mode)
    }

    /// Creates an evaluator for `conditions`, in order, which the caller knows hold no duplicates.
    init(uniqueConditions conditions: [Condition], mode: Mode) {
        self.conditions = conditions
        self.mode = mode
        state = PKMutex(State(results: Results(count: conditions.count), remaining: conditions.count))
    }

    /// The union of the conditions' mutually exclusive categories.
    public var mutuallyExclusiveCategories: Set<String> {
        conditions.reduce(into: Set<String>()) { $0.formUnion($1.mutuallyExclusiveCategories) }
    }

    /// Starts evaluating for `procedure`; `completion` runs once with the combined result, unless cancelled.
    public func evaluate(for procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        evaluate(for: procedure, decision: .closure(completion))
    }

    /// Starts evaluating `procedure`'s own conditions; the decision goes to its `conditionsDidComplete`.
    func evaluateOwnConditions(of procedure: Procedure) {
        evaluate(for: procedure, decision: .procedure(procedure))
    }

    private func evaluate(for procedure: Procedure, decision: Decision) {
        let empty = state.withLock { state -> Bool in
            state.decision = decision
            return conditions.isEmpty
        }
        if empty {
            finish(with: .success(false))
            return
        }
        for (index, condition) in conditions.enumerated() {
            if state.withLock({ $0.isDone }) { return }
            start(condition, at: index, for: procedure)
        }
    }

    /// Abandons the evaluation: the completion will not run, produced dependencies still running are cancelled
    /// and outstanding conditions are told.
    public func cancel() {
        end()
    }

    private func start(_ condition: Condition, at index: Int, for procedure: Procedure) {
        let dependencies = condition.dependencies
        let produced = condition.producedDependencies
        guard !dependencies.isEmpty || !produced.isEmpty else {
            callEvaluate(condition, at: index, for: procedure)
            return
        }
        let barrier = DependencyBarrier(operations: dependencies + produced) { [self] in
            if let failure = Self.requirementFailure(of: condition, dependencies: dependencies + produced) {
                record(.failure(failure), at: index, of: condition, for: procedure)
            } else {
                callEvaluate(condition, at: index, for: procedure)
            }
        }
        // Registered and checked in one step: an evaluation cancelled since the caller looked (a cancel landing
        // between the check and here) has already cancelled what it knew of, so this condition's produced
        // dependencies are cancelled here instead; they are still added, so they finish.
        let abandoned = state.withLock { state -> Bool in
            guard !state.isDone else { return true }
            state.barriers.append(barrier)
            state.produced.append(contentsOf: produced)
            return false
        }
        if abandoned {
            barrier.cancel()
            for operation in produced { operation.cancel() }
        }
        for operation in produced {
            Self.producedDependencyQueue.addOperation(operation)
        }
    }

    private func callEvaluate(_ condition: Condition, at index: Int, for procedure: Procedure) {
        condition.evaluate(procedure: procedure) { [self, weak procedure] result in
            record(result, at: index, of: condition, for: procedure)
        }
    }

    /// Checks a condition's dependency requirements; returns the error when they are not met.
    private static func requirementFailure(of condition: Condition, dependencies: [Operation]) -> (any Error)? {
        let requirements = condition.dependencyRequirements
        guard !requirements.isEmpty else { return nil }
        let procedures = dependencies.compactMap { $0 as? Procedure }
        if requirements.contains(.noFailed) {
            let failed = procedures.contains { procedure in
                guard procedure.failed else { return false }
                return !(requirements.contains(.ignoreFailedIfCancelled) && procedure.isCancelled)
            }
            if failed { return ProcedureKitError.ConditionDependenciesFailed(condition: condition) }
        }
        if requirements.contains(.noCancelled), dependencies.contains(where: \.isCancelled) {
            return ProcedureKitError.ConditionDependenciesCancelled(condition: condition)
        }
        return nil
    }

    /// Records the condition's first result (a later one is ignored with a warning) and decides when it can.
    private func record(_ result: ConditionResult, at index: Int, of condition: Condition, for procedure: Procedure?) {
        enum Next {
            case duplicate
            case wait
            case decide(ConditionResult)
        }
        let next = state.withLock { state -> Next in
            guard state.results[index] == nil else { return .duplicate }
            // Set while the result is recorded, so it is visible before anyone acts on the decision.
            condition.output = .ready(result)
            state.results[index] = result
            guard !state.isDone else { return .wait }
            state.remaining -= 1
            switch (mode, result) {
            case (.all, .failure): return .decide(result)
            case (.any, .success(true)): return .decide(result)
            default: break
            }
            guard state.remaining == 0 else { return .wait }
            return .decide(state.results.count == 1 ? result : Self.combine(state.results.gathered))
        }
        if case .duplicate = next {
            Log.write(.warning, "\(condition.conditionName) called its completion more than once; ignored")
            return
        }
        if case .failure(let error) = result {
            Log.write(
                .info, "condition \(condition.conditionName) failed: \(error)", subsystem: procedure?.procedureName)
        }
        if case .decide(let result) = next { finish(with: result) }
    }

    /// Combines results: any failure fails (one failure as it is, several as one
    /// ``ProcedureKitError/FailedConditions`` in order); otherwise any ignored result (`.success(false)`), or no
    /// result at all, ignores; otherwise every condition was satisfied.
    ///
    /// Unlike ProcedureKit, an ignored condition is not outweighed by a satisfied one: a `BlockCondition` that
    /// returns `false` keeps its procedure from executing even when `MutuallyExclusive` (always satisfied) is
    /// attached too.
    public static func combine(_ results: [ConditionResult]) -> ConditionResult {
        var failures: [any Error] = []
        var ignored = results.isEmpty
        for result in results {
            switch result {
            case .failure(let error): failures.append(error)
            case .success(false): ignored = true
            case .success(true): break
            }
        }
        switch failures.count {
        case 0: return .success(!ignored)
        case 1: return .failure(failures[0])
        default: return .failure(ProcedureKitError.FailedConditions(errors: failures))
        }
    }

    private func finish(with result: ConditionResult) {
        switch end() {
        case .closure(let completion): completion(result)
        case .procedure(let procedure):
            procedure.conditionsDidComplete(result, categories: mutuallyExclusiveCategories)
        case nil: break
        }
    }

    /// Marks the evaluation done and cleans up; returns who hears the decision if nobody has yet.
    @discardableResult
    private func end() -> Decision? {
        let (decision, barriers, produced, outstanding) = state.withLock {
            state -> (Decision?, [DependencyBarrier], [Operation], [Condition]) in
            guard !state.isDone else { return (nil, [], [], []) }
            state.isDone = true
            let decision = state.decision
            state.decision = nil
            let outstanding = conditions.indices.filter { state.results[$0] == nil }.map { conditions[$0] }
            defer {
                state.barriers = []
                state.produced = []
            }
            return (decision, state.barriers, state.produced, outstanding)
        }
        for barrier in barriers { barrier.cancel() }
        for operation in produced where !operation.isFinished { operation.cancel() }
        for condition in outstanding { condition.evaluationWasCancelled() }
        return decision
    }
}
